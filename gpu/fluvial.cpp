// The fluvial model's recording (seed 003): the lake fill, routing, drainage accumulation and
// the implicit stream-power erosion and deposition, each a phase of dispatches on the GPU;
// and the host's reads of its buffers (tests, `alluvium fill`).
#include <cstring>

#include "pipeline.h"
#include "simulation.h"

namespace alluvium::gpu {

void Simulation::recordFluvialStep(VkCommandBuffer cmd, GpuTimer* timer) {
    recordFluvialFill(cmd, true, params_.fluvial_fill_sweeps);
    if (timer) writeTimestamp(*timer, cmd);
    dispatch(cmd, Pass::FluvialRoute);
    computeBarrier(cmd);
    if (timer) writeTimestamp(*timer, cmd);
    recordAccumulation(cmd);
    if (timer) writeTimestamp(*timer, cmd);
    recordFluvialErode(cmd);
    if (timer) writeTimestamp(*timer, cmd);
}

int Simulation::jumpRounds() const {
    int rounds = 1;
    while ((int64_t(1) << rounds) < int64_t(width_) * height_) ++rounds;
    return rounds + 1;
}

void Simulation::recordFluvialFill(VkCommandBuffer cmd, bool start, int sweeps) {
    bindSet(cmd);
    if (start) {
        dispatch(cmd, Pass::FluvialControl, CONTROL_START_FILL);
        dispatch(cmd, Pass::FluvialFillInit);
        computeBarrier(cmd);
    }
    if (start) fill_sweeps_recorded_ = 0;
    for (int s = 0; s < sweeps; ++s) {
        // Alternating directions: right-down, left-up, left-down, right-up. Sweeps count from 1.
        static constexpr int kDirections[4] = {0, 3, 1, 2};
        const int sweep = ++fill_sweeps_recorded_;
        const int mode = (sweep << 2) | kDirections[sweep % 4];
        dispatch(cmd, Pass::FluvialTiles, mode);
        computeBarrier(cmd);
        dispatchIndirect(cmd, Pass::FluvialFill, mode);
        computeBarrier(cmd);
        dispatch(cmd, Pass::FluvialControl, CONTROL_AFTER_FILL);
        computeBarrier(cmd);
    }
}

void Simulation::recordJumps(VkCommandBuffer cmd, Pass round) {
    // Enough rounds for the longest possible path; those after the last live cell are empty
    // indirect dispatches (the control pass zeroes them on the GPU).
    dispatch(cmd, Pass::FluvialControl, CONTROL_START_JUMPS);
    computeBarrier(cmd);
    for (int r = 0, n = jumpRounds(); r < n; ++r) {
        dispatchIndirect(cmd, round);
        computeBarrier(cmd);
        dispatch(cmd, Pass::FluvialControl, CONTROL_AFTER_JUMP);
        computeBarrier(cmd);
    }
}

void Simulation::recordAccumulation(VkCommandBuffer cmd) { recordJumps(cmd, Pass::FluvialAccumulate); }

void Simulation::recordFluvialRoute(VkCommandBuffer cmd) {
    bindSet(cmd);
    dispatch(cmd, Pass::FluvialRoute);
    computeBarrier(cmd);
    recordAccumulation(cmd);
}

void Simulation::recordFluvialErode(VkCommandBuffer cmd) {
    bindSet(cmd);
    dispatch(cmd, Pass::FluvialErodeInit); // reads the drainage, writes the jumps' first half
    computeBarrier(cmd);
    recordJumps(cmd, Pass::FluvialErode); // its start keeps the drainage's half in acc_parity
    dispatch(cmd, Pass::FluvialApply);
    computeBarrier(cmd);
    if (params_.fluvial_deposition > 0.0f) {
        dispatch(cmd, Pass::FluvialSedimentInit); // reads the erosion's result: before the reset
        computeBarrier(cmd);
        recordJumps(cmd, Pass::FluvialSediment);
        dispatch(cmd, Pass::FluvialDeposit);
        computeBarrier(cmd);
    }
}

int Simulation::fluvialAnalyse() {
    // Batches of sweeps until the fill stops changing; then routing, accumulation and the
    // drainage area (the erosion's first pass writes it; nothing else of the step runs).
    const int batch = 64;
    bool start = true;
    for (;;) {
        VkCommandBuffer cmd = beginOneShot(ctx_);
        recordUpdates(cmd);
        recordFluvialFill(cmd, start, batch);
        endOneShot(ctx_, cmd);
        start = false;
        if (fluvialControl().converged) break;
    }
    const int sweeps = static_cast<int>(fluvialControl().sweeps);
    VkCommandBuffer cmd = beginOneShot(ctx_);
    recordFluvialRoute(cmd);
    dispatch(cmd, Pass::FluvialErodeInit); // writes the drainage area image
    computeBarrier(cmd);
    dispatch(cmd, Pass::FluvialControl, CONTROL_START_JUMPS); // acc_parity: the drainage's half
    computeBarrier(cmd);
    endOneShot(ctx_, cmd);
    return sweeps;
}

FluvialControl Simulation::fluvialControl() const {
    FluvialControl c{};
    std::memcpy(&c, fluvial_control_.mapped, sizeof c);
    return c;
}

std::vector<uint64_t> Simulation::fluvialKeys() const {
    std::vector<uint64_t> v(size_t(width_) * size_t(height_));
    downloadBuffer(ctx_, fluvial_key_, v.data(), v.size() * sizeof(uint64_t));
    return v;
}

std::vector<uint32_t> Simulation::fluvialReceivers() const {
    std::vector<uint32_t> v(size_t(width_) * size_t(height_));
    downloadBuffer(ctx_, fluvial_rcv_, v.data(), v.size() * sizeof(uint32_t));
    return v;
}

std::vector<uint64_t> Simulation::fluvialAccumulation() const {
    std::vector<uint64_t> v(size_t(width_) * size_t(height_));
    const FluvialControl c = fluvialControl();
    // fluvialAnalyse leaves the drainage's half in acc_parity (a step's deposition reuses the
    // buffer for sediment).
    downloadBuffer(ctx_, fluvial_acc_, v.data(), v.size() * sizeof(uint64_t),
                   VkDeviceSize(c.acc_parity) * v.size() * sizeof(uint64_t));
    return v;
}

} // namespace alluvium::gpu
