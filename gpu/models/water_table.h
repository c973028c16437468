// The equilibrium water table (seed 003's water-table approach): the table that minimises
// E = S + U - G + C (shaders/water_table.comp), relaxed on the GPU from a wet world (every
// depression full to its spill surface, the ocean at sea_level, the table at the ground
// elsewhere), with the fluvial model's outlets as the edges where water leaves:
//   sea_control, sea_spill..., sea_commit   the spill surface W (lakes: W above the ground)
//   water_table_init                        the start, in both halves of the relax pair
//   water_table x 2 per round               red-black half-rounds, ping-pong
//   water_table_store                       the result into the WaterTable field
// Recorded with the parameters' model set to the fluvial model (its outlets); the simulation
// submits the rounds in batches (Simulation::computeWaterTable).
#pragma once
#include "model.h"

namespace alluvium::gpu {

void recordWaterTableStart(Step& step);
// Round `round` of `rounds`: the last tenth (at most 200) without over-relaxation.
void recordWaterTableRound(Step& step, int round, int rounds);
void recordWaterTableStore(Step& step);
// The cells that moved in the last round (by more than 1e-5 m and more than float rounding).
uint32_t waterTableMoved(const SeaState& sea, int rounds);

} // namespace alluvium::gpu
