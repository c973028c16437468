// The passes: one row each below. A row gives the pass's enum and shader (shaders/<shader>.comp),
// how its dispatch covers its work, what it needs of the device and of the pipeline, the images
// it reads and writes (and when), and the bytes it moves in storage buffers. Names, dispatch
// sizes, pipeline variants and the bench's bytes per cell all come from the row; a new pass is a
// row and a shader.
#pragma once
#include <cstdint>
#include <vector>

#include "fields.h"
#include "shared.h"
#include "workgroup.h"

namespace alluvium::gpu {

// sea_commit.comp's mode bit: put the relaxation's surface in use whatever its last round did.
inline constexpr int kSeaCommitAlways = 2;

// How a pass's direct dispatch covers its work (StepRecorder::dispatch).
enum class Dispatch {
    Grid,      // the grid, in workgroups of the simulation's shape (one invocation a cell)
    Tiles,     // the grid, in FLUVIAL_TILE x FLUVIAL_TILE tiles (the fluvial model)
    One,       // one workgroup (control passes, reductions to one value)
    Particles, // one invocation a droplet (particle_count)
    Fold,      // the fold of the step's sums, sized level by level (StepRecorder::foldLevels)
};

// What else a pass needs (bits).
enum PassNeeds : unsigned {
    kNeedsNothing = 0,
    kInt64 = 1,          // 64-bit integer atomics on buffers (shaderBufferInt64Atomics)
    kStepParts = 2,      // built with only the pipe step's parts the parameters turn on (STEP_PARTS)
    kSumRows = 4,        // on CPU drivers, kSumRowsPerInvocation rows of cells per invocation (SUM_ROWS)
    kFluvialBuffers = 8, // the fluvial model's buffers (allocated when first needed)
};

// How the bench counts a pass's bytes per cell and step.
enum class Bytes {
    Accesses,     // its images (a texel each, read or written) and its buffers' bytes
    PerSubstep,   // ... once per groundwater flow sub-step
    PerSeaRound,  // ... once per round of the sea's spill relaxation in a step
    FoldLevels,   // the fold's partials (gpu/step_recorder.h)
    FoldTotals,   // the last level's partials and the totals
    GridModelSums // musgrave's and simple's water sums per workgroup
};

// When a pass reads or writes an image, from the step's parameters.
enum class When {
    Always,
    RainMask,    // the rain mask is not uniform (and it rains)
    Springs,     // there are springs
    Maps,        // the wear and flow maps are recorded
    ErosionMaps, // ... and the erosion pass is on
    Thermal,     // thermal erosion is on
    Groundwater, // groundwater runs in the step
    Sea,         // the pipe model's sea is on
    GroundwaterOrSea,
    Deposition,      // the fluvial model deposits sediment
    Layers,          // layered ground: the loose layer
    Orographic,      // orographic rain reads the ground where it rains
    Snow,            // snow lies, falls, melts and slides (the pipe model)
    SnowRainMask,    // ... and its snowfall reads the rain mask
    Lava,            // lava flows (the pipe model)
    Vegetation,      // vegetation grows (the pipe model)
    VegetationTable, // ... and reads the water table (groundwater)
};

// Whether what `when` names happens under these parameters.
bool happens(When when, const SimParams& q);

inline constexpr unsigned kRead = 1, kWrite = 2;
struct Access {
    Field field;
    unsigned mode; // kRead | kWrite
    When when = When::Always;
};

// Per cell: tile-crossing nodes (the fluvial model's ring), and basins (pits are never
// neighbours: at most one per 2 x 2 cells). For the rows' buffer bytes.
inline constexpr double kRingPerCell = double(RING_CELLS) / double(FLUVIAL_TILE * FLUVIAL_TILE);
inline constexpr double kBasinsPerCell = 0.25;

#define ALLUVIUM_R(f)                                                                                                  \
    Access { Field::f, kRead }
#define ALLUVIUM_W(f)                                                                                                  \
    Access { Field::f, kWrite }
#define ALLUVIUM_RW(f)                                                                                                 \
    Access { Field::f, kRead | kWrite }
#define ALLUVIUM_R_IF(f, when)                                                                                         \
    Access { Field::f, kRead, When::when }
#define ALLUVIUM_W_IF(f, when)                                                                                         \
    Access { Field::f, kWrite, When::when }
#define ALLUVIUM_RW_IF(f, when)                                                                                        \
    Access { Field::f, kRead | kWrite, When::when }

// X(Enum, shader, dispatch, needs, bytes, (accesses...), buffer bytes per cell)
// Buffer bytes: a pass over the grid counts each entry it reads and writes once; a pass over a
// list of the fluvial model counts the list at its largest (a bound for one round; the bench's
// fluvial phases count the rounds that ran, models/fluvial.h).
// clang-format off
#define ALLUVIUM_PASSES(X)                                                                                            \
    /* The pipe step (models/pipe.cpp); its erosion, transport, thermal erosion and evaporation */                    \
    /* as one fused pass (GPUs) or three direct ones (CPU drivers). */                                                 \
    X(SourcesFlux, "sources_flux", Grid, kStepParts, Accesses,                                                        \
      (ALLUVIUM_R(Terrain), ALLUVIUM_R(Water), ALLUVIUM_RW(Outflow), ALLUVIUM_R_IF(RainMask, RainMask),               \
       ALLUVIUM_R_IF(SpringRate, Springs), ALLUVIUM_R_IF(Vegetation, Vegetation)), 0.0)                              \
    X(WaterVelocity, "water_velocity", Grid, kStepParts | kSumRows, Accesses,                                         \
      (ALLUVIUM_R(Water), ALLUVIUM_R(Outflow), ALLUVIUM_W(WaterMid), ALLUVIUM_W(Velocity), ALLUVIUM_RW_IF(Flow, Maps), \
       ALLUVIUM_R_IF(RainMask, RainMask), ALLUVIUM_R_IF(SpringRate, Springs), ALLUVIUM_R_IF(Terrain, Orographic)), 0.0) \
    X(ErosionTransportThermalEvaporation, "erosion_transport_thermal_evaporation", Grid, kStepParts, Accesses,        \
      (ALLUVIUM_RW(Terrain), ALLUVIUM_RW(Sediment), ALLUVIUM_R(Hardness), ALLUVIUM_R(Velocity), ALLUVIUM_R(WaterMid),  \
       ALLUVIUM_W(Water), ALLUVIUM_RW_IF(Wear, ErosionMaps), ALLUVIUM_RW_IF(Loose, Layers),                           \
       ALLUVIUM_R_IF(Vegetation, Vegetation)), 0.0)                                                                   \
    X(Erosion, "erosion", Grid, kStepParts | kSumRows, Accesses,                                                      \
      (ALLUVIUM_R(Terrain), ALLUVIUM_R(Sediment), ALLUVIUM_R(Hardness), ALLUVIUM_R(Velocity), ALLUVIUM_R(WaterMid),    \
       ALLUVIUM_W(Eroded), ALLUVIUM_RW_IF(Wear, ErosionMaps), ALLUVIUM_R_IF(Loose, Layers),                           \
       ALLUVIUM_R_IF(Vegetation, Vegetation)), 0.0)                                                                   \
    X(TransportThermalOutflowEvaporation, "transport_thermal_outflow_evaporation", Grid, kStepParts | kSumRows,        \
      Accesses, (ALLUVIUM_R(Eroded), ALLUVIUM_R(Hardness), ALLUVIUM_R(Velocity), ALLUVIUM_R(WaterMid),                \
      ALLUVIUM_W(Sediment), ALLUVIUM_W(Water), ALLUVIUM_W_IF(ThermalRate, Thermal), ALLUVIUM_R_IF(Terrain, Layers),   \
      ALLUVIUM_R_IF(Loose, Layers), ALLUVIUM_R_IF(Vegetation, Vegetation)), 0.0)                                        \
    X(ThermalGather, "thermal_gather", Grid, kNeedsNothing, Accesses,                                                 \
      (ALLUVIUM_R(Eroded), ALLUVIUM_W(Terrain), ALLUVIUM_R_IF(ThermalRate, Thermal), ALLUVIUM_RW_IF(Loose, Layers)),  \
      0.0)                                                                                                            \
    X(SedimentCorrect, "sediment_correct", Grid, kNeedsNothing, Accesses, (ALLUVIUM_RW(Sediment)), 0.0)              \
    X(SpringsPrepare, "springs_prepare", Grid, kNeedsNothing, Accesses, (ALLUVIUM_W(SpringRate)), 0.0)               \
    X(WaveSpeed, "wave_speed", Grid, kNeedsNothing, Accesses, (ALLUVIUM_R(Water), ALLUVIUM_R(Velocity)), 0.0)        \
    /* The fold of a step's sums (gpu/step_recorder.h): CPU drivers' subgroups, the levels, the totals. */                  \
    X(ReduceSubgroups, "reduce_subgroups", Fold, kNeedsNothing, FoldLevels, (), 0.0)                                  \
    X(ReducePartials, "reduce_partials", Fold, kNeedsNothing, FoldLevels, (), 0.0)                                    \
    X(ReduceTotals, "reduce_totals", One, kNeedsNothing, FoldTotals, (), 0.0)                                         \
    X(ReduceCheck, "reduce_check", Grid, kNeedsNothing, Accesses, (ALLUVIUM_R(Water)), 0.0) /* tests */              \
    /* The thermal and olsen models (models/talus.cpp). */                                                            \
    X(TalusOutflow, "talus_outflow", Grid, kNeedsNothing, Accesses, (ALLUVIUM_R(Terrain), ALLUVIUM_W(ThermalRate),    \
      ALLUVIUM_R_IF(Loose, Layers)), 0.0)                                                                             \
    X(TalusGather, "talus_gather", Grid, kNeedsNothing, Accesses, (ALLUVIUM_R(ThermalRate), ALLUVIUM_RW(Terrain),     \
      ALLUVIUM_RW_IF(Loose, Layers)), 0.0)                                                                            \
    /* The musgrave and simple models (models/grid_models.cpp). */                                                    \
    X(MusgraveTransfer, "musgrave_transfer", Grid, kNeedsNothing, Accesses,                                           \
      (ALLUVIUM_RW(Terrain), ALLUVIUM_RW(Water), ALLUVIUM_RW(Sediment), ALLUVIUM_R(Hardness), ALLUVIUM_W(ThermalAxis), \
       ALLUVIUM_W(ThermalDiag), ALLUVIUM_W(Scratch), ALLUVIUM_R_IF(RainMask, RainMask), ALLUVIUM_RW_IF(Loose, Layers)), \
      0.0)                                                                                                            \
    X(MusgraveApply, "musgrave_apply", Grid, kNeedsNothing, Accesses,                                                 \
      (ALLUVIUM_RW(Water), ALLUVIUM_RW(Sediment), ALLUVIUM_R(ThermalAxis), ALLUVIUM_R(ThermalDiag),                   \
       ALLUVIUM_R(Scratch)), 0.0)                                                                                     \
    X(SimpleTransfer, "simple_transfer", Grid, kNeedsNothing, Accesses,                                               \
      (ALLUVIUM_RW(Terrain), ALLUVIUM_RW(Water), ALLUVIUM_RW(Sediment), ALLUVIUM_R(Hardness), ALLUVIUM_W(Scratch),   \
       ALLUVIUM_R_IF(RainMask, RainMask), ALLUVIUM_R_IF(Loose, Layers)), 0.0)                                         \
    X(SimpleApply, "simple_apply", Grid, kNeedsNothing, Accesses,                                                     \
      (ALLUVIUM_RW(Terrain), ALLUVIUM_RW(Water), ALLUVIUM_RW(Sediment), ALLUVIUM_R(Scratch),                          \
       ALLUVIUM_RW_IF(Loose, Layers)), 0.0)                                                                           \
    X(GridTotals, "grid_totals", One, kNeedsNothing, GridModelSums, (), 0.0)                                          \
    /* The particles model (models/particles.cpp). */                                                                 \
    X(Particles, "particles", Particles, kInt64, Accesses, (ALLUVIUM_R_IF(RainMask, RainMask),                      \
      ALLUVIUM_R_IF(Loose, Layers)), 0.0)                                                   \
    X(ParticlesApply, "particles_apply", Grid, kInt64, Accesses, (ALLUVIUM_RW(Terrain), ALLUVIUM_RW(Sediment),       \
      ALLUVIUM_RW_IF(Loose, Layers)), 16.0) \
    /* The fluvial model (models/fluvial.cpp): a control pass between the iterative ones;        */                    \
    /* depression routing (descent and basin labels, label rounds, the basin graph's rounds:     */                    \
    /* edges, hook, hook jumps, relabel; the filled level, flats rounds); routing (and drainage  */                    \
    /* within tiles), the loops over the tiles' exits (init, rounds, push), the drainage and     */                    \
    /* erosion maps, the new ground, deposition, closed lakes' sediment.                         */                    \
    X(FluvialControl, "fluvial_control", One, kInt64 | kFluvialBuffers, Accesses, (), 0.0)                                             \
    /* the ground's bits and label written per cell, the ring cells' pointers */                                      \
    X(FluvialDescend, "fluvial_descend", Tiles, kInt64 | kFluvialBuffers, Accesses, (ALLUVIUM_R(Terrain)), 8.0 + kRingPerCell * 4.0)   \
    /* a ring node's two pointers and its label */                                                                    \
    X(FluvialLabelJump, "fluvial_label_jump", Tiles, kInt64 | kFluvialBuffers, Accesses, (), kRingPerCell * 12.0)                       \
    /* label and ground bits of a cell (neighbours' from cache), its boundary entry */                                \
    X(FluvialEdges, "fluvial_edges", Tiles, kInt64 | kFluvialBuffers, Accesses, (), 4.0 + 4.0 + 4.0)                                    \
    X(FluvialHook, "fluvial_hook", Tiles, kInt64 | kFluvialBuffers, Accesses, (), kBasinsPerCell * 24.0) /* root, best pass, hook */   \
    X(FluvialHookJump, "fluvial_hook_jump", Tiles, kInt64 | kFluvialBuffers, Accesses, (), kBasinsPerCell * 24.0) /* pointers */       \
    X(FluvialRelabel, "fluvial_relabel", Tiles, kInt64 | kFluvialBuffers, Accesses, (), kBasinsPerCell * 20.0) /* component, spill */  \
    /* label, ground bits, the basin's spill; level and steps written; the tile list */                               \
    X(FluvialLevel, "fluvial_level", Tiles, kInt64 | kFluvialBuffers, Accesses, (), 4.0 + 4.0 + 4.0 + 4.0 + 4.0)                        \
    /* per cell of a tile visited: level, steps read and written */                                                   \
    X(FluvialFlats, "fluvial_flats", Tiles, kInt64 | kFluvialBuffers, Accesses, (), 4.0 + 4.0 + 4.0)                                    \
    /* level, steps, ground bits; receiver, local drainage written; the ring's exits */                               \
    X(FluvialRoute, "fluvial_route", Tiles, kInt64 | kFluvialBuffers, Accesses, (ALLUVIUM_W(Lake), ALLUVIUM_R_IF(RainMask, RainMask)),  \
      4.0 + 4.0 + 4.0 + 4.0 + 8.0 + kRingPerCell * 8.0)                                                               \
    X(FluvialTreeInit, "fluvial_tree_init", Tiles, kInt64 | kFluvialBuffers, Accesses, (), kRingPerCell * 40.0) /* an exit's values */ \
    /* list, pointers, values, two atomic adds */                                                                     \
    X(FluvialTreeJump, "fluvial_tree_jump", Tiles, kInt64 | kFluvialBuffers, Accesses, (), kRingPerCell * 64.0)                         \
    X(FluvialTreePush, "fluvial_tree_push", Tiles, kInt64 | kFluvialBuffers, Accesses, (), kRingPerCell * 24.0)                         \
    /* drainage read and written, receiver, level; erosion maps and targets written */                                \
    X(FluvialDrainage, "fluvial_drainage", Tiles, kInt64 | kFluvialBuffers, Accesses,                                                   \
      (ALLUVIUM_R(Terrain), ALLUVIUM_R(Hardness), ALLUVIUM_R(Lake), ALLUVIUM_R(Uplift), ALLUVIUM_W(Drainage),        \
       ALLUVIUM_R_IF(Loose, Layers)),                                                                                 \
      8.0 + 8.0 + 4.0 + 4.0 + 8.0 + 4.0)                                                                              \
    /* the erosion map and its target (the new ground), the ring's values */                                          \
    X(FluvialApply, "fluvial_apply", Tiles, kInt64 | kFluvialBuffers, Accesses,                                                         \
      (ALLUVIUM_RW(Terrain), ALLUVIUM_R(Lake), ALLUVIUM_R(Uplift), ALLUVIUM_RW(Wear),                                 \
       ALLUVIUM_R_IF(Drainage, Deposition), ALLUVIUM_RW_IF(Loose, Layers)), 8.0 + 4.0 + kRingPerCell * 8.0)           \
    X(FluvialDeposit, "fluvial_deposit", Tiles, kInt64 | kFluvialBuffers, Accesses,                                                     \
      (ALLUVIUM_R(Drainage), ALLUVIUM_RW(Terrain), ALLUVIUM_RW(Wear), ALLUVIUM_RW_IF(Loose, Layers)),                 \
      8.0 + kRingPerCell * 8.0)                                                                                       \
    /* closed lakes' sediment over their lake cells (label, basin's entries) */                                       \
    X(FluvialLakeFill, "fluvial_lake_fill", Tiles, kInt64 | kFluvialBuffers, Accesses,                                                  \
      (ALLUVIUM_R(Lake), ALLUVIUM_RW(Terrain), ALLUVIUM_RW(Wear), ALLUVIUM_RW_IF(Loose, Layers)), 4.0 + 12.0)        \
    /* Groundwater and the sea (models/groundwater.cpp, models/sea.cpp): the spill rounds (each    */                  \
    /* reads the ground and 5 texels of one half, writes the other; the commit); seepage,          */                  \
    /* infiltration and the ocean held at the sea's surface; the Dupuit flow's sub-steps (the      */                  \
    /* head: ground, water, base and groundwater, neighbours from the cache; then the flow).       */                  \
    X(SeaSpill, "sea_spill", Grid, kNeedsNothing, PerSeaRound,                                                        \
      (ALLUVIUM_R_IF(Terrain, Sea), ALLUVIUM_RW_IF(RelaxA, Sea)), 0.0)                                                \
    X(SeaControl, "sea_control", One, kNeedsNothing, Accesses, (), 0.0)                                               \
    X(SeaCommit, "sea_commit", Grid, kNeedsNothing, Accesses, (), 0.0)                                                \
    X(WaterExchange, "water_exchange", Grid, kNeedsNothing, Accesses,                                                 \
      (ALLUVIUM_R_IF(Terrain, GroundwaterOrSea), ALLUVIUM_RW_IF(Water, GroundwaterOrSea),                             \
       ALLUVIUM_RW_IF(Groundwater, GroundwaterOrSea), ALLUVIUM_R_IF(AquiferBase, Groundwater),                        \
       ALLUVIUM_R_IF(SeaSpill, Sea), ALLUVIUM_W_IF(Seepage, Groundwater), ALLUVIUM_W_IF(WaterTable, Groundwater)), 0.0) \
    /* Lava (models/lava.cpp): each cell's outflow, then the gather, eruption, cooling, rock. */                    \
    X(LavaFlux, "lava_flux", Grid, kNeedsNothing, Accesses,                                                           \
      (ALLUVIUM_R_IF(Terrain, Lava), ALLUVIUM_R_IF(Lava, Lava), ALLUVIUM_W_IF(LavaOutflow, Lava)), 0.0)               \
    X(Lava, "lava", Grid, kStepParts | kSumRows, Accesses,                                                            \
      (ALLUVIUM_RW_IF(Lava, Lava), ALLUVIUM_R_IF(LavaOutflow, Lava), ALLUVIUM_R_IF(Terrain, Lava),                    \
       ALLUVIUM_R_IF(Water, Lava)), 0.0)                                                                              \
    /* Snow (models/snow.cpp): the avalanches' rates, then the slide, snowfall and melt. */                          \
    X(SnowSlide, "snow_slide", Grid, kNeedsNothing, Accesses,                                                         \
      (ALLUVIUM_R_IF(Terrain, Snow), ALLUVIUM_R_IF(Snow, Snow), ALLUVIUM_W_IF(SnowSlide, Snow)), 0.0)                 \
    X(Snow, "snow", Grid, kStepParts | kSumRows, Accesses,                                                            \
      (ALLUVIUM_R_IF(Terrain, Snow), ALLUVIUM_RW_IF(Snow, Snow), ALLUVIUM_R_IF(SnowSlide, Snow),                      \
       ALLUVIUM_RW_IF(Water, Snow), ALLUVIUM_R_IF(RainMask, SnowRainMask)), 0.0)                                      \
    X(GroundwaterFlow, "groundwater_flow", Grid, kNeedsNothing, PerSubstep,                                          \
      (ALLUVIUM_R_IF(Terrain, Groundwater), ALLUVIUM_R_IF(Water, Groundwater), ALLUVIUM_R_IF(AquiferBase, Groundwater), \
       ALLUVIUM_R_IF(Groundwater, Groundwater), ALLUVIUM_RW_IF(GroundwaterHead, Groundwater),                         \
       ALLUVIUM_R_IF(AquiferBase, Groundwater), ALLUVIUM_RW_IF(Groundwater, Groundwater)), 0.0)                       \
    X(GroundwaterHead, "groundwater_head", Grid, kNeedsNothing, Accesses, (), 0.0)                                    \
    /* Vegetation (models/vegetation.cpp): each cell on its own after the step's water moved; */                     \
    /* its 4 buffer bytes are the ground at the step's start (burial), the other half of the pair. */                \
    X(Vegetation, "vegetation", Grid, kStepParts, Accesses,                                                           \
      (ALLUVIUM_R_IF(Terrain, Vegetation), ALLUVIUM_R_IF(Water, Vegetation), ALLUVIUM_R_IF(Velocity, Vegetation),     \
       ALLUVIUM_R_IF(WaterTable, VegetationTable), ALLUVIUM_RW_IF(Vegetation, Vegetation), ALLUVIUM_R_IF(Lava, Lava)),  \
      4.0)                                                                                                            \
    /* The equilibrium water table (models/water_table.cpp): start, red-black rounds, result. */                      \
    X(WaterTableInit, "water_table_init", Grid, kNeedsNothing, Accesses, (), 0.0)                                     \
    X(WaterTable, "water_table", Grid, kNeedsNothing, Accesses, (), 0.0)                                              \
    X(WaterTableStore, "water_table_store", Grid, kNeedsNothing, Accesses, (), 0.0)
// clang-format on

enum class Pass {
#define ALLUVIUM_PASS_ENUM(Enum, ...) Enum,
    ALLUVIUM_PASSES(ALLUVIUM_PASS_ENUM)
#undef ALLUVIUM_PASS_ENUM
        Count
};
inline constexpr int kPassCount = static_cast<int>(Pass::Count);

struct PassInfo {
    const char* name; // and its shader: shaders/<name>.comp
    Dispatch dispatch;
    unsigned needs; // PassNeeds bits
    Bytes bytes;
    std::vector<Access> accesses;
    double buffer_bytes; // per cell, in storage buffers (not fields)
};
const PassInfo& passInfo(Pass p);
const char* passName(Pass p);
inline bool passHasStepParts(Pass p) { return (passInfo(p).needs & kStepParts) != 0; }

// Rows of cells per invocation of a kSumRows pass on a CPU driver (partials.glsl's SUM_ROWS):
// one subgroup reduction serves that many cells. GPUs run 1.
inline constexpr int kSumRowsPerInvocation = 4;
inline int cpuSumRows(Pass p) { return (passInfo(p).needs & kSumRows) != 0 ? kSumRowsPerInvocation : 1; }

// The pipe step's optional parts (STEP_* in shared.h) that `params` turns on: the step's passes
// are built with exactly these (common.glsl's STEP_PARTS), so what is off costs nothing on a CPU
// driver, which runs both sides of every branch. One pipeline per pass and set of parts in use.
uint32_t stepParts(const SimParams& params);

// Bytes one pass reads and writes per cell, from the formats of the images it binds and what
// `params` switches on (a neighbour's texel is counted once: caches serve the rest), times its
// repeats in a step. For the fold of the sums, its partials per cell.
double passBytesPerCell(Pass p, const SimParams& params, int width, int height);

// The fold of a step's sums: partials per slot in each level, from one per workgroup down to one
// (which reduce_totals adds to the totals); and the doubles its levels hold.
std::vector<uint32_t> foldLevelSizes(uint32_t workgroups);
uint64_t partialsCount(uint32_t workgroups);
// Doubles in the partials buffer: the fold's levels, then, with `per_group` > 1 (CPU drivers),
// each subgroup's partial of every slot (they start at partialsCount(workgroups)).
inline uint64_t partialsBufferDoubles(uint32_t workgroups, uint32_t per_group) {
    return partialsCount(workgroups) + (per_group > 1 ? uint64_t(REDUCE_SLOTS) * workgroups * per_group : 0);
}
inline uint32_t workgroupCount(int width, int height, WorkgroupShape shape) {
    return groupsCovering(width, shape.x) * groupsCovering(height, shape.y);
}
inline std::vector<uint32_t> foldLevelSizes(int width, int height, WorkgroupShape shape) {
    return foldLevelSizes(workgroupCount(width, height, shape));
}

// Shared memory the grid passes need per workgroup of a shape: the fused pipe pass's (its tile and
// rings in shared memory, and partials.glsl's subgroup sums).
uint32_t fusedSharedBytes(WorkgroupShape s);
// Whether the device runs the grid passes with this shape; the shape they run with (vk/workgroup.h).
inline bool deviceRunsShape(const Context& ctx, WorkgroupShape s) { return deviceRunsShape(ctx, s, fusedSharedBytes); }
inline WorkgroupShape resolveWorkgroupShape(const Context& ctx, WorkgroupShape asked = {}) {
    return resolveWorkgroupShape(ctx, asked, fusedSharedBytes);
}

} // namespace alluvium::gpu
