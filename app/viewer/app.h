// What the viewer's loop shares with its input handlers and panel requests (app/viewer/): the
// application's state outside ViewerState, and the functions that act on it between frames.
#pragma once
#include <filesystem>
#include <optional>
#include <string>

#include "brush.h"
#include "camera.h"
#include "hot_reload.h"
#include "setup.h"
#include "state.h"

struct GLFWwindow;

namespace alluvium::viewer {

class History;

inline bool hasExtension(const std::string& path, const char* ext) {
    return std::filesystem::path(path).extension() == ext;
}

// Everything the loop owns that is not in ViewerState.
struct App {
    gpu::Context* ctx = nullptr;
    gpu::Simulation* sim = nullptr;
    InitialTerrain initial;
    ViewerState state;
    Camera camera;
    float relief_lo = 0, relief_hi = 1;
    GLFWwindow* window = nullptr;
    // Mouse.
    double last_x = 0, last_y = 0;
    bool right_moved = false;
    bool left_was_down = false, right_was_down = false;
    bool left_clicked = false; // a press seen by the callback (a click can be shorter than a frame)
    // The left button's stroke on the wall clock (glfwGetTime, seconds): the brush paints at rates
    // per second of real time, so a stroke's amount is its duration, whatever the frame rate, the
    // steps per frame or a pause. The callbacks stamp the press and the release; each frame paints
    // from painted_until to now (or to the release).
    double pressed_at = 0, released_at = 0, painted_until = 0;
    double brush_seconds = 0; // the strokes' painted time, for the report
    float scroll = 0;
    gpu::Brush* brush = nullptr;
    History* history = nullptr;   // undo, redo, scrubbing (history.h)
    gpu::BrushTotals brush_carry; // brush totals before the last reset
    // Sessions (--load-session, --save-session, Ctrl+S): the sums of the state the budgets start
    // from (the loaded session's, or the terrain's at the last reset).
    StateSums initial_sums;
    std::string session_path;  // where Ctrl+S saves
    float stroke_height = 0;   // flatten: the ground's height where the stroke began
    bool hand_picking = false; // the hand: the button is down, picking up
    bool hand_holding = false; // the hand: holds ground until the next click
};

// What the mouse asks of the brush this frame.
struct BrushInput {
    bool painting = false; // the left button paints at the point under the cursor
    bool drop = false;     // the hand puts down what it holds
    double seconds = 0;    // the stroke's wall-clock time this frame paints
};

// [actions.cpp] The simulation's parameters from the table (after a panel edit).
void applyParams(App& app);
// The initial terrain's lowest and highest ground (colours, skirts, framing).
void measureRelief(App& app);
// Uploads the initial terrain again (R, a new terrain, an import); waits for the device.
void resetSimulation(App& app);
// Saves the whole state between steps as a session `run --load-session` and
// `view --load-session` resume (app/session.h); waits for the device. Throws on a bad path.
void saveViewerSession(App& app, const std::string& path);
// The panel's "Equilibrium water table": computes it, shows it, and with groundwater on
// loads it into the groundwater.
void equilibriumWaterTable(App& app);
// Carries out the panel's file requests (presets, import, export, new terrain) and a reset;
// errors become the panel's message.
void handleRequests(App& app);
// Rebuilds the pipelines of the simulation's passes whose source changed.
void hotReload(App& app, ShaderWatcher& watcher);
// base "shot.png" -> "shot-<counter>.png" (counter then incremented).
std::string nextScreenshotPath(const std::string& base, int& counter);

// [input.cpp] Installs the key, scroll and mouse-button callbacks (before ImGui's, which chain).
void installInputCallbacks(GLFWwindow* window);
// Orbit, pan and zoom from the mouse, and what the left button asks of the brush.
BrushInput handleMouse(App& app, VkExtent2D extent);
// The brush's application this frame, if any (rates per simulated second).
std::optional<gpu::BrushParams> brushStroke(const App& app, BrushInput in);

} // namespace alluvium::viewer
