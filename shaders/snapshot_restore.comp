#version 450
// Writes one block of a snapshot's piece of state back into scratch[], from which the host's
// copy puts it into the image or buffer.
#include "snapshot.glsl"

void main() {
    const int w = wordIndex();
    if (w < 0) return;
    const uint slot = tables[p.out_table + blockIndex()];
    scratch[w] = pool[slot * SNAPSHOT_BLOCK_WORDS + gl_LocalInvocationIndex];
}
