// The fluvial model's recording (seed 003): depression routing (the lake fill), routing,
// drainage accumulation and the implicit stream-power erosion and deposition, each a phase of
// dispatches on the GPU; and the host's reads of its buffers (tests, `alluvium fill`).
//
// Every loop is recorded a bounded number of times: as often as the worst terrain of the grid's
// size can need (fluvialRoundBounds), except the flats' rounds, which follow the flats'
// geodesics (at most fluvial_flat_rounds per iteration; `alluvium fill` and the analysis of a
// final terrain go on until they converge). A control pass after each round empties the loop's
// next indirect dispatches once it is done, so the rounds that run, and their results, depend
// on the terrain only.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <limits>

#include "lakes.h"
#include "pipeline.h"
#include "simulation.h"

namespace alluvium::gpu {

namespace {

int ceilLog2(uint64_t n) {
    int k = 0;
    while ((uint64_t(1) << k) < n) ++k;
    return k;
}

int floorLog2(uint64_t n) {
    int k = 0;
    while ((n >> (k + 1)) != 0) ++k;
    return k;
}

} // namespace

int FluvialRoundBounds::hookTotal() const {
    int total = 0;
    for (int h : hook) total += h;
    return total;
}

FluvialRoundBounds fluvialRoundBounds(int width, int height) {
    const uint64_t tiles = uint64_t((width + FLUVIAL_TILE - 1) / FLUVIAL_TILE) * uint64_t((height + FLUVIAL_TILE - 1) / FLUVIAL_TILE);
    const uint64_t blocks = uint64_t((width + 1) / 2) * uint64_t((height + 1) / 2);
    FluvialRoundBounds b;
    // A path down the unfilled ground visits each ring node at most once; after k rounds a node
    // has looked 2^k nodes ahead.
    b.label = std::max(1, ceilLog2(tiles * RING_CELLS));
    // Pits are never neighbours: at most one per 2 x 2 block. Every round at least halves the
    // components that can still hook, and hooks chain at most all of them.
    b.boruvka = floorLog2(blocks) + 1;
    for (int k = 0; k < b.boruvka; ++k) b.hook.push_back(std::max(1, ceilLog2(std::max<uint64_t>(blocks >> k, 1))));
    // A path leaves each tile at most once by each of its exits: the chain of exits holds at
    // most every ring node.
    b.tree = std::max(1, ceilLog2(tiles * RING_CELLS));
    return b;
}

double fluvialPhaseBytes(size_t phase, const FluvialControl& c, int width, int height, bool deposition) {
    // Estimates from what each pass reads and writes (buffers 4 or 8 bytes an entry, images 4
    // or 16 bytes a texel; a tile pass reads its 18 x 18 border once: x 1.27). Lists shrink
    // from round to round; the estimate takes their first length for every round: an upper
    // bound.
    const double cells = double(width) * height;
    const double tiles = double((width + FLUVIAL_TILE - 1) / FLUVIAL_TILE) * ((height + FLUVIAL_TILE - 1) / FLUVIAL_TILE);
    const double ring = tiles * RING_CELLS, halo = 1.27;
    const double pits = c.lists[LIST_PITS], exits = c.exits;
    const double tree = 4 + 4 + 8 + 8 + 2 * 16 + 4 + 4; // an exit's round: list, pointers, values, two atomic adds
    switch (phase) {
    case 0: // basins: the descent (ground, ground bits, label, ring), pits, label rounds over ring nodes
        return cells * (4 * halo + 4 + 4) + ring * 4 + pits * 24 + c.rounds_label * ring * 12;
    case 1: // pass points: labels and ground bits of a cell and 4 neighbours, boundary cells' atomics
        return cells * (4 + 4 * 4 + 4 + 4 * 4 + 4) + c.edges_first * (4 + 2 * 16);
    case 2: // spill solve: per round, the edge list, roots, hooks, relabelling every basin
        return c.rounds_boruvka * (c.edges_first * (4 + 4 * 16 + 2 * 16) + pits * (8 + 20 + 24)) +
               c.rounds_hook * pits * 24;
    case 3: // flats: the level (labels, basins, ground) and steps; each visited tile's round
        return cells * (16 * halo + 4 + 8) + c.tiles_flats * (WG_SIZE * halo * 8 + WG_SIZE * 4);
    case 4: // route: level and steps with borders, ground bits, rain; receiver, lake, local drainage
        return cells * (8 * halo + 4 + 4 + 4 + 4 + 8) + ring * 4 + exits * 4;
    case 5: // accumulate: rounds over the exits; drainage and erosion maps (receivers, images, maps)
        return exits * (4 + 4 + 4 + 8 + 16) + c.rounds_tree[TREE_ACCUMULATE] * exits * tree +
               cells * (4 + 16 + 4 + 4 * 5 + 12 + 8 + 4) + ring * 8;
    case 6: // erode: rounds over the exits; the new ground and the fields carried over
        return exits * (4 + 4 + 4 + 16 + 8) + c.rounds_tree[TREE_ERODE] * exits * tree +
               cells * (8 + 4 + 8 + 4 * 5 + 4 + 16 + 2 * (4 + 4 + 16) + 8 + (deposition ? 4 + 8 : 0));
    case 7: // deposit: rounds over the exits; the deposits
        if (!deposition) return 0.0;
        return exits * (4 + 4 + 4 + 16 + 8 + 4) + c.rounds_tree[TREE_SEDIMENT] * exits * (tree + 8) +
               cells * (4 + 8 + 4 + 8 + 16) + ring * 16;
    default: return 0.0;
    }
}

void Simulation::control(VkCommandBuffer cmd, int mode) {
    dispatch(cmd, Pass::FluvialControl, mode);
    computeBarrier(cmd);
}

void Simulation::recordFluvialStep(VkCommandBuffer cmd, GpuTimer* timer) {
    recordFluvialFill(cmd, params_.fluvial_flat_rounds, timer);
    recordFluvialRoute(cmd);
    if (timer) writeTimestamp(*timer, cmd);
    recordTree(cmd, TREE_ACCUMULATE);
    dispatch(cmd, Pass::FluvialDrainage);
    computeBarrier(cmd);
    if (timer) writeTimestamp(*timer, cmd);
    recordFluvialErode(cmd, timer);
    recordFluvialReadback(cmd);
}

void Simulation::recordFluvialReadback(VkCommandBuffer cmd) {
    const VkBufferCopy region{0, 0, sizeof(FluvialControl)};
    vkCmdCopyBuffer(cmd, fluvial_control_.buffer, fluvial_control_host_.buffer, 1, &region);
    memoryBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                  VK_ACCESS_HOST_READ_BIT);
    computeBarrier(cmd); // later steps' control passes write the control again
}

void Simulation::recordFluvialFill(VkCommandBuffer cmd, int flat_rounds, GpuTimer* timer) {
    bindSet(cmd);
    const FluvialRoundBounds bounds = fluvialRoundBounds(width_, height_);
    control(cmd, CONTROL_START_FILL);
    // Basins: the descent, labels within tiles, then across them.
    dispatch(cmd, Pass::FluvialDescend);
    computeBarrier(cmd);
    for (int r = 0; r < bounds.label; ++r) {
        dispatchJob(cmd, Pass::FluvialLabelJump, JOB_RING);
        computeBarrier(cmd);
        control(cmd, CONTROL_AFTER_LABEL);
    }
    if (timer) writeTimestamp(*timer, cmd);
    // Pass points: every boundary between basins offers its passes (and is listed).
    dispatch(cmd, Pass::FluvialEdges, 0);
    computeBarrier(cmd);
    control(cmd, CONTROL_AFTER_EDGES);
    if (timer) writeTimestamp(*timer, cmd);
    // Spill solve: rounds of the basin graph.
    for (int k = 0; k < bounds.boruvka; ++k) {
        if (k > 0) {
            dispatchJob(cmd, Pass::FluvialEdges, JOB_EDGES, 1);
            computeBarrier(cmd);
            control(cmd, CONTROL_AFTER_EDGES);
        }
        dispatchJob(cmd, Pass::FluvialHook, JOB_HOOK);
        computeBarrier(cmd);
        control(cmd, CONTROL_AFTER_HOOK);
        for (int j = 0; j < bounds.hook[size_t(k)]; ++j) {
            dispatchJob(cmd, Pass::FluvialHookJump, JOB_JUMP);
            computeBarrier(cmd);
            control(cmd, CONTROL_AFTER_HOOK_JUMP);
        }
        dispatchJob(cmd, Pass::FluvialRelabel, JOB_BASINS);
        computeBarrier(cmd);
        control(cmd, CONTROL_AFTER_RELABEL);
    }
    if (timer) writeTimestamp(*timer, cmd);
    // Flats: the filled level, then steps to the exits.
    dispatch(cmd, Pass::FluvialLevel);
    computeBarrier(cmd);
    control(cmd, CONTROL_START_FLATS);
    recordFluvialFlats(cmd, flat_rounds);
    if (timer) writeTimestamp(*timer, cmd);
}

void Simulation::recordFluvialFlats(VkCommandBuffer cmd, int rounds) {
    for (int r = 0; r < rounds; ++r) {
        dispatchJob(cmd, Pass::FluvialFlats, JOB_FLATS);
        computeBarrier(cmd);
        control(cmd, CONTROL_AFTER_FLATS);
    }
}

void Simulation::recordFluvialMoreFlats(VkCommandBuffer cmd, int flat_rounds) {
    bindSet(cmd);
    recordFluvialFlats(cmd, flat_rounds);
}

void Simulation::recordTree(VkCommandBuffer cmd, int tree) {
    // As many rounds as the longest possible chain of exits needs; those after the last live
    // exit are empty indirect dispatches (the control pass zeroes them on the GPU).
    control(cmd, CONTROL_START_TREE + tree);
    dispatchJob(cmd, Pass::FluvialTreeInit, JOB_EXITS, tree);
    computeBarrier(cmd);
    for (int r = 0, n = fluvialRoundBounds(width_, height_).tree; r < n; ++r) {
        dispatchJob(cmd, Pass::FluvialTreeJump, JOB_EXITS, tree);
        computeBarrier(cmd);
        control(cmd, CONTROL_AFTER_TREE);
    }
    if (tree != TREE_ERODE) { // the exits pour into their receivers' ring nodes
        control(cmd, CONTROL_START_PUSH);
        dispatchJob(cmd, Pass::FluvialTreePush, JOB_EXITS, tree);
        computeBarrier(cmd);
    }
}

void Simulation::recordFluvialRoute(VkCommandBuffer cmd) {
    bindSet(cmd);
    dispatch(cmd, Pass::FluvialRoute); // receivers, lakes, drainage within tiles, the exits
    computeBarrier(cmd);
}

void Simulation::recordFluvialErode(VkCommandBuffer cmd, GpuTimer* timer) {
    bindSet(cmd);
    // FluvialDrainage composed the erosion maps within tiles; across them, then the new ground.
    recordTree(cmd, TREE_ERODE);
    dispatch(cmd, Pass::FluvialApply);
    // Only the terrain flips its half (writtenPingPong): water, sediment and outflow stay where they are.
    computeBarrier(cmd);
    if (timer) writeTimestamp(*timer, cmd);
    if (params_.fluvial_deposition > 0.0f || params_.lake_evaporation > 0.0f) { // closed lakes keep what reaches them
        recordTree(cmd, TREE_SEDIMENT);
        dispatch(cmd, Pass::FluvialDeposit);
        computeBarrier(cmd);
        if (params_.lake_evaporation > 0.0f) {
            dispatch(cmd, Pass::FluvialLakeFill);
            computeBarrier(cmd);
        }
    }
    if (timer) writeTimestamp(*timer, cmd);
}

FluvialControl Simulation::fluvialAnalyse() {
    // The whole fill, then more flats rounds until they converge (exact for any terrain); then
    // routing, accumulation and the drainage area (nothing else of the step runs).
    allocateFluvial();
    prepareFluvialLakes();
    VkCommandBuffer cmd = beginOneShot(ctx_);
    recordUpdates(cmd);
    recordFluvialFill(cmd, params_.fluvial_flat_rounds);
    recordFluvialReadback(cmd);
    endOneShot(ctx_, cmd);
    while (fluvialControl().converged == 0) {
        cmd = beginOneShot(ctx_);
        recordFluvialMoreFlats(cmd, 64);
        recordFluvialReadback(cmd);
        endOneShot(ctx_, cmd);
    }
    const FluvialControl fill = fluvialControl();
    cmd = beginOneShot(ctx_);
    recordFluvialRoute(cmd);
    recordTree(cmd, TREE_ACCUMULATE);
    dispatch(cmd, Pass::FluvialDrainage); // the drainage area (and the erosion's maps, unused)
    computeBarrier(cmd);
    recordFluvialReadback(cmd);
    endOneShot(ctx_, cmd);
    return fill;
}

void Simulation::prepareFluvialLakes() {
    if (!fluvialLakesOn()) return;
    const auto start = std::chrono::steady_clock::now();
    allocateFluvial();
    // The basins of the current ground, as this iteration's fill will find them again: the
    // descent, the label rounds, and the first edge round (which resolves every label).
    VkCommandBuffer cmd = beginOneShot(ctx_);
    recordUpdates(cmd);
    bindSet(cmd);
    control(cmd, CONTROL_START_FILL);
    dispatch(cmd, Pass::FluvialDescend);
    computeBarrier(cmd);
    for (int r = 0, n = fluvialRoundBounds(width_, height_).label; r < n; ++r) {
        dispatchJob(cmd, Pass::FluvialLabelJump, JOB_RING);
        computeBarrier(cmd);
        control(cmd, CONTROL_AFTER_LABEL);
    }
    dispatch(cmd, Pass::FluvialEdges, 0);
    computeBarrier(cmd);
    endOneShot(ctx_, cmd);
    const size_t n = size_t(width_) * size_t(height_);
    std::vector<uint32_t> labels = fluvialBasins();
    const std::vector<float> z = download(Field::Terrain);
    const std::vector<float> mask = download(Field::RainMask);
    const double cell_area = double(params_.cell_size) * double(params_.cell_size);
    std::vector<double> inflow(n);
    for (size_t i = 0; i < n; ++i)
        inflow[i] = double(params_.fluvial_rainfall) * std::clamp(double(mask[i]), 0.0, 1.0) * cell_area;
    const float sea = params_.enable_sea != 0 ? params_.sea_level : -std::numeric_limits<float>::infinity();
    const LakeSolve s = solveLakes(width_, height_, z, labels, inflow, double(params_.lake_evaporation) * cell_area, sea);
    const size_t blocks = s.level.size();
    // The lists buffer's sections LAKE_LEVEL, LAKE_SINK, LAKE_VOLUME and LAKE_SEDIMENT (zero: the
    // deposit writes it), after its four lists.
    std::vector<uint32_t> upload(4 * blocks, 0u);
    std::copy(s.level.begin(), s.level.end(), upload.begin());
    std::copy(s.sink.begin(), s.sink.end(), upload.begin() + std::ptrdiff_t(blocks));
    for (size_t b = 0; b < blocks; ++b) {
        const float v = float(s.volume[b] * cell_area);
        std::memcpy(&upload[2 * blocks + b], &v, 4);
    }
    uploadBuffer(ctx_, fluvial_lists_, upload.data(), upload.size() * sizeof(uint32_t),
                 VkDeviceSize(4 * blocks * sizeof(uint32_t)));
    lake_stats_.closed_lakes = s.closed_lakes;
    lake_stats_.closed_area_m2 = double(s.closed_cells) * cell_area;
    lake_stats_.host_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

FluvialControl Simulation::fluvialControl() const {
    FluvialControl c{};
    if (!fluvial_allocated_) return c; // the model never ran
    std::memcpy(&c, fluvial_control_host_.mapped, sizeof c);
    return c;
}

std::vector<uint64_t> Simulation::fluvialKeys() const {
    if (!fluvial_allocated_) return {};
    const size_t n = size_t(width_) * size_t(height_);
    std::vector<uint32_t> level(n), steps(n);
    downloadBuffer(ctx_, fluvial_level_, level.data(), n * sizeof(uint32_t));
    downloadBuffer(ctx_, fluvial_steps_, steps.data(), n * sizeof(uint32_t),
                   VkDeviceSize(fluvialControl().flat_parity) * n * sizeof(uint32_t));
    std::vector<uint64_t> keys(n);
    for (size_t i = 0; i < n; ++i) keys[i] = (uint64_t(level[i]) << 32) | steps[i];
    return keys;
}

std::vector<uint32_t> Simulation::fluvialBasins() const {
    if (!fluvial_allocated_) return {};
    std::vector<uint32_t> v(size_t(width_) * size_t(height_));
    downloadBuffer(ctx_, fluvial_label_, v.data(), v.size() * sizeof(uint32_t));
    for (uint32_t& b : v) b &= LABEL_INDEX;
    return v;
}

std::vector<uint32_t> Simulation::fluvialSpills() const {
    if (!fluvial_allocated_) return {};
    const size_t blocks = size_t((width_ + 1) / 2) * size_t((height_ + 1) / 2);
    std::vector<uint32_t> basin(2 * blocks);
    downloadBuffer(ctx_, fluvial_basin_, basin.data(), basin.size() * sizeof(uint32_t));
    std::vector<uint32_t> spill(blocks);
    for (size_t b = 0; b < blocks; ++b) spill[b] = basin[b] == FLUVIAL_OCEAN ? basin[blocks + b] : FLUVIAL_NONE;
    return spill;
}

std::vector<uint32_t> Simulation::fluvialReceivers() const {
    if (!fluvial_allocated_) return {};
    std::vector<uint32_t> v(size_t(width_) * size_t(height_));
    downloadBuffer(ctx_, fluvial_rcv_, v.data(), v.size() * sizeof(uint32_t));
    // Stored as the neighbour's index in the shaders' order (RCV_SELF: itself).
    static constexpr int kDx[8] = {-1, 0, 1, -1, 1, -1, 0, 1}, kDy[8] = {-1, -1, -1, 0, 0, 1, 1, 1};
    for (size_t i = 0; i < v.size(); ++i)
        if (v[i] < RCV_SELF) v[i] = uint32_t(int64_t(i) + kDy[v[i]] * int64_t(width_) + kDx[v[i]]);
        else v[i] = uint32_t(i);
    return v;
}

std::vector<uint64_t> Simulation::fluvialAccumulation() const {
    if (!fluvial_allocated_) return {};
    std::vector<uint64_t> v(size_t(width_) * size_t(height_));
    downloadBuffer(ctx_, fluvial_acc_, v.data(), v.size() * sizeof(uint64_t));
    return v;
}

} // namespace alluvium::gpu
