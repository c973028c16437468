// The droplets of a grid split over processes (the particles model): each runs in the block
// that owns the cell its next phase needs (shaders/particles.comp), and is handed on, through the
// host, to the block that owns the next such cell, round after round until none is in flight.
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

    // The most droplets a mailbox holds on this device (its largest storage buffer).
    uint32_t mostDroplets() const;
    // Room for `droplets` in each mailbox (every droplet of a step may be in flight at once).
    // True when the buffers were made anew: the descriptor sets must bind them again.
    bool reserve(uint32_t droplets);
    const Buffer& in() const { return in_; }
    const Buffer& out() const { return out_; }

    // A round's end, recorded into `cmd` after the droplets' dispatch (the first: the step's
    // droplets born into each block's inbox): what this block handed on goes out (the command
    // buffer submitted, waited for and begun again), every block's is gathered, and what comes to
    // this block is copied into its inbox after those born there. Returns how many the inbox holds
    // (the next dispatch's droplets), or -1 when no block has any: the step's droplets have ended.
    int handOver(VkCommandBuffer cmd);
    // The step's droplet totals (`counters`: the five int64 of particles.glsl at the start of a
    // buffer) summed over the blocks, in every block.
    void sumCounters(VkCommandBuffer cmd, const Buffer& counters);

private:
    const Context& ctx_;
    BlockExchange* blocks_;
    Buffer in_, out_;            // device: the inbox; the outbox's count, then its droplets
    Buffer staging_;             // host: the outbox's droplets, then the inbox's
    uint32_t capacity_ = 0;      // droplets a mailbox holds
    std::vector<char> gathered_; // every block's handed droplets
};

} // namespace alluvium::gpu
