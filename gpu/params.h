// The one parameter table: name, group (the pass it belongs to), default, range, unit and
// meaning. The CLI (--set), presets and the viewer panel read this table; nothing repeats it.
#pragma once
#include <array>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

#include "shared.h"

namespace alluvium {

// X(name, group, default, min, max, unit, to_si, kind, meaning)
// kind: 'f' float, 'b' on/off, 'e' a choice: the unit column lists the names ("closed|open"),
// the value is the index of the name. to_si converts the table's unit to the SI value the
// shaders read (mm/s -> m/s, degrees -> radians).
#define ALLUVIUM_PARAMS(X)                                                                         \
    X(cell_size, "grid", 4.0, 0.1, 1000.0, "m", 1.0, 'f', "width of one grid cell")               \
    X(time_step, "grid", 0.1, 0.001, 0.5, "s", 1.0, 'f', "simulated seconds per step")            \
    X(edge_mode, "grid", 1, 0, 1, "closed|open", 1.0, 'e',                                                    \
      "closed: edges are walls; open: water and sediment leave over the edges and are counted")    \
    X(rain_rate, "sources", 0.5, 0.0, 50.0, "mm/s", 1e-3, 'f',                                    \
      "rain falling on every cell, times the rain mask")                                          \
    X(gravity, "flow", 9.81, 0.1, 100.0, "m/s^2", 1.0, 'f', "gravitational acceleration")          \
    X(flux_damping, "flow", 0.0, 0.0, 10.0, "1/s", 1.0, 'f',                                       \
      "linear drag on the flow through each cell face")                                           \
    X(manning_n, "flow", 0.03, 0.0, 0.2, "s/m^(1/3)", 1.0, 'f',                                    \
      "bed roughness (Manning): slows thin and fast water")                                        \
    X(dry_depth, "flow", 1e-4, 1e-7, 0.1, "m", 1.0, 'f',                                           \
      "water shallower than this does not flow out and has no velocity")                          \
    X(enable_flow, "flow", 1, 0, 1, "", 1.0, 'b', "run the outflow-flux and water-update passes") \
    X(sediment_capacity, "erosion", 0.2, 0.0, 10.0, "s", 1.0, 'f',                                 \
      "Kc: sediment a unit of speed can carry, C = Kc max(sin tilt, min_tilt) |v|")               \
    X(capacity_depth, "erosion", 0.05, 0.0, 10.0, "m", 1.0, 'f',                                   \
      "water shallower than this carries proportionally less (0 = no depth limit)")              \
    X(min_tilt, "erosion", 0.05, 0.0, 1.0, "", 1.0, 'f',                                           \
      "lower bound of sin(tilt) so flat ground still erodes a little")                            \
    X(dissolve_rate, "erosion", 0.3, 0.0, 10.0, "1/s", 1.0, 'f',                                   \
      "Ks: how fast ground dissolves when the water carries less than its capacity")             \
    X(deposit_rate, "erosion", 0.3, 0.0, 10.0, "1/s", 1.0, 'f',                                    \
      "Kd: how fast sediment settles when the water carries more than its capacity")             \
    X(enable_erosion, "erosion", 1, 0, 1, "", 1.0, 'b', "run the erosion/deposition pass")        \
    X(enable_transport, "transport", 1, 0, 1, "", 1.0, 'b',                                        \
      "carry suspended sediment with the water (semi-Lagrangian)")                               \
    X(thermal_rate, "thermal", 0.5, 0.0, 10.0, "1/s", 1.0, 'f',                                    \
      "how fast material above the talus angle slides down")                                      \
    X(talus_angle, "thermal", 33.0, 1.0, 89.0, "deg", 0.017453292519943295, 'f',                   \
      "steepest stable slope of soft ground (hardness 0)")                                        \
    X(talus_hardness_gain, "thermal", 40.0, 0.0, 88.0, "deg", 0.017453292519943295, 'f',           \
      "talus angle added at hardness 1 (rock stands steeper); capped at 89 deg")                 \
    X(enable_thermal, "thermal", 1, 0, 1, "", 1.0, 'b', "run thermal erosion (two passes)")       \
    X(evaporation_rate, "evaporation", 0.005, 0.0, 1.0, "1/s", 1.0, 'f',                           \
      "fraction of the water depth that evaporates per second")                                  \
    X(enable_evaporation, "evaporation", 1, 0, 1, "", 1.0, 'b', "run the evaporation pass")        \
    X(record_maps, "maps", 0, 0, 1, "", 1.0, 'b',                                                   \
      "accumulate the erosion, deposition and flow maps each step (24 more bytes per cell and step; " \
      "run --out-maps, --save-session and the viewer turn it on)")                                \
    X(talus_slope, "thermal model", 0.6, 0.01, 10.0, "m/m", 1.0, 'f',                              \
      "thermal model: steepest stable slope (rise over run); steeper ground slides")              \
    X(olsen_talus_slope, "olsen model", 0.5, 0.01, 10.0, "m/m", 1.0, 'f',                          \
      "olsen model: ground at or below this slope is flattened, steeper cliffs stay")                                                                        \
    X(talus_fraction, "thermal model", 0.5, 0.01, 1.0, "", 1.0, 'f',                               \
      "thermal/olsen models: fraction of the excess moved per step (Olsen's c)")                  \
    X(talus_neighbourhood, "thermal model", 2, 0, 2, "von_neumann|rotated|moore", 1.0, 'e',       \
      "thermal/olsen models: the 4 axis neighbours, the 4 diagonal ones (seed 001: leaves diagonal " \
      "streaks), or all 8")   \
    X(musgrave_rain_amount, "musgrave model", 0.01, 0.0, 1.0, "m", 1.0, 'f',                       \
      "musgrave model: water added to every cell at each rain event")                             \
    X(musgrave_rain_interval, "musgrave model", 5, 1, 1000, "steps", 1.0, 'f',                     \
      "musgrave model: steps between rain events (rain frequency)")                               \
    X(musgrave_capacity, "musgrave model", 0.05, 0.0, 10.0, "m/m", 1.0, 'f',                       \
      "musgrave model: Kc, sediment carried per metre of water moved")                            \
    X(musgrave_softness, "musgrave model", 0.3, 0.0, 1.0, "", 1.0, 'f',                            \
      "musgrave model: Ks, fraction of the missing capacity dissolved from the ground")          \
    X(musgrave_deposition, "musgrave model", 0.1, 0.0, 1.0, "", 1.0, 'f',                          \
      "musgrave model: Kd, fraction of the excess sediment deposited per step")                  \
    X(musgrave_evaporation, "musgrave model", 0.02, 0.0, 1.0, "1/step", 1.0, 'f',                  \
      "musgrave model: fraction of the water that evaporates per step")                          \
    X(simple_rain_amount, "simple model", 0.01, 0.0, 1.0, "m", 1.0, 'f',                           \
      "simple model: water added to every cell per step (seed 001: Kr)")                         \
    X(simple_solubility, "simple model", 0.01, 0.0, 1.0, "m/m", 1.0, 'f',                          \
      "simple model: ground dissolved per metre of water per step (Ks)")                         \
    X(simple_evaporation, "simple model", 0.5, 0.0, 1.0, "1/step", 1.0, 'f',                       \
      "simple model: fraction of the water that evaporates per step (Ke)")                       \
    X(simple_capacity, "simple model", 0.01, 0.0, 10.0, "m/m", 1.0, 'f',                           \
      "simple model: sediment a metre of water holds; the excess settles (Kc)")                  \
    X(particle_count, "particles model", 2000, 0, 4000000, "droplets", 1.0, 'f',                   \
      "particles model: droplets per step, each from a random point; a step's droplets do not see " \
      "each other's changes, so keep it well below the cell count")                               \
    X(particle_variant, "particles model", 0, 0, 1, "mass_transfer|capacity", 1.0, 'e',            \
      "particles model: seed 002 (toward c_eq = Kc volume speed drop) or seed 000 (capacity Kc speed volume, Ks/Kd)") \
    X(particle_lifetime, "particles model", 64, 1, 4096, "iterations", 1.0, 'f',                   \
      "particles model: iterations a droplet lives at most")                                       \
    X(particle_time_step, "particles model", 1.2, 0.01, 2.0, "", 1.0, 'f',                         \
      "particles model: droplet time step dt (seed 002; scales acceleration, motion and rates)")  \
    X(particle_density, "particles model", 1.0, 0.01, 100.0, "", 1.0, 'f',                         \
      "particles model: inertia, speed += dt normal / (volume density) (cells per unit time)")    \
    X(particle_friction, "particles model", 0.05, 0.0, 0.5, "", 1.0, 'f',                          \
      "particles model: speed *= 1 - dt friction per iteration")                                   \
    X(particle_evaporation, "particles model", 0.001, 0.0, 0.5, "", 1.0, 'f',                      \
      "particles model: volume *= 1 - dt evaporation (capacity: -= dt evaporation initial volume)") \
    X(particle_deposition, "particles model", 0.1, 0.0, 1.0, "", 1.0, 'f',                         \
      "particles model: mass-transfer rate (seed 002) / Kd, fraction of the excess deposited (seed 000)") \
    X(particle_softness, "particles model", 0.3, 0.0, 1.0, "", 1.0, 'f',                           \
      "particles model, capacity variant: Ks, fraction of the missing capacity dissolved")        \
    X(particle_capacity, "particles model", 0.1, 0.0, 10.0, "", 1.0, 'f',                          \
      "particles model: Kc, scales the equilibrium concentration (m of soil per m of drop) or capacity") \
    X(particle_volume, "particles model", 1.0, 0.01, 10.0, "", 1.0, 'f',                           \
      "particles model: initial droplet volume")                                                   \
    X(particle_min_volume, "particles model", 0.01, 0.0001, 1.0, "", 1.0, 'f',                     \
      "particles model: a droplet whose volume falls below this dies and drops its sediment")     \
    X(uplift_rate, "fluvial model", 0.2, 0.0, 100.0, "mm/yr", 1e-3 / 3.15576e7, 'f',                \
      "fluvial model: U, rock uplift (times the uplift map); the outlet edges stay at base level")  \
    X(stream_power_k, "fluvial model", 2e-5, 0.0, 0.1, "m^(1-2m)/yr", 1.0 / 3.15576e7, 'f',         \
      "fluvial model: K of dz/dt = U - K A^m S^n, times (1 - 0.9 hardness)")                      \
    X(stream_power_m, "fluvial model", 0.4, 0.0, 2.0, "", 1.0, 'f',                                \
      "fluvial model: drainage-area exponent m of the stream-power law")                          \
    X(stream_power_n, "fluvial model", 1.0, 0.5, 4.0, "", 1.0, 'f',                                \
      "fluvial model: slope exponent n (1: exact implicit update; else linearised on the slope)") \
    X(hillslope_diffusion, "fluvial model", 2e-4, 0.0, 100.0, "m^2/yr", 1.0 / 3.15576e7, 'f',        \
      "fluvial model: D of hillslope creep dz/dt = D laplacian(z), capped at its explicit limit") \
    X(fluvial_time_step, "fluvial model", 1000.0, 1.0, 1e6, "yr", 3.15576e7, 'f',                  \
      "fluvial model: geological years per iteration (the implicit update is stable for any)")   \
    X(fluvial_deposition, "fluvial model", 0.5, 0.0, 10.0, "", 1.0, 'f',                           \
      "fluvial model: G, deposition: a cell keeps G cell_area / A of the sediment passing it "    \
      "(lakes all of it); 0 = off")                                                              \
    X(lake_evaporation, "fluvial model", 0.0, 0.0, 100.0, "m/yr", 1.0 / 3.15576e7, 'f',             \
      "fluvial model: E, evaporation from lakes: a closed lake fills only until its area times E "  \
      "equals its inflow (0: every lake fills to its spill height)")                               \
    X(fluvial_rainfall, "fluvial model", 1.0, 0.0, 100.0, "m/yr", 1.0 / 3.15576e7, 'f',            \
      "fluvial model: rain (times the rain mask) that lakes balance against lake_evaporation")     \
    X(fluvial_outlets, "fluvial model", 0, 0, 6, "all|left|right|top|bottom|left_right|top_bottom", \
      1.0, 'e', "fluvial model: the edges that are outlets (base level); the others are closed")  \
    X(fluvial_flat_rounds, "fluvial model", 64, 4, 256, "rounds", 1.0, 'f',                        \
      "fluvial model: safety bound on the rounds across lakes and flats per iteration (each carries " \
      "a 16-cell tile; they stop once done; the report says if one fell short)")    \
    X(enable_groundwater, "groundwater", 0, 0, 1, "", 1.0, 'b',                                     \
      "run the groundwater passes (pipe, musgrave and simple models): infiltration, Dupuit flow, seepage")  \
    X(infiltration_rate, "groundwater", 0.2, 0.0, 50.0, "mm/s", 1e-3, 'f',                          \
      "surface water soaking into the ground, limited by the free pore space")                     \
    X(porosity, "groundwater", 0.3, 0.01, 0.6, "", 1.0, 'f',                                          \
      "fraction of the ground's volume that holds water (its pores)")                              \
    X(hydraulic_conductivity, "groundwater", 1e-3, 1e-7, 1.0, "m/s", 1.0, 'f',                      \
      "K: groundwater flux K h grad H (Dupuit-Forchheimer, h the saturated thickness)")            \
    X(aquifer_thickness, "groundwater", 20.0, 0.0, 1000.0, "m", 1.0, 'f',                            \
      "depth of the aquifer's impermeable base below the initial ground (when the terrain is loaded " \
      "or reset)")                                                                                  \
    X(initial_table_depth, "groundwater", 2.0, 0.0, 1000.0, "m", 1.0, 'f',                           \
      "depth of the water table below the initial ground (when the terrain is loaded or reset)")   \
    X(enable_sea, "sea", 0, 0, 1, "", 1.0, 'b',                                                      \
      "a sea (pipe model): cells below its surface connected to an open edge (edge_mode open) are " \
      "ocean, held at the sea's surface")                                                           \
    X(sea_level, "sea", 0.0, -10000.0, 10000.0, "m", 1.0, 'f',                                        \
      "mean sea level; setting or raising it fills every ocean cell at once")                     \
    X(tide_amplitude, "sea", 0.0, 0.0, 100.0, "m", 1.0, 'f',                                          \
      "the tide: the sea surface is sea_level + amplitude sin(2 pi t / period) (pipe model)")     \
    X(tide_period, "sea", 120.0, 1.0, 1e6, "s", 1.0, 'f', "period of the tide (simulated seconds)") \
    X(sea_damping, "sea", 0.5, 0.0, 100.0, "1/s", 1.0, 'f',                                          \
      "the open sea absorbs currents: the flow's speed decays at this rate in ocean cells (rivers' "  \
      "jets slow down and drop their load; 0: none)")                                               \
    X(table_tension_air, "water table", 1e6, 0.0, 1e8, "m^2", 1.0, 'f',                             \
      "equilibrium water table (seed 003): surface tension where the table is above the ground "   \
      "(lakes, rivers): flat water surfaces")                                                       \
    X(table_tension_ground, "water table", 20.0, 0.0, 1e6, "m^2", 1.0, 'f',                         \
      "surface tension of the table inside the ground (the sponge): how far water bodies hold it " \
      "up")                                                                                         \
    X(table_internal, "water table", 0.0, 0.0, 100.0, "m", 1.0, 'f',                                 \
      "internal potential: the penalty for water held in the pores beside free water (it opposes " \
      "capillarity)")                                                                               \
    X(table_gravity, "water table", 100.0, 0.0, 1e4, "", 1.0, 'f',                                    \
      "gravity's weight: holds lakes at their spill height and water on land at the ground")       \
    X(table_capillarity, "water table", 5.0, 0.0, 100.0, "m", 1.0, 'f',                              \
      "capillarity: the pull that lets water climb into the ground beside lakes and the sea")      \
    X(table_iterations, "water table", 4000, 1, 1000000, "rounds", 1.0, 'f',                         \
      "relaxation rounds of the equilibrium water table (alluvium watertable, the viewer's button)")

enum class Param : int {
#define ALLUVIUM_ENUM(name, ...) name,
    ALLUVIUM_PARAMS(ALLUVIUM_ENUM)
#undef ALLUVIUM_ENUM
        count
};
inline constexpr int kParamCount = static_cast<int>(Param::count);

struct ParamInfo {
    const char* name;
    const char* group;
    double default_value;
    double min;
    double max;
    const char* unit;
    double to_si;
    char kind; // 'f' float, 'b' on/off, 'e' choice (names in `unit`)
    const char* meaning;
};

const std::array<ParamInfo, kParamCount>& paramTable();
const ParamInfo& paramInfo(Param p);
// nullptr if the name is unknown.
const ParamInfo* findParam(std::string_view name, Param* index = nullptr);

// Bad user input (unknown name, unparsable or out-of-range value): one line, exit code 2.
struct ParamError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Values in the table's units, defaults from the table.
struct Params {
    std::array<double, kParamCount> values;
    Params();
    double operator[](Param p) const { return values[static_cast<int>(p)]; }
    double& operator[](Param p) { return values[static_cast<int>(p)]; }
    // Parses "name=value" or (name, value); validates name, syntax and range. Throws ParamError.
    void set(std::string_view assignment);
    void set(std::string_view name, std::string_view value);
    // Value as the user would type it ("open", "on", "0.05").
    std::string format(Param p) const;
};

// fluvial_outlets' choice index -> OUTLET_* bits.
int fluvialOutletBits(int choice);

// Groundwater flow sub-steps per step from the parameters (even: 2 .. GROUNDWATER_MAX_SUBSTEPS).
int groundwaterSubsteps(const Params& params);

// Converts to the SI block the shaders read. Grid size and workgroup counts are filled in.
gpu::SimParams toSimParams(const Params& params, int width, int height);

} // namespace alluvium
