// The viewer's output (presenter.h).
#include "presenter.h"

#include <algorithm>

#define GLFW_INCLUDE_VULKAN
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_vulkan.h>

#include "vk_check.h"

namespace alluvium::viewer {

namespace {

void checkVk(VkResult r) {
    if (r != VK_SUCCESS) gpu::vkCheckFailed("ImGui Vulkan backend", r, __FILE__, __LINE__);
}

// ImGui's context and style; GLFW input when windowed (it chains the viewer's callbacks).
void initImGui(GLFWwindow* window) {
    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGui::GetIO().IniFilename = nullptr; // no imgui.ini left behind
    ImGui::StyleColorsDark();
    if (window) { // HiDPI: fonts and widgets follow the monitor's content scale
        float sx = 1, sy = 1;
        glfwGetWindowContentScale(window, &sx, &sy);
        if (sx > 1.01f) {
            ImGui::GetIO().FontGlobalScale = sx;
            ImGui::GetStyle().ScaleAllSizes(sx);
        }
    }
    ImGui::GetStyle().Alpha = 0.94f;
}

} // namespace

Presenter::Presenter(gpu::Context& ctx, const PresenterInit& init)
    : ctx_(ctx), window_(init.window), vsync_(init.vsync), extent_(init.extent) {
    try {
        if (window_) {
            if (glfwCreateWindowSurface(ctx.instance, window_, nullptr, &surface_) != VK_SUCCESS)
                throw gpu::DeviceError("cannot create a Vulkan surface for the window");
            VkBool32 present = VK_FALSE;
            vkGetPhysicalDeviceSurfaceSupportKHR(ctx.physical, ctx.queue_family, surface_, &present);
            if (!present) throw gpu::DeviceError(ctx.device_name + " cannot present to this window (try --offscreen)");
            format_ = chooseSurfaceFormat(ctx, surface_);
            int fw, fh;
            glfwGetFramebufferSize(window_, &fw, &fh);
            createSwapchain(swapchain_, ctx, surface_, {uint32_t(fw), uint32_t(fh)}, format_, vsync_);
            extent_ = swapchain_.extent;
            makeSemaphores();
        }
        frames_.resize(std::max(init.frames_in_flight, 1u));
        for (Frame& f : frames_) {
            VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
            alloc.commandPool = ctx.command_pool;
            alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
            alloc.commandBufferCount = 1;
            VK_CHECK(vkAllocateCommandBuffers(ctx.device, &alloc, &f.cmd));
            VkFenceCreateInfo fence{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
            fence.flags = VK_FENCE_CREATE_SIGNALED_BIT;
            VK_CHECK(vkCreateFence(ctx.device, &fence, nullptr, &f.fence));
            VkSemaphoreCreateInfo sem{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
            VK_CHECK(vkCreateSemaphore(ctx.device, &sem, nullptr, &f.acquired));
            gpu::createTimer(f.timer, ctx, init.timer_capacity);
        }
        initImGui(window_);
        if (window_) imgui_glfw_ = ImGui_ImplGlfw_InitForVulkan(window_, true);
    } catch (...) {
        release();
        throw;
    }
}

Presenter::~Presenter() { release(); }

void Presenter::release() {
    vkDeviceWaitIdle(ctx_.device);
    if (imgui_vulkan_) ImGui_ImplVulkan_Shutdown();
    if (imgui_glfw_) ImGui_ImplGlfw_Shutdown();
    if (ImGui::GetCurrentContext()) ImGui::DestroyContext();
    imgui_vulkan_ = imgui_glfw_ = false;
    if (imgui_pool_) vkDestroyDescriptorPool(ctx_.device, imgui_pool_, nullptr);
    imgui_pool_ = VK_NULL_HANDLE;
    for (Frame& f : frames_) {
        if (f.fence) vkDestroyFence(ctx_.device, f.fence, nullptr);
        if (f.acquired) vkDestroySemaphore(ctx_.device, f.acquired, nullptr);
        gpu::destroyTimer(f.timer, ctx_);
        if (f.cmd) vkFreeCommandBuffers(ctx_.device, ctx_.command_pool, 1, &f.cmd);
    }
    frames_.clear();
    for (VkSemaphore sem : rendered_) vkDestroySemaphore(ctx_.device, sem, nullptr);
    rendered_.clear();
    for (ColorTarget& t : targets_) destroyColorTarget(t, ctx_);
    targets_.clear();
    destroySwapchain(swapchain_, ctx_);
    if (surface_) vkDestroySurfaceKHR(ctx_.instance, surface_, nullptr);
    surface_ = VK_NULL_HANDLE;
}

void Presenter::attach(Renderer& renderer) {
    renderer_ = &renderer;
    makeTargets();
    const VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 16};
    VkDescriptorPoolCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    info.flags = VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT;
    info.maxSets = 16;
    info.poolSizeCount = 1;
    info.pPoolSizes = &size;
    VK_CHECK(vkCreateDescriptorPool(ctx_.device, &info, nullptr, &imgui_pool_));
    ImGui_ImplVulkan_InitInfo init{};
    init.Instance = ctx_.instance;
    init.PhysicalDevice = ctx_.physical;
    init.Device = ctx_.device;
    init.QueueFamily = ctx_.queue_family;
    init.Queue = ctx_.queue;
    init.DescriptorPool = imgui_pool_;
    init.MinImageCount = 2;
    init.ImageCount = std::max<uint32_t>(windowed() ? uint32_t(swapchain_.images.size()) : framesInFlight(), 2);
    init.MSAASamples = VK_SAMPLE_COUNT_1_BIT;
    init.CheckVkResultFn = checkVk;
    ImGui_ImplVulkan_Init(&init, renderer.renderPass());
    imgui_vulkan_ = true;
    VkCommandBuffer cmd = gpu::beginOneShot(ctx_);
    ImGui_ImplVulkan_CreateFontsTexture(cmd);
    gpu::endOneShot(ctx_, cmd);
    ImGui_ImplVulkan_DestroyFontUploadObjects();
}

// Frames are drawn into images of our own and, in a window, copied to the swapchain's: CPU
// drivers draw far slower straight into a presentable image (~55 ms against ~30 ms at 1280x720
// on lavapipe), and the same path serves --offscreen and screenshots.
void Presenter::makeTargets() {
    for (ColorTarget& t : targets_) destroyColorTarget(t, ctx_);
    targets_.assign(frames_.size(), {});
    std::vector<VkImageView> views;
    for (ColorTarget& t : targets_) {
        createColorTarget(t, ctx_, format_, extent_);
        views.push_back(t.view);
    }
    renderer_->setTargets(views, extent_);
}

void Presenter::makeSemaphores() {
    for (VkSemaphore sem : rendered_) vkDestroySemaphore(ctx_.device, sem, nullptr);
    rendered_.assign(swapchain_.images.size(), VK_NULL_HANDLE);
    for (VkSemaphore& sem : rendered_) {
        VkSemaphoreCreateInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
        VK_CHECK(vkCreateSemaphore(ctx_.device, &info, nullptr, &sem));
    }
}

void Presenter::recreate() {
    int fw = 0, fh = 0;
    glfwGetFramebufferSize(window_, &fw, &fh);
    while ((fw == 0 || fh == 0) && !glfwWindowShouldClose(window_)) { // minimised
        glfwWaitEvents();
        glfwGetFramebufferSize(window_, &fw, &fh);
    }
    vkDeviceWaitIdle(ctx_.device);
    createSwapchain(swapchain_, ctx_, surface_, {uint32_t(std::max(fw, 1)), uint32_t(std::max(fh, 1))}, format_,
                    vsync_);
    extent_ = swapchain_.extent;
    makeTargets();
    makeSemaphores();
    ImGui_ImplVulkan_SetMinImageCount(2);
}

void Presenter::setVsync(bool vsync) {
    vsync_ = vsync;
    if (windowed()) recreate();
}

bool Presenter::acquire(uint32_t slot, uint32_t& image) {
    image = slot;
    if (!windowed()) return true;
    const VkResult acquired = vkAcquireNextImageKHR(ctx_.device, swapchain_.swapchain, UINT64_MAX,
                                                    frames_[slot].acquired, VK_NULL_HANDLE, &image);
    if (acquired == VK_ERROR_OUT_OF_DATE_KHR) {
        recreate();
        return false;
    }
    if (acquired != VK_SUCCESS && acquired != VK_SUBOPTIMAL_KHR) VK_CHECK(acquired);
    return true;
}

void Presenter::newFrame(double dt) {
    if (windowed()) {
        ImGui_ImplGlfw_NewFrame();
    } else {
        ImGui::GetIO().DisplaySize = ImVec2(float(extent_.width), float(extent_.height));
        ImGui::GetIO().DeltaTime = float(std::max(dt, 1e-4));
    }
    ImGui_ImplVulkan_NewFrame();
    ImGui::NewFrame();
}

void Presenter::submit(uint32_t slot, uint32_t image) {
    Frame& f = frames_[slot];
    if (windowed()) recordPresentCopy(f.cmd, targets_[slot].image, swapchain_.images[image], extent_);
    VK_CHECK(vkEndCommandBuffer(f.cmd));
    VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    const VkPipelineStageFlags wait_stage = VK_PIPELINE_STAGE_TRANSFER_BIT; // only the copy needs the image
    submit.commandBufferCount = 1;
    submit.pCommandBuffers = &f.cmd;
    if (windowed()) {
        submit.waitSemaphoreCount = 1;
        submit.pWaitSemaphores = &f.acquired;
        submit.pWaitDstStageMask = &wait_stage;
        submit.signalSemaphoreCount = 1;
        submit.pSignalSemaphores = &rendered_[image];
    }
    VK_CHECK(vkQueueSubmit(ctx_.queue, 1, &submit, f.fence));
    f.submitted = true;
    if (!windowed()) return;
    VkPresentInfoKHR present{VK_STRUCTURE_TYPE_PRESENT_INFO_KHR};
    present.waitSemaphoreCount = 1;
    present.pWaitSemaphores = &rendered_[image];
    present.swapchainCount = 1;
    present.pSwapchains = &swapchain_.swapchain;
    present.pImageIndices = &image;
    const VkResult r = vkQueuePresentKHR(ctx_.queue, &present);
    int fw, fh;
    glfwGetFramebufferSize(window_, &fw, &fh);
    if (r == VK_ERROR_OUT_OF_DATE_KHR || r == VK_SUBOPTIMAL_KHR || uint32_t(fw) != extent_.width ||
        uint32_t(fh) != extent_.height)
        recreate();
    else if (r != VK_SUCCESS)
        VK_CHECK(r);
}

} // namespace alluvium::viewer
