// The sea (models/sea.h). A cell is ocean while its spill surface W (the lowest level from which
// it reaches a sea edge, shaders/sea_spill.comp) is under the sea's surface: the tide and a new
// sea_level need no new relaxation, only a changed ground does. The relaxation runs
//   from scratch to its end (its rounds end early on the GPU: indirect dispatches that a control
//   pass empties once a round changed nothing) when the ground is uploaded or the sea's edges
//   change, and
//   a few rounds per step (SEA_ROUNDS_PER_STEP) behind the surface in use, which it replaces
//   whenever it finishes: erosion, deposition and the brush reach the ocean that way.
// Rounds read one half of the relax pair and write the other: the same rounds on every device.
#include "sea.h"

#include <cmath>
#include <cstring>

namespace alluvium::gpu {

namespace {
constexpr int kSeaFirst = 2, kSeaNextTerrain = 4; // sea_spill.comp's mode bits
constexpr int kCommitAlways = kSeaCommitAlways;   // sea_commit.comp's
constexpr int kControlAfterRound = 2;             // sea_control.comp's
} // namespace

bool seaInStep(const SimParams& p) { return p.enable_sea != 0 && p.model == MODEL_PIPE; }

float seaSurface(const SimParams& p, double sim_time) {
    if (p.enable_sea == 0) return 0.0f;
    const double kTwoPi = 6.283185307179586;
    const double period = p.tide_period > 0.0f ? double(p.tide_period) : 1.0;
    return static_cast<float>(double(p.sea_level) + double(p.tide_amplitude) * std::sin(kTwoPi * sim_time / period));
}

void recordSeaRounds(Step& step) {
    SeaState& sea = step.state.sea;
    for (int r = 0; r < SEA_ROUNDS_PER_STEP; ++r) {
        const int mode = sea.host.half | (sea.host.restart ? kSeaFirst : 0) | kSeaNextTerrain;
        sea.host.restart = false;
        step.rec.pass(Pass::SeaSpill, mode);
        sea.host.half ^= 1;
    }
    step.rec.pass(Pass::SeaCommit, sea.host.half); // only if the last round changed nothing
}

void recordSeaSpillFull(Step& step) {
    SeaState& sea = step.state.sea;
    StepRecorder& rec = step.rec;
    // A path to the sea is at most every cell long; 2 (W + H) + 64 rounds reach every cell of all
    // but maze-like ground (a longer path finishes in the following steps' rounds).
    const int rounds = 2 * (step.params.full_width + step.params.full_height) + 64; // the whole grid's
    rec.pass(Pass::SeaControl, 0);
    for (int r = 0; r < rounds; ++r) {
        rec.dispatchIndirect(Pass::SeaSpill, sea.host.half | (r == 0 ? kSeaFirst : 0), sea.control.buffer);
        rec.barrier();
        rec.pass(Pass::SeaControl, kControlAfterRound | sea.host.half);
        sea.host.half ^= 1;
    }
    rec.pass(Pass::SeaCommit, sea.host.half | kCommitAlways); // and the step rounds start over
    sea.host.dirty = false;
    sea.host.restart = false;
}

void setSeaControl(SeaState& sea, const SeaControl& control) {
    std::memcpy(sea.control.mapped, &control, sizeof control);
}

SeaControl seaControl(const SeaState& sea) {
    SeaControl c{};
    std::memcpy(&c, sea.control.mapped, sizeof c);
    return c;
}

} // namespace alluvium::gpu
