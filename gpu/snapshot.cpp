// Snapshots of a simulation's state on the GPU (snapshot.h); digests are in snapshot_digest.cpp.
// [SECTION] the store: sources, allocation, pipelines
// [SECTION] store and restore (recorded GPU work)
// [SECTION] the host's accounting: completion, drops
#include "snapshot.h"
#include "snapshot_detail.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "pipeline.h"
#include "vk_check.h"

namespace alluvium::gpu {

using namespace snapshot_detail;

constexpr const char* kSnapshotModeNames[] = {"auto", "compare", "copy"}; // in SnapshotMode's order

const char* snapshotModeName(SnapshotMode mode) { return kSnapshotModeNames[int(mode)]; }

SnapshotMode resolveSnapshotMode(const Context& ctx, SnapshotMode asked) {
    if (asked != SnapshotMode::Auto) return asked;
    const int chosen = environmentChoice("ALLUVIUM_SNAPSHOT_MODE", kSnapshotModeNames);
    if (chosen > 0) return SnapshotMode(chosen);
    return ctx.properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU ? SnapshotMode::Copy : SnapshotMode::Compare;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] the store: sources, allocation, pipelines
// ---------------------------------------------------------------------------------------------

uint64_t SnapshotStore::fullBytes(const Simulation& sim, const std::vector<const Buffer*>& extra) {
    const uint64_t blocks = blocksOf(stateSources<Source>(sim, extra));
    return blocks * (kBlockBytes + 4);
}

uint64_t SnapshotStore::minimumBudget(const Simulation& sim, const std::vector<const Buffer*>& extra) {
    const std::vector<Source> sources = stateSources<Source>(sim, extra);
    const uint64_t blocks = blocksOf(sources);
    return 4 * blocks * kBlockBytes + (kMinTables + 1) * blocks * 4 + scratchBytes(sources); // + the changed flags
}

uint64_t SnapshotStore::bufferLimit(const Context& ctx) {
    uint64_t most = ctx.properties.limits.maxStorageBufferRange;
    if (ctx.max_allocation_bytes > 0) most = std::min<uint64_t>(most, ctx.max_allocation_bytes);
    return most / kBlockBytes * kBlockBytes;
}

uint64_t SnapshotStore::maximumBudget(const Context& ctx) { return SNAPSHOT_POOL_CHUNKS * bufferLimit(ctx); }

uint64_t SnapshotStore::largestPiece(const Simulation& sim, const std::vector<const Buffer*>& extra) {
    const std::vector<Source> sources = stateSources<Source>(sim, extra);
    return std::max(scratchBytes(sources), blocksOf(sources) * 4); // the scratch buffer, a table
}

SnapshotStore::SnapshotStore(const Context& ctx, Simulation& sim, std::vector<const Buffer*> extra,
                             uint64_t budget_bytes, SnapshotMode mode)
    : ctx_(ctx), sim_(sim), budget_(budget_bytes), mode_(resolveSnapshotMode(ctx, mode)) {
    sources_ = stateSources<Source>(sim, extra);
    blocks_ = blocksOf(sources_);
    ALLUVIUM_ASSERT(budget_bytes >= minimumBudget(sim, extra));
    const uint64_t scratch = scratchBytes(sources_);
    const uint64_t table_bytes = blocks_ * 4;
    // An eighth of the budget for tables (at least kMinTables): a snapshot that shares every
    // block with its base costs only its table.
    // Each buffer within what one binding may reach: the pool in up to SNAPSHOT_POOL_CHUNKS.
    const uint64_t limit = bufferLimit(ctx);
    ALLUVIUM_ASSERT(scratch <= limit && table_bytes * kMinTables <= limit);
    table_count_ = static_cast<uint32_t>(std::min<uint64_t>(
        std::clamp<uint64_t>(budget_bytes / 8 / table_bytes, kMinTables, kMaxTables), limit / table_bytes));
    const uint64_t pool_bytes =
        budget_bytes - scratch - uint64_t(table_count_ + 1) * table_bytes; // + the changed flags
    chunk_slots_ = limit / kBlockBytes;
    slot_count_ = std::min<uint64_t>(pool_bytes / kBlockBytes, SNAPSHOT_POOL_CHUNKS * chunk_slots_);
    ALLUVIUM_ASSERT(slot_count_ >= 3 * blocks_);

    const VkBufferUsageFlags storage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    for (uint64_t first = 0; first < slot_count_; first += chunk_slots_) {
        pools_.emplace_back();
        createBuffer(pools_.back(), ctx, std::min(chunk_slots_, slot_count_ - first) * kBlockBytes, storage, false);
    }
    createBuffer(tables_, ctx, uint64_t(table_count_) * table_bytes, storage, true); // the host reserves and reads
    createBuffer(scratch_, ctx, scratch, storage, false);
    createBuffer(changed_, ctx, table_bytes, storage, false);
    refs_.assign(slot_count_, 0);
    free_slots_.resize(slot_count_);
    for (uint64_t i = 0; i < slot_count_; ++i) free_slots_[i] = static_cast<uint32_t>(slot_count_ - 1 - i); // low first
    table_free_after_.assign(table_count_, 0);
    table_used_.assign(table_count_, false);

    VkDescriptorSetLayoutBinding bindings[SB_COUNT];
    for (uint32_t b = 0; b < SB_COUNT; ++b)
        bindings[b] = {b, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, b == SB_POOL ? SNAPSHOT_POOL_CHUNKS : 1u,
                       VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
    set_layout_ = createSetLayout(ctx, bindings, SB_COUNT);
    layout_ = createComputeLayout(ctx, set_layout_, sizeof(SnapshotPush));
    descriptor_pool_ =
        createDescriptorPool(ctx, 1, {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, SB_COUNT - 1 + SNAPSHOT_POOL_CHUNKS}});
    allocateSets(ctx, descriptor_pool_, set_layout_, 1, &set_);
    // The pool's bindings past its last buffer repeat the first (never read).
    std::vector<VkBuffer> chunks;
    for (size_t c = 0; c < SNAPSHOT_POOL_CHUNKS; ++c) chunks.push_back(pools_[c < pools_.size() ? c : 0].buffer);
    DescriptorWrites writes;
    writes.buffer(set_, SB_SCRATCH, scratch_.buffer);
    writes.buffers(set_, SB_POOL, chunks);
    writes.buffer(set_, SB_TABLES, tables_.buffer);
    writes.buffer(set_, SB_CHANGED, changed_.buffer);
    writes.apply(ctx);
    compare_ = loadComputePipeline(ctx, layout_, "snapshot_compare");
    store_ = loadComputePipeline(ctx, layout_, "snapshot_store");
    restore_ = loadComputePipeline(ctx, layout_, "snapshot_restore");
}

SnapshotStore::~SnapshotStore() {
    vkDeviceWaitIdle(ctx_.device);
    destroyCompute(ctx_, {compare_, store_, restore_}, descriptor_pool_, layout_, set_layout_);
    for (Buffer& b : pools_) destroyBuffer(b, ctx_);
    destroyBuffer(tables_, ctx_);
    destroyBuffer(scratch_, ctx_);
    destroyBuffer(changed_, ctx_);
}

uint64_t SnapshotStore::allocatedBytes() const {
    uint64_t bytes = tables_.size + scratch_.size + changed_.size;
    for (const Buffer& b : pools_) bytes += b.size;
    return bytes;
}

uint64_t SnapshotStore::bytesHeld() const {
    return (slot_count_ - free_slots_.size()) * kBlockBytes + records_.size() * blocks_ * 4;
}

SnapshotStore::Record* SnapshotStore::find(int id) {
    for (Record& r : records_)
        if (r.id == id) return &r;
    return nullptr;
}
const SnapshotStore::Record* SnapshotStore::find(int id) const {
    for (const Record& r : records_)
        if (r.id == id) return &r;
    return nullptr;
}

bool SnapshotStore::held(int id) const { return find(id) != nullptr; }

std::vector<int> SnapshotStore::heldIds() const {
    std::vector<int> ids;
    for (const Record& r : records_) ids.push_back(r.id);
    return ids;
}

int SnapshotStore::stepIndex(int id) const {
    const Record* r = find(id);
    ALLUVIUM_ASSERT(r);
    return r->step_index;
}

int64_t SnapshotStore::newBytes(int id) const {
    const Record* r = find(id);
    return r && r->resolved ? r->new_blocks * int64_t(kBlockBytes) : -1;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] store and restore (recorded GPU work)
// ---------------------------------------------------------------------------------------------

// The image of source i at the simulation's parity now (the sources list those of the parity at
// creation); nullptr for a buffer.
const Image* SnapshotStore::currentImage(size_t i) const {
    const Source& s = sources_[i];
    if (!s.image) return nullptr;
    size_t k = 0;
    for (size_t j = 0; j < i; ++j) k += sources_[j].image && sources_[j].field == s.field ? 1 : 0;
    return sim_.fieldImages(s.field)[k];
}

// Copy mode. A block of an image is a tile of 16 texels by block_h rows, laid out in its slot
// as the passes lay it (rows of 16 texels); tiles over the edge copy only their part. A block of
// a buffer is 1 KiB of it. One copy command per piece and pool buffer, with a region per block.
void SnapshotStore::recordCopies(VkCommandBuffer cmd, const uint32_t* table, bool to_pool) {
    for (size_t i = 0; i < sources_.size(); ++i) {
        const Source& s = sources_[i];
        const Image* image = currentImage(i);
        std::vector<std::vector<VkBufferImageCopy>> tiles(pools_.size());
        std::vector<std::vector<VkBufferCopy>> spans(pools_.size());
        for (uint32_t by = 0; by < s.blocks_y; ++by)
            for (uint32_t bx = 0; bx < s.push.blocks_x; ++bx) {
                const uint64_t slot = table[s.first_block + uint64_t(by) * s.push.blocks_x + bx];
                const size_t chunk = size_t(slot / chunk_slots_);
                const VkDeviceSize at = (slot % chunk_slots_) * kBlockBytes;
                if (image) {
                    VkBufferImageCopy region{};
                    region.bufferOffset = at;
                    region.bufferRowLength = 16;
                    region.bufferImageHeight = s.push.block_h;
                    region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
                    region.imageOffset = {int32_t(bx * 16), int32_t(by * s.push.block_h), 0};
                    region.imageExtent = {std::min(16u, image->width - bx * 16),
                                          std::min(s.push.block_h, image->height - by * s.push.block_h), 1};
                    tiles[chunk].push_back(region);
                } else {
                    const VkDeviceSize offset = VkDeviceSize(bx) * kBlockBytes,
                                       size = std::min<VkDeviceSize>(kBlockBytes, s.bytes - offset);
                    spans[chunk].push_back(to_pool ? VkBufferCopy{offset, at, size} : VkBufferCopy{at, offset, size});
                }
            }
        for (size_t c = 0; c < pools_.size(); ++c) {
            const auto nt = static_cast<uint32_t>(tiles[c].size()), ns = static_cast<uint32_t>(spans[c].size());
            if (nt > 0 && to_pool)
                vkCmdCopyImageToBuffer(cmd, image->image, VK_IMAGE_LAYOUT_GENERAL, pools_[c].buffer, nt,
                                       tiles[c].data());
            if (nt > 0 && !to_pool)
                vkCmdCopyBufferToImage(cmd, pools_[c].buffer, image->image, VK_IMAGE_LAYOUT_GENERAL, nt,
                                       tiles[c].data());
            if (ns > 0)
                vkCmdCopyBuffer(cmd, to_pool ? s.buffer->buffer : pools_[c].buffer,
                                to_pool ? pools_[c].buffer : s.buffer->buffer, ns, spans[c].data());
        }
    }
}

void SnapshotStore::recordPiece(VkCommandBuffer cmd, VkPipeline pipeline, const Source& src, uint32_t base_table,
                                uint32_t out_table) {
    SnapshotPush push = src.push;
    push.base_table = base_table == SNAPSHOT_NONE ? SNAPSHOT_NONE : base_table + uint32_t(src.first_block);
    push.out_table = out_table + uint32_t(src.first_block);
    push.first_block = uint32_t(src.first_block);
    push.chunk_slots = uint32_t(chunk_slots_);
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
    vkCmdPushConstants(cmd, layout_, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, &push);
    vkCmdDispatch(cmd, push.blocks_x, src.blocks_y, 1);
}

namespace {

// Whole image or buffer <-> the scratch buffer, tightly packed.
void copyToScratch(VkCommandBuffer cmd, const Image* image, const Buffer* buffer, uint64_t bytes, const Buffer& scratch,
                   bool to_scratch) {
    if (image) {
        VkBufferImageCopy region{};
        region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
        region.imageExtent = {image->width, image->height, 1};
        if (to_scratch)
            vkCmdCopyImageToBuffer(cmd, image->image, VK_IMAGE_LAYOUT_GENERAL, scratch.buffer, 1, &region);
        else
            vkCmdCopyBufferToImage(cmd, scratch.buffer, image->image, VK_IMAGE_LAYOUT_GENERAL, 1, &region);
    } else {
        const VkBufferCopy region{0, 0, bytes};
        if (to_scratch)
            vkCmdCopyBuffer(cmd, buffer->buffer, scratch.buffer, 1, &region);
        else
            vkCmdCopyBuffer(cmd, scratch.buffer, buffer->buffer, 1, &region);
    }
}

constexpr VkPipelineStageFlags kCopyAndCompute = VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;
constexpr VkAccessFlags kAllCopyAndCompute =
    VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;

// Everything recorded or submitted before (steps, drawing, the brush, earlier snapshots and
// restores, the host's writes of the tables) -> the snapshot's copies and passes.
void barrierBefore(VkCommandBuffer cmd) {
    memoryBarrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT | VK_PIPELINE_STAGE_HOST_BIT,
                  VK_ACCESS_MEMORY_WRITE_BIT | VK_ACCESS_HOST_WRITE_BIT, kCopyAndCompute, kAllCopyAndCompute);
}

// The snapshot's writes -> everything after (steps, drawing, the host's reads after the fence).
void barrierAfter(VkCommandBuffer cmd) {
    memoryBarrier(cmd, kCopyAndCompute, VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_SHADER_WRITE_BIT,
                  VK_PIPELINE_STAGE_ALL_COMMANDS_BIT | VK_PIPELINE_STAGE_HOST_BIT,
                  VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT | VK_ACCESS_HOST_READ_BIT);
}

// Between the copies and the passes that share the scratch buffer (write after read included).
void barrierBetween(VkCommandBuffer cmd) {
    memoryBarrier(cmd, kCopyAndCompute, kAllCopyAndCompute, kCopyAndCompute, kAllCopyAndCompute);
}

} // namespace

int SnapshotStore::recordStore(VkCommandBuffer cmd, int base, uint64_t submission, std::vector<int>& dropped) {
    auto freeTable = [&]() -> int {
        for (uint32_t t = 0; t < table_count_; ++t)
            if (!table_used_[t] && table_free_after_[t] <= completed_) return int(t);
        return -1;
    };
    // Room for a whole snapshot (every block changed) and a table, else drop the oldest first.
    while (free_slots_.size() < blocks_ || freeTable() < 0) {
        auto oldest = std::find_if(records_.begin(), records_.end(), [&](const Record& r) { return droppable(r.id); });
        if (oldest == records_.end()) return -1;
        const int id = oldest->id;
        drop(id);
        dropped.push_back(id);
    }
    Record* base_record = base >= 0 ? find(base) : nullptr;
    Record r;
    r.id = next_id_++;
    r.table = static_cast<uint32_t>(freeTable());
    r.submission = r.last_use = submission;
    r.step_index = sim_.stepIndex();
    r.substeps = sim_.substeps();
    r.sea = sim_.sea().host;
    r.springs = sim_.springs();
    r.params = sim_.params();
    r.reserved.resize(blocks_);
    uint32_t* table = static_cast<uint32_t*>(tables_.mapped) + uint64_t(r.table) * blocks_;
    for (uint64_t b = 0; b < blocks_; ++b) {
        r.reserved[b] = free_slots_.back();
        free_slots_.pop_back();
        table[b] = r.reserved[b];
    }
    table_used_[r.table] = true;
    uint32_t base_table = SNAPSHOT_NONE;
    if (base_record) {
        base_record->pinned_until = std::max(base_record->pinned_until, submission);
        base_record->last_use = std::max(base_record->last_use, submission);
        base_table = uint32_t(uint64_t(base_record->table) * blocks_);
    }
    const uint32_t out_table = uint32_t(uint64_t(r.table) * blocks_);

    barrierBefore(cmd);
    if (mode_ == SnapshotMode::Copy) { // every block into its reserved slot: the table is final now
        recordCopies(cmd, table, true);
        barrierAfter(cmd);
        records_.push_back(std::move(r));
        return records_.back().id;
    }
    if (base_table != SNAPSHOT_NONE) vkCmdFillBuffer(cmd, changed_.buffer, 0, VK_WHOLE_SIZE, 0);
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, layout_, 0, 1, &set_, 0, nullptr);
    for (size_t i = 0; i < sources_.size(); ++i) {
        const Source& s = sources_[i];
        if (i > 0) barrierBetween(cmd); // the previous pass read the scratch buffer
        copyToScratch(cmd, currentImage(i), s.buffer, s.bytes, scratch_, true);
        barrierBetween(cmd);
        if (base_table != SNAPSHOT_NONE) {
            recordPiece(cmd, compare_, s, base_table, out_table);
            barrierBetween(cmd);
        }
        recordPiece(cmd, store_, s, base_table, out_table);
    }
    barrierAfter(cmd);
    records_.push_back(std::move(r));
    return records_.back().id;
}

void SnapshotStore::recordRestore(VkCommandBuffer cmd, int id, uint64_t submission) {
    Record* r = find(id);
    ALLUVIUM_ASSERT(r);
    r->last_use = std::max(r->last_use, submission);
    const uint32_t table = uint32_t(uint64_t(r->table) * blocks_);
    barrierBefore(cmd);
    if (mode_ == SnapshotMode::Copy) { // the host wrote the table when it reserved the slots
        recordCopies(cmd, static_cast<const uint32_t*>(tables_.mapped) + table, false);
        barrierAfter(cmd);
        restoreHostState(*r);
        return;
    }
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, layout_, 0, 1, &set_, 0, nullptr);
    for (size_t i = 0; i < sources_.size(); ++i) {
        const Source& s = sources_[i];
        const Image* image = currentImage(i);
        if (i > 0) barrierBetween(cmd); // the previous copy read the scratch buffer
        recordPiece(cmd, restore_, s, SNAPSHOT_NONE, table);
        barrierBetween(cmd);
        copyToScratch(cmd, image, s.buffer, s.bytes, scratch_, false);
    }
    barrierAfter(cmd);
    restoreHostState(*r);
}

void SnapshotStore::restoreHostState(const Record& r) {
    sim_.setStepIndex(r.step_index);
    sim_.setSprings(r.springs);
    sim_.setParams(r.params);
    sim_.setSubsteps(r.substeps);
    sim_.sea().host = r.sea;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] the host's accounting: completion, drops
// ---------------------------------------------------------------------------------------------

void SnapshotStore::completed(uint64_t submission) {
    completed_ = std::max(completed_, submission);
    for (Record& r : records_) // oldest first: a base is resolved before the snapshots that share its slots
        if (!r.resolved && r.submission <= completed_) resolve(r);
}

void SnapshotStore::resolve(Record& r) {
    const uint32_t* table = static_cast<const uint32_t*>(tables_.mapped) + uint64_t(r.table) * blocks_;
    int64_t fresh = 0;
    for (uint64_t b = 0; b < blocks_; ++b) {
        const uint32_t slot = table[b];
        ALLUVIUM_ASSERT(slot < slot_count_);
        if (slot == r.reserved[b]) {
            refs_[slot] = 1;
            ++fresh;
        } else { // shared with the base
            ALLUVIUM_ASSERT(refs_[slot] > 0);
            ++refs_[slot];
            free_slots_.push_back(r.reserved[b]);
        }
    }
    r.new_blocks = fresh;
    r.reserved = {};
    r.resolved = true;
}

bool SnapshotStore::droppable(int id) const {
    const Record* r = find(id);
    return r && r->resolved && r->pinned_until <= completed_;
}

void SnapshotStore::drop(int id) {
    ALLUVIUM_ASSERT(droppable(id));
    auto it = std::find_if(records_.begin(), records_.end(), [&](const Record& r) { return r.id == id; });
    const uint32_t* table = static_cast<const uint32_t*>(tables_.mapped) + uint64_t(it->table) * blocks_;
    for (uint64_t b = 0; b < blocks_; ++b) {
        const uint32_t slot = table[b];
        if (--refs_[slot] == 0) free_slots_.push_back(slot);
    }
    // Work in flight may still read the table (a restore): the host rewrites it only after.
    table_used_[it->table] = false;
    table_free_after_[it->table] = it->last_use;
    records_.erase(it);
}

} // namespace alluvium::gpu
