// The snapshot store's internals shared by gpu/snapshot.cpp (the store, its GPU work) and
// gpu/snapshot_digest.cpp (digests): the pieces of state and the records of the snapshots.
#pragma once
#include <algorithm>
#include <vector>

#include "simulation.h"
#include "snapshot_shared.h"

namespace alluvium::gpu {

namespace snapshot_detail {

inline constexpr uint64_t kBlockBytes = SNAPSHOT_BLOCK_WORDS * 4;
inline constexpr uint32_t kMinTables = 8;
inline constexpr uint32_t kMaxTables = 4096;

inline std::vector<Field> stateFields() {
    std::vector<Field> fields;
    for (int i = 0; i < static_cast<int>(Field::Count); ++i)
        if (!fieldIsDerived(static_cast<Field>(i))) fields.push_back(static_cast<Field>(i));
    return fields;
}

inline uint64_t ceilDiv(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

} // namespace snapshot_detail

// One piece of state: an image (one of a field's) or a whole buffer, as rows of 32-bit words.
struct SnapshotSource {
    Field field = Field::Count; // Field::Count: a buffer (totals, extras)
    const Image* image = nullptr;
    const Buffer* buffer = nullptr;
    uint64_t bytes = 0;
    uint32_t texel_words = 1; // words per cell (images)
    SnapshotPush push{};      // geometry; the table offsets are filled per snapshot
    uint64_t first_block = 0; // index of its first block in a snapshot's table
    uint32_t blocks_y = 0;
};

struct SnapshotRecord {
    int id = 0;
    uint32_t table = 0;
    uint64_t submission = 0;   // of its store
    uint64_t last_use = 0;     // the last submission that reads its table (store, restores)
    uint64_t pinned_until = 0; // the base of a store in that submission
    bool resolved = false;
    std::vector<uint32_t> reserved; // until resolved: the slot reserved for each block
    int64_t new_blocks = -1;
    // The host's part of the state.
    int step_index = 0;
    int substeps = 1;   // the pipe model's CFL sub-steps of the next step
    SeaState::Host sea; // the tide's clock, the sea's spill relaxation
    std::vector<Spring> springs;
    SimParams params{};
};

namespace snapshot_detail {

// The pieces of `sim`'s state, in the digest's order (fields, totals), then `extra`.
template <typename Source>
std::vector<Source> stateSources(const Simulation& sim, const std::vector<const Buffer*>& extra) {
    std::vector<Source> sources;
    auto add = [&](Source s) {
        s.push.block_h = SNAPSHOT_BLOCK_WORDS / s.push.block_w;
        s.push.blocks_x = static_cast<uint32_t>(ceilDiv(s.push.row_words, s.push.block_w));
        s.blocks_y = static_cast<uint32_t>(ceilDiv(s.push.rows, s.push.block_h));
        s.first_block = sources.empty() ? 0
                                        : sources.back().first_block +
                                              uint64_t(sources.back().push.blocks_x) * sources.back().blocks_y;
        sources.push_back(s);
    };
    for (Field f : stateFields())
        for (const Image* img : sim.fieldImages(f)) {
            Source s;
            s.field = f;
            s.image = img;
            const uint32_t texel_bytes = static_cast<uint32_t>(formatTexelBytes(img->format));
            ALLUVIUM_ASSERT(texel_bytes % 4 == 0 && texel_bytes >= 4 && texel_bytes <= 16);
            s.texel_words = texel_bytes / 4;
            s.bytes = uint64_t(img->width) * img->height * texel_bytes;
            s.push.row_words = img->width * s.texel_words;
            s.push.rows = img->height;
            s.push.block_w = 16 * s.texel_words; // 16 texels
            add(s);
        }
    // The totals first (the digest reads them there), the sea's relaxation control.
    std::vector<const Buffer*> buffers = {&sim.totalsBuffer(), &sim.sea().control};
    buffers.insert(buffers.end(), extra.begin(), extra.end());
    for (const Buffer* b : buffers) {
        ALLUVIUM_ASSERT(b->size % 4 == 0 && b->size > 0);
        Source s;
        s.buffer = b;
        s.bytes = b->size;
        s.push.row_words = static_cast<uint32_t>(b->size / 4);
        s.push.rows = 1;
        s.push.block_w = SNAPSHOT_BLOCK_WORDS;
        add(s);
    }
    return sources;
}

template <typename Source> uint64_t blocksOf(const std::vector<Source>& sources) {
    return sources.back().first_block + uint64_t(sources.back().push.blocks_x) * sources.back().blocks_y;
}

template <typename Source> uint64_t scratchBytes(const std::vector<Source>& sources) {
    uint64_t most = 0;
    for (const Source& s : sources) most = std::max(most, s.bytes);
    return most;
}

} // namespace snapshot_detail

} // namespace alluvium::gpu
