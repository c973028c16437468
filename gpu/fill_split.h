// The lake fill (W, the lowest level at which each cell drains to an outlet) of a grid split over
// processes, after Barnes (2016), "Parallel Priority-Flood depression filling for trillion cell
// digital elevation models": a fixed number of exchanges, whatever the terrain.
//
// 1. Each process fills its block on its own device as a grid of its own whose four sides all
//    drain (W_local), and routes on that surface: every cell's receivers lead to one of the
//    block's edge cells, its watershed.
// 2. Each sends rank 0 its part of the spill graph, whose nodes are the blocks' edge cells and an
//    ocean: between neighbouring watersheds of the block, the lowest max(W_local) over their
//    neighbouring cells; between neighbouring edge cells of two blocks, max(z) of the two; from
//    the grid's outlet cells to the ocean, z.
// 3. Rank 0 finds each node's minimax level from the ocean, L (Dijkstra's order), and sends every
//    process its edge cells' levels.
// 4. W = max(W_local, L(watershed)) in every cell.
// W is a minimax of heights, so no arithmetic rounds it: the result is the one device's W to the
// bit. (W >= W_local, and any way out of a cell maps onto a path of the graph no higher; a
// watershed's cells reach its edge cell no higher than their W_local, so the graph's level is
// reached.)
#pragma once
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "blocks.h"

namespace alluvium::gpu {

class Simulation;

// A process's block: what it owns, and that with a ring one cell wide where a neighbouring block
// lies (its heights give the edges to the neighbours' cells).
struct FillBlock {
    Rect owned, ring; // whole-grid cells
};
FillBlock fillBlock(const BlockGrid& grid, int rank);

// [SECTION] the spill graph (on the host)

constexpr uint64_t kSpillOcean = ~uint64_t(0); // the node the grid's outlets drain to
struct SpillEdge {
    uint64_t a = 0, b = 0; // whole-grid cells (or kSpillOcean)
    uint32_t level = 0;    // ordered float bits
    uint32_t unused = 0;   // (sent as bytes: no padding left undefined)
};
// Per cell of a block (row by row), the cell its receivers (cell indices, a root its own) end at.
std::vector<uint32_t> watershedRoots(const std::vector<uint32_t>& receivers);
// A block's part of the graph. `level`, `root`: W_local (ordered bits) and watershedRoots of the
// owned cells; `ring_ground`: the heights of block.ring; `outlets`: the whole grid's OUTLET_* sides.
std::vector<SpillEdge> blockSpillEdges(const BlockGrid& grid, const FillBlock& block, int outlets,
                                       const std::vector<uint32_t>& level, const std::vector<uint32_t>& root,
                                       const std::vector<float>& ring_ground);
// Every node's minimax level from the ocean (ordered bits; nodes the ocean never reaches: absent).
std::unordered_map<uint64_t, uint32_t> solveSpillGraph(const std::vector<SpillEdge>& edges);
// The edge cells of `owned` (whole-grid indices), row by row: the order rank 0 sends their levels in.
std::vector<uint64_t> edgeCells(const Rect& owned, int grid_width);
// W of the owned cells: max(W_local, the level of their watershed's edge cell; FLUVIAL_NONE where
// the ocean never reached it). `edge_level`: in edgeCells' order.
std::vector<uint32_t> combineLevels(const Rect& owned, int grid_width, const std::vector<uint32_t>& level,
                                    const std::vector<uint32_t>& root, const std::vector<uint32_t>& edge_level);

// [SECTION] the processes' fill

struct SplitFill {
    std::vector<uint32_t> level;    // the owned cells' W, row by row (ordered bits; FLUVIAL_NONE: no outlet reaches it)
    size_t graph_edges = 0;         // the spill graph's, all blocks' (rank 0)
    uint64_t bytes = 0;             // the graph's and the levels' bytes this process sent or received (rank 0: all)
    double fill_seconds = 0.0;      // the block's fill and routing on the device, with their reads
    double watershed_seconds = 0.0; // the block's watersheds, edges and final levels on the host
    double solve_seconds = 0.0;     // rank 0: the spill graph's solve
    double exchange_seconds = 0.0;  // the graph in, the levels out (the solve included)
};
// `sim`: a simulation of the block's owned rect; `ring_ground`: the heights of block.ring, row by
// row; `outlets` the whole grid's OUTLET_* sides. Every process calls it at once.
SplitFill fillSplit(Simulation& sim, Transport& transport, const BlockGrid& grid, const FillBlock& block, int outlets,
                    const std::vector<float>& ring_ground);

} // namespace alluvium::gpu
