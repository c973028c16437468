// Routing and drainage accumulation of a grid split over processes, on the filled surface W that
// fillSplit (fill_split.h) computed: the receivers, lake depths and drainage areas that the fluvial
// model's route and accumulation (fluvial_route.comp, fluvial_drainage.comp) compute on one device,
// to the bit. On the host, from each block's W and heights.
//
// 1. Each process receives its neighbours' W in a ring one cell wide around its block.
// 2. Steps across the flats of W (the breadth-first distance to the flat's exits, which the
//    receivers on lakes follow): each process relaxes its block from its exits and from the ring's
//    steps, then swaps the ring's steps with its neighbours, until no ring changed anywhere. The
//    rounds are as many as a flat's shortest paths cross block edges, plus one: a lake that spans
//    blocks takes more, a terrain whose lakes lie within blocks two. Steps are integers: the
//    fixed point is the one device's.
// 3. Receivers (steepest descent on W, else one step nearer the flat's exit, ties to the first
//    neighbour in fluvial.glsl's order) and lake depths, in the shaders' float arithmetic.
// 4. Accumulation after Barnes (2017), "Parallel non-divergent flow accumulation for trillion cell
//    digital elevation models": each block sums its rain down its receivers; rank 0 gathers, for
//    each cell whose receiver lies in another block, that receiver and the cell's sum, and for each
//    edge cell the block exit its path leaves by; it sums what enters each block along that graph
//    and sends it back; each block adds it down its paths. The sums are integers (FLUVIAL_ACC_ONE
//    a cell of full rain), so no order of addition changes a bit. One gather and one answer.
#pragma once
#include <cstdint>
#include <vector>

#include "fill_split.h"

namespace alluvium::gpu {

struct DrainageInputs {
    int outlets = 0;        // the whole grid's OUTLET_* sides
    bool sea = false;       // enable_sea: cells whose W lies below sea_level are ocean
    float sea_level = 0.0f; // m
    float cell_size = 1.0f; // m
};

struct SplitDrainage {
    std::vector<uint32_t> steps;        // owned cells: steps across flats (FLUVIAL_NONE: no outlet reaches it)
    std::vector<uint32_t> receivers;    // owned cells: the neighbour (fluvial.glsl's NB order) or RCV_SELF
    std::vector<uint64_t> accumulation; // owned cells: FLUVIAL_ACC_ONE per cell of full rain
    std::vector<float> lake;            // owned cells: lake depth (m)
    std::vector<float> area;            // owned cells: drainage area (m^2)
    int flat_rounds = 0;                // the flats' ring swaps
    size_t graph_exits = 0;             // rank 0: cells whose receiver lies in another block, all blocks'
    uint64_t bytes = 0;                 // what this process sent and received (rank 0: the graph's all)
    double seconds = 0.0;               // the block's work on the host
    double exchange_seconds = 0.0;      // the rings, the flats' rounds and the graph (rank 0's solve included)
};

// `level`: W of the owned cells (fillSplit's, ordered bits); `ring_ground`: the heights of
// block.ring, row by row; `rain`: the owned cells' rain mask (empty: full rain everywhere). Every
// process calls it at once.
SplitDrainage drainageSplit(Transport& transport, const BlockGrid& grid, const FillBlock& block,
                            const DrainageInputs& in, const std::vector<uint32_t>& level,
                            const std::vector<float>& ring_ground, const std::vector<float>& rain);

// The cells of this process's block.ring (fillBlock), row by row: the owned ones from `mine` (the
// owned cells, row by row), the others from the processes owning them. One exchange.
std::vector<uint32_t> ringFromNeighbours(Transport& transport, const BlockGrid& grid, const std::vector<uint32_t>& mine,
                                         uint64_t* bytes = nullptr);

} // namespace alluvium::gpu
