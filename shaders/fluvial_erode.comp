#version 450
// Fluvial model, one pointer-jumping round of the implicit erosion: with z'(i) = a + b z'(anc),
// substituting the ancestor's own map gives z'(i) = (a + b a_anc) + (b b_anc) z'(anc(anc)).
// When no cell has an ancestor left, a is the new height (every chain ends at b = 0).
#include "fluvial.glsl"

void main() {
    ivec2 c = cellId();
    bool has_ancestor = false;
    if (insideGrid(c)) {
        uint n = cellCount(), i = cellIndex(c);
        uint cur = ctl.parity * n, next = (ctl.parity ^ 1u) * n;
        vec2 ab = fluvial_ab[cur + i];
        uint a = fluvial_anc[cur + i];
        uint a_next = FLUVIAL_NONE;
        if (a != FLUVIAL_NONE) {
            vec2 up = fluvial_ab[cur + a];
            ab = vec2(ab.x + ab.y * up.x, ab.y * up.y);
            a_next = fluvial_anc[cur + a];
        }
        fluvial_ab[next + i] = ab;
        fluvial_anc[next + i] = a_next;
        has_ancestor = a_next != FLUVIAL_NONE;
    }
    if (subgroupAny(has_ancestor) && subgroupElect()) atomicAdd(ctl.live, 1u);
}
