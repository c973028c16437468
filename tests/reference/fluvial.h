// Reference twin of the fluvial model (seed 003), sequential and in the classic formulation the
// GPU passes must agree with: priority-flood filling (Barnes et al. 2014) plus a breadth-first
// search across flats, steepest-descent receivers, accumulation in topological order, and the
// implicit stream-power update swept from the outlets upstream (Braun and Willett 2013).
#pragma once
#include <cstdint>
#include <vector>

#include "shared.h"

namespace alluvium::ref {

struct FluvialGrid {
    int width = 0, height = 0;
    int outlets = OUTLET_LEFT | OUTLET_RIGHT | OUTLET_TOP | OUTLET_BOTTOM; // OUTLET_* bits
    bool isOutlet(int x, int y) const;
};

struct Fill {
    std::vector<float> level;    // W: the lake-filled surface
    std::vector<uint32_t> steps; // steps across a flat of W to its exit (0 off flats)
};

// Priority flood from the outlets: W(n) = max(z(n), W(c)) in order of increasing W; then the
// flat steps by a breadth-first search from the cells that have a lower neighbour.
Fill fillPriorityFlood(const FluvialGrid& g, const std::vector<float>& z);
// The GPU's key for a cell: ordered float bits of W << 32 | steps.
uint64_t fillKey(float level, uint32_t steps);
// Depression routing's twins (gpu/fluvial.cpp). The basin of every cell: follow the lowest
// lower neighbour (first in the neighbour order on ties), else the first equal neighbour with a
// smaller index, to a pit (its basin: the pit's 2x2 block, y / 2 * ceil(width / 2) + x / 2) or an
// outlet (FLUVIAL_OCEAN).
// `pits`, if given, receives the pit cells.
std::vector<uint32_t> basinLabels(const FluvialGrid& g, const std::vector<float>& z,
                                  std::vector<uint32_t>* pits = nullptr);
// Per basin block, the spill height as ordered float bits (FLUVIAL_NONE: never drains; blocks
// without a pit too): the minimax height of a path through the basin graph to the ocean,
// by Kruskal's algorithm over the passes between neighbouring basins.
std::vector<uint32_t> basinSpills(const FluvialGrid& g, const std::vector<float>& z,
                                  const std::vector<uint32_t>& labels);
uint32_t orderedBits(float f);
float fromOrderedBits(uint32_t o);
// The fill with lakes that balance evaporation (gpu/lakes.h): W = max(z, the level given for
// each cell's basin block, ordered bits), the ocean's cells at their ground; steps across the
// flats of W from the exits, which include the given sinks (closed lakes' pits).
Fill fillWithLevels(const FluvialGrid& g, const std::vector<float>& z, const std::vector<uint32_t>& labels,
                    const std::vector<uint32_t>& block_level, const std::vector<uint32_t>& block_sink);
// Receivers on the filled surface: steepest drop over distance; on a flat, the neighbour one
// step nearer the exit (first in the neighbour order on ties); outlets receive themselves.
std::vector<uint32_t> receivers(const FluvialGrid& g, const Fill& f);
// Upstream sums of `weight` (each cell's own included), in topological order of the receivers.
std::vector<uint64_t> accumulate(const std::vector<uint32_t>& rcv, const std::vector<uint64_t>& weight);
// Rain mask -> accumulation weights in units of FLUVIAL_ACC_ONE.
std::vector<uint64_t> rainWeights(const std::vector<float>& rain);

struct FluvialInputs {
    const std::vector<float>* z;
    const std::vector<float>* hardness;
    const std::vector<float>* uplift;          // multiplier
    const std::vector<float>* loose = nullptr; // layered ground's loose layer (m), if any
};
// One implicit stream-power iteration, the deposition and the hillslope diffusion, in double
// precision, given
// this iteration's fill, receivers and accumulation (see shaders/fluvial_erode_init.comp and
// fluvial_sediment_init.comp).
std::vector<double> fluvialErode(const FluvialGrid& g, const FluvialInputs& in, const Fill& f,
                                 const std::vector<uint32_t>& rcv, const std::vector<uint64_t>& acc,
                                 const gpu::SimParams& p);

} // namespace alluvium::ref
