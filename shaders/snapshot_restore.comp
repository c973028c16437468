#version 450
// Writes one block of a snapshot's piece of state back into scratch[], from which the host's
// copy puts it into the image or buffer.
#include "snapshot.glsl"

void main() {
    const uint slot = tables[p.out_table + blockIndex()];
    for (uint k = 0u; k < WORDS_PER_INVOCATION; ++k) {
        const uint i = gl_LocalInvocationIndex + k * SNAPSHOT_WG;
        const int w = wordIndex(i);
        if (w >= 0) scratch[w] = poolLoad(slot, i);
    }
}
