// The viewer's frame loop (viewer_loop.h).
#include "viewer_loop.h"

#include <chrono>
#include <csignal>
#include <cstdio>

#define GLFW_INCLUDE_VULKAN
#include <GLFW/glfw3.h>
#include <imgui.h>

#include "io/atomic_file.h"
#include "io/errors.h"
#include "panel.h"
#include "vk_check.h"

namespace alluvium::viewer {

namespace {

// Ctrl+C or a TERM quit like Ctrl+Q: the recording is finished, the report and screenshot
// written. A second signal ends the process at once (the handler is reset).
volatile std::sig_atomic_t g_quit_signal = 0;
void onQuitSignal(int) { g_quit_signal = 1; }

// Installs the quit handlers for the loop's life; not where the signal was ignored when the
// viewer started (a background job of a script).
class QuitSignals {
public:
    QuitSignals() {
        struct sigaction quit {};
        quit.sa_handler = onQuitSignal;
        quit.sa_flags = SA_RESETHAND;
        sigemptyset(&quit.sa_mask);
        sigaction(SIGINT, nullptr, &old_int_);
        sigaction(SIGTERM, nullptr, &old_term_);
        if (old_int_.sa_handler != SIG_IGN) sigaction(SIGINT, &quit, nullptr);
        if (old_term_.sa_handler != SIG_IGN) sigaction(SIGTERM, &quit, nullptr);
    }
    ~QuitSignals() {
        sigaction(SIGINT, &old_int_, nullptr);
        sigaction(SIGTERM, &old_term_, nullptr);
    }
    QuitSignals(const QuitSignals&) = delete;
    QuitSignals& operator=(const QuitSignals&) = delete;

private:
    struct sigaction old_int_ {
    }, old_term_{};
};

// The panel changed the parameters: the simulation's follow. The fluvial model's buffers may not
// fit this grid on this device: the model running goes on, and the panel says why.
void applyPanelParams(App& app) {
    ViewerState& s = app.state;
    try {
        applyParams(app);
    } catch (const gpu::DeviceError& e) {
        s.message = e.what();
        std::fprintf(stderr, "alluvium: %s\n", e.what());
        s.model = app.sim->params().model;
        applyParams(app);
    }
}

} // namespace

ViewerLoop::ViewerLoop(App& app, Presenter& presenter, Renderer& renderer, Recorder& recorder,
                       const LoopSettings& settings)
    : app_(app), presenter_(presenter), renderer_(renderer), recorder_(recorder), settings_(settings),
      watcher_(hotReloadDirectory()) {}

LoopResult ViewerLoop::run() {
    ViewerState& s = app_.state;
    const QuitSignals signals;
    // Recording: --record starts at the first frame; F9 and the panel start and stop others.
    if (!settings_.record.path.empty()) {
        recorder_.start(settings_.record, presenter_.extent(), presenter_.format());
        std::fprintf(stderr, "alluvium: recording %s (%ux%u at %d fps)\n", displayPath(settings_.record.path).c_str(),
                     recorder_.current()->width, recorder_.current()->height, settings_.record.fps);
    }
    const auto start = std::chrono::steady_clock::now();
    last_ = start;
    bool final_screenshot_pending = false;
    logged_paused_ = s.paused;
    logged_tool_ = s.tool;
    while (true) {
        if (presenter_.windowed()) {
            glfwPollEvents();
            if (glfwWindowShouldClose(app_.window)) s.quit = true;
        }
        if (g_quit_signal) s.quit = true;
        const bool last_frame = s.quit || (settings_.frame_limit > 0 && result_.frames + 1 >= settings_.frame_limit);
        if (s.quit && !settings_.screenshot.empty()) final_screenshot_pending = true;
        if (s.quit && !final_screenshot_pending) break;
        const uint32_t slot = uint32_t(result_.frames % presenter_.framesInFlight());
        prepare(slot);
        if (!draw(slot, last_frame, final_screenshot_pending)) continue;
        if (last_frame && !final_screenshot_pending) break;
        if (s.quit && !final_screenshot_pending) break;
    }
    vkDeviceWaitIdle(app_.ctx->device);
    // The recordings under way are finished: ffmpeg encodes what it still holds.
    recorder_.finishAll();
    for (RecordingSummary& r : recorder_.takeFinished()) {
        std::fprintf(stderr, "alluvium: %s\n", describe(r).c_str());
        result_.recordings.push_back(std::move(r));
    }
    result_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result_;
}

void ViewerLoop::logActions(const BrushInput& input) {
    ViewerState& s = app_.state;
    if (!s.log_actions) return;
    if (s.paused != logged_paused_) logAction(s, s.paused ? "paused" : "playing");
    if (s.tool != logged_tool_) logAction(s, std::string("tool ") + toolName(s.tool));
    logged_paused_ = s.paused;
    logged_tool_ = s.tool;
    if (input.drop) logAction(s, "hand drops");
    // A quick click begins and ends in one frame.
    if (input.painting && !stroking_) logAction(s, "stroke begins");
    stroking_ = stroking_ || input.painting;
    if (stroking_ && !app_.left_was_down) {
        logAction(s, "stroke ends");
        stroking_ = false;
    }
}

void ViewerLoop::prepare(uint32_t slot) {
    ViewerState& s = app_.state;
    Frame& f = presenter_.frame(slot);
    VK_CHECK(vkWaitForFences(app_.ctx->device, 1, &f.fence, VK_TRUE, UINT64_MAX));
    if (f.submitted) {
        readBack(app_, f, renderer_, slot);
        app_.history->collect(f.submission, s.gpu_history_ms);
    }
    recorder_.collect(slot); // the frame captured in this slot goes to the writer
    s.validation_errors = app_.ctx->validation_errors ? app_.ctx->validation_errors->load() : 0;
    handleRequests(app_);
    for (RecordingSummary& r : handleRecording(s, recorder_, presenter_.extent(), presenter_.format()))
        result_.recordings.push_back(std::move(r));
    if (!settings_.bench && std::chrono::steady_clock::now() - last_watch_ > std::chrono::milliseconds(500)) {
        hotReload(app_, watcher_);
        last_watch_ = std::chrono::steady_clock::now();
    }
    if (s.params_dirty) applyPanelParams(app_);
    if (s.vsync_changed) {
        s.vsync_changed = false;
        presenter_.setVsync(s.vsync);
    }
    if (s.frame_all_requested) {
        const float L = float(s.params[Param::cell_size]);
        frameAll(app_.camera, float(s.width) * L, float(s.height) * L, app_.relief_lo * s.exaggeration,
                 app_.relief_hi * s.exaggeration);
        s.frame_all_requested = false;
    }
}

bool ViewerLoop::draw(uint32_t slot, bool last_frame, bool& final_screenshot_pending) {
    ViewerState& s = app_.state;
    Frame& f = presenter_.frame(slot);
    uint32_t image = slot;
    if (!presenter_.acquire(slot, image)) return false;
    // UI and input for this frame.
    const auto now = std::chrono::steady_clock::now();
    const double dt = std::chrono::duration<double>(now - last_).count();
    last_ = now;
    presenter_.newFrame(dt);
    const VkExtent2D extent = presenter_.extent();
    s.frame = result_.frames + 1;
    const BrushInput input = presenter_.windowed() ? handleMouse(app_, extent) : BrushInput{};
    logActions(input);
    drawPanel(s);
    ImGui::Render();
    int steps = s.paused || s.history.scrubbing ? 0 : s.steps_per_frame;
    if (s.paused && s.single_steps > 0) {
        steps = 1;
        --s.single_steps;
    }
    const bool brush_visible = presenter_.windowed() && s.pick_hit && !ImGui::GetIO().WantCaptureMouse;
    fillUniforms(app_, renderer_, renderer_.uniforms(slot), extent, brush_visible);
    // A screenshot: F12 / the panel (to a numbered file), or --screenshot on the last frame.
    std::string shot;
    if (!s.screenshot_request.empty()) {
        shot = s.screenshot_request == "*" ? nextScreenshotPath(settings_.screenshot, screenshot_counter_)
                                           : s.screenshot_request;
        s.screenshot_request.clear();
    } else if ((last_frame || final_screenshot_pending) && !settings_.screenshot.empty()) {
        shot = settings_.screenshot;
    }
    // A frame of the recording: a buffer of its ring (waits only if the encoder is behind).
    const bool capture = recorder_.beginCapture(slot);
    const ColorTarget& target = presenter_.target(slot);
    gpu::Buffer readback;
    auto copies = [&](VkCommandBuffer cmd) {
        if (capture) recorder_.recordCapture(cmd, slot, target.image, extent);
        if (!shot.empty()) {
            gpu::createBuffer(readback, *app_.ctx, VkDeviceSize(extent.width) * extent.height * 4, 0, true);
            recordCopy(cmd, target.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, extent, readback);
        }
    };
    const bool without_panel = s.recording.hide_panel && (capture || !shot.empty());
    VK_CHECK(vkResetFences(app_.ctx->device, 1, &f.fence));
    f.submission = result_.frames + 1;
    recordFrame(app_, f, renderer_, slot, slot, steps, input, without_panel, copies);
    presenter_.submit(slot, image);
    if (!shot.empty()) {
        // Only a screenshot waits for its frame.
        VK_CHECK(vkWaitForFences(app_.ctx->device, 1, &f.fence, VK_TRUE, UINT64_MAX));
        try {
            writeScreenshot(shot, extent.width, extent.height, readback.mapped, presenter_.bgra());
            s.message = "screenshot " + shot;
            std::fprintf(stderr, "alluvium: wrote %s\n", shot.c_str());
        } catch (const InputError& e) {
            s.message = e.what();
            std::fprintf(stderr, "alluvium: %s\n", e.what());
        }
        gpu::destroyBuffer(readback, *app_.ctx);
        final_screenshot_pending = false;
    }
    ++result_.frames;
    measure(dt);
    return true;
}

void ViewerLoop::measure(double dt) {
    ViewerState& s = app_.state;
    if (result_.frames > settings_.warmup) {
        result_.frame_ms.push_back(dt * 1e3);
        const double parts[5] = {s.gpu_sim_ms, s.gpu_pick_ms, s.gpu_draw_ms, s.gpu_capture_ms, s.gpu_history_ms};
        for (int i = 0; i < 5; ++i) result_.gpu_parts[i] += parts[i];
    }
    fps_accum_ += dt;
    ++fps_frames_;
    if (fps_accum_ > 0.5) {
        s.fps = fps_frames_ / fps_accum_;
        s.frame_ms = 1e3 * fps_accum_ / fps_frames_;
        fps_accum_ = 0;
        fps_frames_ = 0;
    }
}

} // namespace alluvium::viewer
