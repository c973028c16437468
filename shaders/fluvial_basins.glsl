// Included by the passes of the depression routing (see fluvial.glsl): the basin labels and
// the basin graph's arrays.
#include "fluvial.glsl"

layout(std430, binding = B_FLUVIAL_EDGES) buffer EdgesBlock { uint fluvial_edges[]; };
layout(std430, binding = B_FLUVIAL_BEST) buffer BestBlock { uint64_t fluvial_best[]; };

uint compOf(uint b) { return b == FLUVIAL_OCEAN ? FLUVIAL_OCEAN : fluvial_basin[basinAt(BASIN_COMP, b)]; }
uint listAt(uint list, uint k) { return list * blockCount() + k; }

// While the fill runs, B_FLUVIAL_RCV holds the ground's ordered height bits (fluvial_descend.comp
// writes them; the receivers replace them after the fill): buffer loads, cheaper than images.
uint fillGround(uint i) { return fluvial_rcv[i]; }


// The cell at the other end of edge `dir` of cell i.
uint edgeNeighbour(uint i, uint dir) {
    return uint(int(i) + EDGE_DIRS[dir].y * p.width + EDGE_DIRS[dir].x);
}
