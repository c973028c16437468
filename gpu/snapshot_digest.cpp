// State digests, and the digests of the snapshots a store holds (snapshot.h).
#include <cstddef>
#include <cstdio>
#include <cstring>

#include "snapshot.h"
#include "snapshot_detail.h"

namespace alluvium::gpu {

using namespace snapshot_detail;

namespace {

void hashHostState(StateHasher& h, int step_index, int substeps, const std::vector<Spring>& springs,
                   const SimParams& params, double sim_time) {
    const int64_t step = step_index;
    h.add(&step, sizeof step);
    h.add(&sim_time, sizeof sim_time); // the tide's clock
    const int32_t n = substeps;
    h.add(&n, sizeof n);
    const auto count = static_cast<uint32_t>(springs.size());
    h.add(&count, sizeof count);
    h.add(springs.data(), springs.size() * sizeof(Spring));
    // Without the workgroup counts: they follow the device's workgroup shape, not the state.
    SimParams hashed = params;
    hashed.group_count_x = hashed.group_count_y = 0;
    hashed.tile_count_x = hashed.tile_count_y = 0;
    hashed.partials_per_group = hashed.subgroup_partials_at = 0; // the device's, too
    // A block of a split grid hashes as the whole grid; the fields from the block's origin on
    // say where the block lies, not what the state is: not hashed.
    hashed.width = params.full_width;
    hashed.height = params.full_height;
    h.add(&hashed, offsetof(SimParams, origin_x));
}

} // namespace

// ---------------------------------------------------------------------------------------------
// [SECTION] digests
// ---------------------------------------------------------------------------------------------

void StateHasher::add(const void* data, size_t bytes) {
    const auto* p = static_cast<const unsigned char*>(data);
    uint64_t h = hash_;
    for (size_t i = 0; i < bytes; ++i) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    hash_ = h;
}

uint64_t stateDigest(const Simulation& sim) {
    StateHasher h;
    for (Field f : stateFields()) {
        const std::vector<float> values = sim.download(f);
        h.add(values.data(), values.size() * sizeof(float));
    }
    const Totals totals = sim.totals();
    h.add(&totals, sizeof totals);
    hashHostState(h, sim.stepIndex(), sim.substeps(), sim.springs(), sim.params(), sim.simTime());
    return h.value();
}

std::string digestText(uint64_t digest) {
    char text[20];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(digest));
    return text;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] digests of the snapshots held
// ---------------------------------------------------------------------------------------------

std::vector<uint64_t> SnapshotStore::digests(const std::vector<int>& ids) {
    uint64_t top = 0; // slots below this are enough
    for (int id : ids) {
        const Record* r = find(id);
        ALLUVIUM_ASSERT(r && r->resolved);
        const uint32_t* table = static_cast<const uint32_t*>(tables_.mapped) + uint64_t(r->table) * blocks_;
        for (uint64_t b = 0; b < blocks_; ++b) top = std::max<uint64_t>(top, uint64_t(table[b]) + 1);
    }
    std::vector<uint64_t> out;
    if (ids.empty()) return out;
    std::vector<uint32_t> pool(top * SNAPSHOT_BLOCK_WORDS);
    for (uint64_t c = 0; c * chunk_slots_ < top; ++c) {
        const uint64_t slots = std::min(chunk_slots_, top - c * chunk_slots_);
        downloadBuffer(ctx_, pools_[c], &pool[c * chunk_slots_ * SNAPSHOT_BLOCK_WORDS], slots * kBlockBytes);
    }

    // A source's words, row-major, from its blocks.
    auto piece = [&](const uint32_t* table, const Source& s) {
        std::vector<uint32_t> words(size_t(s.push.row_words) * s.push.rows);
        for (uint32_t by = 0; by < s.blocks_y; ++by)
            for (uint32_t bx = 0; bx < s.push.blocks_x; ++bx) {
                const uint32_t* block =
                    &pool[size_t(table[s.first_block + uint64_t(by) * s.push.blocks_x + bx]) * SNAPSHOT_BLOCK_WORDS];
                for (uint32_t i = 0; i < SNAPSHOT_BLOCK_WORDS; ++i) {
                    const uint32_t x = bx * s.push.block_w + i % s.push.block_w,
                                   y = by * s.push.block_h + i / s.push.block_w;
                    if (x < s.push.row_words && y < s.push.rows) words[size_t(y) * s.push.row_words + x] = block[i];
                }
            }
        return words;
    };
    for (int id : ids) {
        const Record* r = find(id);
        const uint32_t* table = static_cast<const uint32_t*>(tables_.mapped) + uint64_t(r->table) * blocks_;
        StateHasher h;
        for (size_t i = 0; i < sources_.size();) {
            if (!sources_[i].image) { // the totals (the extras are not part of the digest)
                const std::vector<uint32_t> words = piece(table, sources_[i]);
                h.add(words.data(), std::min<size_t>(words.size() * 4, sizeof(Totals)));
                break;
            }
            // A field's images, interleaved per cell as download() returns them.
            size_t j = i;
            std::vector<std::vector<uint32_t>> parts;
            uint32_t cell_words = 0;
            for (; j < sources_.size() && sources_[j].image && sources_[j].field == sources_[i].field; ++j) {
                parts.push_back(piece(table, sources_[j]));
                cell_words += sources_[j].texel_words;
            }
            const size_t cells = size_t(sources_[i].image->width) * sources_[i].image->height;
            std::vector<uint32_t> field(cells * cell_words);
            for (size_t c = 0, o = 0; c < cells; ++c)
                for (size_t k = 0; k < parts.size(); ++k)
                    for (uint32_t w = 0; w < sources_[i + k].texel_words; ++w)
                        field[o++] = parts[k][c * sources_[i + k].texel_words + w];
            h.add(field.data(), field.size() * 4);
            i = j;
        }
        hashHostState(h, r->step_index, r->substeps, r->springs, r->params, r->sea.sim_time);
        out.push_back(h.value());
    }
    return out;
}

} // namespace alluvium::gpu
