// alluvium watertable: seed 003's equilibrium water table of a terrain (gpu/water_table.cpp),
// written as a heightmap, with a report and maps.
#include <chrono>
#include <cmath>
#include <cstdio>

#include "commands.h"
#include "export.h"
#include "io/atomic_file.h"
#include "io/errors.h"
#include "progress.h"
#include "report.h"
#include "rivers.h"

namespace alluvium {

int watertableCommand(const WatertableOptions& o, const DeviceOptions& device) {
    checkHeightmapAndReport(o.out, o.report);
    Params params;
    InitialTerrain initial = prepareTerrainAndParams(o.terrain, o.preset, o.sets, params);
    const double cell_size = params[Param::cell_size];
    const int w = initial.terrain.width, h = initial.terrain.height;
    const int iterations = static_cast<int>(std::lround(params[Param::table_iterations]));

    ScopedContext scoped(device);
    gpu::Simulation sim(scoped.ctx, w, h);
    loadInitialState(sim, initial, params);
    sim.setParams(toSimParams(params, w, h)); // the edges where water leaves: fluvial_outlets
    std::fprintf(stderr, "alluvium: the water table of %dx%d cells of %g m, %d rounds\n", w, h,
                 cell_size, iterations);
    const auto start = std::chrono::steady_clock::now();
    Progress progress("relaxing", iterations);
    const uint32_t moving =
        sim.computeWaterTable(iterations, [&](int done) { progress.update(done); });
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    const std::vector<float> table = sim.download(gpu::Field::WaterTable);
    const std::vector<float> spill = sim.download(gpu::Field::SeaSpill);
    const std::vector<float>& ground = initial.terrain.heights;
    const double area = cell_size * cell_size;
    const bool sea = params[Param::enable_sea] >= 0.5;
    const double sea_level = params[Param::sea_level];
    long long lake_cells = 0, ocean_cells = 0, wet_land = 0, nan_cells = 0;
    std::vector<uint8_t> water_body(table.size(), 0), base_level(table.size(), 0);
    double lake_volume = 0.0, depth_sum = 0.0;
    long long below = 0;
    for (size_t i = 0; i < table.size(); ++i) {
        if (!std::isfinite(table[i])) {
            ++nan_cells;
            continue;
        }
        const bool ocean = sea && ground[i] < sea_level && spill[i] < sea_level;
        const bool lake = !ocean && spill[i] < SEA_UNREACHED && spill[i] > ground[i];
        if (ocean) {
            ++ocean_cells;
            water_body[i] = 1;
        } else if (lake && table[i] > ground[i]) {
            ++lake_cells;
            water_body[i] = 1;
            lake_volume += double(table[i] - ground[i]) * area;
        } else if (table[i] >= ground[i]) {
            ++wet_land; // the table meets the ground: springs and rivers a water body sustains
        } else {
            depth_sum += double(ground[i] - table[i]);
            ++below;
        }
    }
    // Seed 003: only rivers that end at or come from a water body (or leave by an open edge) are
    // sustained; the others dry up and drop their load where they end.
    const int outlets = toSimParams(params, w, h).fluvial_outlets;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            base_level[std::size_t(y) * w + x] = ((outlets & OUTLET_LEFT) && x == 0) ||
                                                 ((outlets & OUTLET_RIGHT) && x == w - 1) ||
                                                 ((outlets & OUTLET_TOP) && y == 0) ||
                                                 ((outlets & OUTLET_BOTTOM) && y == h - 1);
    const RiverMap rivers = classifyRivers(ground, table, water_body, base_level, w, h, o.river_cells);
    const nlohmann::json report = watertableReport({.width = w,
                                                    .height = h,
                                                    .iterations = iterations,
                                                    .cell_size = cell_size,
                                                    .seconds = seconds,
                                                    .river_min_cells = o.river_cells,
                                                    .outlets = params.format(Param::fluvial_outlets),
                                                    .device = scoped.ctx.device_name,
                                                    .moving = moving,
                                                    .lake_cells = lake_cells,
                                                    .ocean_cells = ocean_cells,
                                                    .wet_land = wet_land,
                                                    .nan_cells = nan_cells,
                                                    .lake_volume = lake_volume,
                                                    .mean_depth_below = below > 0 ? depth_sum / double(below) : 0.0,
                                                    .river_cells = rivers.river_cells,
                                                    .sustained_cells = rivers.sustained_cells,
                                                    .dry_cells = rivers.dry_cells,
                                                    .dry_end_points = rivers.dry_end_points});
    if (!o.report.empty()) writeReport(o.report, report);
    if (nan_cells > 0) {
        std::fprintf(
            stderr,
            "alluvium: the relaxation produced %lld non-finite cells; no heightmap written\n",
            nan_cells);
        return 1;
    }
    Heightmap out{w, h, table};
    out.cell_size = cell_size;
    saveHeightmap(o.out, out, cell_size);
    if (!o.out_maps.empty()) {
        MapLayer layer; // 0 no river, 0.5 a dry river, 1 a sustained one
        layer.name = "rivers";
        layer.unit = "1";
        layer.data.resize(rivers.kind.size());
        for (std::size_t i = 0; i < rivers.kind.size(); ++i)
            layer.data[i] = rivers.kind[i] == RiverKind::Sustained ? 1.0f : rivers.kind[i] == RiverKind::Dry ? 0.5f : 0.0f;
        std::vector<MapLayer> extra;
        extra.push_back(std::move(layer));
        exportMaps(sim, o.out_maps, &table, std::move(extra));
    }
    std::fprintf(stderr,
                 "alluvium: wrote %s%s: %lld lake cells (%.6g m^3), %lld wet land cells, %u cells "
                 "still moving, river cells %lld sustained / %lld dry (%lld end points) (%.1f s)\n",
                 displayPath(o.out).c_str(), writesSidecar(o.out) ? " (+ .json)" : "", lake_cells,
                 lake_volume, wet_land, moving, rivers.sustained_cells, rivers.dry_cells,
                 rivers.dry_end_points, seconds);
    return 0;
}

} // namespace alluvium
