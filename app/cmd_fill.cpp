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
#include "fill_split.h"
#include "io/atomic_file.h"
#include "io/errors.h"
#include "processes.h"
#include "report.h"

namespace alluvium {

namespace {

using gpu::fromOrderedFloatBits;
using gpu::orderedFloatBits;

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

// The lake depth as fluvial_route.comp writes it, from W alone: the sea's depth on ocean cells,
// W - z elsewhere but at outlets, in its float arithmetic.
std::vector<float> lakeDepths(const std::vector<uint32_t>& level, const Heightmap& ground, const gpu::SimParams& p) {
    std::vector<float> lake(level.size(), 0.0f);
    for (int y = 0; y < ground.height; ++y)
        for (int x = 0; x < ground.width; ++x) {
            const size_t i = size_t(y) * size_t(ground.width) + size_t(x);
            const uint32_t w = level[i];
            const float z = fromOrderedFloatBits(orderedFloatBits(ground.heights[i]));
            if (p.enable_sea != 0 && w != FLUVIAL_NONE && w < orderedFloatBits(p.sea_level))
                lake[i] = std::max(p.sea_level - z, 0.0f);
            else if (w != FLUVIAL_NONE && !gpu::isOutletCell(x, y, ground.width, ground.height, p.fluvial_outlets))
                lake[i] = std::max(fromOrderedFloatBits(w) - z, 0.0f);
        }
    return lake;
}

// The line that ends a fill: what it wrote, its lakes, and `how` it ran.
void sayWrote(const std::string& out, const nlohmann::json& summary, const std::string& how) {
    std::fprintf(stderr, "alluvium: wrote %s%s: %lld cells filled, %.6g m^3, deepest %.4g m (%s)\n",
                 displayPath(out).c_str(), writesSidecar(out) ? " (+ .json)" : "",
                 summary["lake_cells"].get<long long>(), summary["lake_volume_m3"].get<double>(),
                 summary["deepest_lake_m"].get<double>(), how.c_str());
}

// What the split fill cannot do yet, said before the GPU starts.
void checkSplitFill(const FillOptions& o) {
    if (!o.out_maps.empty())
        throw InputError("--out-maps (the drainage analysis is a whole-grid computation) does not run split over "
                         "processes yet: run it without mpirun");
}

// Every process fills its block; rank 0 gathers the levels and writes.
int splitFill(const FillOptions& o, const DeviceOptions& device, const Params& params, InitialTerrain& initial) {
    const Processes& procs = processes();
    gpu::Transport& transport = *procs.transport;
    const int w = initial.terrain.width, h = initial.terrain.height;
    const gpu::SimParams whole = toSimParams(params, w, h);
    gpu::BlockGrid grid;
    try { // blocks on the fill's 16 x 16 tiles, at least one tile wide where they meet
        grid = gpu::splitGrid(w, h, procs.size, {FLUVIAL_TILE, FLUVIAL_TILE}, 1);
    } catch (const gpu::SplitError&) {
        throw gpu::SplitError("a " + std::to_string(w) + "x" + std::to_string(h) + " grid does not split into " +
                              std::to_string(procs.size) + " blocks of at least " + std::to_string(FLUVIAL_TILE) +
                              " cells across their shared edges: use fewer processes");
    }
    const gpu::FillBlock block = gpu::fillBlock(grid, procs.rank);
    std::vector<gpu::Rect> rings;
    for (int k = 0; k < grid.count(); ++k) rings.push_back(gpu::fillBlock(grid, k).ring);
    const std::vector<float> ring_ground = gpu::scatterRects(transport, initial.terrain.heights, w, 1, rings);

    ScopedContext scoped(device);
    gpu::Simulation sim(scoped.ctx, block.owned.w, block.owned.h);
    gpu::SimParams sp = toSimParams(params, block.owned.w, block.owned.h);
    sp.model = MODEL_FLUVIAL;
    sp.fluvial_outlets = OUTLET_LEFT | OUTLET_RIGHT | OUTLET_TOP | OUTLET_BOTTOM; // the block's edge drains
    sp.enable_sea = 0; // the sea does not change W (only where it is drawn: on rank 0)
    sim.setParams(sp);
    const auto start = std::chrono::steady_clock::now();
    const gpu::SplitFill fill = gpu::fillSplit(sim, transport, grid, block, whole.fluvial_outlets, ring_ground);

    std::vector<gpu::Rect> owned;
    for (int k = 0; k < grid.count(); ++k) owned.push_back(grid.owned(k));
    const std::vector<uint32_t> level = gpu::gatherRects(transport, fill.level, w, h, 1, owned);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    auto most = [](double mine) {
        double m = 0.0;
        for (double s : everyProcess(mine)) m = std::max(m, s);
        return m;
    };
    const double fill_most = most(fill.fill_seconds), watershed_most = most(fill.watershed_seconds);
    const double exchange_most = most(fill.exchange_seconds);
    double errors = 0.0;
    const int mine = scoped.ctx.validation_errors ? scoped.ctx.validation_errors->load() : 0;
    for (double e : everyProcess(double(mine))) errors += e;
    if (!procs.root()) return 0;

    long long unreached = 0;
    const Heightmap filled = filledSurface(level, initial.terrain, params[Param::cell_size], unreached);
    const nlohmann::json summary = lakeSums(lakeDepths(level, initial.terrain, whole), params[Param::cell_size]);
    nlohmann::json report = fillReport({.width = w,
                                        .height = h,
                                        .cell_size = params[Param::cell_size],
                                        .seconds = seconds,
                                        .outlets = params.format(Param::fluvial_outlets),
                                        .device = scoped.ctx.device_name,
                                        .summary = summary,
                                        .unreached = unreached});
    report["processes"] = {{"count", grid.count()},
                           {"blocks", {grid.cols, grid.rows}},
                           {"spill_graph_edges", fill.graph_edges},
                           {"exchange_bytes_rank0", fill.bytes},
                           // the longest of the processes' (rank 0's solve is part of its exchange)
                           {"block_fill_seconds_most", fill_most},
                           {"watershed_seconds_most", watershed_most},
                           {"exchange_seconds_most", exchange_most},
                           {"solve_seconds", fill.solve_seconds},
                           {"validation_errors", errors}};
    OutputBatch outputs;
    saveHeightmap(o.out, filled, params[Param::cell_size]);
    if (!o.report.empty()) writeReport(o.report, report);
    outputs.commit();
    char how[160];
    std::snprintf(how, sizeof how, "split over %d processes: a spill graph of %zu edges, %.1f kB exchanged by rank 0",
                  grid.count(), fill.graph_edges, double(fill.bytes) / 1e3);
    sayWrote(o.out, summary, how);
    return 0;
}

} // namespace

int fillCommand(const FillOptions& o, const DeviceOptions& device) {
    Params params;
    InitialTerrain initial;
    agree([&] { // rank 0 reads the input: a file it cannot read stops them all
        if (processes().size > 1) checkSplitFill(o);
        if (!processes().root()) return;
        initial = prepareAnalysis(o.out, o.report, o.terrain, o.preset, o.sets, params);
        // Rank 0's peak: the heights, the levels gathered (as they arrive and in place), the filled
        // surface and the lakes' depths.
        if (processes().size > 1)
            checkRootHostMemory(initial.terrain.width, initial.terrain.height, 20.0,
                                "the heights, the levels gathered, the filled surface and the lakes");
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
    loadInitialState(sim, initial);
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
