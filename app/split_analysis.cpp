// The split grid's lakes and drainage (split_analysis.h): the blocks on the fill's tiles, the
// inputs scattered from rank 0, each block's fill and drainage, the results gathered.
#include "split_analysis.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "drainage_split.h"
#include "fill_split.h"
#include "models/fluvial.h"
#include "processes.h"
#include "report.h"
#include "simulation.h"

namespace alluvium {

gpu::BlockGrid analysisBlocks(int width, int height) {
    const int n = processes().size;
    try { // blocks on the fill's 16 x 16 tiles, at least one tile wide where they meet
        return gpu::splitGrid(width, height, n, {FLUVIAL_TILE, FLUVIAL_TILE}, 1);
    } catch (const gpu::SplitError&) {
        const std::string grid = std::to_string(width) + "x" + std::to_string(height);
        throw gpu::SplitError("a " + grid + " grid does not split into " + std::to_string(n) + " blocks of at least " +
                              std::to_string(FLUVIAL_TILE) +
                              " cells across their shared edges (its lakes and "
                              "drainage): use fewer processes");
    }
}

void checkAnalysisFits(const gpu::Context& ctx, uint64_t held, int width, int height) {
    const gpu::Rect o = analysisBlocks(width, height).owned(processes().rank);
    const std::string block = "the maps' analysis of a " + std::to_string(o.w) + "x" + std::to_string(o.h) + " block";
    const uint64_t range = ctx.properties.limits.maxStorageBufferRange;
    if (gpu::fluvialLargestBuffer(o.w, o.h) > range)
        throw gpu::DeviceError(block + " needs " + std::to_string(gpu::fluvialLargestBuffer(o.w, o.h) >> 20) +
                               " MiB in one storage buffer; " + ctx.device_name + " binds at most " +
                               std::to_string(range >> 20) + " MiB: use more processes");
    const uint64_t need = held + gpu::simulationBytes(o.w, o.h) + gpu::fluvialBytes(o.w, o.h);
    if (ctx.device_local_bytes > 0 && need > ctx.device_local_bytes)
        throw gpu::DeviceError(block + " beside the run's needs " + std::to_string(need >> 20) +
                               " MiB of GPU memory; " + ctx.device_name + " has " +
                               std::to_string(ctx.device_local_bytes >> 20) +
                               " MiB: use more processes, or leave out --out-maps");
}

SplitAnalysis analyseSplit(const gpu::Context& ctx, const Params& params, int width, int height,
                           const std::vector<float>& terrain, const std::vector<float>& rain, bool has_rain) {
    const Processes& procs = processes();
    gpu::Transport& transport = *procs.transport;
    const int w = width, h = height;
    const gpu::SimParams whole = toSimParams(params, w, h);
    const gpu::BlockGrid grid = analysisBlocks(w, h);
    const auto start = std::chrono::steady_clock::now();
    const gpu::FillBlock block = gpu::fillBlock(grid, procs.rank);
    std::vector<gpu::Rect> rings, owned;
    for (int k = 0; k < grid.count(); ++k) {
        rings.push_back(gpu::fillBlock(grid, k).ring);
        owned.push_back(grid.owned(k));
    }
    const std::vector<float> ring_ground = gpu::scatterRects(transport, terrain, w, 1, rings);
    const std::vector<float> block_rain =
        has_rain ? gpu::scatterRects(transport, rain, w, 1, owned) : std::vector<float>(); // empty: rain everywhere

    gpu::Simulation sim(ctx, block.owned.w, block.owned.h);
    gpu::SimParams sp = toSimParams(params, block.owned.w, block.owned.h);
    sp.model = MODEL_FLUVIAL;
    sp.fluvial_outlets = OUTLET_LEFT | OUTLET_RIGHT | OUTLET_TOP | OUTLET_BOTTOM; // the block's edge drains
    sp.enable_sea = 0; // the sea does not change W (the drainage marks the ocean)
    // Closed lakes balance whole basins, which a block does not hold: `fill` refuses them split,
    // and a split run's model is never the fluvial one, so one device's analysis has none either.
    sp.lake_evaporation = 0.0f;
    sim.setParams(sp);
    const gpu::SplitFill fill = gpu::fillSplit(sim, transport, grid, block, whole.fluvial_outlets, ring_ground);
    const gpu::DrainageInputs in{whole.fluvial_outlets, whole.enable_sea != 0, whole.sea_level, whole.cell_size};
    const gpu::SplitDrainage drainage =
        gpu::drainageSplit(transport, grid, block, in, fill.level, ring_ground, block_rain);

    SplitAnalysis a;
    a.level = gpu::gatherRects(transport, fill.level, w, h, 1, owned);
    a.lake = gpu::gatherRects(transport, drainage.lake, w, h, 1, owned);
    a.area = gpu::gatherRects(transport, drainage.area, w, h, 1, owned);
    a.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double fill_most = mostOfProcesses(fill.fill_seconds),
                 watershed_most = mostOfProcesses(fill.watershed_seconds);
    const double exchange_most = mostOfProcesses(fill.exchange_seconds + drainage.exchange_seconds);
    const double drainage_most = mostOfProcesses(drainage.seconds);
    const double errors = validationErrorsOfProcesses(ctx);
    a.report = {{"count", grid.count()},
                {"blocks", {grid.cols, grid.rows}},
                {"spill_graph_edges", fill.graph_edges},
                {"drainage_graph_exits", drainage.graph_exits},
                {"flats_rounds", drainage.flat_rounds},
                {"exchange_bytes_rank0", fill.bytes + drainage.bytes},
                // the longest of the processes' (rank 0's solves are part of its exchange)
                {"block_fill_seconds_most", fill_most},
                {"watershed_seconds_most", watershed_most},
                {"drainage_seconds_most", drainage_most},
                {"exchange_seconds_most", exchange_most},
                {"solve_seconds", fill.solve_seconds},
                {"validation_errors", errors}};
    char how[200];
    std::snprintf(how, sizeof how,
                  "split over %d processes: a spill graph of %zu edges, %d flats rounds, %.1f kB exchanged by rank 0",
                  grid.count(), fill.graph_edges, drainage.flat_rounds, double(fill.bytes + drainage.bytes) / 1e3);
    a.how = how;
    return a;
}

SplitMaps gatherSplitMaps(const gpu::Simulation& sim, const gpu::Context& ctx, const Params& params, int width,
                          int height, bool analyse, const std::vector<float>* terrain) {
    SplitMaps maps;
    maps.terrain = terrain;
    for (gpu::Field f : mapFieldList()) {
        if (analyse && (f == gpu::Field::Lake || f == gpu::Field::Drainage)) continue;
        if (terrain == nullptr || f != gpu::Field::Terrain) maps.fields[f] = sim.download(f);
    }
    if (!analyse) return maps;
    const std::vector<float>& z = terrain != nullptr ? *terrain : maps.fields[gpu::Field::Terrain];
    const std::vector<float>& rain = maps.fields[gpu::Field::RainMask];
    // (The rain mask in use, gathered: every process scatters it, whatever the run began with.)
    maps.analysis = analyseSplit(ctx, params, width, height, z, rain, true);
    maps.analysed = true;
    return maps;
}

MapFields SplitMaps::source(const gpu::SimParams& whole) const {
    return {whole.width, whole.height, whole, [this](gpu::Field f) {
                if (analysed && f == gpu::Field::Lake) return analysis.lake;
                if (analysed && f == gpu::Field::Drainage) return analysis.area;
                if (terrain != nullptr && f == gpu::Field::Terrain) return *terrain;
                return fields.at(f);
            }};
}

} // namespace alluvium
