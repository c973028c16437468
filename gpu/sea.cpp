// The sea (issue 12): the spill surface that decides which cells are ocean, and the sea's surface
// with the tide. A cell is ocean while its spill surface W (the lowest level from which it reaches
// a sea edge, shaders/sea_spill.comp) is under the sea's surface: the tide and a new sea_level
// need no new relaxation, only a changed ground does. The relaxation runs
//   from scratch to its end (its rounds end early on the GPU: indirect dispatches that a control
//   pass empties once a round changed nothing) when the ground is uploaded or the sea's edges
//   change, and
//   a few rounds per step (SEA_ROUNDS_PER_STEP) behind the surface in use, which it replaces
//   whenever it finishes: erosion, deposition and the brush reach the ocean that way.
// Rounds read one half of the relax pair and write the other: the same rounds on every device.
#include <cmath>
#include <cstring>

#include "pipeline.h"
#include "simulation.h"

namespace alluvium::gpu {

namespace {
constexpr int kSeaFirst = 2, kSeaNextTerrain = 4; // sea_spill.comp's mode bits
constexpr int kCommitAlways = 2;                  // sea_commit.comp's
constexpr int kControlAfterRound = 2;             // sea_control.comp's
} // namespace

float Simulation::seaSurface() const {
    if (params_.enable_sea == 0) return 0.0f;
    const double kTwoPi = 6.283185307179586;
    const double period = params_.tide_period > 0.0f ? double(params_.tide_period) : 1.0;
    return static_cast<float>(double(params_.sea_level) +
                              double(params_.tide_amplitude) *
                                  std::sin(kTwoPi * sim_time_ / period));
}

void Simulation::recordSeaRounds(VkCommandBuffer cmd) {
    for (int r = 0; r < SEA_ROUNDS_PER_STEP; ++r) {
        const int mode = sea_half_ | (sea_restart_ ? kSeaFirst : 0) | kSeaNextTerrain;
        sea_restart_ = false;
        dispatch(cmd, Pass::SeaSpill, mode);
        computeBarrier(cmd);
        sea_half_ ^= 1;
    }
    dispatch(cmd, Pass::SeaCommit, sea_half_); // only if the last round changed nothing
    computeBarrier(cmd);
}

void Simulation::recordSeaSpillFull(VkCommandBuffer cmd) {
    // A path to the sea is at most every cell long; 2 (W + H) + 64 rounds reach every cell of all
    // but maze-like ground (a longer path finishes in the following steps' rounds).
    const int rounds = 2 * (width_ + height_) + 64;
    dispatch(cmd, Pass::SeaControl, 0);
    computeBarrier(cmd);
    for (int r = 0; r < rounds; ++r) {
        dispatchIndirect(cmd, Pass::SeaSpill, sea_half_ | (r == 0 ? kSeaFirst : 0), sea_control_);
        computeBarrier(cmd);
        dispatch(cmd, Pass::SeaControl, kControlAfterRound | sea_half_);
        computeBarrier(cmd);
        sea_half_ ^= 1;
    }
    dispatch(cmd, Pass::SeaCommit, sea_half_ | kCommitAlways); // and the step rounds start over
    computeBarrier(cmd);
    sea_dirty_ = false;
    sea_restart_ = false;
}

int Simulation::updateSeaSpill() {
    VkCommandBuffer cmd = beginOneShot(ctx_);
    sea_dirty_ = false; // recorded here, once
    recordUpdates(cmd);
    bindSet(cmd);
    recordSeaSpillFull(cmd);
    endOneShot(ctx_, cmd);
    return static_cast<int>(seaControl().rounds);
}

void Simulation::setSeaControl(const SeaControl& control) {
    std::memcpy(sea_control_.mapped, &control, sizeof control);
}

SeaControl Simulation::seaControl() const {
    SeaControl c{};
    std::memcpy(&c, sea_control_.mapped, sizeof c);
    return c;
}

} // namespace alluvium::gpu
