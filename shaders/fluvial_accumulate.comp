#version 450
// Fluvial model, drainage accumulation by pointer jumping. After round k, acc(j) sums the rain
// of the cells whose path reaches j in fewer than 2^k steps, and anc(i) is i's 2^k-th receiver:
//   acc'(j) = acc(j) + sum of acc(i) over the cells i with anc(i) = j,   anc'(i) = anc(anc(i)).
// log2(longest path) rounds give every cell its whole upstream area. Integer atomics: the sums
// are exact and do not depend on the order the additions land in.
#include "fluvial.glsl"

void main() {
    ivec2 c = cellId();
    bool has_ancestor = false;
    if (insideGrid(c)) {
        uint n = cellCount(), i = cellIndex(c);
        uint cur = ctl.parity * n, next = (ctl.parity ^ 1u) * n;
        uint64_t v = fluvial_acc[cur + i];
        fluvial_acc[cur + i] = 0ul; // the next round adds into this half
        uint a = fluvial_anc[cur + i];
        uint a_next = FLUVIAL_NONE;
        if (v != 0ul) atomicAdd(fluvial_acc[next + i], v);
        if (a != FLUVIAL_NONE) {
            if (v != 0ul) atomicAdd(fluvial_acc[next + a], v);
            a_next = fluvial_anc[cur + a];
        }
        fluvial_anc[next + i] = a_next;
        has_ancestor = a_next != FLUVIAL_NONE;
    }
    if (subgroupAny(has_ancestor) && subgroupElect()) atomicAdd(ctl.live, 1u);
}
