// What the snapshot passes share: bindings, the push constants, a block's words. One workgroup
// per block; invocation k takes words k, k + SNAPSHOT_WG, ... (consecutive invocations read
// consecutive words; CPU drivers pay per invocation, so each does several).
#extension GL_GOOGLE_include_directive : require
#include "snapshot_shared.h"

layout(local_size_x = SNAPSHOT_WG) in;

layout(std430, binding = SB_SCRATCH) buffer Scratch { uint scratch[]; };
layout(std430, binding = SB_POOL) buffer Pool { uint words[]; } pool[SNAPSHOT_POOL_CHUNKS];
layout(std430, binding = SB_TABLES) buffer Tables { uint tables[]; };
layout(std430, binding = SB_CHANGED) buffer Changed { uint changed[]; };
layout(push_constant) uniform Push { SnapshotPush p; };

#define WORDS_PER_INVOCATION (SNAPSHOT_BLOCK_WORDS / SNAPSHOT_WG)

// Word i of a slot of the pool. The buffer is chosen by constant indices (dynamic indexing of a
// buffer array is an optional feature).
#define POOL_CASES(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)
uint poolLoad(uint slot, uint i) {
    const uint c = slot / p.chunk_slots, at = (slot - c * p.chunk_slots) * SNAPSHOT_BLOCK_WORDS + i;
#define POOL_LOAD(k) if (c == uint(k)) return pool[k].words[at];
    POOL_CASES(POOL_LOAD)
    return 0u;
}
void poolStore(uint slot, uint i, uint value) {
    const uint c = slot / p.chunk_slots, at = (slot - c * p.chunk_slots) * SNAPSHOT_BLOCK_WORDS + i;
#define POOL_STORE(k) if (c == uint(k)) pool[k].words[at] = value;
    POOL_CASES(POOL_STORE)
}

// The block of this workgroup in row-major order of blocks.
uint blockIndex() { return gl_WorkGroupID.y * p.blocks_x + gl_WorkGroupID.x; }

// Word i of this block (0 .. SNAPSHOT_BLOCK_WORDS - 1): its index in scratch[], or -1 where the
// block hangs over the piece's edge (those words are kept as zero).
// block_w is a power of two: shifts and masks, not divisions (which CPU drivers do one lane at a
// time).
int wordIndex(uint i) {
    const uint x = gl_WorkGroupID.x * p.block_w + (i & (p.block_w - 1u));
    const uint y = gl_WorkGroupID.y * p.block_h + (i >> uint(findLSB(p.block_w)));
    if (x >= p.row_words || y >= p.rows) return -1;
    return int(y * p.row_words + x);
}
