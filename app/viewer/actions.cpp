// The viewer's actions between frames: parameters, reset, the panel's file requests, shader
// hot reload.
#include <algorithm>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "app.h"
#include "history.h"
#include "io/atomic_file.h"
#include "io/errors.h"
#include "presets.h"

namespace alluvium::viewer {

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
    app.brush->resetTotals();
    app.hand_holding = app.hand_picking = false;
    loadInitialState(*app.sim, app.initial);
    const size_t cells = size_t(app.sim->width()) * size_t(app.sim->height());
    app.sim->upload(gpu::Field::Wear, std::vector<float>(cells * 2, 0.0f));
    app.sim->upload(gpu::Field::Flow, std::vector<float>(cells, 0.0f));
    app.state.initial_water = 0;
    app.state.steps_done = 0;
    app.state.watchdog.clear();
    measureRelief(app);
}

namespace {

void savePreset(const ViewerState& s, const std::string& path) {
    nlohmann::json doc;
    doc["description"] = "saved from the viewer";
    nlohmann::json params = nlohmann::json::object();
    for (int i = 0; i < kParamCount; ++i) {
        const ParamInfo& info = paramTable()[size_t(i)];
        const Param p = static_cast<Param>(i);
        if (info.kind == 'f') params[info.name] = s.params[p];
        else params[info.name] = s.params.format(p);
    }
    doc["params"] = params;
    writeTextAtomic(path, doc.dump(2) + "\n");
}

} // namespace

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
            applyPreset(p, s.load_preset);
            s.params = p;
            s.params_dirty = true;
            s.message = "loaded preset " + s.load_preset;
        }
        if (!s.save_preset.empty()) {
            if (!hasExtension(s.save_preset, ".json")) throw InputError("a preset file ends in .json");
            savePreset(s, s.save_preset);
            s.message = "saved preset " + s.save_preset;
        }
        if (!s.export_path.empty()) {
            vkDeviceWaitIdle(app.ctx->device);
            Heightmap map{s.width, s.height, app.sim->download(gpu::Field::Terrain)};
            saveHeightmap(s.export_path, map, s.params[Param::cell_size]);
            s.message = "exported " + s.export_path;
        }
        if (!s.import_path.empty() || s.new_terrain_requested) {
            TerrainOptions t;
            t.in = s.import_path;
            t.seed = static_cast<uint64_t>(s.seed);
            t.size = std::to_string(s.width) + "x" + std::to_string(s.height);
            InitialTerrain next = prepareTerrain(t, s.params[Param::cell_size]);
            if (next.terrain.width != s.width || next.terrain.height != s.height)
                throw InputError("the heightmap is " + std::to_string(next.terrain.width) + "x" +
                                 std::to_string(next.terrain.height) + "; the viewer's grid is " +
                                 std::to_string(s.width) + "x" + std::to_string(s.height) +
                                 " (start `alluvium view --in FILE` to change the grid size)");
            app.initial = std::move(next);
            s.reset_requested = true;
            s.message = s.import_path.empty() ? "new terrain, seed " + std::to_string(s.seed) : "imported " + s.import_path;
        }
    } catch (const std::exception& e) {
        s.message = e.what();
    }
    s.load_preset.clear();
    s.save_preset.clear();
    s.export_path.clear();
    s.import_path.clear();
    s.new_terrain_requested = false;
    if (s.reset_requested) {
        resetSimulation(app);
        if (app.history) app.history->detach(); // the state descends from no snapshot
        s.reset_requested = false;
    }
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
