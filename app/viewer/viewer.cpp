// alluvium view: the wiring. The options are checked, the state set up (a session or a terrain),
// the device, the simulation, the brush and the history made, the window (or none) presented by
// presenter.cpp, the frames run by viewer_loop.cpp, and on exit the bench line, the session and
// the report written. Input is in input.cpp, the actions between frames in actions.cpp, the
// frame's GPU work in frame.cpp, the drawing in renderer.cpp, the panel in panel.cpp.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <optional>

#define GLFW_INCLUDE_VULKAN
#include <GLFW/glfw3.h>

#include "app.h"
#include "history.h"
#include "io/atomic_file.h"
#include "io/errors.h"
#include "io/terrain_gen.h"
#include "options.h"
#include "panel.h"
#include "pipeline.h"
#include "presenter.h"
#include "presets.h"
#include "render_shared.h"
#include "renderer.h"
#include "report.h"
#include "session.h"
#include "snapshot.h"
#include "view.h"
#include "viewer_loop.h"

namespace alluvium {

using namespace viewer;

namespace {

constexpr uint32_t kFramesInFlight = 2;
constexpr uint32_t kTimerCapacity =
    16 + 8 * MAX_SUBSTEPS; // a frame: its marks, and one step of up to MAX_SUBSTEPS sub-steps

// GLFW (a display was found) and the window, given back last; the Vulkan context, before them.
struct WindowSystem {
    bool on = false;
    GLFWwindow* window = nullptr;
    ~WindowSystem() {
        if (window) glfwDestroyWindow(window);
        if (on) shutdownWindowSystem();
    }
};
struct ContextGuard {
    gpu::Context ctx;
    ~ContextGuard() { gpu::destroyContext(ctx); }
};

// The state the viewer starts from: a saved session (run's or the viewer's: its grid, its
// parameters with --preset and --set on top, its model unless --model, its initial terrain for R)
// or the terrain of --in / the generator; and the view's settings from the options.
std::optional<Session> startState(App& app, const ViewOptions& o, const CheckedViewOptions& checked) {
    ViewerState& s = app.state;
    std::optional<Session> resumed;
    if (!o.load_session.empty()) resumed = loadSession(o.load_session);
    if (resumed) {
        s.params = sessionParams(*resumed, o.preset, o.terrain.cell_size, o.sets);
        app.initial.terrain = {resumed->width, resumed->height, resumed->initial_terrain};
        for (const auto& [field, values] : resumed->fields)
            if (field == gpu::Field::Hardness)
                app.initial.hardness = values;
            else if (field == gpu::Field::RainMask)
                app.initial.rain_mask = values; // R keeps where it rains
    } else {
        app.initial = prepareTerrainAndParams(o.terrain, o.preset, o.sets, s.params);
    }
    s.params[Param::record_maps] = 1; // the erosion overlay and the export read them
    s.width = app.initial.terrain.width;
    s.height = app.initial.terrain.height;
    if (s.width < 2 || s.height < 2) throw InputError("the viewer needs at least 2x2 cells");
    // The model: --model, else the preset's, else the session's, else the pipe model.
    const std::string preset_model = presetModel(o.preset);
    s.model = gpu::modelFromName(!o.model.empty()        ? o.model
                                 : !preset_model.empty() ? preset_model
                                 : resumed               ? resumed->model
                                                         : "pipe");
    noteInactiveSets(s.params, o.sets, s.model);
    app.session_path = o.save_session.empty() ? "alluvium.session" : o.save_session;
    s.session_default = app.session_path;
    s.seed = static_cast<int>(o.terrain.seed);
    const std::string shape = !o.terrain.terrain.empty() ? o.terrain.terrain : presetTerrain(o.preset);
    s.terrain_shape = int(terrainShapeFromName(shape.empty() ? "carved" : shape).value_or(TerrainShape::Carved));
    s.steps_per_frame = std::max(o.steps_per_frame, 1);
    s.paused = o.paused || o.steps_per_frame == 0;
    s.show_panel = !o.no_panel;
    s.log_actions = o.log_actions;
    s.overlay = checked.overlay;
    // A range that shows something at once; the panel's slider adjusts it.
    s.overlay_range = overlayDefaultRange(checked.overlay);
    s.radius = std::max(3.0f, float(std::max(s.width, s.height)) / 24.0f);
    s.recording.fps = checked.record.fps;
    s.recording.width = int(checked.record.width);
    s.recording.height = int(checked.record.height);
    s.recording.hide_panel = o.record_no_panel;
    if (o.bench_frames > 0) s.vsync = false;
    return resumed;
}

// The simulation's state: the session's, or the initial terrain's.
void loadState(App& app, std::optional<Session>& resumed) {
    ViewerState& s = app.state;
    gpu::Simulation& sim = *app.sim;
    if (resumed) {
        restoreSession(sim, *resumed);
        sim.setStepIndex(static_cast<int>(resumed->steps)); // rain events and droplet seeds continue
        s.steps_before = resumed->steps;
    } else {
        loadInitialState(sim, app.initial, s.params);
    }
    measureRelief(app);
    applyParams(app);
}

void createDeviceContext(const DeviceOptions& device, bool windowed, ContextGuard& guard) {
    gpu::ContextOptions copts;
    copts.device_index = device.device;
    copts.validation = device.validation;
    if (windowed) {
        copts.instance_extensions = windowInstanceExtensions();
        copts.device_extensions.push_back(VK_KHR_SWAPCHAIN_EXTENSION_NAME);
    }
    gpu::createContext(guard.ctx, copts);
}

GLFWwindow* openWindow(App& app, int width, int height) {
    glfwWindowHint(GLFW_CLIENT_API, GLFW_NO_API);
    glfwWindowHint(GLFW_RESIZABLE, GLFW_TRUE);
    glfwWindowHint(GLFW_SCALE_TO_MONITOR, GLFW_TRUE);
    GLFWwindow* window = glfwCreateWindow(width, height, "Alluvium", nullptr, nullptr);
    if (!window) throw gpu::DeviceError("cannot open a window");
    glfwSetWindowUserPointer(window, &app);
    installInputCallbacks(window); // before ImGui's (presenter.cpp), which chain them
    return window;
}

// --bench-frames: the frames' mean and 95th percentile, and the GPU's share of them.
void printBench(const App& app, const Presenter& presenter, const Renderer& renderer, const LoopResult& r) {
    const ViewerState& s = app.state;
    if (r.frame_ms.size() < 2) return;
    // The first interval measured spans the warm-up's last frame: drop it.
    std::vector<double> t(r.frame_ms.begin() + 1, r.frame_ms.end());
    std::sort(t.begin(), t.end());
    const double mean = std::accumulate(t.begin(), t.end(), 0.0) / double(t.size());
    const double p95 = t[std::min(t.size() - 1, size_t(std::ceil(0.95 * double(t.size()))) - 1)];
    const VkExtent2D extent = presenter.extent();
    std::printf("view bench: %zu frames, %ux%u %s, %dx%d cells, mesh %ux%u, %d steps/frame, model %s: mean %.2f ms "
                "(%.1f fps), p95 %.2f ms\n",
                t.size(), extent.width, extent.height, presenter.windowed() ? "window" : "offscreen", s.width, s.height,
                renderer.meshX(), renderer.meshY(), s.paused ? 0 : s.steps_per_frame, gpu::modelName(s.model), mean,
                1e3 / mean, p95);
    const double n = double(r.frame_ms.size());
    std::printf("view bench: GPU per frame: steps %.2f ms, pick %.2f ms, drawing %.2f ms, copies out %.2f ms, history "
                "%.2f ms\n",
                r.gpu_parts[0] / n, r.gpu_parts[1] / n, r.gpu_parts[2] / n, r.gpu_parts[3] / n, r.gpu_parts[4] / n);
    if (app.history->enabled()) std::printf("view bench: history: %s\n", app.history->summary().c_str());
}

// On exit: the session saved, the report written. Returns the exit status.
int finish(App& app, const ViewOptions& o, const LoopResult& r) {
    ViewerState& s = app.state;
    gpu::Simulation& sim = *app.sim;
    int status = 0;
    for (const RecordingSummary& rec : r.recordings)
        if (rec.settings.from_command_line && !rec.error.empty()) status = 1;
    OutputBatch outputs; // the session and the report together, or neither
    if (!o.save_session.empty()) {
        saveViewerSession(app, o.save_session);
    }
    if (!o.report.empty()) {
        // The history and the digest of the state first: the report's budgets add the brush's
        // tallies into the simulation's totals.
        ViewFacts facts;
        facts.history = app.history->report();
        facts.state_digest = gpu::digestText(gpu::stateDigest(sim));
        facts.initial_sums = app.initial_sums;
        facts.after = sumState(sim, s.params[Param::cell_size]);
        facts.steps = s.steps_done;
        facts.seconds = r.seconds;
        facts.cell_size = s.params[Param::cell_size];
        facts.brush = app.brush->totals();
        facts.brush_carry = app.brush_carry;
        facts.brush_seconds = app.brush_seconds;
        facts.springs = s.springs.size();
        facts.frames = r.frames;
        for (const RecordingSummary& rec : r.recordings) facts.recordings.push_back(toJson(rec));
        facts.validation_errors = app.ctx->validation_errors ? app.ctx->validation_errors->load() : 0;
        nlohmann::json report = viewReport(sim, facts);
        report["model"] = gpu::modelName(s.model);
        writeReport(o.report, report);
        if (facts.after.nan_cells > 0) status = 1;
    }
    outputs.commit();
    if (!o.save_session.empty())
        std::fprintf(stderr, "alluvium: saved the session to %s (step %lld)\n", displayPath(o.save_session).c_str(),
                     s.steps_before + s.steps_done);
    return status;
}

} // namespace

int viewCommand(const ViewOptions& o, const DeviceOptions& device) {
    if (o.probe_display) {
        const bool ok = initWindowSystem();
        if (ok) shutdownWindowSystem();
        return ok ? 0 : 1;
    }
    // Everything a person can get wrong is checked before the GPU starts.
    const CheckedViewOptions checked = checkViewOptions(o);
    App app;
    ViewerState& s = app.state;
    std::optional<Session> resumed = startState(app, o, checked);
    gpu::shaderDirectory(); // a broken installation is one line (InstallError) before a window opens
    // A window if a display is there (and not --offscreen), else the same frames offscreen.
    WindowSystem windows;
    windows.on = !o.offscreen && initWindowSystem();
    if (!windows.on && !o.offscreen) std::fprintf(stderr, "alluvium: no display; rendering offscreen\n");
    ContextGuard guard;
    createDeviceContext(device, windows.on, guard);
    gpu::Context& ctx = guard.ctx;
    app.ctx = &ctx;
    const uint32_t max_side = ctx.properties.limits.maxImageDimension2D;
    if (uint32_t(checked.window_w) > max_side || uint32_t(checked.window_h) > max_side)
        throw InputError("--window: " + ctx.device_name + " renders at most " + std::to_string(max_side) +
                         " pixels a side");
    drawnMesh(ctx, s.width, s.height,
              uint32_t(o.mesh)); // a mesh the device cannot bind: one line, before anything opens

    gpu::Simulation sim(ctx, s.width, s.height);
    app.sim = &sim;
    loadState(app, resumed);
    gpu::Brush brush(ctx, sim);
    app.brush = &brush;
    app.initial_sums = resumed ? resumed->initial_sums : sumState(sim, s.params[Param::cell_size]);
    resumed.reset(); // the fields are on the GPU now
    s.initial_water = app.initial_sums.water;
    std::string history_off;
    History history(ctx, sim, brush, historyBudget(ctx, sim, brush, o.history_budget_mb, history_off), history_off);
    app.history = &history;
    s.history.every = float(o.history_every);
    if (!history.enabled()) std::fprintf(stderr, "alluvium: history %s\n", history_off.c_str());

    if (windows.on) app.window = windows.window = openWindow(app, checked.window_w, checked.window_h);
    Presenter presenter(ctx, {app.window,
                              {uint32_t(checked.window_w), uint32_t(checked.window_h)},
                              s.vsync,
                              kFramesInFlight,
                              kTimerCapacity});
    Renderer renderer(ctx, sim, presenter.format(), VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, kFramesInFlight,
                      uint32_t(o.mesh));
    presenter.attach(renderer);
    Recorder recorder(ctx, kFramesInFlight);
    const VkExtent2D extent = presenter.extent();
    std::fprintf(stderr, "alluvium: viewer ready (%s%ux%u%s)\n", windows.on ? "" : "offscreen ", extent.width,
                 extent.height, windows.on ? " window" : "");

    LoopSettings settings;
    settings.bench = o.bench_frames > 0;
    settings.warmup = settings.bench ? 5 : 0;
    settings.frame_limit = settings.bench            ? settings.warmup + uint64_t(o.bench_frames)
                           : o.exit_after_frames > 0 ? uint64_t(o.exit_after_frames)
                           : windows.on              ? 0
                                                     : 1;
    settings.screenshot = o.screenshot;
    settings.record = checked.record;
    const LoopResult result = ViewerLoop(app, presenter, renderer, recorder, settings).run();
    if (settings.bench) printBench(app, presenter, renderer, result);
    const int status = finish(app, o, result);
    if (device.validation)
        std::fprintf(stderr, "alluvium: validation errors: %d\n",
                     ctx.validation_errors ? ctx.validation_errors->load() : 0);
    return status;
}

} // namespace alluvium
