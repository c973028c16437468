// What the snapshot passes share: bindings, the push constants, a block's words.
#extension GL_GOOGLE_include_directive : require
#include "snapshot_shared.h"

layout(local_size_x = SNAPSHOT_BLOCK_WORDS) in;

layout(std430, binding = SB_SCRATCH) buffer Scratch { uint scratch[]; };
layout(std430, binding = SB_POOL) buffer Pool { uint pool[]; };
layout(std430, binding = SB_TABLES) buffer Tables { uint tables[]; };
layout(push_constant) uniform Push { SnapshotPush p; };

// The block of this workgroup in row-major order of blocks, and this invocation's word of the
// piece: its index in scratch[], or -1 where the block hangs over the piece's edge (those words
// are kept as zero).
uint blockIndex() { return gl_WorkGroupID.y * p.blocks_x + gl_WorkGroupID.x; }

int wordIndex() {
    const uint i = gl_LocalInvocationIndex;
    const uint x = gl_WorkGroupID.x * p.block_w + i % p.block_w;
    const uint y = gl_WorkGroupID.y * p.block_h + i / p.block_w;
    if (x >= p.row_words || y >= p.rows) return -1;
    return int(y * p.row_words + x);
}
