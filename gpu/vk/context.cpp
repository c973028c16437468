// [SECTION] helpers: device names, extension lookup, the validation messenger
// [SECTION] device choice: which physical device and queue family
// [SECTION] createContext / destroyContext / listDevices
#include "context.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <utility>

namespace alluvium::gpu {

namespace {

// ---------------------------------------------------------------------------------------------
// [SECTION] helpers
// ---------------------------------------------------------------------------------------------

constexpr const char* kValidationLayer = "VK_LAYER_KHRONOS_validation";
constexpr const char* kNoDevice = "no Vulkan device found: install a Vulkan driver (on Debian: mesa-vulkan-drivers)";

const char* deviceTypeName(VkPhysicalDeviceType type) {
    switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return "discrete";
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return "integrated";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return "virtual";
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return "cpu";
    default: return "other";
    }
}

// Higher is preferred when no device index is given: real GPUs first, lavapipe last.
int deviceTypeRank(VkPhysicalDeviceType type) {
    switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return 4;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return 3;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return 2;
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return 1;
    default: return 0;
    }
}

std::string describeDevice(uint32_t index, const VkPhysicalDeviceProperties& p) {
    return std::to_string(index) + ": " + p.deviceName + " [" + deviceTypeName(p.deviceType) + "]";
}

std::string joinDevices(const std::vector<VkPhysicalDevice>& devices) {
    std::string text;
    for (uint32_t i = 0; i < devices.size(); ++i) {
        VkPhysicalDeviceProperties p{};
        vkGetPhysicalDeviceProperties(devices[i], &p);
        text += (i ? "; " : "") + describeDevice(i, p);
    }
    return text;
}

bool hasExtension(const std::vector<VkExtensionProperties>& list, const char* name) {
    for (const VkExtensionProperties& e : list)
        if (std::strcmp(e.extensionName, name) == 0) return true;
    return false;
}

// Vulkan's two-call enumeration (`call(&count, nullptr)`, then `call(&count, data)`); empty when
// the driver fails, what it returned when it reports VK_INCOMPLETE.
template <typename T, typename Call> std::vector<T> enumerated(Call call) {
    uint32_t count = 0;
    if (call(&count, nullptr) != VK_SUCCESS) return {};
    std::vector<T> list(count);
    if (call(&count, list.data()) < VK_SUCCESS) return {};
    list.resize(count);
    return list;
}

// Instance extensions of the loader and implicit layers (layer == nullptr) or of one layer.
std::vector<VkExtensionProperties> instanceExtensions(const char* layer) {
    return enumerated<VkExtensionProperties>(
        [&](uint32_t* n, VkExtensionProperties* p) { return vkEnumerateInstanceExtensionProperties(layer, n, p); });
}

std::vector<VkExtensionProperties> deviceExtensions(VkPhysicalDevice pd) {
    return enumerated<VkExtensionProperties>(
        [&](uint32_t* n, VkExtensionProperties* p) { return vkEnumerateDeviceExtensionProperties(pd, nullptr, n, p); });
}

bool hasLayer(const char* name) {
    for (const VkLayerProperties& layer : enumerated<VkLayerProperties>(vkEnumerateInstanceLayerProperties))
        if (std::strcmp(layer.layerName, name) == 0) return true;
    return false;
}

void addUnique(std::vector<const char*>& list, const char* name) {
    for (const char* n : list)
        if (std::strcmp(n, name) == 0) return;
    list.push_back(name);
}

// Prints every WARNING and ERROR; counts the ERRORs so tests can assert a clean run.
VKAPI_ATTR VkBool32 VKAPI_CALL debugCallback(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                             VkDebugUtilsMessageTypeFlagsEXT types,
                                             const VkDebugUtilsMessengerCallbackDataEXT* data, void* user) {
    const bool error = (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) != 0;
    if (error && user) static_cast<std::atomic<int>*>(user)->fetch_add(1);
    // GENERAL messages come from the loader (e.g. "Found no drivers!"), not from the layer.
    const char* source = (types & VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT) ? "validation" : "vulkan";
    std::fprintf(stderr, "alluvium: %s %s: %s\n", source, error ? "error" : "warning",
                 data && data->pMessage ? data->pMessage : "(no message)");
    return VK_FALSE; // never abort the call: the count is what tests look at
}

// The loader's API version, or 1.0 for a loader too old to have vkEnumerateInstanceVersion.
uint32_t loaderVersion() {
    auto enumerate = reinterpret_cast<PFN_vkEnumerateInstanceVersion>(
        vkGetInstanceProcAddr(VK_NULL_HANDLE, "vkEnumerateInstanceVersion"));
    uint32_t version = VK_API_VERSION_1_0;
    if (enumerate && enumerate(&version) != VK_SUCCESS) version = VK_API_VERSION_1_0;
    return version;
}

std::string versionText(uint32_t version) {
    return std::to_string(VK_API_VERSION_MAJOR(version)) + "." + std::to_string(VK_API_VERSION_MINOR(version));
}

// ---------------------------------------------------------------------------------------------
// [SECTION] device choice
// ---------------------------------------------------------------------------------------------

// A family with COMPUTE; timestamps matter most (bench), then GRAPHICS (the viewer draws with
// the same queue, so no ownership transfers between queues are needed). UINT32_MAX: none.
uint32_t pickQueueFamily(VkPhysicalDevice pd) {
    uint32_t count = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &count, nullptr);
    std::vector<VkQueueFamilyProperties> families(count);
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &count, families.data());
    uint32_t best = UINT32_MAX;
    int best_score = -1;
    for (uint32_t i = 0; i < count; ++i) {
        const VkQueueFamilyProperties& f = families[i];
        if (f.queueCount == 0 || !(f.queueFlags & VK_QUEUE_COMPUTE_BIT)) continue;
        const int score = (f.timestampValidBits > 0 ? 2 : 0) + ((f.queueFlags & VK_QUEUE_GRAPHICS_BIT) ? 1 : 0);
        if (score > best_score) {
            best = i;
            best_score = score;
        }
    }
    return best;
}

// Why this device cannot run Alluvium, or "" if it can (then `family` is its queue family).
std::string deviceProblem(VkPhysicalDevice pd, const std::vector<const char*>& extensions, uint32_t& family) {
    VkPhysicalDeviceProperties props{};
    vkGetPhysicalDeviceProperties(pd, &props);
    if (props.apiVersion < VK_API_VERSION_1_2)
        return "supports only Vulkan " + versionText(props.apiVersion) + " (1.2 required)";
    family = pickQueueFamily(pd);
    if (family == UINT32_MAX) return "has no compute queue";
    VkPhysicalDeviceFeatures features{};
    vkGetPhysicalDeviceFeatures(pd, &features);
    // The run totals (water budget, mass conservation) are accumulated in double precision.
    if (!features.shaderFloat64) return "lacks shaderFloat64 (64-bit floats in shaders, required for the mass totals)";
    const std::vector<VkExtensionProperties> available = deviceExtensions(pd);
    for (const char* name : extensions)
        if (!hasExtension(available, name)) return std::string("lacks device extension ") + name;
    return "";
}

// Chooses the physical device; throws DeviceError explaining why none fits.
VkPhysicalDevice chooseDevice(const std::vector<VkPhysicalDevice>& devices, const ContextOptions& options,
                              uint32_t& index, uint32_t& family) {
    if (options.device_index >= 0) {
        if (static_cast<size_t>(options.device_index) >= devices.size())
            throw DeviceError("device index " + std::to_string(options.device_index) +
                              " out of range; devices: " + joinDevices(devices));
        index = static_cast<uint32_t>(options.device_index);
        VkPhysicalDeviceProperties p{};
        vkGetPhysicalDeviceProperties(devices[index], &p);
        const std::string problem = deviceProblem(devices[index], options.device_extensions, family);
        if (!problem.empty()) throw DeviceError("Vulkan device " + describeDevice(index, p) + " " + problem);
        return devices[index];
    }
    int best_rank = -1;
    std::vector<std::pair<uint32_t, uint32_t>> best; // the best kind's devices: index, queue family
    std::string problems;
    for (uint32_t i = 0; i < devices.size(); ++i) {
        VkPhysicalDeviceProperties p{};
        vkGetPhysicalDeviceProperties(devices[i], &p);
        uint32_t f = 0;
        const std::string problem = deviceProblem(devices[i], options.device_extensions, f);
        if (!problem.empty()) {
            problems += (problems.empty() ? "" : "; ") + describeDevice(i, p) + " " + problem;
            continue;
        }
        if (deviceTypeRank(p.deviceType) > best_rank) {
            best.clear();
            best_rank = deviceTypeRank(p.deviceType);
        }
        if (deviceTypeRank(p.deviceType) == best_rank) best.emplace_back(i, f);
    }
    if (best.empty()) throw DeviceError("no suitable Vulkan device: " + problems);
    // One process alone takes the first; the processes of a run take them in turn.
    const auto& chosen = best[size_t(std::max(options.spread_rank, 0)) % best.size()];
    index = chosen.first;
    family = chosen.second;
    return devices[index];
}

// Requests every optional feature the passes and the viewer may use that the device has;
// shaderFloat64 was checked by deviceProblem. `enable` is chained into VkDeviceCreateInfo.
struct FeatureChain {
    VkPhysicalDeviceFeatures2 f2{};
    VkPhysicalDeviceVulkan12Features f12{};
    VkPhysicalDeviceVulkan13Features f13{};
    FeatureChain() {
        f2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
        f12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
        f13.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES;
    }
};

void chooseFeatures(VkPhysicalDevice pd, bool vulkan13, FeatureChain& enable) {
    FeatureChain has;
    has.f2.pNext = &has.f12;
    if (vulkan13) has.f12.pNext = &has.f13;
    vkGetPhysicalDeviceFeatures2(pd, &has.f2);

    enable.f2.pNext = &enable.f12;
    if (vulkan13) enable.f12.pNext = &enable.f13;
    VkPhysicalDeviceFeatures& e = enable.f2.features;
    const VkPhysicalDeviceFeatures& h = has.f2.features;
    e.shaderFloat64 = VK_TRUE;
    e.shaderInt64 = h.shaderInt64;
    e.shaderInt16 = h.shaderInt16;
    e.shaderStorageImageExtendedFormats = h.shaderStorageImageExtendedFormats; // rg32f, r16f...
    e.shaderStorageImageReadWithoutFormat = h.shaderStorageImageReadWithoutFormat;
    e.shaderStorageImageWriteWithoutFormat = h.shaderStorageImageWriteWithoutFormat;
    e.fragmentStoresAndAtomics = h.fragmentStoresAndAtomics; // brush picking in the viewer
    e.fillModeNonSolid = h.fillModeNonSolid;                 // wireframe view
    e.samplerAnisotropy = h.samplerAnisotropy;
    e.wideLines = h.wideLines;
    enable.f12.hostQueryReset = has.f12.hostQueryReset;
    enable.f12.scalarBlockLayout = has.f12.scalarBlockLayout;
    enable.f12.shaderFloat16 = has.f12.shaderFloat16;
    enable.f12.shaderBufferInt64Atomics = has.f12.shaderBufferInt64Atomics;
    enable.f12.shaderSharedInt64Atomics = has.f12.shaderSharedInt64Atomics;
    enable.f12.timelineSemaphore = has.f12.timelineSemaphore;
    if (vulkan13) {
        enable.f13.synchronization2 = has.f13.synchronization2;
        enable.f13.dynamicRendering = has.f13.dynamicRendering;
        enable.f13.maintenance4 = has.f13.maintenance4;
    }
}

// Creates the instance, with the validation layer and messenger when asked and installed.
void createInstance(Context& ctx, const ContextOptions& options, uint32_t api_version) {
    std::vector<const char*> extensions;
    const std::vector<VkExtensionProperties> available = instanceExtensions(nullptr);
    for (const char* name : options.instance_extensions) {
        if (!hasExtension(available, name))
            throw DeviceError(std::string("Vulkan instance extension ") + name + " is not available");
        addUnique(extensions, name);
    }
    // Lets the loader report portability drivers (MoltenVK); they are skipped without it.
    VkInstanceCreateFlags flags = 0;
    if (hasExtension(available, VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME)) {
        addUnique(extensions, VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME);
        flags |= VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR;
    }

    std::vector<const char*> layers;
    bool sync_validation = false;
    if (options.validation) {
        const std::vector<VkExtensionProperties> layer_ext = instanceExtensions(kValidationLayer);
        const bool debug_utils = hasExtension(available, VK_EXT_DEBUG_UTILS_EXTENSION_NAME) ||
                                 hasExtension(layer_ext, VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
        if (hasLayer(kValidationLayer) && debug_utils) {
            layers.push_back(kValidationLayer);
            addUnique(extensions, VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
            ctx.validation_enabled = true;
            // Synchronization validation catches a missing barrier between two dependent
            // dispatches, the bug this codebase is most likely to have. Opt out with
            // ALLUVIUM_SYNC_VALIDATION=0 when it is too slow for a large run.
            const char* env = std::getenv("ALLUVIUM_SYNC_VALIDATION");
            sync_validation = hasExtension(layer_ext, VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME) &&
                              !(env && std::string_view(env) == "0");
            if (sync_validation) addUnique(extensions, VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME);
        } else {
            std::fprintf(stderr,
                         "alluvium: warning: %s is not installed; continuing without validation "
                         "(on Debian: vulkan-validationlayers)\n",
                         kValidationLayer);
        }
    }

    VkApplicationInfo app{};
    app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
    app.pApplicationName = "alluvium";
    app.applicationVersion = VK_MAKE_API_VERSION(0, 0, 1, 0);
    app.pEngineName = "alluvium";
    app.engineVersion = VK_MAKE_API_VERSION(0, 0, 1, 0);
    app.apiVersion = api_version;

    // Chained into the create info as well, so messages from vkCreateInstance and
    // vkDestroyInstance (outside the messenger's lifetime) are reported and counted too.
    VkDebugUtilsMessengerCreateInfoEXT messenger_info{};
    messenger_info.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT;
    messenger_info.messageSeverity =
        VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    // No PERFORMANCE messages: the core checks warn on every transfer to an image in GENERAL
    // layout, and GENERAL for life is a deliberate choice here (see resources.h).
    messenger_info.messageType =
        VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT;
    messenger_info.pfnUserCallback = debugCallback;
    messenger_info.pUserData = ctx.validation_errors.get();

    const VkValidationFeatureEnableEXT sync_feature = VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT;
    VkValidationFeaturesEXT validation_features{};
    validation_features.sType = VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT;
    validation_features.enabledValidationFeatureCount = 1;
    validation_features.pEnabledValidationFeatures = &sync_feature;
    if (sync_validation) messenger_info.pNext = &validation_features;

    VkInstanceCreateInfo info{};
    info.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
    info.pNext = ctx.validation_enabled ? &messenger_info : nullptr;
    info.flags = flags;
    info.pApplicationInfo = &app;
    info.enabledLayerCount = static_cast<uint32_t>(layers.size());
    info.ppEnabledLayerNames = layers.data();
    info.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
    info.ppEnabledExtensionNames = extensions.data();
    const VkResult result = vkCreateInstance(&info, nullptr, &ctx.instance);
    if (result != VK_SUCCESS) {
        ctx.instance = VK_NULL_HANDLE;
        // What the loader returns when it finds no driver (no ICD, or none that loads).
        if (result == VK_ERROR_INCOMPATIBLE_DRIVER) throw DeviceError(kNoDevice);
        throw DeviceError(std::string("cannot create a Vulkan instance: ") + vkResultName(result));
    }

    if (ctx.validation_enabled) {
        auto create = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
            vkGetInstanceProcAddr(ctx.instance, "vkCreateDebugUtilsMessengerEXT"));
        messenger_info.pNext = nullptr;
        if (create) VK_CHECK(create(ctx.instance, &messenger_info, nullptr, &ctx.messenger));
    }
}

std::vector<VkPhysicalDevice> physicalDevices(VkInstance instance) {
    return enumerated<VkPhysicalDevice>(
        [&](uint32_t* n, VkPhysicalDevice* p) { return vkEnumeratePhysicalDevices(instance, n, p); });
}

} // namespace

// -------------------------------------------------------------------------------------------------
// [SECTION] createContext / destroyContext / listDevices
// -------------------------------------------------------------------------------------------------

void createContext(Context& ctx, const ContextOptions& options) {
    ctx = Context{};
    ctx.validation_errors = std::make_shared<std::atomic<int>>(0);
    try {
        const uint32_t loader = loaderVersion();
        if (loader < VK_API_VERSION_1_2)
            throw DeviceError("the Vulkan loader supports only Vulkan " + versionText(loader) +
                              "; Alluvium needs 1.2 (update libvulkan1)");
        // 1.3 where the loader has it, so a 1.3 device gets its 1.3 features; 1.2 devices still
        // work (the device's own version caps what may be used).
        const uint32_t api_version = loader >= VK_API_VERSION_1_3 ? VK_API_VERSION_1_3 : VK_API_VERSION_1_2;
        createInstance(ctx, options, api_version);

        const std::vector<VkPhysicalDevice> devices = physicalDevices(ctx.instance);
        if (devices.empty()) throw DeviceError(kNoDevice);
        uint32_t index = 0;
        ctx.physical = chooseDevice(devices, options, index, ctx.queue_family);
        vkGetPhysicalDeviceProperties(ctx.physical, &ctx.properties);
        vkGetPhysicalDeviceMemoryProperties(ctx.physical, &ctx.memory);
        ctx.device_name = ctx.properties.deviceName;
        for (uint32_t i = 0; i < ctx.memory.memoryHeapCount; ++i)
            if (ctx.memory.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT)
                ctx.device_local_bytes = std::max<uint64_t>(ctx.device_local_bytes, ctx.memory.memoryHeaps[i].size);
        {
            VkPhysicalDeviceMaintenance3Properties m3{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES};
            VkPhysicalDeviceProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
            props.pNext = &m3;
            vkGetPhysicalDeviceProperties2(ctx.physical, &props);
            ctx.max_allocation_bytes = m3.maxMemoryAllocationSize;
        }

        const bool vulkan13 = api_version >= VK_API_VERSION_1_3 && ctx.properties.apiVersion >= VK_API_VERSION_1_3;
        FeatureChain features;
        chooseFeatures(ctx.physical, vulkan13, features);
        ctx.int64_atomics = features.f2.features.shaderInt64 && features.f12.shaderBufferInt64Atomics;

        std::vector<const char*> extensions;
        for (const char* name : options.device_extensions) addUnique(extensions, name);
        // The spec requires enabling it wherever a (portability) device exposes it.
        if (hasExtension(deviceExtensions(ctx.physical), "VK_KHR_portability_subset"))
            addUnique(extensions, "VK_KHR_portability_subset");

        const float priority = 1.0f;
        VkDeviceQueueCreateInfo queue_info{};
        queue_info.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
        queue_info.queueFamilyIndex = ctx.queue_family;
        queue_info.queueCount = 1;
        queue_info.pQueuePriorities = &priority;

        VkDeviceCreateInfo device_info{};
        device_info.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
        device_info.pNext = &features.f2;
        device_info.queueCreateInfoCount = 1;
        device_info.pQueueCreateInfos = &queue_info;
        device_info.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
        device_info.ppEnabledExtensionNames = extensions.data();
        const VkResult result = vkCreateDevice(ctx.physical, &device_info, nullptr, &ctx.device);
        if (result != VK_SUCCESS) {
            ctx.device = VK_NULL_HANDLE;
            throw DeviceError("cannot create a Vulkan device on " + describeDevice(index, ctx.properties) + ": " +
                              vkResultName(result));
        }
        vkGetDeviceQueue(ctx.device, ctx.queue_family, 0, &ctx.queue);

        VkCommandPoolCreateInfo pool_info{};
        pool_info.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
        pool_info.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
        pool_info.queueFamilyIndex = ctx.queue_family;
        VK_CHECK(vkCreateCommandPool(ctx.device, &pool_info, nullptr, &ctx.command_pool));

        if (options.verbose)
            std::fprintf(stderr, "alluvium: device %s, Vulkan %s\n", describeDevice(index, ctx.properties).c_str(),
                         versionText(ctx.properties.apiVersion).c_str());
    } catch (...) {
        destroyContext(ctx);
        throw;
    }
}

void destroyContext(Context& ctx) {
    if (ctx.device) {
        vkDeviceWaitIdle(ctx.device); // no VK_CHECK: a lost device must still be torn down
        if (ctx.command_pool) vkDestroyCommandPool(ctx.device, ctx.command_pool, nullptr);
        vkDestroyDevice(ctx.device, nullptr);
    }
    if (ctx.messenger) {
        auto destroy = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
            vkGetInstanceProcAddr(ctx.instance, "vkDestroyDebugUtilsMessengerEXT"));
        if (destroy) destroy(ctx.instance, ctx.messenger, nullptr);
    }
    if (ctx.instance) vkDestroyInstance(ctx.instance, nullptr);
    // The error count survives: leaks are reported by vkDestroyDevice, and tests read it after.
    std::shared_ptr<std::atomic<int>> errors = std::move(ctx.validation_errors);
    ctx = Context{};
    ctx.validation_errors = std::move(errors);
}

std::vector<std::string> listDevices() {
    VkApplicationInfo app{};
    app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
    app.pApplicationName = "alluvium";
    app.apiVersion = VK_API_VERSION_1_0; // list old devices too; createContext says why they fail
    VkInstanceCreateInfo info{};
    info.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
    info.pApplicationInfo = &app;
    const char* portability = VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME;
    if (hasExtension(instanceExtensions(nullptr), portability)) {
        info.flags = VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR;
        info.enabledExtensionCount = 1;
        info.ppEnabledExtensionNames = &portability;
    }
    VkInstance instance = VK_NULL_HANDLE;
    if (vkCreateInstance(&info, nullptr, &instance) != VK_SUCCESS) return {};
    std::vector<std::string> names;
    const std::vector<VkPhysicalDevice> devices = physicalDevices(instance);
    for (uint32_t i = 0; i < devices.size(); ++i) {
        VkPhysicalDeviceProperties p{};
        vkGetPhysicalDeviceProperties(devices[i], &p);
        names.push_back(describeDevice(i, p));
    }
    vkDestroyInstance(instance, nullptr);
    return names;
}

int environmentChoice(const char* variable, std::span<const char* const> names) {
    const char* value = std::getenv(variable);
    if (!value || !*value) return -1;
    int index = 0;
    for (const char* name : names) {
        if (std::strcmp(value, name) == 0) return index;
        ++index;
    }
    return -1;
}

} // namespace alluvium::gpu
