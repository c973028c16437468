// Double-precision twins of the groundwater, sea and water-table passes: each mirrors
// one shader (water_exchange, groundwater_head + groundwater_flow, sea_spill, water_table*).
#pragma once
#include <vector>

#include "reference.h"

namespace alluvium::ref {

// The sea's surface at simulated time t: sea_level + tide_amplitude sin(2 pi t / tide_period).
double seaSurface(const gpu::SimParams& p, double t);

// water_exchange: seepage, infiltration and the ocean held at `surface`, on s.terrain/s.water/
// s.groundwater (the step's new ground and water). Adds SLOT_INFILTRATED ... SLOT_SEA_OUT.
void waterExchange(State& s, const gpu::SimParams& p, double surface, Sums& sums);
// One flow sub-step (groundwater_head, then groundwater_flow), and all of a step's.
void groundwaterSubstep(State& s, const gpu::SimParams& p);
void groundwaterFlow(State& s, const gpu::SimParams& p);
// The head of a cell (groundwater.glsl).
double groundwaterHead(const State& s, const gpu::SimParams& p, size_t i);

// The sea's spill surface exactly (priority flood from the sea edges, 4 neighbours), and one
// relaxation round of it (`first`: the input counts as unreached).
std::vector<double> seaSpill(const std::vector<double>& terrain, int w, int h, const gpu::SimParams& p);
std::vector<double> seaSpillRound(const std::vector<double>& spill, const std::vector<double>& terrain, int w, int h,
                                  const gpu::SimParams& p, bool first);

// The equilibrium water table: its start and one red-black half-round (`colour`), from s.terrain,
// s.aquifer_base and s.sea_spill (the spill surface with the fluvial outlets).
std::vector<double> waterTableStart(const State& s, const gpu::SimParams& p);
std::vector<double> waterTableHalfRound(const State& s, const std::vector<double>& table, const gpu::SimParams& p,
                                        int colour);

} // namespace alluvium::ref
