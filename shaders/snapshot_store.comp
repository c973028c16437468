#version 450
// Stores one block of a piece of state (already copied into scratch[]) into the snapshot. If the
// base snapshot's block holds the same bits, this snapshot shares the base's slot; else the
// block is written into the slot the host reserved for it (left in the table by the host). The
// host learns which after the frame's fence. Bits are compared, never floats (no NaN or
// denormal rules), so a restore is bit for bit.
#include "snapshot.glsl"

shared uint changed;

void main() {
    const uint i = gl_LocalInvocationIndex;
    const int w = wordIndex();
    const uint word = w >= 0 ? scratch[w] : 0u;
    const uint out_entry = p.out_table + blockIndex();
    if (i == 0u) changed = p.base_table == SNAPSHOT_NONE ? 1u : 0u;
    barrier();
    uint base_slot = SNAPSHOT_NONE;
    if (p.base_table != SNAPSHOT_NONE) {
        base_slot = tables[p.base_table + blockIndex()];
        if (pool[base_slot * SNAPSHOT_BLOCK_WORDS + i] != word) atomicOr(changed, 1u);
    }
    barrier();
    if (changed != 0u) {
        pool[tables[out_entry] * SNAPSHOT_BLOCK_WORDS + i] = word;
    } else if (i == 0u) {
        tables[out_entry] = base_slot;
    }
}
