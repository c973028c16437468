// The viewer's actions between frames: parameters, reset, the panel's file requests, shader
// hot reload.
#include <algorithm>
#include <chrono>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "app.h"
#include "history.h"
#include "io/atomic_file.h"
#include "io/engine_export.h"
#include "io/errors.h"
#include "io/terrain_gen.h"
#include "panel.h"
#include "presets.h"
#include "render_shared.h"
#include "session.h"

namespace alluvium::viewer {

void logAction(const ViewerState& s, const std::string& what) {
    if (s.log_actions) std::fprintf(stderr, "alluvium: frame %llu: %s\n", s.frame, what.c_str());
}

void applyParams(App& app) {
    ViewerState& s = app.state;
    gpu::SimParams p = toSimParams(s.params, s.width, s.height);
    p.model = s.model;
    p.particle_seed = static_cast<uint32_t>(s.seed);
    app.sim->setParams(p);
    s.params_dirty = false;
}

void measureRelief(App& app) {
    const std::vector<float>& h = app.initial.terrain.heights;
    const auto [lo, hi] = std::minmax_element(h.begin(), h.end());
    app.relief_lo = *lo;
    app.relief_hi = std::max(*hi, *lo + 1.0f);
}

// Uploads the initial terrain again (R, a new terrain, an import). Waits for the device: a
// person's action, not part of the frame loop.
void resetSimulation(App& app) {
    vkDeviceWaitIdle(app.ctx->device);
    // The budgets restart with the terrain; the report's brush totals keep counting.
    const gpu::BrushTotals t = app.brush->totals();
    app.brush_carry.water_added += t.water_added;
    app.brush_carry.water_removed += t.water_removed;
    app.brush_carry.terrain_added += t.terrain_added;
    app.brush_carry.terrain_removed += t.terrain_removed;
    app.brush_carry.hand_picked += t.hand_picked;
    app.brush_carry.hand_dropped += t.hand_dropped;
    app.brush_carry.lava_poured += t.lava_poured;
    app.brush->resetTotals();
    app.hand_holding = app.hand_picking = false;
    loadInitialState(*app.sim, app.initial, app.state.params); // the maps since the start too
    app.state.initial_water = 0;
    app.state.steps_done = 0;
    app.state.steps_before = 0;
    app.initial_sums = sumState(*app.sim, app.state.params[Param::cell_size]);
    app.state.watchdog.clear();
    measureRelief(app);
}

namespace {

void savePreset(const ViewerState& s, const std::string& path) {
    nlohmann::json doc;
    doc["description"] = "saved from the viewer";
    doc["model"] = gpu::modelName(s.model);
    nlohmann::json params = nlohmann::json::object();
    for (int i = 0; i < kParamCount; ++i) {
        const ParamInfo& info = paramTable()[size_t(i)];
        const Param p = static_cast<Param>(i);
        if (info.kind == 'f')
            params[info.name] = s.params[p];
        else
            params[info.name] = s.params.format(p);
    }
    doc["params"] = params;
    writeTextAtomic(path, doc.dump(2) + "\n");
}

} // namespace

void saveViewerSession(App& app, const std::string& path) {
    if (!isSessionPath(path)) throw InputError("a session file ends in .alluvium or .session ('" + path + "')");
    vkDeviceWaitIdle(app.ctx->device);
    const ViewerState& s = app.state;
    Session session = captureSession(*app.sim, s.params, app.initial.terrain.heights, app.initial_sums,
                                     app.state.steps_before + s.steps_done);
    // The brush's volumes since the last reset join the budgets (as in the viewer's report), so a
    // resumed run's budget still closes.
    const gpu::BrushTotals b = app.brush->totals();
    session.totals.acc[SLOT_BRUSH_WATER_ADD] += b.water_added;
    session.totals.acc[SLOT_BRUSH_WATER_REMOVE] += b.water_removed;
    session.totals.acc[SLOT_BRUSH_SOIL_ADD] += b.terrain_added;
    session.totals.acc[SLOT_BRUSH_SOIL_REMOVE] += b.terrain_removed;
    saveSession(path, session);
}

std::string nextScreenshotPath(const std::string& base, int& counter) {
    std::filesystem::path p = base.empty() ? std::filesystem::path("alluvium.png") : std::filesystem::path(base);
    const std::string stem = p.stem().string();
    return (p.parent_path() / (stem + "-" + std::to_string(counter++) + ".png")).string();
}

// Carries out a panel's file request; errors become the panel's message, never an exit.
void handleRequests(App& app) {
    ViewerState& s = app.state;
    try {
        if (!s.load_preset.empty()) {
            Params p = s.params;
            const std::string model = applyPreset(p, s.load_preset);
            s.params = p;
            if (!model.empty()) s.model = gpu::modelFromName(model); // a preset made for a model runs it
            s.params_dirty = true;
            s.message = "loaded preset " + s.load_preset;
        }
        if (!s.save_preset.empty()) {
            if (!hasExtension(s.save_preset, ".json")) throw InputError("a preset file ends in .json");
            savePreset(s, s.save_preset);
            s.message = "saved preset " + s.save_preset;
        }
        if (!s.save_session.empty()) {
            saveViewerSession(app, s.save_session);
            s.message = "saved the session " + s.save_session + " (step " +
                        std::to_string(app.state.steps_before + s.steps_done) + ")";
        }
        if (!s.export_path.empty()) {
            vkDeviceWaitIdle(app.ctx->device);
            Heightmap map{s.width, s.height, app.sim->download(gpu::Field::Terrain)};
            if (s.export_engine.empty()) {
                saveHeightmap(s.export_path, map, s.params[Param::cell_size]);
                s.message = "exported " + s.export_path;
            } else {
                const EngineExport e =
                    exportForEngine(engineNamed(s.export_engine), map, s.params[Param::cell_size], s.export_path, 0);
                s.message = "exported " + s.export_path + " for " + s.export_engine;
                for (const std::string& line : e.settings) s.message += "; " + line;
            }
        }
        if (!s.import_path.empty() || s.new_terrain_requested) {
            TerrainOptions t;
            t.in = s.import_path;
            t.seed = static_cast<uint64_t>(s.seed);
            if (t.in.empty()) t.terrain = terrainShapeName(TerrainShape(s.terrain_shape));
            t.size = std::to_string(s.width) + "x" + std::to_string(s.height);
            InitialTerrain next = prepareTerrain(t, s.params[Param::cell_size]);
            if (next.terrain.width != s.width || next.terrain.height != s.height)
                throw InputError("the heightmap is " + std::to_string(next.terrain.width) + "x" +
                                 std::to_string(next.terrain.height) + "; the viewer's grid is " +
                                 std::to_string(s.width) + "x" + std::to_string(s.height) +
                                 " (start `alluvium view --in FILE` to change the grid size)");
            app.initial = std::move(next);
            s.reset_requested = true;
            s.message = s.import_path.empty()
                            ? std::string("new terrain: ") + terrainShapeName(TerrainShape(s.terrain_shape)) +
                                  ", seed " + std::to_string(s.seed)
                            : "imported " + s.import_path;
        }
    } catch (const std::exception& e) {
        s.message = e.what();
    }
    s.load_preset.clear();
    s.save_preset.clear();
    s.export_path.clear();
    s.save_session.clear();
    s.import_path.clear();
    s.new_terrain_requested = false;
    if (s.reset_requested) {
        resetSimulation(app);
        if (app.history) app.history->detach(); // the state descends from no snapshot
        s.reset_requested = false;
    }
    if (s.water_table_requested) {
        equilibriumWaterTable(app);
        s.water_table_requested = false;
    }
}

// The panel's "Equilibrium water table" (seed 003, gpu/water_table.cpp): relaxed on the current
// ground and shown as the water-table overlay. With groundwater on, the groundwater takes it (what
// that adds or removes is counted like the brush's water, so the budget stays closed).
void equilibriumWaterTable(App& app) {
    ViewerState& s = app.state;
    vkDeviceWaitIdle(app.ctx->device);
    const auto start = std::chrono::steady_clock::now();
    const uint32_t moving = app.sim->computeWaterTable(static_cast<int>(s.params[Param::table_iterations]));
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    char text[160];
    std::snprintf(text, sizeof text, "%d rounds in %.1f s, %u cells still moving",
                  int(s.params[Param::table_iterations]), seconds, moving);
    s.water_table_status = text;
    if (s.params[Param::enable_groundwater] >= 0.5) {
        const std::vector<float> table = app.sim->download(gpu::Field::WaterTable);
        const std::vector<float> ground = app.sim->download(gpu::Field::Terrain);
        const std::vector<float> base = app.sim->download(gpu::Field::AquiferBase);
        const std::vector<float> before = app.sim->download(gpu::Field::Groundwater);
        const double porosity = s.params[Param::porosity],
                     area = s.params[Param::cell_size] * s.params[Param::cell_size];
        std::vector<float> g(table.size());
        double added = 0.0, removed = 0.0;
        for (size_t i = 0; i < g.size(); ++i) {
            const double top = std::min(double(table[i]), double(ground[i]));
            g[i] = static_cast<float>(porosity * std::max(top - base[i], 0.0));
            const double change = (double(g[i]) - before[i]) * area;
            (change > 0.0 ? added : removed) += std::abs(change);
        }
        app.sim->upload(gpu::Field::Groundwater, g);
        gpu::Totals t = app.sim->totals();
        t.acc[SLOT_BRUSH_WATER_ADD] += added;
        t.acc[SLOT_BRUSH_WATER_REMOVE] += removed;
        app.sim->setTotals(t);
        s.water_table_status += "; the groundwater took it";
    }
    s.overlay = OVERLAY_WATER_TABLE;
    s.overlay_range = overlayDefaultRange(OVERLAY_WATER_TABLE);
}

// Rebuilds the pipeline of every simulation pass whose source changed; a compile error is
// shown in the panel and the old pipeline keeps running.
void hotReload(App& app, ShaderWatcher& watcher) {
    ViewerState& s = app.state;
    for (const ShaderChange& c : watcher.poll()) {
        int pass = -1;
        for (int p = 0; p < gpu::kPassCount; ++p)
            if (c.name == gpu::passName(static_cast<gpu::Pass>(p))) pass = p;
        if (!c.error.empty()) {
            s.shader_error = c.name + ".comp: " + c.error;
            s.shader_status = "compile error: the old " + c.name + " pipeline keeps running";
        } else if (pass < 0) {
            s.shader_status = c.name + ".comp changed: only the simulation's passes reload at run time";
        } else {
            app.sim->reloadPass(static_cast<gpu::Pass>(pass), c.spirv);
            s.shader_error.clear();
            s.shader_status = "reloaded " + c.name + ".comp";
        }
        std::fprintf(stderr, "alluvium: %s\n", s.shader_status.c_str());
        if (!s.shader_error.empty()) std::fprintf(stderr, "%s\n", s.shader_error.c_str());
    }
}

} // namespace alluvium::viewer
