// Snapshots of a simulation's whole state, kept on the GPU (the viewer's undo, redo and time
// scrubbing), and the digest of a state.
//
// The state is what a step reads and no step rewrites first: every field that is not derived
// (fieldIsDerived), the current half of each ping-pong pair (two images for a split 4-channel
// field), the run's totals, any extra buffers the owner names (the brush's tallies), and on the
// host the step index, the pipe model's sub-steps, the springs and the parameters in force. Fields added to the Field
// enum later are included without a change here.
//
// Taking a snapshot records GPU work only (image-to-buffer copies and a compare-and-copy pass,
// shaders/snapshot_store.comp): no wait, no read-back. Each piece of state is cut into blocks of
// 1 KiB (a 16x16 tile of an r32f image); a block whose bits equal the same block of the base
// snapshot (the one the state was last stored into or restored from) shares the base's slot of
// the pool, so unchanged tiles cost 4 bytes (their table entry); two passes without workgroup
// barriers compare and store (shaders/snapshot_compare.comp, snapshot_store.comp). The host learns which blocks
// were shared after the work's fence (completed()) and counts references to every slot. The
// pool, the tables and the scratch buffer are allocated once within the budget; when the pool
// cannot hold one more whole snapshot, the oldest are dropped first. A restore copies the blocks
// back: bit for bit.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <vulkan/vulkan.h>

#include "context.h"
#include "resources.h"
#include "simulation.h"
#include "snapshot_shared.h"

namespace alluvium::gpu {

struct SnapshotSource; // snapshot_detail.h: a piece of state, an image or a buffer
struct SnapshotRecord; // ... and a snapshot held

// FNV-1a 64 over bytes, fed piece by piece.
class StateHasher {
public:
    void add(const void* data, size_t bytes);
    uint64_t value() const { return hash_; }

private:
    uint64_t hash_ = 0xcbf29ce484222325ull;
};

// The digest of a simulation's state: FNV-1a 64 over, in this order, the current values of
// every non-derived field in Field order (row-major floats, fieldChannels() per cell, as
// download() returns them), the Totals' bytes, the step index (int64), the pipe model's
// sub-steps (int32), the springs (their count as uint32, then their bytes) and the SimParams'
// bytes. Downloads: waits for the device.
uint64_t stateDigest(const Simulation& sim);
// 16 lower-case hex digits.
std::string digestText(uint64_t digest);

// How snapshots are taken. Compare: each block is compared on the GPU with the base's and shared
// where equal (two compute passes; GPUs, where they run at memory speed). Copy: every block is
// copied by transfer commands straight into its slot, nothing shared (CPU drivers such as
// lavapipe, where the passes cost as much as a simulation step and a copy is a memcpy). Auto:
// Copy on a CPU device, else Compare; ALLUVIUM_SNAPSHOT_MODE=compare|copy overrides Auto.
enum class SnapshotMode { Auto, Compare, Copy };
const char* snapshotModeName(SnapshotMode mode);
SnapshotMode resolveSnapshotMode(const Context& ctx, SnapshotMode asked);

class SnapshotStore {
public:
    // Everything on the device (pool, tables, scratch) within `budget_bytes`, which must be at
    // least minimumBudget(). `extra`: buffers kept with the state (whole, each a multiple of 4
    // bytes), restored with it. Throws DeviceError when the device cannot allocate it.
    SnapshotStore(const Context& ctx, Simulation& sim, std::vector<const Buffer*> extra, uint64_t budget_bytes,
                  SnapshotMode mode = SnapshotMode::Auto);
    ~SnapshotStore();
    SnapshotStore(const SnapshotStore&) = delete;
    SnapshotStore& operator=(const SnapshotStore&) = delete;

    // Bytes of one snapshot that shares nothing (its blocks and its table).
    static uint64_t fullBytes(const Simulation& sim, const std::vector<const Buffer*>& extra);
    // The least budget: room for four whole snapshots, eight tables, the scratch buffer and the
    // blocks' changed flags.
    static uint64_t minimumBudget(const Simulation& sim, const std::vector<const Buffer*>& extra);
    // The most one buffer of the store may hold (a binding's range, an allocation), and the most
    // its pool may hold (SNAPSHOT_POOL_CHUNKS of those): 1 GiB on lavapipe.
    static uint64_t bufferLimit(const Context& ctx);
    static uint64_t maximumBudget(const Context& ctx);
    // The largest single buffer the store needs besides the pool (must be <= bufferLimit()).
    static uint64_t largestPiece(const Simulation& sim, const std::vector<const Buffer*>& extra);

    // Records a snapshot of the state now (between steps), compared block by block with `base`
    // (a snapshot held, or -1). `submission` numbers the command buffer (increasing); the
    // caller reports it with completed() once its fence signalled. While there is no room for a
    // whole snapshot, drops the oldest held snapshot that no work in flight needs and appends
    // its id to `dropped`. Returns the new id, or -1 if there is still no room.
    int recordStore(VkCommandBuffer cmd, int base, uint64_t submission, std::vector<int>& dropped);
    // Records the copies that put snapshot `id` back, and sets the step index, springs and
    // parameters it holds. The state after the command buffer runs equals the state stored.
    void recordRestore(VkCommandBuffer cmd, int id, uint64_t submission);
    // The work of every submission up to `submission` has completed.
    void completed(uint64_t submission);
    // Frees what only this snapshot holds (it must be held and not needed by work in flight:
    // droppable()).
    void drop(int id);
    bool droppable(int id) const;

    bool held(int id) const;
    std::vector<int> heldIds() const; // oldest first
    int stepIndex(int id) const;
    // Blocks this snapshot did not share with its base, in bytes; -1 until completed.
    int64_t newBytes(int id) const;

    SnapshotMode mode() const { return mode_; }
    uint64_t budget() const { return budget_; }
    uint64_t allocatedBytes() const; // pool + tables + scratch, <= budget()
    uint64_t bytesHeld() const;      // slots in use or reserved, plus the tables of the snapshots
    uint64_t blocksPerSnapshot() const { return blocks_; }
    uint64_t poolSlots() const { return slot_count_; }
    size_t poolBuffers() const { return pools_.size(); }

    // The digest (see stateDigest) of the state each snapshot holds. Downloads the pool: waits
    // for the device. Every id must be held and completed.
    std::vector<uint64_t> digests(const std::vector<int>& ids);

private:
    using Source = SnapshotSource;
    using Record = SnapshotRecord;
    Record* find(int id);
    const Record* find(int id) const;
    void resolve(Record& r);
    void restoreHostState(const Record& r); // the step index, springs, parameters, sub-steps, sea
    const Image* currentImage(size_t source) const;
    // Copy mode: the copies between the pieces and the slots `table` lists (to the pool, or back).
    void recordCopies(VkCommandBuffer cmd, const uint32_t* table, bool to_pool);
    void recordPiece(VkCommandBuffer cmd, VkPipeline pipeline, const Source& src, uint32_t base_table,
                     uint32_t out_table);

    const Context& ctx_;
    Simulation& sim_;
    std::vector<Source> sources_;
    uint64_t blocks_ = 0;      // per snapshot
    uint64_t slot_count_ = 0;  // in the pool
    uint32_t table_count_ = 0; // tables in the ring
    uint64_t budget_ = 0;
    SnapshotMode mode_ = SnapshotMode::Compare;
    std::vector<Buffer> pools_; // the pool, in buffers of chunk_slots_ slots
    uint64_t chunk_slots_ = 0;
    Buffer tables_, scratch_, changed_;
    std::vector<uint32_t> refs_;             // per slot: snapshots that use it
    std::vector<uint32_t> free_slots_;       // a stack
    std::vector<uint64_t> table_free_after_; // per table: the submission after which it can be reused
    std::vector<bool> table_used_;
    std::vector<Record> records_; // oldest first
    int next_id_ = 0;
    uint64_t completed_ = 0;

    VkDescriptorSetLayout set_layout_ = VK_NULL_HANDLE;
    VkPipelineLayout layout_ = VK_NULL_HANDLE;
    VkDescriptorPool descriptor_pool_ = VK_NULL_HANDLE;
    VkDescriptorSet set_ = VK_NULL_HANDLE;
    VkPipeline compare_ = VK_NULL_HANDLE, store_ = VK_NULL_HANDLE, restore_ = VK_NULL_HANDLE;
};

} // namespace alluvium::gpu
