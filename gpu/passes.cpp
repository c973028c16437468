// The pass table's rows (gpu/passes.h), and what is derived from them: names, step parts and the
// bench's bytes per cell.
#include "passes.h"

#include <algorithm>
#include <array>

namespace alluvium::gpu {

namespace {

#define ALLUVIUM_UNWRAP(...) __VA_ARGS__
const std::array<PassInfo, kPassCount>& passTable() {
    static const std::array<PassInfo, kPassCount> table = {{
#define ALLUVIUM_PASS_ROW(Enum, shader, dispatch, needs, bytes, accesses, buffer_bytes)                                \
    {shader, Dispatch::dispatch, needs, Bytes::bytes, {ALLUVIUM_UNWRAP accesses}, buffer_bytes},
        ALLUVIUM_PASSES(ALLUVIUM_PASS_ROW)
#undef ALLUVIUM_PASS_ROW
    }};
    return table;
}

// Workgroups of the grid passes (the simulation's, once setParams filled them in; else 16 x 16).
double sumWorkgroups(const SimParams& params, int width, int height) {
    return params.group_count_x > 0 && params.group_count_y > 0
               ? double(params.group_count_x) * double(params.group_count_y)
               : double(groupsCovering(width, 16)) * double(groupsCovering(height, 16));
}

// The fold's bytes (FoldLevels, FoldTotals): musgrave and simple fold only the groundwater's
// sums, and only when it runs.
double foldBytesPerCell(Pass p, const SimParams& params, double cells) {
    if ((params.model == MODEL_MUSGRAVE || params.model == MODEL_SIMPLE) && !happens(When::Groundwater, params))
        return 0.0;
    // reduce_totals: the last level's one partial per slot, and the totals read and written.
    if (passInfo(p).bytes == Bytes::FoldTotals)
        return double(REDUCE_SLOTS * sizeof(double) + 2 * sizeof(Totals)) / cells;
    if (p == Pass::ReduceSubgroups) return 0.0; // counted with the levels: the subgroups' partials below
    // The fold reads every level's partials once and writes the next level (doubles); the first
    // level holds one per workgroup. CPU drivers: each subgroup's partial of each slot the step
    // produces, written by the producing passes and read by the fold's first half.
    const auto groups = uint32_t(sumWorkgroups(params, int(params.width), int(params.height)));
    double subgroups = 0.0;
    if (params.partials_per_group > 1)
        for (int slot = 0; slot < REDUCE_SLOTS; ++slot)
            if (slotActive(params, slot)) subgroups += 2.0 * double(groups) * params.partials_per_group;
    return (double(partialsCount(groups)) + subgroups) * sizeof(double) / cells;
}

} // namespace

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
    case When::Layers: return q.enable_layers != 0;
    case When::Orographic: return q.orographic > 0.0f;
    case When::Snow: return q.enable_snow != 0 && q.model == MODEL_PIPE;
    case When::SnowRainMask: return happens(When::Snow, q) && q.rain_uniform == 0 && q.snowfall_rate > 0.0f;
    case When::Lava: return q.enable_lava != 0 && q.model == MODEL_PIPE;
    case When::Vegetation: return q.enable_vegetation != 0 && q.model == MODEL_PIPE;
    case When::VegetationTable: return happens(When::Vegetation, q) && q.enable_groundwater != 0;
    }
    return false;
}

const PassInfo& passInfo(Pass p) { return passTable()[static_cast<size_t>(p)]; }
const char* passName(Pass p) { return passInfo(p).name; }

static_assert(kTileCells == WG_SIZE, "vk/workgroup.h's tile is the shaders' WG_SIZE");

uint32_t fusedSharedBytes(WorkgroupShape s) {
    // erosion_transport_thermal_evaporation.comp: old ground of the tile and a ring of 3; eroded
    // ground, sediment and hardness with a ring of 2; the thermal outflows (two vec4) with a ring
    // of 1; the owned cells' moved volumes (vec2); partials.glsl's subgroup sums.
    const uint32_t x = uint32_t(s.x), y = uint32_t(s.y);
    return (x + 6) * (y + 6) * 4 + 3 * (x + 4) * (y + 4) * 4 + 2 * (x + 2) * (y + 2) * 16 + WG_SIZE * 8 +
           6 * (WG_SIZE / 4) * 8;
}

// Down to one partial per slot: the last level runs one workgroup per slot side by side, so
// reduce_totals only adds.
std::vector<uint32_t> foldLevelSizes(uint32_t workgroups) {
    std::vector<uint32_t> levels = {workgroups};
    while (levels.back() > 1) levels.push_back((levels.back() + REDUCE_SIZE - 1) / REDUCE_SIZE);
    return levels;
}

uint64_t partialsCount(uint32_t workgroups) {
    uint64_t n = 0;
    for (uint32_t level : foldLevelSizes(workgroups)) n += uint64_t(level) * REDUCE_SLOTS;
    return n;
}

uint32_t stepParts(const SimParams& q) {
    // Each the exact test the shaders make of the parameter (common.glsl's partOn callers).
    uint32_t parts = 0;
    if (q.rain_uniform == 0) parts |= STEP_RAIN_MASK;
    if (q.spring_count > 0) parts |= STEP_SPRINGS;
    if (q.enable_sea != 0) parts |= STEP_SEA;
    if (q.record_maps != 0) parts |= STEP_MAPS;
    if (q.edge_mode == EDGE_OPEN) parts |= STEP_OPEN_EDGES;
    if (q.enable_layers != 0) parts |= STEP_LAYERS;
    if (q.strata_contrast > 0.0f) parts |= STEP_STRATA;
    if (q.rain_noise > 0.0f || q.storm_count > 0 || q.orographic > 0.0f) parts |= STEP_WEATHER;
    if (q.enable_vegetation != 0 && q.model == MODEL_PIPE) parts |= STEP_VEGETATION;
    return parts;
}

double passBytesPerCell(Pass p, const SimParams& params, int width, int height) {
    const double cells = double(width) * double(height);
    const PassInfo& info = passInfo(p);
    switch (info.bytes) {
    case Bytes::FoldLevels:
    case Bytes::FoldTotals: {
        SimParams sized = params;
        sized.width = width;
        sized.height = height;
        return foldBytesPerCell(p, sized, cells);
    }
    case Bytes::GridModelSums:
        // Musgrave's and simple's rain and evaporation sums (grid_models.glsl), written by their
        // passes and read here: one double per workgroup and slot, per subgroup on CPU drivers.
        return 2.0 * 2.0 * sumWorkgroups(params, width, height) * std::max(params.partials_per_group, 1) *
               sizeof(double) / cells;
    default: break;
    }
    double bytes = info.buffer_bytes;
    for (const Access& a : info.accesses) {
        if (!happens(a.when, params)) continue;
        const int passes = ((a.mode & kRead) ? 1 : 0) + ((a.mode & kWrite) ? 1 : 0);
        bytes += double(passes) * fieldTexelBytes(a.field);
    }
    if (info.bytes == Bytes::PerSubstep) bytes *= evenGroundwaterSubsteps(params.groundwater_substeps);
    if (info.bytes == Bytes::PerSeaRound) bytes *= SEA_ROUNDS_PER_STEP;
    return bytes;
}

} // namespace alluvium::gpu
