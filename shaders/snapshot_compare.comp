#version 450
// Flags the blocks of a piece of state (copied into scratch[]) whose bits differ anywhere from
// the same block of the base snapshot. Bits are compared, never floats (no NaN or denormal
// rules). Every invocation that sees a difference writes the same 1: no barrier, no atomic.
#include "snapshot.glsl"

void main() {
    const uint base = tables[p.base_table + blockIndex()];
    bool differs = false;
    for (uint k = 0u; k < WORDS_PER_INVOCATION; ++k) {
        const uint i = gl_LocalInvocationIndex + k * SNAPSHOT_WG;
        const int w = wordIndex(i);
        differs = differs || poolLoad(base, i) != (w >= 0 ? scratch[w] : 0u);
    }
    if (differs) changed[p.first_block + blockIndex()] = 1u;
}
