#version 450
// Stores one block of a piece of state (copied into scratch[]) into the snapshot: a block that
// differs from the base's (snapshot_compare.comp flagged it), or every block when there is no
// base, is written into the slot the host reserved for it (left in the table by the host); an
// unchanged one shares the base's slot instead. The host learns which after the frame's fence.
#include "snapshot.glsl"

void main() {
    const uint out_entry = p.out_table + blockIndex();
    if (p.base_table == SNAPSHOT_NONE || changed[p.first_block + blockIndex()] != 0u) {
        const uint slot = tables[out_entry];
        for (uint k = 0u; k < WORDS_PER_INVOCATION; ++k) {
            const uint i = gl_LocalInvocationIndex + k * SNAPSHOT_WG;
            const int w = wordIndex(i);
            poolStore(slot, i, w >= 0 ? scratch[w] : 0u);
        }
    } else if (gl_LocalInvocationIndex == 0u) {
        tables[out_entry] = tables[p.base_table + blockIndex()];
    }
}
