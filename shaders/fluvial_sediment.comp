#version 450
// Fluvial model, one round of the sediment accumulation (see fluvial_sediment_init.comp):
//   T'(j) = T(j) + sum over i with anc(i) = j of P(i) T(i),  P'(i) = P(i) P(anc(i)),  anc' = anc(anc).
// Each carried amount is rounded to the fixed point on its own and added with integer atomics,
// so the result does not depend on the order the additions land in.
#include "fluvial.glsl"

void main() {
    ivec2 c = cellId();
    bool has_ancestor = false;
    if (insideGrid(c)) {
        uint n = cellCount(), i = cellIndex(c);
        uint cur = ctl.parity * n, next = (ctl.parity ^ 1u) * n;
        uint64_t v = fluvial_acc[cur + i];
        fluvial_acc[cur + i] = 0ul;
        if (v != 0ul) atomicAdd(fluvial_acc[next + i], v);
        uint a = fluvial_anc[cur + i];
        float keep = fluvial_ab[cur + i].y;
        uint a_next = FLUVIAL_NONE;
        if (a != FLUVIAL_NONE) {
            uint64_t carried = uint64_t(double(v) * double(keep) + 0.5);
            if (carried != 0ul) atomicAdd(fluvial_acc[next + a], carried);
            a_next = fluvial_anc[cur + a];
            keep *= fluvial_ab[cur + a].y;
        }
        fluvial_ab[next + i] = vec2(0.0, keep);
        fluvial_anc[next + i] = a_next;
        has_ancestor = a_next != FLUVIAL_NONE;
    }
    if (subgroupAny(has_ancestor) && subgroupElect()) atomicAdd(ctl.live, 1u);
}
