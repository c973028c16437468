// The droplets' hand-overs between the blocks of a split grid (gpu/droplet_mail.h).
#include "droplet_mail.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>

#include "passes.h"
#include "vk_check.h"

namespace alluvium::gpu {

namespace {

// The outbox's head (particles.comp): droplets handed on, overflow, droplets born, padding.
struct Head {
    uint32_t handed, overflow, born, pad;
};
constexpr VkDeviceSize kHead = sizeof(Head);
constexpr VkDeviceSize kCounters = DROPLET_COUNTERS * sizeof(int64_t);
static_assert(sizeof(Droplet) == 48, "particles.comp's std430 Droplet");

double secondsSince(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

} // namespace

DropletMail::DropletMail(const Context& ctx, BlockExchange* blocks) : ctx_(ctx), blocks_(blocks) {
    // Every process refuses alike (none waits for another that gave up): the smallest device's.
    const VkDeviceSize range = ctx_.properties.limits.maxStorageBufferRange;
    most_ = uint32_t(std::min<VkDeviceSize>((range - kHead) / sizeof(Droplet), UINT32_MAX));
    if (blocks_)
        for (double theirs : blocks_->everyProcess(double(most_))) most_ = std::min(most_, uint32_t(theirs));
    reserve(1);
}

DropletMail::~DropletMail() {
    for (Buffer* b : {&in_, &out_, &staging_}) destroyBuffer(*b, ctx_);
}

bool DropletMail::reserve(uint32_t droplets) {
    droplets = std::max(droplets, 1u);
    if (droplets <= capacity_) return false;
    if (droplets > most_) // every process alike
        throw SplitError(
            std::to_string(droplets) + " droplets split over processes need mailboxes of " +
            std::to_string((uint64_t(droplets) * sizeof(Droplet)) >> 20) + " MiB; " +
            (blocks_ && blocks_->ranks() > 1 ? "the processes' devices bind" : ctx_.device_name + " binds") +
            " at most " + std::to_string((uint64_t(most_) * sizeof(Droplet) + kHead) >> 20) +
            " MiB: lower particle_count to " + std::to_string(most_));
    // The new ones first: out of memory leaves the old ones bound and whole.
    Buffer in, out, staging;
    const VkDeviceSize bytes = VkDeviceSize(droplets) * sizeof(Droplet);
    try {
        createBuffer(in, ctx_, bytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, false);
        createBuffer(out, ctx_, kHead + bytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, false);
        createBuffer(staging, ctx_, kHead + 2 * bytes + kCounters, 0, true);
    } catch (...) {
        for (Buffer* b : {&in, &out, &staging}) destroyBuffer(*b, ctx_);
        throw;
    }
    VkCommandBuffer cmd = beginOneShot(ctx_);
    vkCmdFillBuffer(cmd, out.buffer, 0, kHead, 0); // nothing handed on yet
    endOneShot(ctx_, cmd);
    vkDeviceWaitIdle(ctx_.device); // no submission may still use the old ones
    for (Buffer* b : {&in_, &out_, &staging_}) destroyBuffer(*b, ctx_);
    in_ = in;
    out_ = out;
    staging_ = staging;
    capacity_ = droplets;
    return true;
}

char* DropletMail::staged(VkDeviceSize offset) const { return static_cast<char*>(staging_.mapped) + offset; }

uint32_t DropletMail::readOutbox(VkCommandBuffer cmd, uint32_t& born) {
    computeBarrier(cmd);
    const VkBufferCopy head{0, 0, kHead};
    vkCmdCopyBuffer(cmd, out_.buffer, staging_.buffer, 1, &head);
    submitAndRestart(ctx_, cmd);
    Head h{};
    std::memcpy(&h, staged(0), sizeof h);
    born = h.born;
    if (h.handed > 0 && h.overflow == 0 && h.handed <= capacity_) {
        const VkBufferCopy handed{kHead, kHead, VkDeviceSize(h.handed) * sizeof(Droplet)};
        vkCmdCopyBuffer(cmd, out_.buffer, staging_.buffer, 1, &handed);
        submitAndRestart(ctx_, cmd);
    }
    return h.overflow != 0 || h.handed > capacity_ || h.born > capacity_ ? UINT32_MAX : h.handed;
}

int DropletMail::handOver(VkCommandBuffer cmd) {
    ALLUVIUM_ASSERT(blocks_ != nullptr);
    uint32_t born = 0;
    const uint32_t handed = readOutbox(cmd, born); // the round's droplets have run: the rest is exchange
    const auto start = std::chrono::steady_clock::now();
    // Every block's droplets handed on and born (listed in its inbox, not run yet): while any block
    // has some, every block takes part in the next round; an overflow anywhere stops them all.
    const size_t ranks = size_t(blocks_->ranks());
    const uint32_t mine[2] = {handed, born};
    std::vector<uint32_t> every(2 * ranks);
    blocks_->transport().allGather(mine, every.data(), std::vector<size_t>(ranks, sizeof mine));
    size_t in_flight = 0;
    for (size_t r = 0; r < ranks; ++r) {
        if (every[2 * r] == UINT32_MAX)
            throw DeviceError("the droplets handed on by process " + std::to_string(r) + " overflowed its mailbox of " +
                              std::to_string(capacity_));
        in_flight += every[2 * r] + every[2 * r + 1];
    }
    if (in_flight == 0) {
        blocks_->countTime(secondsSince(start));
        return -1;
    }
    const uint32_t arrived = takeArrivals(cmd, handed, born);
    blocks_->countDroplets(double(handed) * sizeof(Droplet), double(arrived) * sizeof(Droplet));
    blocks_->countTime(secondsSince(start));
    return int(born + arrived);
}

uint32_t DropletMail::takeArrivals(VkCommandBuffer cmd, uint32_t handed, uint32_t born) {
    // Each handed droplet to the block owning the cell its next phase needs (each cell has one).
    const BlockGrid& grid = blocks_->grid();
    std::vector<std::vector<char>> to(size_t(blocks_->ranks()));
    for (uint32_t i = 0; i < handed; ++i) {
        const char* d = staged(kHead + VkDeviceSize(i) * sizeof(Droplet));
        Droplet droplet;
        std::memcpy(&droplet, d, sizeof droplet);
        if (droplet.to_x < 0 || droplet.to_y < 0 || droplet.to_x >= grid.width || droplet.to_y >= grid.height)
            throw DeviceError("a droplet was handed to cell (" + std::to_string(droplet.to_x) + ", " +
                              std::to_string(droplet.to_y) + "), off the grid");
        std::vector<char>& bucket = to[size_t(grid.ownerOf(droplet.to_x, droplet.to_y))];
        bucket.insert(bucket.end(), d, d + sizeof(Droplet));
    }
    blocks_->transport().allToAll(to, arrivals_);
    const uint32_t arrived = uint32_t(arrivals_.size() / sizeof(Droplet));
    if (born + uint64_t(arrived) > capacity_) // every droplet fits: a droplet in two places would not
        throw DeviceError("more droplets came to process " + std::to_string(blocks_->rank()) + " than a step has (" +
                          std::to_string(capacity_) + ")");
    // After the ones born in this block, in its inbox.
    if (arrived > 0) {
        const VkDeviceSize inbox = kHead + VkDeviceSize(capacity_) * sizeof(Droplet);
        std::memcpy(staged(inbox), arrivals_.data(), arrivals_.size());
        const VkBufferCopy come{inbox, VkDeviceSize(born) * sizeof(Droplet), arrivals_.size()};
        vkCmdCopyBuffer(cmd, staging_.buffer, in_.buffer, 1, &come);
    }
    vkCmdFillBuffer(cmd, out_.buffer, 0, kHead, 0); // the next round's outbox
    computeBarrier(cmd);
    return arrived;
}

void DropletMail::sumCounters(VkCommandBuffer cmd, const Buffer& counters) {
    ALLUVIUM_ASSERT(blocks_ != nullptr);
    const VkDeviceSize at = kHead + 2 * VkDeviceSize(capacity_) * sizeof(Droplet);
    computeBarrier(cmd);
    const VkBufferCopy copy{0, at, kCounters};
    vkCmdCopyBuffer(cmd, counters.buffer, staging_.buffer, 1, &copy);
    submitAndRestart(ctx_, cmd); // nothing ran since the last round: this is exchange alone
    const auto start = std::chrono::steady_clock::now();
    const size_t ranks = size_t(blocks_->ranks());
    std::vector<int64_t> every(DROPLET_COUNTERS * ranks);
    blocks_->transport().allGather(staged(at), every.data(), std::vector<size_t>(ranks, kCounters));
    int64_t sum[DROPLET_COUNTERS] = {};
    for (size_t r = 0; r < ranks; ++r)
        for (size_t k = 0; k < DROPLET_COUNTERS; ++k) sum[k] += every[r * DROPLET_COUNTERS + k];
    vkCmdUpdateBuffer(cmd, counters.buffer, 0, kCounters, sum);
    computeBarrier(cmd);
    blocks_->countTime(secondsSince(start));
}

} // namespace alluvium::gpu
