#version 450
// Fluvial model, depression routing 2 (rounds): pointer jumping over the tiles' ring nodes. A
// node's label is its basin, or the ring node of the next tile on its way down; each round
// replaces the latter by that node's label, so after k rounds a node has looked 2^k tiles down
// its path. A path visits each ring node at most once: ceil(log2(ring nodes)) rounds at most.
#include "fluvial_basins.glsl"

void main() {
    uint n = listEntry();
    bool live = false;
    if (n < ringCount()) { // fluvial_descend.comp wrote every ring node (outside the grid: the ocean)
        uint cur = ctl.parity * ringCount(), next = (ctl.parity ^ 1u) * ringCount();
        uint v = fluvial_ring[cur + n];
        if ((v & LABEL_EXTERNAL) != 0u) v = fluvial_ring[cur + (v & LABEL_INDEX)];
        fluvial_ring[next + n] = v;
        live = (v & LABEL_EXTERNAL) != 0u;
    }
    if (subgroupAny(live) && subgroupElect()) atomicAdd(ctl.live, 1u);
}
