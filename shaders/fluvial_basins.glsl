// Included by the passes of the depression routing (see fluvial.glsl): the basin labels and
// the basin graph's arrays.
#include "fluvial.glsl"

layout(std430, binding = B_FLUVIAL_LABEL) buffer LabelBlock { uint fluvial_label[]; };
layout(std430, binding = B_FLUVIAL_EDGES) buffer EdgesBlock { uint fluvial_edges[]; };
layout(std430, binding = B_FLUVIAL_BASIN) buffer BasinBlock { uint fluvial_basin[]; };
layout(std430, binding = B_FLUVIAL_BEST) buffer BestBlock { uint64_t fluvial_best[]; };
layout(std430, binding = B_FLUVIAL_LISTS) buffer ListsBlock { uint fluvial_lists[]; };

// Sections of B_FLUVIAL_BASIN, each blockCount() long.
#define BASIN_COMP 0u  // the component's root basin (FLUVIAL_OCEAN once it drains out)
#define BASIN_SPILL 1u // the highest pass on the hooks from the basin to its component's root
#define BASIN_PTR 2u   // two halves: a hooked root's pointer towards its new root (itself: a root)
#define BASIN_PASS 4u  // two halves: the highest pass on that way
// With lake_evaporation > 0, written by the host before the step (Simulation::prepareFluvialLakes):
#define BASIN_LAKE 6u  // the basin's water level (ordered bits; FLUVIAL_NONE: none given)
#define BASIN_SINK 7u  // the pit cell of a basin under a closed lake (the lake's sink), else FLUVIAL_NONE
uint basinAt(uint section, uint b) { return section * blockCount() + b; }
uint compOf(uint b) { return b == FLUVIAL_OCEAN ? FLUVIAL_OCEAN : fluvial_basin[basinAt(BASIN_COMP, b)]; }
uint listAt(uint list, uint k) { return list * blockCount() + k; }

// While the fill runs, B_FLUVIAL_RCV holds the ground's ordered height bits (fluvial_descend.comp
// writes them; the receivers replace them after the fill): buffer loads, cheaper than images.
uint fillGround(uint i) { return fluvial_rcv[i]; }

// The basin of cell i once the labels are resolved (the first edge round resolves them all).
uint basinOfCell(uint i) { return fluvial_label[i] & LABEL_INDEX; }

// The cell at the other end of edge `dir` of cell i.
uint edgeNeighbour(uint i, uint dir) {
    return uint(int(i) + EDGE_DIRS[dir].y * p.width + EDGE_DIRS[dir].x);
}
