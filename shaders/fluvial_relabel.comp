#version 450
// Fluvial model, depression routing 6 (end of a round of the basin graph): every basin follows
// its component's root to the new root, and its spill becomes the highest pass on the hooks it
// has followed so far. A basin whose component reached the ocean keeps that spill: the lowest
// height at which it drains out (see fluvial.glsl). The roots left start the next round's search.
#include "fluvial_basins.glsl"

void main() {
    uint k = listEntry();
    if (k >= ctl.lists[LIST_PITS]) return;
    uint b = fluvial_lists[listAt(LIST_PITS, k)];
    uint comp = fluvial_basin[basinAt(BASIN_COMP, b)];
    if (comp != FLUVIAL_OCEAN) {
        uint ptr = fluvial_basin[basinAt(BASIN_PTR + ctl.parity, comp)];
        if (ptr != comp) {
            uint spill = fluvial_basin[basinAt(BASIN_SPILL, b)];
            fluvial_basin[basinAt(BASIN_SPILL, b)] = max(spill, fluvial_basin[basinAt(BASIN_PASS + ctl.parity, comp)]);
            fluvial_basin[basinAt(BASIN_COMP, b)] = ptr;
            comp = ptr;
        }
    }
    if (comp == b) fluvial_best[b] = KEY_INF; // still a root: searched again next round
}
