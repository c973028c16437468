#version 450
// Fluvial model, depression routing 5 (rounds within a round of the basin graph): pointer
// jumping along the hooks, so that every hooked root finds the root of its new component (or the
// ocean) and the highest pass on the way there. A chain of hooks holds at most the components
// of the round: ceil(log2(components)) rounds at most.
#include "fluvial_basins.glsl"

bool terminal(uint b, uint half_) {
    return b == FLUVIAL_OCEAN || fluvial_basin[basinAt(BASIN_PTR + half_, b)] == b;
}

void main() {
    uint k = listEntry();
    bool live = false;
    if (k < ctl.lists[LIST_HOOKED]) {
        uint r = fluvial_lists[listAt(LIST_HOOKED, k)];
        uint cur = ctl.parity, next = ctl.parity ^ 1u;
        uint ptr = fluvial_basin[basinAt(BASIN_PTR + cur, r)];
        uint pass_height = fluvial_basin[basinAt(BASIN_PASS + cur, r)];
        if (!terminal(ptr, cur)) {
            pass_height = max(pass_height, fluvial_basin[basinAt(BASIN_PASS + cur, ptr)]);
            ptr = fluvial_basin[basinAt(BASIN_PTR + cur, ptr)];
            live = !terminal(ptr, cur);
        }
        fluvial_basin[basinAt(BASIN_PTR + next, r)] = ptr;
        fluvial_basin[basinAt(BASIN_PASS + next, r)] = pass_height;
    }
    if (subgroupAny(live) && subgroupElect()) atomicAdd(ctl.live, 1u);
}
