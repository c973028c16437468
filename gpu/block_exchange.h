// One process's block of a grid split over processes (gpu/blocks.h): its part of whole fields,
// the swap of its ghost bands with its neighbours, and the gather of the workgroups' sums. The
// simulation calls it where a step hands data to the host (the step recorder's exchanges);
// the models never see it.
#pragma once
#include <chrono>
#include <cstdint>
#include <memory>
#include <vector>

#include "blocks.h"
#include "context.h"
#include "resources.h"

namespace alluvium::gpu {

// What the exchanges cost since the start (the bench's rows).
struct ExchangeCounters {
    long long swaps = 0, gathers = 0; // band swaps, gathers of sums
    long long droplet_rounds = 0;     // the particles' hand-overs (gpu/droplet_mail.h)
    double band_bytes = 0.0;          // sent and received by this process
    double sum_bytes = 0.0;           // the workgroups' sums gathered (received)
    double droplet_bytes = 0.0;       // droplets handed on and received
    double seconds = 0.0;             // on the host: copies out, MPI and copies in, the GPU idle
};

class BlockExchange {
public:
    BlockExchange(const Context& ctx, Transport& transport, const BlockGrid& grid);
    ~BlockExchange();
    BlockExchange(const BlockExchange&) = delete;
    BlockExchange& operator=(const BlockExchange&) = delete;

    const BlockGrid& grid() const { return grid_; }
    int rank() const { return rank_; }
    int ranks() const { return grid_.count(); }
    Rect owned() const { return grid_.owned(rank_); }
    Rect local() const { return grid_.local(rank_); } // what the images hold (whole-grid cells)

    // Rank 0's whole field, each block's part (bands included) sent to its process (every
    // process calls it; only rank 0 reads `whole`); every block's owned cells into the whole field
    // (rank 0 gets the whole, which it alone writes, the others nothing). Row-major, `channels`
    // per cell.
    std::vector<float> scatter(const std::vector<float>& whole, int channels);
    std::vector<float> gather(const std::vector<float>& block, int channels);

    // The images the bands may carry: every image that a step may write and a later step reads;
    // select() picks those the next swap carries (the halves that hold the state).
    void setImages(std::vector<const Image*> images);
    void select(std::vector<bool> on) { on_ = std::move(on); }
    // The band swap of the selected images: copies of the owned edges recorded into `cmd`, which
    // is submitted, waited for and begun again (submitAndRestart), the swap with the neighbours,
    // then the copies of what came back into the bands recorded.
    void swapBands(VkCommandBuffer cmd);

    // The workgroups' sums: `doubles` of a buffer (slot-major, `per_group` a workgroup of the
    // block's grid) copied out, recorded; once submitted, every block's owned workgroups in the
    // whole grid's order (slot-major, per_group each).
    void recordSumsOut(VkCommandBuffer cmd, const Buffer& src, VkDeviceSize offset, uint32_t slots, uint32_t per_group);
    std::vector<double> gatherSums();
    // The fold of the step's partials (recordSumsOut of the first level, one a workgroup): one
    // value a slot, the whole grid's, as reduce_partials.comp folds it (planFold's messages).
    std::vector<double> foldSums(const std::vector<bool>& active);
    uint32_t wholeGroups() const; // the whole grid's workgroups

    // Every process's `value`, rank after rank.
    std::vector<double> everyProcess(double value);
    Transport& transport() { return transport_; }

    const ExchangeCounters& counters() const { return counters_; }
    void countTime(double seconds) { counters_.seconds += seconds; }
    void countDroplets(double sent, double received) {
        ++counters_.droplet_rounds;
        counters_.droplet_bytes += sent + received;
    }

private:
    struct Strips; // per image: where its strips lie in the staging buffers
    void recordBandsOut(VkCommandBuffer cmd);
    void swapOnHost();
    void recordBandsIn(VkCommandBuffer cmd);
    uint32_t localGroups() const;
    // The copied sums of slot `slot` of whole-grid workgroup g (this block's own), per_group of them.
    const double* localSums(uint32_t slot, uint32_t g) const;
    std::vector<uint32_t> ownedGroups(int rank) const; // whole-grid indices, row-major

    const Context& ctx_;
    Transport& transport_;
    BlockGrid grid_;
    int rank_ = 0;
    std::unique_ptr<FoldPlan> fold_plan_; // at the first fold
    std::vector<const Image*> images_;
    std::vector<bool> on_;      // select()'s
    std::vector<size_t> texel_; // bytes per texel of each image
    std::unique_ptr<Strips> strips_;
    Buffer out_, in_, sums_;                     // host-visible staging
    std::vector<char> from_left_, from_right_;   // the first phase's bands, all images
    uint32_t sum_slots_ = 0, sum_per_group_ = 0; // the last recordSumsOut
    ExchangeCounters counters_;
};

} // namespace alluvium::gpu
