// alluvium view: the frame loop. Input is in input.cpp, the actions between frames in
// actions.cpp, the frame's GPU work in frame.cpp, the drawing in renderer.cpp, the panel in
// panel.cpp, recording in recorder.cpp, undo and scrubbing in history.cpp.
// [SECTION] options and setup
// [SECTION] viewCommand: the loop, bench, screenshot, report
#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <numeric>
#include <optional>

#define GLFW_INCLUDE_VULKAN
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_vulkan.h>
#include <nlohmann/json.hpp>

#include "app.h"
#include "frame.h"
#include "history.h"
#include "io/atomic_file.h"
#include "io/errors.h"
#include "options.h"
#include "panel.h"
#include "pipeline.h"
#include "presets.h"
#include "recorder.h"
#include "render_shared.h"
#include "renderer.h"
#include "session.h"
#include "state.h"
#include "view.h"
#include "window.h"

namespace alluvium {

using namespace viewer;

namespace {

// [SECTION] options and setup

constexpr uint32_t kFramesInFlight = 2;
constexpr uint32_t kTimerCapacity = 16 + 8 * MAX_SUBSTEPS; // a frame: its marks, and one step of up to MAX_SUBSTEPS sub-steps

struct ContextGuard {
    gpu::Context ctx;
    ~ContextGuard() { gpu::destroyContext(ctx); }
};

// Ctrl+C or a TERM quit like Ctrl+Q: the recording is finished, the report and screenshot
// written. A second signal ends the process at once (the handler is reset).
volatile std::sig_atomic_t g_quit_signal = 0;
void onQuitSignal(int) { g_quit_signal = 1; }

void checkVk(VkResult r) {
    if (r != VK_SUCCESS) gpu::vkCheckFailed("ImGui Vulkan backend", r, __FILE__, __LINE__);
}

} // namespace

// [SECTION] viewCommand: the loop, bench, screenshot, report

int viewCommand(const ViewOptions& o, const DeviceOptions& device) {
    if (o.probe_display) {
        const bool ok = initWindowSystem();
        if (ok) shutdownWindowSystem();
        return ok ? 0 : 1;
    }
    // Everything a person can get wrong is checked before the GPU starts.
    const CheckedViewOptions checked = checkViewOptions(o);
    const int win_w = checked.window_w, win_h = checked.window_h, overlay = checked.overlay;
    const RecordSettings& record = checked.record;
    App app;
    ViewerState& s = app.state;
    // A saved session (run's or the viewer's) replaces the starting terrain: its grid, its
    // parameters (--preset and --set on top), its model (unless --model), its initial terrain for R.
    std::optional<Session> resumed;
    if (!o.load_session.empty()) resumed = loadSession(o.load_session);
    if (resumed) {
        s.params = sessionParams(*resumed, o.preset, o.terrain.cell_size, o.sets);
        app.initial.terrain = {resumed->width, resumed->height, resumed->initial_terrain};
        for (const auto& [field, values] : resumed->fields)
            if (field == gpu::Field::Hardness) app.initial.hardness = values;
    } else {
        app.initial = prepareTerrainAndParams(o.terrain, o.preset, o.sets, s.params);
    }
    s.params[Param::record_maps] = 1; // the erosion overlay and the export read them
    s.width = app.initial.terrain.width;
    s.height = app.initial.terrain.height;
    if (s.width < 2 || s.height < 2) throw InputError("the viewer needs at least 2x2 cells");
    s.model = !o.model.empty() ? gpu::modelFromName(o.model) : resumed ? gpu::modelFromName(resumed->model) : MODEL_PIPE;
    app.session_path = o.save_session.empty() ? "alluvium.session" : o.save_session;
    s.session_default = app.session_path;
    s.seed = static_cast<int>(o.terrain.seed);
    s.steps_per_frame = std::max(o.steps_per_frame, 1);
    s.paused = o.paused || o.steps_per_frame == 0;
    s.show_panel = !o.no_panel;
    s.overlay = overlay;
    // A range that shows something at once; the panel's slider adjusts it.
    s.overlay_range = overlayDefaultRange(overlay);
    s.radius = std::max(3.0f, float(std::max(s.width, s.height)) / 24.0f);
    s.recording.fps = record.fps;
    s.recording.width = int(record.width);
    s.recording.height = int(record.height);
    s.recording.hide_panel = o.record_no_panel;
    const bool bench = o.bench_frames > 0;
    if (bench) s.vsync = false;

    gpu::shaderDirectory(); // a broken installation is one line (InstallError) before a window opens
    // A window if a display is there (and not --offscreen), else the same frames offscreen.
    const bool windowed = !o.offscreen && initWindowSystem();
    if (!windowed && !o.offscreen) std::fprintf(stderr, "alluvium: no display; rendering offscreen\n");
    ContextGuard guard;
    gpu::ContextOptions copts;
    copts.device_index = device.device;
    copts.validation = device.validation;
    if (windowed) {
        copts.instance_extensions = windowInstanceExtensions();
        copts.device_extensions.push_back(VK_KHR_SWAPCHAIN_EXTENSION_NAME);
    }
    gpu::createContext(guard.ctx, copts);
    gpu::Context& ctx = guard.ctx;
    app.ctx = &ctx;
    const uint32_t max_side = ctx.properties.limits.maxImageDimension2D;
    if (uint32_t(win_w) > max_side || uint32_t(win_h) > max_side)
        throw InputError("--window: " + ctx.device_name + " renders at most " + std::to_string(max_side) + " pixels a side");
    drawnMesh(ctx, s.width, s.height, uint32_t(o.mesh)); // a mesh the device cannot bind: one line, before anything opens

    gpu::Simulation sim(ctx, s.width, s.height);
    app.sim = &sim;
    if (resumed) {
        restoreSession(sim, *resumed);
        sim.setStepIndex(static_cast<int>(resumed->steps)); // rain events and droplet seeds continue
        s.steps_before = resumed->steps;
    } else {
        loadInitialState(sim, app.initial, s.params);
    }
    measureRelief(app);
    applyParams(app);
    gpu::Brush brush(ctx, sim);
    app.brush = &brush;
    const StateSums before = resumed ? resumed->initial_sums : sumState(sim, s.params[Param::cell_size]);
    app.initial_sums = before;
    resumed.reset(); // the fields are on the GPU now
    s.initial_water = before.water;
    std::string history_off;
    const uint64_t history_budget = historyBudget(ctx, sim, brush, o.history_budget_mb, history_off);
    History history(ctx, sim, brush, history_budget, history_off);
    app.history = &history;
    s.history.every = float(o.history_every);
    if (!history.enabled()) std::fprintf(stderr, "alluvium: history %s\n", history_off.c_str());

    VkSurfaceKHR surface = VK_NULL_HANDLE;
    Swapchain swapchain;
    std::vector<ColorTarget> offscreen;
    VkFormat format = VK_FORMAT_B8G8R8A8_UNORM;
    VkExtent2D extent{uint32_t(win_w), uint32_t(win_h)};
    if (windowed) {
        glfwWindowHint(GLFW_CLIENT_API, GLFW_NO_API);
        glfwWindowHint(GLFW_RESIZABLE, GLFW_TRUE);
        glfwWindowHint(GLFW_SCALE_TO_MONITOR, GLFW_TRUE);
        app.window = glfwCreateWindow(win_w, win_h, "Alluvium", nullptr, nullptr);
        if (!app.window) throw gpu::DeviceError("cannot open a window");
        glfwSetWindowUserPointer(app.window, &app);
        if (glfwCreateWindowSurface(ctx.instance, app.window, nullptr, &surface) != VK_SUCCESS)
            throw gpu::DeviceError("cannot create a Vulkan surface for the window");
        VkBool32 present = VK_FALSE;
        vkGetPhysicalDeviceSurfaceSupportKHR(ctx.physical, ctx.queue_family, surface, &present);
        if (!present) throw gpu::DeviceError(ctx.device_name + " cannot present to this window (try --offscreen)");
        format = chooseSurfaceFormat(ctx, surface);
        int fw, fh;
        glfwGetFramebufferSize(app.window, &fw, &fh);
        createSwapchain(swapchain, ctx, surface, {uint32_t(fw), uint32_t(fh)}, format, s.vsync);
        extent = swapchain.extent;
        installInputCallbacks(app.window);
    }
    const bool bgra = format == VK_FORMAT_B8G8R8A8_UNORM || format == VK_FORMAT_B8G8R8A8_SRGB;

    // Frames are drawn into images of our own and, in a window, copied to the swapchain's: CPU
    // drivers draw far slower straight into a presentable image (~55 ms against ~30 ms at
    // 1280x720 on lavapipe), and the same path serves --offscreen and screenshots.
    auto renderer =
        std::make_unique<Renderer>(ctx, sim, format, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, kFramesInFlight, uint32_t(o.mesh));
    auto makeTargets = [&]() {
        for (ColorTarget& t : offscreen) destroyColorTarget(t, ctx);
        offscreen.assign(kFramesInFlight, {});
        std::vector<VkImageView> views;
        for (ColorTarget& t : offscreen) {
            createColorTarget(t, ctx, format, extent);
            views.push_back(t.view);
        }
        renderer->setTargets(views, extent);
    };
    makeTargets();

    // Dear ImGui: GLFW input when windowed; offscreen it only needs a display size.
    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGui::GetIO().IniFilename = nullptr; // no imgui.ini left behind
    ImGui::StyleColorsDark();
    if (app.window) { // HiDPI: fonts and widgets follow the monitor's content scale
        float sx = 1, sy = 1;
        glfwGetWindowContentScale(app.window, &sx, &sy);
        if (sx > 1.01f) {
            ImGui::GetIO().FontGlobalScale = sx;
            ImGui::GetStyle().ScaleAllSizes(sx);
        }
    }
    ImGui::GetStyle().Alpha = 0.94f;
    if (windowed) ImGui_ImplGlfw_InitForVulkan(app.window, true); // chains our callbacks
    VkDescriptorPool imgui_pool;
    {
        const VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 16};
        VkDescriptorPoolCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
        info.flags = VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT;
        info.maxSets = 16;
        info.poolSizeCount = 1;
        info.pPoolSizes = &size;
        VK_CHECK(vkCreateDescriptorPool(ctx.device, &info, nullptr, &imgui_pool));
    }
    ImGui_ImplVulkan_InitInfo init{};
    init.Instance = ctx.instance;
    init.PhysicalDevice = ctx.physical;
    init.Device = ctx.device;
    init.QueueFamily = ctx.queue_family;
    init.Queue = ctx.queue;
    init.DescriptorPool = imgui_pool;
    init.MinImageCount = 2;
    init.ImageCount = std::max<uint32_t>(windowed ? uint32_t(swapchain.images.size()) : kFramesInFlight, 2);
    init.MSAASamples = VK_SAMPLE_COUNT_1_BIT;
    init.CheckVkResultFn = checkVk;
    ImGui_ImplVulkan_Init(&init, renderer->renderPass());
    {
        VkCommandBuffer cmd = gpu::beginOneShot(ctx);
        ImGui_ImplVulkan_CreateFontsTexture(cmd);
        gpu::endOneShot(ctx, cmd);
        ImGui_ImplVulkan_DestroyFontUploadObjects();
    }

    std::vector<Frame> frames(kFramesInFlight);
    for (Frame& f : frames) {
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
        gpu::createTimer(f.timer, ctx, kTimerCapacity);
    }
    // One "rendered" semaphore per swapchain image: an image's present may still wait on it.
    std::vector<VkSemaphore> rendered;
    auto makeRenderedSemaphores = [&]() {
        for (VkSemaphore sem : rendered) vkDestroySemaphore(ctx.device, sem, nullptr);
        rendered.assign(swapchain.images.size(), VK_NULL_HANDLE);
        for (VkSemaphore& sem : rendered) {
            VkSemaphoreCreateInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
            VK_CHECK(vkCreateSemaphore(ctx.device, &info, nullptr, &sem));
        }
    };
    if (windowed) makeRenderedSemaphores();
    auto recreateSwapchain = [&]() {
        int fw = 0, fh = 0;
        glfwGetFramebufferSize(app.window, &fw, &fh);
        while ((fw == 0 || fh == 0) && !glfwWindowShouldClose(app.window)) { // minimised
            glfwWaitEvents();
            glfwGetFramebufferSize(app.window, &fw, &fh);
        }
        vkDeviceWaitIdle(ctx.device);
        createSwapchain(swapchain, ctx, surface, {uint32_t(std::max(fw, 1)), uint32_t(std::max(fh, 1))}, format, s.vsync);
        extent = swapchain.extent;
        makeTargets();
        makeRenderedSemaphores();
        ImGui_ImplVulkan_SetMinImageCount(2);
    };

    if (windowed) std::fprintf(stderr, "alluvium: viewer ready (%ux%u window)\n", extent.width, extent.height);
    else std::fprintf(stderr, "alluvium: viewer ready (offscreen %ux%u)\n", extent.width, extent.height);

    const int warmup = bench ? 5 : 0;
    const int frame_limit = bench ? warmup + o.bench_frames : o.exit_after_frames > 0 ? o.exit_after_frames : windowed ? 0 : 1;
    std::vector<double> frame_times;
    ShaderWatcher watcher(hotReloadDirectory());
    auto last_watch = std::chrono::steady_clock::now();
    double gpu_parts[5] = {0, 0, 0, 0, 0}; // bench: GPU ms of the steps, the pick, the drawing, the copies out, history
    int screenshot_counter = 1;
    uint64_t frame_number = 0;
    auto last = std::chrono::steady_clock::now();
    const auto start = last;
    double fps_accum = 0;
    int fps_frames = 0;
    bool final_screenshot_pending = false;

    // Recording: --record starts at the first frame; F9 and the panel start and stop others.
    Recorder recorder(ctx, kFramesInFlight);
    std::vector<RecordingSummary> recordings;
    if (!o.record.empty()) {
        recorder.start(record, extent, format);
        std::fprintf(stderr, "alluvium: recording %s (%ux%u at %d fps)\n", displayPath(o.record).c_str(),
                     recorder.current()->width, recorder.current()->height, record.fps);
    }
    struct sigaction quit_action{};
    quit_action.sa_handler = onQuitSignal;
    quit_action.sa_flags = SA_RESETHAND;
    sigemptyset(&quit_action.sa_mask);
    // Not where the signal was ignored when the viewer started (a background job of a script).
    struct sigaction old_int{}, old_term{};
    sigaction(SIGINT, nullptr, &old_int);
    sigaction(SIGTERM, nullptr, &old_term);
    if (old_int.sa_handler != SIG_IGN) sigaction(SIGINT, &quit_action, nullptr);
    if (old_term.sa_handler != SIG_IGN) sigaction(SIGTERM, &quit_action, nullptr);

    while (true) {
        if (windowed) {
            glfwPollEvents();
            if (glfwWindowShouldClose(app.window)) s.quit = true;
        }
        if (g_quit_signal) s.quit = true;
        const bool last_frame = s.quit || (frame_limit > 0 && frame_number + 1 >= uint64_t(frame_limit));
        if (s.quit && !o.screenshot.empty() && !final_screenshot_pending) final_screenshot_pending = true;
        if (s.quit && !final_screenshot_pending) break;

        const uint32_t slot = uint32_t(frame_number % kFramesInFlight);
        Frame& f = frames[slot];
        VK_CHECK(vkWaitForFences(ctx.device, 1, &f.fence, VK_TRUE, UINT64_MAX));
        if (f.submitted) {
            readBack(app, f, *renderer, slot);
            history.collect(f.submission, s.gpu_history_ms);
        }
        recorder.collect(slot); // the frame captured in this slot goes to the writer
        s.validation_errors = ctx.validation_errors ? ctx.validation_errors->load() : 0;

        handleRequests(app);
        for (RecordingSummary& r : handleRecording(s, recorder, extent, format)) recordings.push_back(std::move(r));
        if (!bench && std::chrono::steady_clock::now() - last_watch > std::chrono::milliseconds(500)) {
            hotReload(app, watcher);
            last_watch = std::chrono::steady_clock::now();
        }
        if (s.params_dirty) {
            try {
                applyParams(app);
            } catch (const gpu::DeviceError& e) {
                // The fluvial model's buffers do not fit this grid on this device: the model
                // running goes on, and the panel says why.
                s.message = e.what();
                std::fprintf(stderr, "alluvium: %s\n", e.what());
                s.model = app.sim->params().model;
                applyParams(app);
            }
        }
        if (s.vsync_changed && windowed) {
            s.vsync_changed = false;
            recreateSwapchain();
        }
        if (s.frame_all_requested) {
            const float L = float(s.params[Param::cell_size]);
            frameAll(app.camera, float(s.width) * L, float(s.height) * L, app.relief_lo * s.exaggeration,
                     app.relief_hi * s.exaggeration);
            s.frame_all_requested = false;
        }

        uint32_t target = slot;
        if (windowed) {
            const VkResult acquired =
                vkAcquireNextImageKHR(ctx.device, swapchain.swapchain, UINT64_MAX, f.acquired, VK_NULL_HANDLE, &target);
            if (acquired == VK_ERROR_OUT_OF_DATE_KHR) {
                recreateSwapchain();
                continue;
            }
            if (acquired != VK_SUCCESS && acquired != VK_SUBOPTIMAL_KHR) VK_CHECK(acquired);
        }

        // UI and input for this frame.
        const auto now = std::chrono::steady_clock::now();
        const double dt = std::chrono::duration<double>(now - last).count();
        last = now;
        if (windowed) ImGui_ImplGlfw_NewFrame();
        else {
            ImGui::GetIO().DisplaySize = ImVec2(float(extent.width), float(extent.height));
            ImGui::GetIO().DeltaTime = float(std::max(dt, 1e-4));
        }
        ImGui_ImplVulkan_NewFrame();
        ImGui::NewFrame();
        const BrushInput input = windowed ? handleMouse(app, extent) : BrushInput{};
        drawPanel(s);
        ImGui::Render();

        int steps = s.paused || s.history.scrubbing ? 0 : s.steps_per_frame;
        if (s.paused && s.single_steps > 0) {
            steps = 1;
            --s.single_steps;
        }
        const bool brush_visible = windowed && s.pick_hit && !ImGui::GetIO().WantCaptureMouse;
        fillUniforms(app, *renderer, renderer->uniforms(slot), extent, brush_visible);

        // A screenshot: F12 / the panel (to a numbered file), or --screenshot on the last frame.
        std::string shot;
        if (!s.screenshot_request.empty()) {
            shot = s.screenshot_request == "*" ? nextScreenshotPath(o.screenshot, screenshot_counter) : s.screenshot_request;
            s.screenshot_request.clear();
        } else if ((last_frame || final_screenshot_pending) && !o.screenshot.empty()) {
            shot = o.screenshot;
        }
        // A frame of the recording: a buffer of its ring (waits only if the encoder is behind).
        const bool capture = recorder.beginCapture(slot);
        gpu::Buffer readback;
        auto copies = [&](VkCommandBuffer cmd) {
            if (capture) recorder.recordCapture(cmd, slot, offscreen[slot].image, extent);
            if (!shot.empty()) {
                gpu::createBuffer(readback, ctx, VkDeviceSize(extent.width) * extent.height * 4, 0, true);
                recordCopy(cmd, offscreen[slot].image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, extent, readback);
            }
        };
        const bool without_panel = s.recording.hide_panel && (capture || !shot.empty());

        VK_CHECK(vkResetFences(ctx.device, 1, &f.fence));
        f.submission = frame_number + 1;
        recordFrame(app, f, *renderer, slot, slot, steps, input, without_panel, copies);
        if (windowed) recordPresentCopy(f.cmd, offscreen[slot].image, swapchain.images[target], extent);
        VK_CHECK(vkEndCommandBuffer(f.cmd));
        VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
        const VkPipelineStageFlags wait_stage = VK_PIPELINE_STAGE_TRANSFER_BIT; // only the copy needs the image
        submit.commandBufferCount = 1;
        submit.pCommandBuffers = &f.cmd;
        if (windowed) {
            submit.waitSemaphoreCount = 1;
            submit.pWaitSemaphores = &f.acquired;
            submit.pWaitDstStageMask = &wait_stage;
            submit.signalSemaphoreCount = 1;
            submit.pSignalSemaphores = &rendered[target];
        }
        VK_CHECK(vkQueueSubmit(ctx.queue, 1, &submit, f.fence));
        f.submitted = true;
        if (windowed) {
            VkPresentInfoKHR present{VK_STRUCTURE_TYPE_PRESENT_INFO_KHR};
            present.waitSemaphoreCount = 1;
            present.pWaitSemaphores = &rendered[target];
            present.swapchainCount = 1;
            present.pSwapchains = &swapchain.swapchain;
            present.pImageIndices = &target;
            const VkResult r = vkQueuePresentKHR(ctx.queue, &present);
            int fw, fh;
            glfwGetFramebufferSize(app.window, &fw, &fh);
            if (r == VK_ERROR_OUT_OF_DATE_KHR || r == VK_SUBOPTIMAL_KHR || uint32_t(fw) != extent.width ||
                uint32_t(fh) != extent.height)
                recreateSwapchain();
            else if (r != VK_SUCCESS)
                VK_CHECK(r);
        }
        if (!shot.empty()) {
            // Only a screenshot waits for its frame.
            VK_CHECK(vkWaitForFences(ctx.device, 1, &f.fence, VK_TRUE, UINT64_MAX));
            try {
                writeScreenshot(shot, extent.width, extent.height, readback.mapped, bgra);
                s.message = "screenshot " + shot;
                std::fprintf(stderr, "alluvium: wrote %s\n", shot.c_str());
            } catch (const InputError& e) {
                s.message = e.what();
                std::fprintf(stderr, "alluvium: %s\n", e.what());
            }
            gpu::destroyBuffer(readback, ctx);
            final_screenshot_pending = false;
        }

        ++frame_number;
        const double frame_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - now).count();
        (void)frame_s;
        if (frame_number > uint64_t(warmup)) {
            frame_times.push_back(dt * 1e3);
            gpu_parts[0] += s.gpu_sim_ms, gpu_parts[1] += s.gpu_pick_ms, gpu_parts[2] += s.gpu_draw_ms;
            gpu_parts[3] += s.gpu_capture_ms, gpu_parts[4] += s.gpu_history_ms;
        }
        fps_accum += dt;
        ++fps_frames;
        if (fps_accum > 0.5) {
            s.fps = fps_frames / fps_accum;
            s.frame_ms = 1e3 * fps_accum / fps_frames;
            fps_accum = 0;
            fps_frames = 0;
        }
        if (last_frame && !final_screenshot_pending) break;
        if (s.quit && !final_screenshot_pending) break;
    }
    vkDeviceWaitIdle(ctx.device);
    sigaction(SIGINT, &old_int, nullptr);
    sigaction(SIGTERM, &old_term, nullptr);
    // The recordings under way are finished: ffmpeg encodes what it still holds.
    recorder.finishAll();
    for (RecordingSummary& r : recorder.takeFinished()) {
        std::fprintf(stderr, "alluvium: %s\n", describe(r).c_str());
        recordings.push_back(std::move(r));
    }
    int status = 0;
    for (const RecordingSummary& r : recordings)
        if (r.settings.from_command_line && !r.error.empty()) status = 1;
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    if (bench && frame_times.size() > 1) {
        // The first interval measured spans the warm-up's last frame: drop it.
        std::vector<double> t(frame_times.begin() + 1, frame_times.end());
        std::sort(t.begin(), t.end());
        const double mean = std::accumulate(t.begin(), t.end(), 0.0) / double(t.size());
        const double p95 = t[std::min(t.size() - 1, size_t(std::ceil(0.95 * double(t.size()))) - 1)];
        std::printf("view bench: %zu frames, %ux%u %s, %dx%d cells, mesh %ux%u, %d steps/frame, model %s: mean %.2f ms "
                    "(%.1f fps), p95 %.2f ms\n",
                    t.size(), extent.width, extent.height, windowed ? "window" : "offscreen", s.width, s.height,
                    renderer->meshX(), renderer->meshY(), s.paused ? 0 : s.steps_per_frame, gpu::modelName(s.model), mean,
                    1e3 / mean, p95);
        const double n = double(frame_times.size());
        std::printf("view bench: GPU per frame: steps %.2f ms, pick %.2f ms, drawing %.2f ms, copies out %.2f ms, history %.2f ms\n",
                    gpu_parts[0] / n, gpu_parts[1] / n, gpu_parts[2] / n, gpu_parts[3] / n, gpu_parts[4] / n);
        if (history.enabled()) std::printf("view bench: history: %s\n", history.summary().c_str());
    }

    if (!o.save_session.empty()) {
        saveViewerSession(app, o.save_session);
        std::fprintf(stderr, "alluvium: saved the session to %s (step %lld)\n", displayPath(o.save_session).c_str(),
                     s.steps_before + s.steps_done);
    }
    if (!o.report.empty()) {
        // The history and the digest of the state first: the report's budgets below add the
        // brush's tallies into the simulation's totals.
        const nlohmann::json history_report = history.report();
        const std::string digest = gpu::digestText(gpu::stateDigest(sim));
        const StateSums after = sumState(sim, s.params[Param::cell_size]);
        // The brush's volumes since the last reset join the budgets of `run`'s report.
        const gpu::BrushTotals bt = brush.totals();
        gpu::Totals t = sim.totals();
        t.acc[SLOT_BRUSH_WATER_ADD] += bt.water_added;
        t.acc[SLOT_BRUSH_WATER_REMOVE] += bt.water_removed;
        t.acc[SLOT_BRUSH_SOIL_ADD] += bt.terrain_added;
        t.acc[SLOT_BRUSH_SOIL_REMOVE] += bt.terrain_removed;
        sim.setTotals(t);
        nlohmann::json report = makeReport(sim, app.initial_sums, after, int(s.steps_done), seconds, s.params[Param::cell_size]);
        report["model"] = gpu::modelName(s.model);
        const gpu::BrushTotals& c = app.brush_carry;
        report["brush"] = {
            {"water_added", c.water_added + bt.water_added},
            {"water_removed", c.water_removed + bt.water_removed},
            {"terrain_added", c.terrain_added + bt.terrain_added},
            {"terrain_removed", c.terrain_removed + bt.terrain_removed},
            {"hand_picked", c.hand_picked + bt.hand_picked},
            {"hand_dropped", c.hand_dropped + bt.hand_dropped},
            {"hand_held", bt.hand_picked - bt.hand_dropped},
        };
        report["springs"] = s.springs.size();
        report["frames"] = frame_number;
        report["recordings"] = nlohmann::json::array();
        for (const RecordingSummary& r : recordings) report["recordings"].push_back(toJson(r));
        report["validation_errors"] = ctx.validation_errors ? ctx.validation_errors->load() : 0;
        report["history"] = history_report;
        report["state_digest"] = digest;
        writeTextAtomic(o.report, report.dump(2) + "\n");
        if (after.nan_cells > 0) status = 1;
    }
    if (device.validation)
        std::fprintf(stderr, "alluvium: validation errors: %d\n", ctx.validation_errors ? ctx.validation_errors->load() : 0);

    ImGui_ImplVulkan_Shutdown();
    if (windowed) ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
    vkDestroyDescriptorPool(ctx.device, imgui_pool, nullptr);
    for (Frame& f : frames) {
        vkDestroyFence(ctx.device, f.fence, nullptr);
        vkDestroySemaphore(ctx.device, f.acquired, nullptr);
        gpu::destroyTimer(f.timer, ctx);
        vkFreeCommandBuffers(ctx.device, ctx.command_pool, 1, &f.cmd);
    }
    for (VkSemaphore sem : rendered) vkDestroySemaphore(ctx.device, sem, nullptr);
    renderer.reset();
    for (ColorTarget& t : offscreen) destroyColorTarget(t, ctx);
    destroySwapchain(swapchain, ctx);
    if (surface) vkDestroySurfaceKHR(ctx.instance, surface, nullptr);
    if (app.window) glfwDestroyWindow(app.window);
    if (windowed) shutdownWindowSystem();
    return status;
}

} // namespace alluvium
