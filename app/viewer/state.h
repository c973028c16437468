// What the viewer's loop, its input handlers and its panel share: the controls a person sets,
// the requests the panel makes (carried out by the loop between frames) and the statistics the
// loop reads back. Plain data; no Vulkan, GLFW or ImGui.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "brush.h"
#include "params.h"
#include "simulation.h"

namespace alluvium::viewer {

enum class Tool { AddWater = 1, RemoveWater, Raise, Lower, Smooth, Flatten, Hardness, Spring, Hand };
const char* toolName(Tool t);
// The tools the simulation's brush runs (the others are listed but not wired yet).
bool toolAvailable(Tool t);

// Recording to a video (F9, the panel, --record): the settings a person chooses, the request, and
// what the loop reports back (recorder.h does the work).
struct RecordingControl {
    bool toggle_requested = false; // start or stop
    std::string path;              // the panel's file name; empty: alluvium-YYYYMMDD-HHMMSS.mp4
    int fps = 30;                  // the video's frame rate
    int width = 0, height = 0;     // the video's size; 0: the view's
    bool hide_panel = false;       // recordings and screenshots without the panel
    // Read back by the loop.
    bool active = false;
    std::string file;              // the recording under way
    unsigned long long frames = 0; // its frames so far
    double seconds = 0;            // since its first frame
    bool behind = false;           // the viewer waited for the encoder lately
};

// Undo, redo and time scrubbing (history.h does the work): the requests of the keys and the
// panel, and what the loop shows back.
struct HistoryEntry {
    int id = -1;
    int parent = -1;       // -1: none held (the first, or its parent was dropped)
    int branch = 1;        // a snapshot whose parent already had a child starts a new branch
    const char* kind = ""; // "stroke" (before one), "stroke end", "timed", "tip" (left by undo, redo or a scrub)
    double time = 0;       // simulated seconds (fluvial: years)
    long long steps = 0;
    long long new_bytes = -1; // blocks it did not share with the snapshot before it; -1 until known
};

struct HistoryControl {
    // Requests.
    bool undo = false, redo = false;
    bool first = false, last = false; // Home / End
    int step = 0;                     // -1 / +1: the previous / next snapshot (, and .)
    int go_to = -1;                   // a snapshot picked in the list or on the timeline
    bool scrubbing = false;           // the timeline is dragged: no steps run meanwhile
    float every = 10.0f;              // a snapshot every N simulated seconds (fluvial: years); 0: off
    // Read back.
    bool enabled = false;
    std::string off_reason;
    std::vector<HistoryEntry> entries; // held, oldest first
    std::vector<int> timeline;         // the ids along the current branch, oldest first
    int head = -1;                     // the snapshot the state was last stored into or restored from
    bool moved_on = false;             // the state changed since (the timeline's end is "now")
    unsigned long long budget = 0, held = 0;
    int taken = 0, undos = 0, redos = 0, scrubs = 0, dropped = 0;
    std::string message; // the last drop or refusal
};

struct ViewerState {
    // Simulation control.
    Params params;
    int model = MODEL_PIPE;
    bool params_dirty = true;
    bool paused = false;
    int steps_per_frame = 1;
    int single_steps = 0; // N: steps to run while paused
    bool reset_requested = false;
    bool water_table_requested = false; // the panel's "Equilibrium water table"
    std::string water_table_status;     // what the last one found
    bool new_terrain_requested = false;
    int terrain_shape = 0; // New terrain's shape (TerrainShape), from --terrain or the preset
    int seed = 1;
    int width = 0, height = 0; // cells

    // Brush.
    Tool tool = Tool::AddWater;
    float radius = 8.0f;                  // cells
    float strength = 5.0f;                // at the centre, per second of wall-clock time: m/s (water, ground,
                                          // hand), 1/s (smooth, flatten, hardness); paused too
    float falloff = 1.0f;                 // 0: flat disk .. 1: (1 - r^2)^2
    float paint_hardness = 1.0f;          // the hardness tool's target
    gpu::FluvialControl fluvial{};        // the fluvial model's last iteration (read like the totals)
    gpu::FluvialState::LakeStats lakes{}; // its closed lakes (lake_evaporation > 0)
    int paint_map = 0;                    // what the paint tool paints: 0 hardness, 1 uplift (fluvial), 2 rain, 3 sand
    float paint_uplift_value = 2.0f;      // the uplift's target (times uplift_rate)
    float paint_rain = 0.0f;              // the rain mask's target (0: no rain .. 1: rain_rate)
    float paint_vegetation = 1.0f;        // the vegetation's target density (0 clears)
    bool spring_is_vent = false;          // the spring tool places the lava's vent instead
    std::vector<gpu::Spring> springs;
    bool springs_dirty = false;

    // View.
    int overlay = 0; // OVERLAY_*
    float overlay_range = 1.0f;
    bool show_water = true;
    bool show_panel = true;
    bool vsync = true;
    bool vsync_changed = false;
    float exaggeration = 1.0f;
    float sun_azimuth = 2.3f, sun_elevation = 0.55f; // radians
    bool frame_all_requested = true;
    bool top_down = false;

    // Requests from the panel or keys, carried out by the loop.
    std::string screenshot_request; // path
    std::string load_preset, save_preset, import_path, export_path;
    std::string export_engine;   // "" (the file as its extension says), "unreal", "unity" or "godot"
    std::string save_session;    // path (Ctrl+S: --save-session's, or alluvium.session)
    std::string session_default; // the panel's starting session path (the same)
    RecordingControl recording;
    HistoryControl history;
    bool quit = false;
    bool log_actions = false;     // --log-actions: each action carried out, a line on stderr
    unsigned long long frame = 0; // the frame being made, as the history's events count them

    // Read back by the loop (a frame or two late).
    double fps = 0, frame_ms = 0, gpu_frame_ms = 0;
    double gpu_sim_ms = 0, gpu_pick_ms = 0, gpu_draw_ms = 0; // GPU time of the last frame's parts
    double gpu_capture_ms = 0;                           // its copies out (recording, screenshot), not in gpu_draw_ms
    double gpu_history_ms = 0;                           // its snapshot and restore copies, not in gpu_sim_ms
    std::vector<std::pair<std::string, double>> pass_ms; // one step, per pass
    gpu::Totals totals{};
    int substeps = 1;              // the pipe model's CFL sub-steps per step now
    gpu::BrushTotals brush_totals; // since the last reset
    bool hand_holding = false;
    double initial_water = 0;   // m^3 at reset
    long long steps_done = 0;   // since the viewer started (or the last reset)
    long long steps_before = 0; // a loaded session's steps before that (0 after a reset)
    bool pick_hit = false;
    float pick_x = 0, pick_y = 0, pick_height = 0;
    std::string watchdog;                    // non-empty: NaN seen, paused
    std::string message;                     // last action's result or error
    std::string shader_status, shader_error; // hot reload: last event, compile error (if any)
    int validation_errors = 0;
};

// --log-actions: "alluvium: frame F: WHAT" on stderr, so that a script driving the window can
// wait for its input to be carried out, however long the frames take.
void logAction(const ViewerState& s, const std::string& what);

} // namespace alluvium::viewer
