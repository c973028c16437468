// alluvium view: the interactive viewer (a window when a display is present, else offscreen).
#pragma once
#include <string>
#include <vector>

#include "commands.h"

namespace alluvium {

struct ViewOptions {
    TerrainOptions terrain; // --in, --size (grid), --seed, ... as for run
    std::vector<std::string> sets;
    std::string preset;
    std::string model;               // empty: pipe
    std::string report;              // --report FILE.json, written on exit
    std::string screenshot;          // --screenshot FILE.png: the last frame, on exit
    std::string window = "1600x900"; // --window WxH
    int exit_after_frames = 0;       // 0: run until closed (windowed) / 1 frame (offscreen)
    int bench_frames = 0;            // > 0: time that many frames, print mean and p95, exit
    int steps_per_frame = 1;
    int mesh = 0;                  // --mesh N: the drawn grid's vertices a side at most (0: by device)
    bool offscreen = false;        // render into an image even if a display is present
    bool paused = false;           // start paused
    bool no_panel = false;         // start with the panel hidden (Tab shows it)
    std::string overlay;           // start with an overlay view: depth, speed, sediment, hardness, flux, erosion
    bool probe_display = false;    // only say (exit 0 / 1) whether a window can be opened
    bool log_actions = false;      // each action carried out (pause, tool, stroke, undo...), a line on stderr
    std::string record;            // --record FILE.mp4|.mkv|.mov: record every frame from the start
    int record_fps = 30;           // --record-fps N: the video's rate (also the panel's recordings)
    std::string record_size;       // --record-size WxH: the video's size (default: the view's)
    bool record_no_panel = false;  // --record-no-panel: recordings and screenshots without the panel
    double history_budget_mb = -1; // --history-budget-mb: device memory for undo and scrubbing (< 0: automatic, 0: off)
    double history_every = 10;     // --history-every S: a snapshot every S simulated seconds (fluvial: years); 0: off
    std::string load_session;      // --load-session FILE: start from a saved session (run's or the viewer's)
    std::string save_session;      // --save-session FILE: save the state on exit (and where Ctrl+S saves)
};

int viewCommand(const ViewOptions& options, const DeviceOptions& device);

} // namespace alluvium
