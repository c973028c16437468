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

constexpr VkDeviceSize kHead = 4 * sizeof(uint32_t); // the outbox's count, overflow, born count, padding
constexpr VkDeviceSize kCounters = 5 * sizeof(int64_t);
static_assert(sizeof(Droplet) == 48, "particles.comp's std430 Droplet");

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
    vkDeviceWaitIdle(ctx_.device); // no submission may still use the old ones
    for (Buffer* b : {&in_, &out_, &staging_}) destroyBuffer(*b, ctx_);
    const VkDeviceSize bytes = VkDeviceSize(droplets) * sizeof(Droplet);
    createBuffer(in_, ctx_, bytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, false);
    createBuffer(out_, ctx_, kHead + bytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, false);
    createBuffer(staging_, ctx_, kHead + 2 * bytes + kCounters, 0, true);
    capacity_ = droplets;
    VkCommandBuffer cmd = beginOneShot(ctx_);
    vkCmdFillBuffer(cmd, out_.buffer, 0, kHead, 0); // nothing handed on yet
    endOneShot(ctx_, cmd);
    return true;
}

int DropletMail::handOver(VkCommandBuffer cmd) {
    ALLUVIUM_ASSERT(blocks_ != nullptr);
    char* host = static_cast<char*>(staging_.mapped);
    computeBarrier(cmd);
    const VkBufferCopy head{0, 0, kHead};
    vkCmdCopyBuffer(cmd, out_.buffer, staging_.buffer, 1, &head);
    submitAndRestart(ctx_, cmd);
    const auto start = std::chrono::steady_clock::now(); // the round's droplets have run: the rest is exchange
    uint32_t count = 0, overflow = 0, born = 0;
    std::memcpy(&count, host, sizeof count);
    std::memcpy(&overflow, host + sizeof count, sizeof overflow);
    std::memcpy(&born, host + 2 * sizeof count, sizeof born);
    if (overflow != 0 || count > capacity_ || born > capacity_)
        throw DeviceError("the droplets overflowed their mailbox (" + std::to_string(count + born) + " for " +
                          std::to_string(capacity_) + ")");
    if (count > 0) {
        const VkBufferCopy handed{kHead, kHead, VkDeviceSize(count) * sizeof(Droplet)};
        vkCmdCopyBuffer(cmd, out_.buffer, staging_.buffer, 1, &handed);
        submitAndRestart(ctx_, cmd);
    }
    // Every block's droplets handed on and born (listed in its inbox, not run yet): while any block
    // has some, every block takes part in the next round.
    const uint32_t mine[2] = {count, born};
    std::vector<uint32_t> every(2 * size_t(blocks_->ranks()));
    blocks_->transport().allGather(mine, every.data(), std::vector<size_t>(size_t(blocks_->ranks()), sizeof mine));
    std::vector<size_t> bytes;
    size_t total = 0, in_flight = 0;
    for (size_t r = 0; r < every.size(); r += 2) {
        bytes.push_back(size_t(every[r]) * sizeof(Droplet));
        total += bytes.back();
        in_flight += every[r] + every[r + 1];
    }
    if (in_flight == 0) {
        blocks_->countTime(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        return -1;
    }
    gathered_.resize(total);
    if (total > 0) blocks_->transport().allGather(host + kHead, gathered_.data(), bytes);
    // This block's: the droplets born in it (first in its inbox), then those handed to it, whose
    // next phase needs a cell it owns (each cell has one owner).
    const Rect own = blocks_->owned();
    char* inbox = host + kHead + VkDeviceSize(capacity_) * sizeof(Droplet);
    uint32_t arrived = 0;
    for (size_t at = 0; at < total; at += sizeof(Droplet)) {
        Droplet d;
        std::memcpy(&d, gathered_.data() + at, sizeof d);
        if (d.to_x < own.x || d.to_y < own.y || d.to_x >= own.x + own.w || d.to_y >= own.y + own.h) continue;
        std::memcpy(inbox + size_t(arrived) * sizeof(Droplet), &d, sizeof d);
        ++arrived;
    }
    if (born + arrived > capacity_)
        throw DeviceError("the droplets overflowed their mailbox (" + std::to_string(born + arrived) + " for " +
                          std::to_string(capacity_) + ")");
    if (arrived > 0) {
        const VkBufferCopy come{kHead + VkDeviceSize(capacity_) * sizeof(Droplet), VkDeviceSize(born) * sizeof(Droplet),
                                VkDeviceSize(arrived) * sizeof(Droplet)};
        vkCmdCopyBuffer(cmd, staging_.buffer, in_.buffer, 1, &come);
    }
    vkCmdFillBuffer(cmd, out_.buffer, 0, kHead, 0);
    computeBarrier(cmd);
    blocks_->countDroplets(double(count) * sizeof(Droplet), double(total) * sizeof(Droplet));
    blocks_->countTime(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    return int(born + arrived);
}

void DropletMail::sumCounters(VkCommandBuffer cmd, const Buffer& counters) {
    ALLUVIUM_ASSERT(blocks_ != nullptr);
    char* host = static_cast<char*>(staging_.mapped) + kHead + 2 * VkDeviceSize(capacity_) * sizeof(Droplet);
    computeBarrier(cmd);
    const VkBufferCopy copy{0, VkDeviceSize(host - static_cast<char*>(staging_.mapped)), kCounters};
    vkCmdCopyBuffer(cmd, counters.buffer, staging_.buffer, 1, &copy);
    const auto start = std::chrono::steady_clock::now();
    submitAndRestart(ctx_, cmd);
    const size_t ranks = size_t(blocks_->ranks());
    std::vector<int64_t> all(5 * ranks);
    blocks_->transport().allGather(host, all.data(), std::vector<size_t>(ranks, kCounters));
    int64_t sum[5] = {};
    for (size_t r = 0; r < ranks; ++r)
        for (size_t k = 0; k < 5; ++k) sum[k] += all[r * 5 + k];
    vkCmdUpdateBuffer(cmd, counters.buffer, 0, kCounters, sum);
    computeBarrier(cmd);
    blocks_->countTime(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
}

} // namespace alluvium::gpu
