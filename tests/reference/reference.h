// Plain C++ double-precision twin of every GPU pass (the oracle the shaders are tested against).
// Each function mirrors one shader in shaders/, in the same order of operations where it matters;
// the comments there give the equations.
#pragma once
#include <array>
#include <cstddef>
#include <vector>

#include "shared.h"

namespace alluvium::ref {

using Vec2 = std::array<double, 2>;
using Vec4 = std::array<double, 4>;
using Sums = std::array<double, REDUCE_SLOTS>; // per-step totals by SLOT_* (m^3; max speed in m/s)

struct Spring {
    double x, y, radius, rate_per_cell; // cells, cells, cells, m^3/s per cell
};

struct State {
    int w = 0, h = 0;
    std::vector<double> terrain, water, sediment, hardness, rain_mask;
    std::vector<double> loose;      // layered ground: the loose layer over the bedrock (m; layers.h)
    std::vector<double> snow;       // snow, as the water it holds (m; snow.h)
    std::vector<Vec2> vegetation;   // density 0..1, recent wetness (m; vegetation.h)
    std::vector<Vec2> lava;         // depth (m), temperature (K) (lava.h)
    std::vector<Vec4> outflow;      // face speeds out of the cell: left, right, top, bottom (m/s)
    std::vector<Vec2> velocity;     // m/s
    std::vector<Vec4> thermal_axis; // m to left, right, top, bottom
    std::vector<Vec4> thermal_diag; // m to top-left, top-right, bottom-left, bottom-right
    std::vector<Vec2> wear;         // ground eroded, deposited since the start (m)
    std::vector<double> flow;       // water volume through the cell since the start (m^3)
    std::vector<Vec4> scratch;      // per-step transfer totals of the musgrave and simple models
    // Groundwater and the sea (groundwater.h).
    std::vector<double> groundwater;  // m of water in the pores
    std::vector<double> aquifer_base; // m, elevation
    std::vector<double> sea_spill;    // m (SEA_UNREACHED: no path to the sea)
    std::vector<double> seepage;      // m/s, this step
    std::vector<double> water_table;  // m, the live table (groundwater) or the equilibrium's
    double time = 0.0;                // simulated seconds (the tide)
    State() = default;
    State(int width, int height);
    size_t index(int x, int y) const {
        return static_cast<size_t>(y) * static_cast<size_t>(w) + static_cast<size_t>(x);
    }
};

// The ground's gradient at (x, y) by central differences (one-sided at the grid's edges, as
// common.glsl's centralGradient).
Vec2 groundGradient(const State& s, double cell_size, int x, int y);

// The passes, in step order. `p` is the same block the GPU reads.
void sources(State& s, const gpu::SimParams& p, const std::vector<Spring>& springs, Sums& sums);
std::vector<Vec4> outflowFlux(const State& s, const gpu::SimParams& p);
std::vector<double> waterUpdate(const State& s, const std::vector<Vec4>& outflow, const gpu::SimParams& p, Sums& sums);
// Also accumulates s.flow (hence non-const).
std::vector<Vec2> velocity(State& s, const std::vector<Vec4>& outflow, const std::vector<double>& water_next,
                           const gpu::SimParams& p, Sums& sums);
// Updates terrain and sediment of `s` (reads velocity and water of `s`).
void erosionDeposition(State& s, const gpu::SimParams& p, Sums& sums);
// Returns the advected sediment (before the global correction).
std::vector<double> sedimentTransport(const State& s, const gpu::SimParams& p, Sums& sums);
// Scale factor that restores the sediment total (minus what drained) after transport.
double sedimentScale(const Sums& sums);
void thermalOutflow(State& s, const gpu::SimParams& p, const std::vector<double>& loose); // after the erosion
void thermalGather(State& s);
void talusGather(State& s, const gpu::SimParams& p); // thermalGather, and the loose layer
void evaporation(State& s, const gpu::SimParams& p, Sums& sums);

// The GPU's fused passes (gpu/pipe.cpp), as compositions of the steps above:
// sources_flux: the outflow after this step's sources (the state itself is not changed).
std::vector<Vec4> sourcesFlux(const State& s, const gpu::SimParams& p, const std::vector<Spring>& springs);
// water_velocity: sources (counted), water update and velocity; s.water becomes the updated
// depth (the GPU's water_mid), s.outflow the given outflow, s.velocity the new velocity.
void waterVelocity(State& s, const std::vector<Vec4>& outflow, const gpu::SimParams& p,
                   const std::vector<Spring>& springs, Sums& sums);
// erosion_transport_thermal_evaporation: s.sediment becomes the transported sediment before the
// global correction (sedimentScale of the sums gives it).
void erosionTransportThermalEvaporation(State& s, const gpu::SimParams& p, Sums& sums);

// Thermal and Olsen models (p.model): fills thermal_axis/diag with what each cell sends;
// thermalGather then applies it.
void talusOutflow(State& s, const gpu::SimParams& p);

// One whole step of the pipe model, as the GPU records it, with groundwater and the sea
// (groundwater.h) when they are on; s.sea_spill is the spill surface in use (the GPU refreshes it
// from the eroded ground a few rounds per step: equal while the ground's changes do not move a
// cell across the sea's surface). Returns the sediment correction applied (m^3).
double step(State& s, const gpu::SimParams& p, const std::vector<Spring>& springs, Sums& sums);

} // namespace alluvium::ref
