// The passes: their names (also their shader files), the images each reads and writes (for the
// bench's bytes per cell), and the passes of each model's step.
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
};

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
        {"fluvial_control", {}},
        {"fluvial_fill_init", {}, 8.0},
        {"fluvial_tiles", {}},
        {"fluvial_fill", {}},
        {"fluvial_route", {}},
        {"fluvial_accumulate", {}},
        {"fluvial_erode_init", {}},
        {"fluvial_erode", {}},
        {"fluvial_apply", {}},
        {"fluvial_sediment_init", {}},
        {"fluvial_sediment", {}},
        {"fluvial_deposit", {}},
        {"grid_totals", {}},
    };
    return table;
}

const PassInfo& info(Pass p) {
    const std::vector<PassInfo>& table = passTable();
    static_assert(kPassCount == 33, "a pass was added: give it a row in passTable()");
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
    }
    return false;
}

} // namespace

const char* passName(Pass p) { return info(p).name; }

double passBytesPerCell(Pass p, const SimParams& params, int width, int height) {
    const double cells = double(width) * double(height);
    if (p == Pass::ReducePartials || p == Pass::ReduceTotals) {
        // The fold reads every level's partials once and writes the next level (doubles).
        return double(partialsCount(width, height)) * sizeof(double) / cells;
    }
    double bytes = info(p).buffer_bytes;
    for (const Access& a : info(p).accesses) {
        if (!happens(a.when, params)) continue;
        const int passes = ((a.mode & kRead) ? 1 : 0) + ((a.mode & kWrite) ? 1 : 0);
        bytes += double(passes) * fieldTexelBytes(a.field);
    }
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
    static const std::vector<Pass> pipe = {Pass::SourcesFlux, Pass::WaterVelocity,
                                           Pass::ErosionTransportThermalEvaporation, Pass::ReducePartials,
                                           Pass::ReduceTotals, Pass::SedimentCorrect};
    static const std::vector<Pass> pipe_direct = {
        Pass::SourcesFlux,          Pass::WaterVelocity, Pass::Erosion, Pass::TransportThermalOutflowEvaporation,
        Pass::ThermalGather,        Pass::ReducePartials, Pass::ReduceTotals, Pass::SedimentCorrect};
    static const std::vector<Pass> talus = {Pass::TalusOutflow, Pass::TalusGather};
    static const std::vector<Pass> musgrave = {Pass::MusgraveTransfer, Pass::MusgraveApply, Pass::GridTotals};
    static const std::vector<Pass> simple = {Pass::SimpleTransfer, Pass::SimpleApply, Pass::GridTotals};
    static const std::vector<Pass> particles = {Pass::Particles, Pass::ParticlesApply};
    static const std::vector<Pass> fluvial = {Pass::FluvialFill, Pass::FluvialRoute, Pass::FluvialAccumulate,
                                              Pass::FluvialErode};
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
