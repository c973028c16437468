// Shared between the snapshot passes (snapshot_*.comp) and C++ (gpu/snapshot.h). A snapshot
// cuts every piece of state into blocks of 256 32-bit words (a 16x16 tile of an r32f image,
// 16x8 of rg32f, 16x4 of rgba32f; a buffer is one row of blocks) and keeps each block in a slot
// of a pool. A block equal to the same block of the snapshot it is compared with (the base)
// shares the base's slot; the others are copied into slots the host reserved for them. Two
// passes without workgroup barriers (which CPU drivers run slowly): compare, then store.
#ifndef ALLUVIUM_SNAPSHOT_SHARED_H
#define ALLUVIUM_SNAPSHOT_SHARED_H

#ifdef __cplusplus
#include <cstdint>
namespace alluvium::gpu {
using uint = uint32_t;
#endif

#define SNAPSHOT_BLOCK_WORDS 256  // words per block (one workgroup of the passes)
#define SNAPSHOT_WG 32            // invocations per block: each takes every 32nd word (8 words)
#define SNAPSHOT_NONE 0xFFFFFFFFu // no base snapshot
#define SNAPSHOT_POOL_CHUNKS 8    // buffers the pool may span (indexed by constants in GLSL)

// Binding slots of the snapshot passes' descriptor set.
// clang-format off
#define SB_SCRATCH 0 // uint[]: one piece of state, tightly packed rows (copied from/to its image)
#define SB_POOL 1    // SNAPSHOT_POOL_CHUNKS x uint[chunk_slots][SNAPSHOT_BLOCK_WORDS]: the pool in
                     // buffers of at most maxStorageBufferRange (128 MiB on lavapipe)
#define SB_TABLES 2  // uint[]: per snapshot, the slot of each of its blocks
#define SB_CHANGED 3 // uint[blocks per snapshot]: non-zero where a block differs from the base's
#define SB_COUNT 4
// clang-format on

// One piece of state (a source) as the passes see it, and where its blocks' slots are listed.
struct SnapshotPush {
    uint row_words; // words per row of the piece
    uint rows;
    uint block_w; // words per block row (16 texels), a power of two; block_w * block_h = SNAPSHOT_BLOCK_WORDS
    uint block_h;
    uint blocks_x;    // blocks per row of blocks
    uint base_table;  // index in tables[] of the base's first block of this piece, or SNAPSHOT_NONE
    uint out_table;   // index in tables[] of this snapshot's first block of this piece
    uint first_block; // index among the snapshot's blocks of this piece's first (changed[])
    uint chunk_slots; // slots per buffer of the pool
};

#ifdef __cplusplus
} // namespace alluvium::gpu
#endif

#endif
