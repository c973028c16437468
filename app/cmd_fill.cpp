// alluvium fill: the lake-filled surface of a terrain (every depression raised to its spill
// height, so every cell drains to an outlet edge), computed on the GPU by the fluvial model's
// fill; the report gives the fill volume. Under mpirun the grid splits over the processes
// (gpu/fill_split.h): the same filled surface to the bit.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>

#include "commands.h"
#include "export.h"
#include "io/atomic_file.h"
#include "io/errors.h"
#include "processes.h"
#include "report.h"
#include "split_analysis.h"

namespace alluvium {

namespace {

using gpu::fromOrderedFloatBits;

// The filled surface from W (ordered bits): the ground where no outlet reaches a cell.
Heightmap filledSurface(const std::vector<uint32_t>& level, const Heightmap& ground, double cell_size,
                        long long& unreached) {
    Heightmap filled{ground.width, ground.height, std::vector<float>(level.size())};
    filled.cell_size = cell_size;
    unreached = 0;
    for (size_t i = 0; i < level.size(); ++i) {
        const bool none = level[i] == FLUVIAL_NONE; // every side closed: left as it is
        filled.heights[i] = none ? ground.heights[i] : fromOrderedFloatBits(level[i]);
        unreached += none ? 1 : 0;
    }
    return filled;
}

// The line that ends a fill: what it wrote, its lakes, and `how` it ran.
void sayWrote(const std::string& out, const nlohmann::json& summary, const std::string& how) {
    std::fprintf(stderr, "alluvium: wrote %s%s: %lld cells filled, %.6g m^3, deepest %.4g m (%s)\n",
                 displayPath(out).c_str(), writesSidecar(out) ? " (+ .json)" : "",
                 summary["lake_cells"].get<long long>(), summary["lake_volume_m3"].get<double>(),
                 summary["deepest_lake_m"].get<double>(), how.c_str());
}

// Every process fills and routes its block; rank 0 gathers the levels, lakes and drainage, and writes.
int splitFill(const FillOptions& o, const DeviceOptions& device, const Params& params, const InitialTerrain& initial) {
    const int w = initial.terrain.width, h = initial.terrain.height;
    const double cell_size = params[Param::cell_size];
    ScopedContext scoped(device);
    const SplitAnalysis a =
        analyseSplit(scoped.ctx, params, w, h, initial.terrain.heights, initial.rain_mask, initial.hasRainMask());
    if (!processes().root()) return 0;

    long long unreached = 0;
    const Heightmap filled = filledSurface(a.level, initial.terrain, cell_size, unreached);
    nlohmann::json summary = lakeSums(a.lake, cell_size);
    summary["largest_drainage_area_m2"] = double(*std::max_element(a.area.begin(), a.area.end()));
    nlohmann::json report = fillReport({.width = w,
                                        .height = h,
                                        .cell_size = cell_size,
                                        .seconds = a.seconds,
                                        .outlets = params.format(Param::fluvial_outlets),
                                        .device = scoped.ctx.device_name,
                                        .summary = summary,
                                        .unreached = unreached});
    report["processes"] = a.report;
    OutputBatch outputs;
    saveHeightmap(o.out, filled, cell_size);
    if (!o.report.empty()) writeReport(o.report, report);
    if (!o.out_maps.empty()) {
        const gpu::SimParams whole = toSimParams(params, w, h);
        exportMaps(MapFields{w, h, whole,
                             [&](gpu::Field f) {
                                 if (f == gpu::Field::Lake) return a.lake;
                                 if (f == gpu::Field::Drainage) return a.area;
                                 return initialField(f, initial, params);
                             }},
                   o.out_maps);
    }
    outputs.commit();
    sayWrote(o.out, summary, a.how);
    return 0;
}

} // namespace

int fillCommand(const FillOptions& o, const DeviceOptions& device) {
    Params params;
    InitialTerrain initial;
    agree([&] { // rank 0 reads the input: a file it cannot read stops them all
        if (!processes().root()) return;
        // Rank 0's peak: the input (heights, hardness, a rain mask), the levels, lakes and drainage
        // gathered (each as it arrives and in place), the filled surface; and the maps' layers.
        const auto check = [&](int w, int h) {
            if (processes().size > 1)
                checkRootHostMemory(w, h, o.out_maps.empty() ? 36.0 : 136.0,
                                    o.out_maps.empty()
                                        ? "the input, the levels, lakes and drainage gathered"
                                        : "the input, the levels, lakes and drainage gathered, the maps");
        };
        if (int w = 0, h = 0; generatedSize(o.terrain, w, h)) check(w, h);
        initial = prepareAnalysis(o.out, o.report, o.out_maps, o.terrain, o.preset, o.sets, params);
        check(initial.terrain.width, initial.terrain.height);
    });
    if (processes().size > 1) {
        agree([&] {
            nlohmann::json none;
            shareInput(params, initial, none);
        });
        if (params[Param::lake_evaporation] > 0)
            throw InputError("lake_evaporation (lakes that balance evaporation, solved per whole basin) does not run "
                             "split over processes yet: run it without mpirun");
        return splitFill(o, device, params, initial);
    }
    const double cell_size = params[Param::cell_size];
    const int w = initial.terrain.width, h = initial.terrain.height;

    ScopedContext scoped(device);
    gpu::Simulation sim(scoped.ctx, w, h);
    loadInitialState(sim, initial, params);
    gpu::SimParams sp = toSimParams(params, w, h);
    sp.model = MODEL_FLUVIAL;
    sim.setParams(sp);
    const auto start = std::chrono::steady_clock::now();
    const gpu::FluvialControl fill = sim.fluvialAnalyse();
    nlohmann::json summary = fluvialSummary(sim, cell_size, fill);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    // The filled surface exactly as the fill computed it (not ground + depth re-rounded).
    long long unreached = 0;
    const Heightmap filled = filledSurface(sim.fluvial().levels(), initial.terrain, cell_size, unreached);
    const nlohmann::json report = fillReport({.width = w,
                                              .height = h,
                                              .cell_size = cell_size,
                                              .seconds = seconds,
                                              .outlets = params.format(Param::fluvial_outlets),
                                              .device = scoped.ctx.device_name,
                                              .summary = summary,
                                              .unreached = unreached});
    OutputBatch outputs; // every output, or none if one cannot be written
    saveHeightmap(o.out, filled, cell_size);
    if (!o.report.empty()) writeReport(o.report, report);
    if (!o.out_maps.empty()) exportMaps(sim, o.out_maps);
    outputs.commit();
    char how[160];
    std::snprintf(how, sizeof how, "rounds: %u basin labels, %u basin graph + %u hook jumps, %u flats",
                  fill.rounds_label, fill.rounds_boruvka, fill.rounds_hook, fill.rounds_flats);
    sayWrote(o.out, summary, how);
    return 0;
}

} // namespace alluvium
