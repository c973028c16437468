// The passes: their names (also their shader files), the images each reads and writes (for the
// bench's bytes per cell), and the passes of each model's step.
#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "simulation.h"

namespace alluvium::gpu {

namespace {

constexpr unsigned kRead = 1, kWrite = 2;

// When an access happens, from the parameters of the step.
enum class When {
    Always,
    RainMask,    // the rain mask is not uniform
    Springs,     // there are springs
    Maps,        // the wear and flow maps are recorded
    ErosionMaps, // ... and the erosion pass is on
    Thermal,     // thermal erosion is on
    Groundwater, // groundwater runs in the step
    Sea,         // the pipe model's sea is on
    GroundwaterOrSea,
    Deposition,  // the fluvial model deposits sediment
};

constexpr double kRingPerCell = double(RING_CELLS) / double(FLUVIAL_TILE * FLUVIAL_TILE); // tile-crossing nodes per cell
constexpr double kBasinsPerCell = 0.25;                                    // pits are never neighbours

struct Access {
    Field field;
    unsigned mode; // kRead | kWrite
    When when = When::Always;
};

struct PassInfo {
    const char* name;
    std::vector<Access> accesses;
    double buffer_bytes = 0.0; // per cell, in storage buffers (not fields)
};

const std::vector<PassInfo>& passTable() {
    using F = Field;
    const unsigned R = kRead, W = kWrite, RW = kRead | kWrite;
    static const std::vector<PassInfo> table = {
        {"sources_flux",
         {{F::Terrain, R}, {F::Water, R}, {F::Outflow, RW}, {F::RainMask, R, When::RainMask},
          {F::SpringRate, R, When::Springs}}},
        {"water_velocity",
         {{F::Water, R}, {F::Outflow, R}, {F::WaterMid, W}, {F::Velocity, W}, {F::Flow, RW, When::Maps},
          {F::RainMask, R, When::RainMask}, {F::SpringRate, R, When::Springs}}},
        {"erosion_transport_thermal_evaporation",
         {{F::Terrain, RW}, {F::Sediment, RW}, {F::Hardness, R}, {F::Velocity, R}, {F::WaterMid, R}, {F::Water, W},
          {F::Wear, RW, When::ErosionMaps}}},
        {"reduce_partials", {}},
        {"reduce_totals", {}},
        {"sediment_correct", {{F::Sediment, RW}}},
        {"erosion",
         {{F::Terrain, R}, {F::Sediment, R}, {F::Hardness, R}, {F::Velocity, R}, {F::WaterMid, R}, {F::Eroded, W},
          {F::Wear, RW, When::ErosionMaps}}},
        {"transport_thermal_outflow_evaporation",
         {{F::Eroded, R}, {F::Hardness, R}, {F::Velocity, R}, {F::WaterMid, R}, {F::Sediment, W}, {F::Water, W},
          {F::ThermalRate, W, When::Thermal}}},
        {"thermal_gather", {{F::Eroded, R}, {F::Terrain, W}, {F::ThermalRate, R, When::Thermal}}},
        {"springs_prepare", {{F::SpringRate, W}}},
        {"reduce_check", {{F::Water, R}}},
        {"wave_speed", {{F::Water, R}, {F::Velocity, R}}},
        {"talus_outflow", {{F::Terrain, R}, {F::ThermalRate, W}}},
        {"talus_gather", {{F::ThermalRate, R}, {F::Terrain, RW}}},
        {"musgrave_transfer",
         {{F::Terrain, RW}, {F::Water, RW}, {F::Sediment, RW}, {F::Hardness, R}, {F::ThermalAxis, W},
          {F::ThermalDiag, W}, {F::Scratch, W}}},
        {"musgrave_apply",
         {{F::Water, RW}, {F::Sediment, RW}, {F::ThermalAxis, R}, {F::ThermalDiag, R}, {F::Scratch, R}}},
        {"simple_transfer",
         {{F::Terrain, RW}, {F::Water, RW}, {F::Sediment, RW}, {F::Hardness, R}, {F::Scratch, W}}},
        {"simple_apply", {{F::Terrain, RW}, {F::Water, RW}, {F::Sediment, RW}, {F::Scratch, R}}},
        {"particles", {}},
        {"particles_apply", {{F::Terrain, RW}, {F::Sediment, RW}}, 16.0},
        // The fluvial model (gpu/fluvial.cpp). Buffer bytes per cell of one dispatch: a pass over
        // the grid counts each entry it reads and writes once; a pass over a list (ring nodes:
        // RING_CELLS per 256-cell tile; basins: at most one per 2 x 2 cells; exits: at most the
        // ring nodes) counts the list at its largest, so its row is a bound for one round. The
        // bench's phases count the rounds that ran and the lists' real lengths
        // (fluvialPhaseBytes).
        {"fluvial_control", {}},
        // ground bits and label written per cell, the ring cells' pointers
        {"fluvial_descend", {{F::Terrain, R}}, 8.0 + kRingPerCell * 4.0},
        {"fluvial_label_jump", {}, kRingPerCell * 12.0}, // a ring node's two pointers and its label
        // label and ground bits of a cell (neighbours' from cache), its boundary entry
        {"fluvial_edges", {}, 4.0 + 4.0 + 4.0},
        {"fluvial_hook", {}, kBasinsPerCell * 24.0},      // a root, its best pass, its hook
        {"fluvial_hook_jump", {}, kBasinsPerCell * 24.0}, // pointers read and written
        {"fluvial_relabel", {}, kBasinsPerCell * 20.0},   // component, spill, best reset
        // label, ground bits, the basin's spill; level and steps written; the tile list
        {"fluvial_level", {}, 4.0 + 4.0 + 4.0 + 4.0 + 4.0},
        {"fluvial_flats", {}, 4.0 + 4.0 + 4.0}, // per cell of a tile visited: level, steps read and written
        // level, steps, ground bits; receiver, local drainage written; the ring's exits
        {"fluvial_route", {{F::Lake, W}, {F::RainMask, R, When::RainMask}}, 4.0 + 4.0 + 4.0 + 4.0 + 8.0 + kRingPerCell * 8.0},
        {"fluvial_tree_init", {}, kRingPerCell * 40.0}, // an exit's receiver, values, pointers
        {"fluvial_tree_jump", {}, kRingPerCell * 64.0}, // list, pointers, values, two atomic adds
        {"fluvial_tree_push", {}, kRingPerCell * 24.0},
        // drainage read and written, receiver, level; erosion maps and targets written
        {"fluvial_drainage",
         {{F::Terrain, R}, {F::Hardness, R}, {F::Lake, R}, {F::Uplift, R}, {F::Drainage, W}},
         8.0 + 8.0 + 4.0 + 4.0 + 8.0 + 4.0},
        // the erosion map and its target (the new ground), the ring's values
        {"fluvial_apply",
         {{F::Terrain, RW}, {F::Lake, R}, {F::Uplift, R}, {F::Wear, RW}, {F::Drainage, R, When::Deposition}},
         8.0 + 4.0 + kRingPerCell * 8.0},
        {"fluvial_deposit", {{F::Drainage, R}, {F::Terrain, RW}, {F::Wear, RW}}, 8.0 + kRingPerCell * 8.0},
        // lake_evaporation: closed lakes' sediment over their lake cells (label, basin's entries)
        {"fluvial_lake_fill", {{F::Lake, R}, {F::Terrain, RW}, {F::Wear, RW}}, 4.0 + 12.0},
        {"grid_totals", {}},
        // Issue 12. sea_spill: SEA_ROUNDS_PER_STEP rounds (each reads the ground and 5 texels of
        // one half, writes the other) and the commit (a control read; the copy when it commits).
        {"sea_spill", {{F::Terrain, R, When::Sea}, {F::RelaxA, RW, When::Sea}}},
        {"water_exchange",
         {{F::Terrain, R, When::GroundwaterOrSea}, {F::Water, RW, When::GroundwaterOrSea},
          {F::Groundwater, RW, When::GroundwaterOrSea}, {F::AquiferBase, R, When::Groundwater},
          {F::SeaSpill, R, When::Sea}, {F::Seepage, W, When::Groundwater}, {F::WaterTable, W, When::Groundwater}}},
        // Per sub-step: groundwater_head (ground, water, base and groundwater of the cell, its
        // neighbours from the cache; writes the head) and groundwater_flow (heads and bases,
        // the groundwater read and written).
        {"groundwater_flow",
         {{F::Terrain, R, When::Groundwater}, {F::Water, R, When::Groundwater}, {F::AquiferBase, R, When::Groundwater},
          {F::Groundwater, R, When::Groundwater}, {F::GroundwaterHead, RW, When::Groundwater},
          {F::AquiferBase, R, When::Groundwater}, {F::Groundwater, RW, When::Groundwater}}},
        {"groundwater_head", {}},
        {"sea_control", {}},
        {"sea_commit", {}},
        {"water_table_init", {}},
        {"water_table", {}},
        {"water_table_store", {}},
        {"reduce_subgroups", {}},
    };
    return table;
}

const PassInfo& info(Pass p) {
    const std::vector<PassInfo>& table = passTable();
    static_assert(kPassCount == 48, "a pass was added: give it a row in passTable()");
    return table.at(static_cast<size_t>(p));
}

bool happens(When when, const SimParams& q) {
    switch (when) {
    case When::Always: return true;
    case When::RainMask: return q.rain_uniform == 0 && q.rain_rate > 0.0f;
    case When::Springs: return q.spring_count > 0;
    case When::Maps: return q.record_maps != 0;
    case When::ErosionMaps: return q.record_maps != 0 && q.enable_erosion != 0;
    case When::Thermal: return q.enable_thermal != 0;
    case When::Groundwater:
        return q.enable_groundwater != 0 &&
               (q.model == MODEL_PIPE || q.model == MODEL_MUSGRAVE || q.model == MODEL_SIMPLE);
    case When::Sea: return q.enable_sea != 0 && q.model == MODEL_PIPE;
    case When::GroundwaterOrSea: return happens(When::Groundwater, q) || happens(When::Sea, q);
    case When::Deposition: return q.fluvial_deposition > 0.0f;
    }
    return false;
}

// Workgroups of the grid passes (the simulation's, once setParams filled them in; else 16 x 16).
double sumWorkgroups(const SimParams& params, int width, int height) {
    return params.group_count_x > 0 && params.group_count_y > 0
               ? double(params.group_count_x) * double(params.group_count_y)
               : double(groupsCovering(width, 16)) * double(groupsCovering(height, 16));
}

} // namespace

const char* passName(Pass p) { return info(p).name; }

static_assert(kTileCells == WG_SIZE, "gpu/vk/workgroup.h's tile is the shaders' WG_SIZE");

uint32_t fusedSharedBytes(WorkgroupShape s) {
    // erosion_transport_thermal_evaporation.comp: old ground of the tile and a ring of 3; eroded
    // ground, sediment and hardness with a ring of 2; the thermal outflows (two vec4) with a ring
    // of 1; the owned cells' moved volumes (vec2); partials.glsl's subgroup sums.
    const uint32_t x = uint32_t(s.x), y = uint32_t(s.y);
    return (x + 6) * (y + 6) * 4 + 3 * (x + 4) * (y + 4) * 4 + 2 * (x + 2) * (y + 2) * 16 + WG_SIZE * 8 +
           6 * (WG_SIZE / 4) * 8;
}

uint32_t stepParts(const SimParams& q) {
    // Each the exact test the shaders make of the parameter (common.glsl's partOn callers).
    uint32_t parts = 0;
    if (q.rain_uniform == 0) parts |= STEP_RAIN_MASK;
    if (q.spring_count > 0) parts |= STEP_SPRINGS;
    if (q.enable_sea != 0) parts |= STEP_SEA;
    if (q.record_maps != 0) parts |= STEP_MAPS;
    if (q.edge_mode == EDGE_OPEN) parts |= STEP_OPEN_EDGES;
    return parts;
}

bool passHasStepParts(Pass p) {
    switch (p) {
    case Pass::SourcesFlux:
    case Pass::WaterVelocity:
    case Pass::ErosionTransportThermalEvaporation:
    case Pass::Erosion:
    case Pass::TransportThermalOutflowEvaporation: return true;
    default: return false;
    }
}

int cpuSumRows(Pass p) {
    return p == Pass::WaterVelocity || p == Pass::Erosion || p == Pass::TransportThermalOutflowEvaporation ? kSumRows : 1;
}

double passBytesPerCell(Pass p, const SimParams& params, int width, int height) {
    const double cells = double(width) * double(height);
    if (p == Pass::ReducePartials || p == Pass::ReduceTotals) {
        // Musgrave and simple fold only the groundwater's sums, and only when it runs.
        if ((params.model == MODEL_MUSGRAVE || params.model == MODEL_SIMPLE) && !happens(When::Groundwater, params))
            return 0.0;
        // reduce_totals: the last level's one partial per slot, and the totals read and written.
        if (p == Pass::ReduceTotals) return double(REDUCE_SLOTS * sizeof(double) + 2 * sizeof(Totals)) / cells;
        // The fold reads every level's partials once and writes the next level (doubles); the
        // first level holds one per workgroup.
        const auto groups = uint32_t(sumWorkgroups(params, width, height));
        // CPU drivers: each subgroup's partial of each slot the step produces, written by the
        // producing passes and read by the fold's first half (reduce_subgroups.comp).
        double subgroups = 0.0;
        if (params.partials_per_group > 1 && p == Pass::ReducePartials)
            for (int slot = 0; slot < REDUCE_SLOTS; ++slot)
                if (slotActive(params, slot)) subgroups += 2.0 * double(groups) * params.partials_per_group;
        return (double(partialsCount(groups)) + subgroups) * sizeof(double) / cells;
    }
    if (p == Pass::GridTotals) {
        // Musgrave's and simple's rain and evaporation sums (grid_models.glsl), written by their
        // passes and read here: one double per workgroup and slot, per subgroup on CPU drivers.
        return 2.0 * 2.0 * sumWorkgroups(params, width, height) * std::max(params.partials_per_group, 1) * sizeof(double) / cells;
    }
    double bytes = info(p).buffer_bytes;
    for (const Access& a : info(p).accesses) {
        if (!happens(a.when, params)) continue;
        const int passes = ((a.mode & kRead) ? 1 : 0) + ((a.mode & kWrite) ? 1 : 0);
        bytes += double(passes) * fieldTexelBytes(a.field);
    }
    // Passes recorded several times a step: the groundwater's sub-steps, the sea's rounds.
    if (p == Pass::GroundwaterFlow) bytes *= evenGroundwaterSubsteps(params.groundwater_substeps);
    if (p == Pass::SeaSpill) bytes *= SEA_ROUNDS_PER_STEP;
    return bytes;
}

const char* pipePassesName(PipePasses p) {
    switch (p) {
    case PipePasses::Fused: return "fused";
    case PipePasses::Direct: return "direct";
    default: return "auto";
    }
}

const std::vector<Pass>& modelPasses(int model, PipePasses pipe_passes) {
    // Groundwater and the sea (gpu/groundwater.cpp): the pipe model's, before the fold of its sums.
    static const std::vector<Pass> pipe = {Pass::SourcesFlux, Pass::WaterVelocity,
                                           Pass::ErosionTransportThermalEvaporation, Pass::SeaSpill,
                                           Pass::WaterExchange, Pass::GroundwaterFlow, Pass::ReducePartials,
                                           Pass::ReduceTotals, Pass::SedimentCorrect};
    static const std::vector<Pass> pipe_direct = {
        Pass::SourcesFlux,   Pass::WaterVelocity,   Pass::Erosion,        Pass::TransportThermalOutflowEvaporation,
        Pass::ThermalGather, Pass::SeaSpill,        Pass::WaterExchange,  Pass::GroundwaterFlow,
        Pass::ReducePartials, Pass::ReduceTotals,   Pass::SedimentCorrect};
    static const std::vector<Pass> talus = {Pass::TalusOutflow, Pass::TalusGather};
    // Musgrave and simple: then the groundwater's passes and the fold of its sums (gpu/groundwater.cpp).
    static const std::vector<Pass> musgrave = {Pass::MusgraveTransfer, Pass::MusgraveApply, Pass::GridTotals,
                                               Pass::SeaSpill,         Pass::WaterExchange, Pass::GroundwaterFlow,
                                               Pass::ReducePartials,   Pass::ReduceTotals};
    static const std::vector<Pass> simple = {Pass::SimpleTransfer, Pass::SimpleApply,     Pass::GridTotals,
                                             Pass::SeaSpill,       Pass::WaterExchange,   Pass::GroundwaterFlow,
                                             Pass::ReducePartials, Pass::ReduceTotals};
    static const std::vector<Pass> particles = {Pass::Particles, Pass::ParticlesApply};
    // Phases: basins, pass points, spill solve, flats, route, accumulate, erode, deposit.
    static const std::vector<Pass> fluvial = {Pass::FluvialDescend, Pass::FluvialEdges, Pass::FluvialHook,
                                              Pass::FluvialFlats, Pass::FluvialRoute, Pass::FluvialDrainage,
                                              Pass::FluvialApply, Pass::FluvialDeposit};
    switch (model) {
    case MODEL_THERMAL:
    case MODEL_OLSEN: return talus;
    case MODEL_MUSGRAVE: return musgrave;
    case MODEL_SIMPLE: return simple;
    case MODEL_PARTICLES: return particles;
    case MODEL_FLUVIAL: return fluvial;
    default: return pipe_passes == PipePasses::Direct ? pipe_direct : pipe;
    }
}

const char* fluvialPhaseName(size_t phase) {
    static const char* const names[] = {"basins", "pass_points", "spill_solve", "flats",
                                        "route",  "accumulate",  "erode",       "deposit"};
    return phase < std::size(names) ? names[phase] : "?";
}

const char* modelName(int model) {
    switch (model) {
    case MODEL_THERMAL: return "thermal";
    case MODEL_OLSEN: return "olsen";
    case MODEL_PARTICLES: return "particles";
    case MODEL_MUSGRAVE: return "musgrave";
    case MODEL_SIMPLE: return "simple";
    case MODEL_FLUVIAL: return "fluvial";
    default: return "pipe";
    }
}

int modelFromName(const std::string& name) {
    for (int m = 0; m < MODEL_COUNT; ++m)
        if (name == modelName(m)) return m;
    return -1;
}

} // namespace alluvium::gpu
