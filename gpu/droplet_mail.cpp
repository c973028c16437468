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

bool inside(const Rect& r, int x, int y) { return x >= r.x && y >= r.y && x < r.x + r.w && y < r.y + r.h; }

} // namespace

DropletMail::DropletMail(const Context& ctx, BlockExchange* blocks) : ctx_(ctx), blocks_(blocks) { reserve(1); }

DropletMail::~DropletMail() {
    for (Buffer* b : {&in_, &out_, &staging_}) destroyBuffer(*b, ctx_);
}

uint32_t DropletMail::mostDroplets() const {
    const VkDeviceSize range = ctx_.properties.limits.maxStorageBufferRange;
    return uint32_t(std::min<VkDeviceSize>((range - kHead) / sizeof(Droplet), UINT32_MAX));
}

bool DropletMail::reserve(uint32_t droplets) {
    droplets = std::max(droplets, 1u);
    if (droplets <= capacity_) return false;
    if (droplets > mostDroplets()) // every process alike (their devices chose alike)
        throw SplitError(std::to_string(droplets) + " droplets split over processes need mailboxes of " +
                         std::to_string((uint64_t(droplets) * sizeof(Droplet)) >> 20) + " MiB; " + ctx_.device_name +
                         " binds at most " + std::to_string(ctx_.properties.limits.maxStorageBufferRange >> 20) +
                         " MiB: lower particle_count to " + std::to_string(mostDroplets()));
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
    std::vector<size_t> bytes(ranks);
    size_t in_flight = 0;
    for (size_t r = 0; r < ranks; ++r) {
        if (every[2 * r] == UINT32_MAX)
            throw DeviceError("the droplets handed on by process " + std::to_string(r) + " overflowed its mailbox of " +
                              std::to_string(capacity_));
        bytes[r] = size_t(every[2 * r]) * sizeof(Droplet);
        in_flight += every[2 * r] + every[2 * r + 1];
    }
    if (in_flight == 0) {
        blocks_->countTime(secondsSince(start));
        return -1;
    }
    const uint32_t arrived = takeArrivals(cmd, bytes, born);
    blocks_->countDroplets(double(bytes[size_t(blocks_->rank())]), double(gathered_.size()));
    blocks_->countTime(secondsSince(start));
    return int(born + arrived);
}

uint32_t DropletMail::takeArrivals(VkCommandBuffer cmd, const std::vector<size_t>& bytes, uint32_t born) {
    size_t total = 0;
    for (size_t b : bytes) total += b;
    gathered_.resize(total);
    if (total > 0) blocks_->transport().allGather(staged(kHead), gathered_.data(), bytes);
    // This block's: those whose next phase needs a cell it owns (each cell has one owner), after
    // the ones born in it.
    const Rect own = blocks_->owned();
    const VkDeviceSize inbox = kHead + VkDeviceSize(capacity_) * sizeof(Droplet);
    uint32_t arrived = 0;
    for (size_t at = 0; at < total; at += sizeof(Droplet)) {
        Droplet d;
        std::memcpy(&d, gathered_.data() + at, sizeof d);
        if (!inside(own, d.to_x, d.to_y)) continue;
        if (born + arrived >= capacity_) // every droplet fits: a droplet in two places would not
            throw DeviceError("more droplets came to process " + std::to_string(blocks_->rank()) +
                              " than a step has (" + std::to_string(capacity_) + ")");
        std::memcpy(staged(inbox + VkDeviceSize(arrived) * sizeof(Droplet)), &d, sizeof d);
        ++arrived;
    }
    if (arrived > 0) {
        const VkBufferCopy come{inbox, VkDeviceSize(born) * sizeof(Droplet), VkDeviceSize(arrived) * sizeof(Droplet)};
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
