// The viewer's frame loop: each frame reads back the one this slot drew before, carries out what
// the panel and the keys asked, draws the panel, records the steps, the pick and the scene,
// submits and presents, and writes a screenshot that was asked for. It runs until the window
// closes, Ctrl+Q or a signal, or the frame limit (offscreen, --exit-after-frames, --bench-frames).
#pragma once
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "app.h"
#include "history.h"
#include "presenter.h"
#include "recorder.h"

namespace alluvium::viewer {

struct LoopSettings {
    uint64_t frame_limit = 0; // 0: until closed
    uint64_t warmup = 0;      // frames before the timed ones (--bench-frames)
    bool bench = false;       // hot reload waits; frame times are kept
    std::string screenshot;   // --screenshot: the last frame, and F12's numbered ones
    RecordSettings record;    // --record (empty path: none)
};

// What the loop measured and made, for the bench line and the report.
struct LoopResult {
    uint64_t frames = 0;
    std::vector<double> frame_ms; // each timed frame's interval
    // GPU ms summed over the timed frames: the steps, the pick, the drawing, the copies out, history.
    double gpu_parts[5] = {0, 0, 0, 0, 0};
    std::vector<RecordingSummary> recordings;
    double seconds = 0.0;
};

class ViewerLoop {
public:
    ViewerLoop(App& app, Presenter& presenter, Renderer& renderer, Recorder& recorder, const LoopSettings& settings);
    // Runs the frames; finishes the recordings under way.
    LoopResult run();

private:
    // Before the frame in `slot` is recorded: its last use read back, the requests carried out.
    void prepare(uint32_t slot);
    // Records, submits and presents the frame; false when the swapchain was made anew first.
    bool draw(uint32_t slot, bool last_frame, bool& final_screenshot_pending);
    void measure(double dt);
    // --log-actions: the pause, the tool and the strokes this frame changed.
    void logActions(const BrushInput& input);

    App& app_;
    Presenter& presenter_;
    Renderer& renderer_;
    Recorder& recorder_;
    LoopSettings settings_;
    ShaderWatcher watcher_;
    LoopResult result_;
    std::chrono::steady_clock::time_point last_, last_watch_; // the last frame's start, hot reload's look
    int screenshot_counter_ = 1;
    bool logged_paused_ = false, stroking_ = false;
    Tool logged_tool_ = Tool::AddWater;
    double fps_accum_ = 0;
    int fps_frames_ = 0;
};

} // namespace alluvium::viewer
