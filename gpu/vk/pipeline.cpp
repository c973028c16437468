#include "pipeline.h"

#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <system_error>

namespace alluvium::gpu {

namespace fs = std::filesystem;

namespace {

// True if `dir` exists and holds at least one .spv file (a folder that merely exists, such as
// an unrelated "shaders" folder next to an installed binary, is not enough).
bool holdsSpirv(const fs::path& dir) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) return false;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
        if (it->path().extension() == ".spv") return true;
    return false;
}

} // namespace

fs::path executableDirectory() {
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    return ec ? fs::path() : exe.parent_path();
}

bool runningFromBuildTree() {
#ifdef ALLUVIUM_BUILD_ROOT
    std::error_code ec;
    const fs::path root = fs::weakly_canonical(ALLUVIUM_BUILD_ROOT, ec);
    const fs::path exe = executableDirectory();
    if (ec || exe.empty()) return false;
    const fs::path rel = exe.lexically_relative(root);
    return !rel.empty() && *rel.begin() != "..";
#else
    return false;
#endif
}

fs::path shaderDirectory() {
    if (const char* env = std::getenv("ALLUVIUM_SHADER_DIR"); env && *env) {
        if (holdsSpirv(env)) return env;
        throw InstallError(std::string("ALLUVIUM_SHADER_DIR='") + env + "' holds no .spv shaders");
    }
    std::vector<fs::path> candidates;
    if (const fs::path dir = executableDirectory(); !dir.empty())
        candidates = {dir.parent_path() / "share" / "alluvium" / "shaders", dir / "shaders",
                      dir.parent_path() / "shaders"};
#ifdef ALLUVIUM_BUILD_SHADER_DIR
    if (runningFromBuildTree()) candidates.emplace_back(ALLUVIUM_BUILD_SHADER_DIR);
#endif
    std::string looked;
    for (const fs::path& c : candidates) {
        if (holdsSpirv(c)) return c;
        looked += (looked.empty() ? "" : ", ") + c.lexically_normal().string();
    }
    throw InstallError("the installation is incomplete: no SPIR-V shaders found (looked in " + looked +
                       "); reinstall alluvium, or set ALLUVIUM_SHADER_DIR to the folder holding its .spv files");
}

std::vector<uint32_t> loadSpirv(const fs::path& path) {
    const std::string prefix = "cannot read shader '" + path.string() + "': ";
    std::ifstream file(path, std::ios::binary | std::ios::ate);
    if (!file)
        throw InstallError(prefix + "file not found or unreadable (the installation is incomplete: reinstall, or "
                                    "set ALLUVIUM_SHADER_DIR to the folder holding the .spv files)");
    const std::streamoff size = file.tellg();
    if (size <= 0 || size % 4 != 0)
        throw InstallError(prefix + "size " + std::to_string(size) +
                           " bytes is not a positive multiple of 4, not SPIR-V (a damaged installation)");
    std::vector<uint32_t> code(static_cast<size_t>(size) / 4);
    file.seekg(0);
    if (!file.read(reinterpret_cast<char*>(code.data()), size)) throw InstallError(prefix + "read error");
    constexpr uint32_t kSpirvMagic = 0x07230203;
    if (code[0] != kSpirvMagic) throw InstallError(prefix + "bad SPIR-V magic number (a damaged installation)");
    return code;
}

std::vector<uint32_t> loadShader(const std::string& name) { return loadSpirv(shaderDirectory() / (name + ".spv")); }

VkShaderModule loadShaderModule(const Context& ctx, const std::string& name) {
    return createShaderModule(ctx, loadShader(name));
}

VkShaderModule createShaderModule(const Context& ctx, const std::vector<uint32_t>& code) {
    VkShaderModuleCreateInfo info{};
    info.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
    info.codeSize = code.size() * sizeof(uint32_t);
    info.pCode = code.data();
    VkShaderModule module = VK_NULL_HANDLE;
    VK_CHECK(vkCreateShaderModule(ctx.device, &info, nullptr, &module));
    return module;
}

VkDescriptorSetLayout createSetLayout(const Context& ctx, const VkDescriptorSetLayoutBinding* bindings,
                                      uint32_t count) {
    VkDescriptorSetLayoutCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    info.bindingCount = count;
    info.pBindings = bindings;
    VkDescriptorSetLayout layout = VK_NULL_HANDLE;
    VK_CHECK(vkCreateDescriptorSetLayout(ctx.device, &info, nullptr, &layout));
    return layout;
}

VkDescriptorPool createDescriptorPool(const Context& ctx, uint32_t max_sets,
                                      std::initializer_list<VkDescriptorPoolSize> sizes) {
    VkDescriptorPoolCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    info.maxSets = max_sets;
    info.poolSizeCount = static_cast<uint32_t>(sizes.size());
    info.pPoolSizes = sizes.begin();
    VkDescriptorPool pool = VK_NULL_HANDLE;
    VK_CHECK(vkCreateDescriptorPool(ctx.device, &info, nullptr, &pool));
    return pool;
}

void allocateSets(const Context& ctx, VkDescriptorPool pool, VkDescriptorSetLayout layout, uint32_t count,
                  VkDescriptorSet* out) {
    const std::vector<VkDescriptorSetLayout> layouts(count, layout);
    VkDescriptorSetAllocateInfo alloc{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    alloc.descriptorPool = pool;
    alloc.descriptorSetCount = count;
    alloc.pSetLayouts = layouts.data();
    VK_CHECK(vkAllocateDescriptorSets(ctx.device, &alloc, out));
}

VkWriteDescriptorSet& DescriptorWrites::write(VkDescriptorSet set, uint32_t binding, VkDescriptorType type,
                                              uint32_t count) {
    VkWriteDescriptorSet w{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    w.dstSet = set;
    w.dstBinding = binding;
    w.descriptorCount = count;
    w.descriptorType = type;
    writes_.push_back(w);
    return writes_.back();
}

void DescriptorWrites::image(VkDescriptorSet set, uint32_t binding, VkImageView view) {
    images_.push_back({VK_NULL_HANDLE, view, VK_IMAGE_LAYOUT_GENERAL});
    write(set, binding, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 1).pImageInfo = &images_.back();
}

void DescriptorWrites::buffer(VkDescriptorSet set, uint32_t binding, VkBuffer buffer, VkDeviceSize range,
                              VkDescriptorType type) {
    buffers_.push_back({buffer, 0, range});
    write(set, binding, type, 1).pBufferInfo = &buffers_.back();
}

void DescriptorWrites::buffers(VkDescriptorSet set, uint32_t binding, const std::vector<VkBuffer>& array) {
    std::vector<VkDescriptorBufferInfo>& infos = arrays_.emplace_back();
    for (VkBuffer b : array) infos.push_back({b, 0, VK_WHOLE_SIZE});
    write(set, binding, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, uint32_t(array.size())).pBufferInfo = infos.data();
}

void DescriptorWrites::apply(const Context& ctx) {
    vkUpdateDescriptorSets(ctx.device, uint32_t(writes_.size()), writes_.data(), 0, nullptr);
    writes_.clear();
}

VkPipelineLayout createComputeLayout(const Context& ctx, VkDescriptorSetLayout set_layout, uint32_t push_bytes) {
    const VkPushConstantRange push{VK_SHADER_STAGE_COMPUTE_BIT, 0, push_bytes};
    VkPipelineLayoutCreateInfo layout_info{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    layout_info.setLayoutCount = 1;
    layout_info.pSetLayouts = &set_layout;
    layout_info.pushConstantRangeCount = 1;
    layout_info.pPushConstantRanges = &push;
    VkPipelineLayout layout = VK_NULL_HANDLE;
    VK_CHECK(vkCreatePipelineLayout(ctx.device, &layout_info, nullptr, &layout));
    return layout;
}

VkPipeline createComputePipeline(const Context& ctx, VkPipelineLayout layout, VkShaderModule module,
                                 const VkSpecializationInfo* spec) {
    VkComputePipelineCreateInfo info{};
    info.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
    info.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
    info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    info.stage.module = module;
    info.stage.pName = "main";
    info.stage.pSpecializationInfo = spec;
    info.layout = layout;
    VkPipeline pipeline = VK_NULL_HANDLE;
    VK_CHECK(vkCreateComputePipelines(ctx.device, VK_NULL_HANDLE, 1, &info, nullptr, &pipeline));
    return pipeline;
}

VkPipeline createComputePipeline(const Context& ctx, VkPipelineLayout layout, const std::vector<uint32_t>& code,
                                 const VkSpecializationInfo* spec) {
    VkShaderModule module = createShaderModule(ctx, code);
    VkPipeline pipeline = createComputePipeline(ctx, layout, module, spec);
    vkDestroyShaderModule(ctx.device, module, nullptr);
    return pipeline;
}

VkPipeline loadComputePipeline(const Context& ctx, VkPipelineLayout layout, const std::string& name,
                               const VkSpecializationInfo* spec) {
    return createComputePipeline(ctx, layout, loadShader(name), spec);
}

void destroyCompute(const Context& ctx, std::initializer_list<VkPipeline> pipelines, VkDescriptorPool pool,
                    VkPipelineLayout layout, VkDescriptorSetLayout set_layout) {
    for (VkPipeline p : pipelines) vkDestroyPipeline(ctx.device, p, nullptr);
    vkDestroyDescriptorPool(ctx.device, pool, nullptr);
    vkDestroyPipelineLayout(ctx.device, layout, nullptr);
    vkDestroyDescriptorSetLayout(ctx.device, set_layout, nullptr);
}

} // namespace alluvium::gpu
