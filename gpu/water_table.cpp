// The equilibrium water table (seed 003's water-table approach, issue 12): the table that
// minimises E = S + U - G + C (shaders/water_table.comp), relaxed on the GPU from a wet world
// (every depression full to its spill surface, the ocean at sea_level, the table at the ground
// elsewhere), with the fluvial model's outlets as the edges where water leaves:
//   sea_control, sea_spill..., sea_commit   the spill surface W (lakes: W above the ground)
//   water_table_init                        the start, in both halves of the relax pair
//   water_table x 2 per iteration           red-black half-rounds, ping-pong
//   water_table_store                       the result into the WaterTable field
// Batches of iterations are submitted one after another (progress between them).
#include <algorithm>

#include "simulation.h"

namespace alluvium::gpu {

uint32_t Simulation::computeWaterTable(int iterations, const std::function<void(int)>& progress) {
    // The fluvial family's outlets: the spill relaxation reads them from the model. Only the
    // shaders see the fluvial model here (setParams would allocate its buffers).
    const SimParams saved = params_;
    params_.model = MODEL_FLUVIAL;
    params_dirty_ = true;
    VkCommandBuffer cmd = beginOneShot(ctx_);
    recordUpdates(cmd);
    bindSet(cmd);
    recordSeaSpillFull(cmd);
    dispatch(cmd, Pass::WaterTableInit);
    computeBarrier(cmd);
    endOneShot(ctx_, cmd);

    const int batch = std::clamp((1 << 22) / std::max(width_ * height_, 1), 1, 256);
    // The last rounds without over-relaxation (TABLE_POLISH): a tenth of them (at least one), at
    // most 200.
    const int polish_rounds = std::clamp((iterations + 9) / 10, 1, 200);
    int done = 0;
    while (done < iterations) {
        const int n = std::min(batch, iterations - done);
        cmd = beginOneShot(ctx_);
        bindSet(cmd);
        for (int i = 0; i < n; ++i) {
            const int round = done + i;
            const int mode = (round >= iterations - polish_rounds ? TABLE_POLISH : 0) | (round & 1 ? TABLE_ROUND_ODD : 0);
            for (int colour = 0; colour < 2; ++colour) { // the data is back in half 0 after both
                dispatch(cmd, Pass::WaterTable, colour | (colour << 1) | mode);
                computeBarrier(cmd);
            }
        }
        endOneShot(ctx_, cmd);
        done += n;
        if (progress) progress(done);
    }
    cmd = beginOneShot(ctx_);
    bindSet(cmd);
    dispatch(cmd, Pass::WaterTableStore, 0);
    computeBarrier(cmd);
    endOneShot(ctx_, cmd);
    const uint32_t moved = seaControl().changed[(iterations - 1) & 1]; // the last round's, both colours
    params_ = saved;
    params_dirty_ = true;
    sea_dirty_ = true;   // the spill surface in use was the fluvial outlets'
    sea_restart_ = true; // and the relax pair held the table
    return moved;
}

} // namespace alluvium::gpu
