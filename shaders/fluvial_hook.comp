#version 450
// Fluvial model, depression routing 4 (a round of the basin graph): every root of a component
// that still has a pass to another takes its lowest (the edge round left it in fluvial_best)
// and hooks onto the component across it, remembering the pass's height. Keys are unique, so
// hooks only form chains of falling passes: the one cycle possible is two components whose
// lowest passes are the same edge, and then the one with the smaller basin stays a root. Roots
// with no pass at all can never drain (no outlet reaches them) and leave the lists.
// Each round at least halves the components left: at most floor(log2(blocks)) + 1 rounds.
#include "fluvial_basins.glsl"

void main() {
    uint k = listEntry();
    uint src = ctl.root_src, dst = src == 1u ? 2u : 1u;
    bool valid = k < ctl.lists[src];
    bool root = false, hooked = false;
    uint r = 0u;
    if (valid) {
        r = fluvial_lists[listAt(src, k)];
        uint64_t key = fluvial_best[r];
        uint ptr = r, pass_height = 0u;
        if (key != KEY_INF) {
            uint edge = uint(key & 0xFFFFFFFFul);
            uint a = edge >> 2;
            uint comp_a = compOf(basinOfCell(a));
            uint comp_b = compOf(basinOfCell(edgeNeighbour(a, edge & 3u)));
            uint across = comp_a == r ? comp_b : comp_a;
            bool mutual = across != FLUVIAL_OCEAN && fluvial_best[across] == key;
            if (mutual && r < across) {
                root = true;
            } else {
                hooked = true;
                ptr = across;
                pass_height = keyLevel(key);
            }
        }
        fluvial_basin[basinAt(BASIN_PTR, r)] = ptr;
        fluvial_basin[basinAt(BASIN_PASS, r)] = pass_height;
        if (!hooked) { // a root points to itself in both halves
            fluvial_basin[basinAt(BASIN_PTR + 1u, r)] = r;
            fluvial_basin[basinAt(BASIN_PASS + 1u, r)] = 0u;
        }
    }
    uvec4 roots = subgroupBallot(root), hooks = subgroupBallot(hooked);
    uint root_base = 0u, hook_base = 0u;
    if (subgroupElect()) {
        root_base = atomicAdd(ctl.lists[dst], subgroupBallotBitCount(roots));
        hook_base = atomicAdd(ctl.lists[LIST_HOOKED], subgroupBallotBitCount(hooks));
    }
    root_base = subgroupBroadcastFirst(root_base);
    hook_base = subgroupBroadcastFirst(hook_base);
    if (root) fluvial_lists[listAt(dst, root_base + subgroupBallotExclusiveBitCount(roots))] = r;
    if (hooked) fluvial_lists[listAt(LIST_HOOKED, hook_base + subgroupBallotExclusiveBitCount(hooks))] = r;
}
