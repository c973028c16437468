// alluvium watertable: seed 003's equilibrium water table of a terrain (gpu/water_table.cpp),
// written as a heightmap, with a report and maps.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <optional>

#include "commands.h"
#include "export.h"
#include "io/atomic_file.h"
#include "io/errors.h"
#include "processes.h"
#include "progress.h"
#include "report.h"
#include "rivers.h"
#include "split_analysis.h"

namespace alluvium {

namespace {

// The water bodies of the table over the ground: the ocean (with a sea), lakes (a spill surface
// above the ground), land where the table meets the ground, and the depth below it elsewhere.
// Marks the water bodies' cells.
void countWaterBodies(const std::vector<float>& table, const std::vector<float>& spill,
                      const std::vector<float>& ground, const Params& params, WaterTableFacts& f,
                      std::vector<uint8_t>& water_body) {
    const double area = f.cell_size * f.cell_size;
    const bool sea = params[Param::enable_sea] >= 0.5;
    const double sea_level = params[Param::sea_level];
    double depth_sum = 0.0;
    long long below = 0;
    water_body.assign(table.size(), 0);
    for (size_t i = 0; i < table.size(); ++i) {
        if (!std::isfinite(table[i])) {
            ++f.nan_cells;
            continue;
        }
        const bool ocean = sea && ground[i] < sea_level && spill[i] < sea_level;
        const bool lake = !ocean && spill[i] < SEA_UNREACHED && spill[i] > ground[i];
        if (ocean) {
            ++f.ocean_cells;
            water_body[i] = 1;
        } else if (lake && table[i] > ground[i]) {
            ++f.lake_cells;
            water_body[i] = 1;
            f.lake_volume += double(table[i] - ground[i]) * area;
        } else if (table[i] >= ground[i]) {
            ++f.wet_land; // the table meets the ground: springs and rivers a water body sustains
        } else {
            depth_sum += double(ground[i] - table[i]);
            ++below;
        }
    }
    f.mean_depth_below = below > 0 ? depth_sum / double(below) : 0.0;
}

// Seed 003: only rivers that end at or come from a water body (or leave by an open edge) are
// sustained; the others dry up and drop their load where they end.
RiverMap rivers(const std::vector<float>& ground, const std::vector<float>& table,
                const std::vector<uint8_t>& water_body, const Params& params, int w, int h, double min_cells) {
    const int outlets = toSimParams(params, w, h).fluvial_outlets;
    std::vector<uint8_t> base_level(table.size(), 0);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) base_level[std::size_t(y) * w + x] = gpu::isOutletCell(x, y, w, h, outlets);
    return classifyRivers(ground, table, water_body, base_level, w, h, min_cells);
}

// 0 no river, 0.5 a dry river, 1 a sustained one.
MapLayer riverLayer(const RiverMap& rivers) {
    MapLayer layer;
    layer.name = "rivers";
    layer.unit = "1";
    layer.data.resize(rivers.kind.size());
    for (std::size_t i = 0; i < rivers.kind.size(); ++i)
        layer.data[i] = rivers.kind[i] == RiverKind::Sustained ? 1.0f : rivers.kind[i] == RiverKind::Dry ? 0.5f : 0.0f;
    return layer;
}

} // namespace

int watertableCommand(const WatertableOptions& o, const DeviceOptions& device) {
    Params params;
    InitialTerrain initial;
    const Processes& procs = processes();
    agree([&] { // rank 0 reads the input: a file it cannot read stops them all
        if (!procs.root()) return;
        // Rank 0's peak: the input, the table and spill surface gathered, the rivers; the maps.
        const auto check = [&](int w, int h) {
            if (procs.size > 1)
                checkRootHostMemory(w, h, o.out_maps.empty() ? 40.0 : 220.0,
                                    o.out_maps.empty() ? "the input, the table gathered and the rivers"
                                                       : "the input, the table gathered, the rivers and the maps");
        };
        if (int w = 0, h = 0; generatedSize(o.terrain, w, h)) check(w, h);
        initial = prepareAnalysis(o.out, o.report, o.out_maps, o.terrain, o.preset, o.sets, params);
        check(initial.terrain.width, initial.terrain.height);
    });
    if (procs.size > 1)
        agree([&] {
            nlohmann::json none;
            shareInput(params, initial, none);
        });
    WaterTableFacts f;
    f.cell_size = params[Param::cell_size];
    const int w = f.width = initial.terrain.width, h = f.height = initial.terrain.height;
    f.iterations = static_cast<int>(std::lround(params[Param::table_iterations]));
    const double cell_area = f.cell_size * f.cell_size;
    // The default, 1600 m^2 (100 cells of 4 m), is at least 4 cells: on a coarse DEM every cell
    // would drain more than it.
    f.river_min_cells = o.river_cells > 0.0  ? o.river_cells
                        : o.river_area > 0.0 ? o.river_area / cell_area
                                             : std::max(1600.0 / cell_area, 4.0);
    f.river_min_area = o.river_area > 0.0 && o.river_cells <= 0.0 ? o.river_area : f.river_min_cells * cell_area;
    f.outlets = params.format(Param::fluvial_outlets);

    ScopedContext scoped(device);
    f.device = scoped.ctx.device_name;
    const gpu::SimParams sp = toSimParams(params, w, h); // the edges where water leaves: fluvial_outlets
    // Split over processes (mpirun): the relaxation's half-rounds swap the blocks' bands.
    gpu::Simulation sim(scoped.ctx, w, h, gpu::PipePasses::Auto, {},
                        gpu::SplitOver{procs.transport, gpu::stepReach(sp)});
    loadInitialState(sim, initial, params);
    sim.setParams(sp);
    std::fprintf(stderr, "alluvium: the water table of %dx%d cells of %g m, %d rounds\n", w, h, f.cell_size,
                 f.iterations);
    const auto start = std::chrono::steady_clock::now();
    Progress progress("relaxing", f.iterations);
    f.moving = sim.computeWaterTable(f.iterations, [&](int done) { progress.update(done); });
    f.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    const std::vector<float> table = sim.download(gpu::Field::WaterTable); // every process takes part
    const std::vector<float> spill = sim.download(gpu::Field::SeaSpill);
    std::optional<SplitMaps> split_maps;
    if (sim.blocks() && !o.out_maps.empty()) split_maps = gatherSplitMaps(sim, scoped.ctx, params, w, h, false);
    const nlohmann::json split = sim.blocks() ? splitFacts(*sim.blocks(), scoped.ctx, f.seconds) : nlohmann::json();
    if (!procs.root()) return 0; // rank 0 has the whole fields
    std::vector<uint8_t> water_body;
    countWaterBodies(table, spill, initial.terrain.heights, params, f, water_body);
    const RiverMap river_map = rivers(initial.terrain.heights, table, water_body, params, w, h, f.river_min_cells);
    f.river_cells = river_map.river_cells;
    f.sustained_cells = river_map.sustained_cells;
    f.dry_cells = river_map.dry_cells;
    f.dry_end_points = river_map.dry_end_points;
    OutputBatch outputs; // every output, or none if one cannot be written
    nlohmann::json report = watertableReport(f);
    if (!split.is_null()) report["processes"] = split;
    if (!o.report.empty()) writeReport(o.report, report);
    if (f.nan_cells > 0) {
        outputs.commit(); // the report says what went wrong
        std::fprintf(stderr, "alluvium: the relaxation produced %lld non-finite cells; no heightmap written\n",
                     f.nan_cells);
        return 1;
    }
    Heightmap out{w, h, table};
    out.cell_size = f.cell_size;
    saveHeightmap(o.out, out, f.cell_size);
    if (!o.out_maps.empty()) {
        std::vector<MapLayer> extra;
        extra.push_back(riverLayer(river_map));
        if (split_maps)
            exportMaps(split_maps->source(sp), o.out_maps, &table, std::move(extra));
        else
            exportMaps(sim, o.out_maps, &table, std::move(extra));
    }
    outputs.commit();
    std::fprintf(stderr,
                 "alluvium: wrote %s%s: %lld lake cells (%.6g m^3), %lld wet land cells, %u cells still moving, river "
                 "cells %lld sustained / %lld dry (%lld end points) (%.1f s)\n",
                 displayPath(o.out).c_str(), writesSidecar(o.out) ? " (+ .json)" : "", f.lake_cells, f.lake_volume,
                 f.wet_land, f.moving, f.sustained_cells, f.dry_cells, f.dry_end_points, f.seconds);
    return 0;
}

} // namespace alluvium
