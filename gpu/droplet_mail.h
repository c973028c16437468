// The droplets of a grid split over processes (the particles model): each runs in the block
// that owns the cell its next phase needs (shaders/particles.comp), and is handed on, through the
// host, to the block that owns the next such cell (MPI's all-to-all), round after round until none
// is in flight.
// Every droplet does the same arithmetic wherever it runs and adds its height changes with integer
// atomics, so the blocks together give the one-device run's bits.
#pragma once
#include <cstdint>
#include <vector>

#include "block_exchange.h"
#include "resources.h"

namespace alluvium::gpu {

class DropletMail {
public:
    // `blocks` null: one device, where no droplet is handed on (the mailboxes stay empty, bound
    // because every set binds every buffer slot).
    DropletMail(const Context& ctx, BlockExchange* blocks);
    ~DropletMail();
    DropletMail(const DropletMail&) = delete;
    DropletMail& operator=(const DropletMail&) = delete;

    // The most droplets a mailbox holds (the largest storage buffer of this device, or of the
    // smallest of the processes' devices when split).
    uint32_t mostDroplets() const { return most_; }
    // Room for `droplets` in each mailbox (every droplet of a step may be in flight at once).
    // True when the buffers were made anew: the descriptor sets must bind them again.
    bool reserve(uint32_t droplets);
    const Buffer& in() const { return in_; }
    const Buffer& out() const { return out_; }

    // A round's end, recorded into `cmd` after the droplets' dispatch (the first: the step's
    // droplets born into each block's inbox): what this block handed on goes out (the command
    // buffer submitted, waited for and begun again), each droplet to its block, and what comes to
    // this block is copied into its inbox after those born there. Returns how many the inbox holds
    // (the next dispatch's droplets), or -1 when no block has any: the step's droplets have ended.
    int handOver(VkCommandBuffer cmd);
    // The step's droplet totals (`counters`: particles.glsl's DROPLET_COUNTERS int64 at the start
    // of a buffer) summed over the blocks, in every block.
    void sumCounters(VkCommandBuffer cmd, const Buffer& counters);

private:
    char* staged(VkDeviceSize offset) const; // in the host's staging buffer
    // The round's outbox to the host: how many this block handed on (UINT32_MAX: it overflowed)
    // and were born in it.
    uint32_t readOutbox(VkCommandBuffer cmd, uint32_t& born);
    // The `handed` droplets sent each to its block, and those that come to this one copied into
    // its inbox after the `born`. Returns how many came.
    uint32_t takeArrivals(VkCommandBuffer cmd, uint32_t handed, uint32_t born);

    const Context& ctx_;
    BlockExchange* blocks_;
    Buffer in_, out_;            // device: the inbox; the outbox's count, then its droplets
    Buffer staging_;             // host: the outbox's droplets, then the inbox's
    uint32_t capacity_ = 0;      // droplets a mailbox holds
    uint32_t most_ = 0;          // mostDroplets()
    std::vector<char> arrivals_; // the droplets other blocks handed to this one
};

} // namespace alluvium::gpu
