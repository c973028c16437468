// The simulation's fields: one row each, read by GLSL and C++ alike. The shaders declare their
// images from these rows (common.glsl); gpu/fields.h derives the Field enum, the images, the
// descriptor writes, sessions, snapshots and digests from them. A new field is one row here.
//
// X(Enum, name, channels, format, layout, kept, size, initial, binding, meaning)
//   format  the storage format, as GLSL names it (r32f, rg32f, rgba32f)
//   layout  Single: one image, `<name>_img` in GLSL;
//           PingPong: two images, `<name>_cur` (the state at the start of a step) and
//           `<name>_next` (at its end), at binding and binding + 1;
//           PingPongSplit: a 4-channel PingPong field that a grid too large for one allocation
//           keeps as two rg32f images a half, `<name>_xy_*` and `<name>_zw_*` at binding + 2 ..
//           binding + 5 (cur xy, cur zw, next xy, next zw); shaders pick by SPLIT_WIDE
//   kept    State: saved in sessions and snapshots, part of the state digest; Derived: rewritten
//           before it is read, or derived from other state
//   size    Grid: one texel a cell; GridUnlessSplit: 1x1 in the split layout (the models that
//           use it refuse such grids); DirectPasses: 1x1 unless the pipe step runs its direct
//           passes (CPU drivers)
//   initial every texel's value when the simulation is created
//   binding its first slot in descriptor set 0 (buffers take slots below FIELD_BINDING_FIRST)
// Rows keep their order: digests and sessions list the fields in it. Units on every row.
#ifndef ALLUVIUM_FIELD_TABLE_H
#define ALLUVIUM_FIELD_TABLE_H

#define FIELD_BINDING_FIRST 24

// clang-format off
#define ALLUVIUM_FIELDS(X)                                                                                           \
    X(Terrain, terrain, 1, r32f, PingPong, State, Grid, 0.0, 24, "ground height b (m)")                             \
    X(Water, water, 1, r32f, PingPong, State, Grid, 0.0, 26, "water depth d (m)")                                   \
    X(Sediment, sediment, 1, r32f, PingPong, State, Grid, 0.0, 28, "suspended sediment s (m of soil)")              \
    X(Outflow, outflow, 4, rgba32f, PingPongSplit, State, Grid, 0.0, 30,                                             \
      "outflow face speed w to left, right, top, bottom (m/s; the flux f = L d w, m^3/s)")                          \
    X(Velocity, velocity, 2, rg32f, Single, State, Grid, 0.0, 36, "water velocity (u, v) (m/s)")                    \
    X(Hardness, hardness, 1, r32f, Single, State, Grid, 0.0, 37, "resistance to erosion, 0 soft .. 1 rock")         \
    X(ThermalAxis, thermal_axis, 4, rgba32f, Single, Derived, GridUnlessSplit, 0.0, 38,                              \
      "musgrave model: this step's shares to left, right, top, bottom (m of water)")                                        \
    X(ThermalDiag, thermal_diag, 4, rgba32f, Single, Derived, GridUnlessSplit, 0.0, 39,                              \
      "musgrave model: this step's shares to the four diagonal neighbours (m of water)")                  \
    X(RainMask, rain_mask, 1, r32f, Single, State, Grid, 1.0, 40, "rain multiplier, 0..1")                          \
    X(Wear, wear, 2, rg32f, Single, State, Grid, 0.0, 41, "ground eroded, deposited since the start (m)")          \
    X(Flow, flow, 1, r32f, Single, State, Grid, 0.0, 42, "water volume that flowed through the cell (m^3)")         \
    X(Scratch, scratch, 4, rgba32f, Single, Derived, GridUnlessSplit, 0.0, 43,                                       \
      "musgrave and simple models: the step's transfer totals (m)")                                                 \
    X(Lake, lake, 1, r32f, Single, State, Grid, 0.0, 44, "fluvial model: lake depth over the ground (m)")           \
    X(Drainage, drainage, 1, r32f, Single, State, Grid, 0.0, 45,                                                     \
      "fluvial model: drainage area, weighted by the rain mask (m^2)")                                              \
    X(Uplift, uplift, 1, r32f, Single, State, Grid, 1.0, 46, "fluvial model: uplift multiplier (times uplift_rate)") \
    X(WaterMid, water_mid, 1, r32f, Single, Derived, Grid, 0.0, 47,                                                  \
      "pipe step: water depth after the water update, before evaporation (m)")                                      \
    X(SpringRate, spring_rate, 1, r32f, Single, Derived, Grid, 0.0, 48, "springs' water source (m/s of depth)")     \
    X(Eroded, eroded, 2, rg32f, Single, Derived, DirectPasses, 0.0, 49,                                              \
      "pipe step's direct passes: ground and sediment after erosion (m)")                                           \
    X(ThermalRate, thermal_rate, 2, rg32f, Single, Derived, Grid, 0.0, 50,                                           \
      "thermal share (moved / total excess, per step) and tan(talus) of the pipe step and the talus models")       \
    X(Groundwater, groundwater, 1, r32f, Single, State, Grid, 0.0, 51,                                               \
      "groundwater in the ground's pores (m of water); updated in place, its flow's sub-steps in pairs")           \
    X(AquiferBase, aquifer_base, 1, r32f, Single, State, Grid, 0.0, 52, "the aquifer's impermeable base (m)")       \
    X(GroundwaterMid, groundwater_mid, 1, r32f, Single, Derived, Grid, 0.0, 53,                                      \
      "groundwater between two flow sub-steps (m of water)")                                                        \
    X(GroundwaterHead, groundwater_head, 2, rg32f, Single, Derived, Grid, 0.0, 54,                                   \
      "a sub-step's hydraulic head H (m) and outflow limiter (1)")                                                  \
    X(Seepage, seepage, 1, r32f, Single, State, Grid, 0.0, 55,                                                       \
      "groundwater that seeped out this step (m/s of depth): springs")                                              \
    X(WaterTable, water_table, 1, r32f, Single, State, Grid, 0.0, 56, "the water table drawn and exported (m)")    \
    X(SeaSpill, sea_spill, 1, r32f, Single, State, Grid, SEA_UNREACHED, 57,                                          \
      "lowest surface at which the cell reaches the open sea (m; SEA_UNREACHED)")                                   \
    X(RelaxA, relax_a, 1, r32f, Single, State, Grid, SEA_UNREACHED, 58,                                              \
      "ping-pong of the relaxations: sea spill rounds, the equilibrium table (m)")                                  \
    X(RelaxB, relax_b, 1, r32f, Single, State, Grid, SEA_UNREACHED, 59, "the other half of relax_a (m)")             \
    X(Loose, loose, 1, r32f, PingPong, State, Grid, 0.0, 60,                                                         \
      "layered ground: loose material (regolith, sediment) over the bedrock, ground height minus bedrock (m)")     \
    X(Snow, snow, 1, r32f, PingPong, State, Grid, 0.0, 62, "snow, as the water it holds (m)")                     \
    X(SnowSlide, snow_slide, 1, r32f, Single, Derived, Grid, 0.0, 64,                                              \
      "snow: the step's avalanche rate (moved / total excess over the angle of repose, 1)")                          \
    X(Vegetation, vegetation, 2, rg32f, Single, State, Grid, 0.0, 65,                                              \
      "vegetation: density 0..1 (x), the ground's recent wetness (y, m of water)")                                \
    X(Lava, lava, 2, rg32f, PingPong, State, Grid, 0.0, 66, "lava: depth (x, m) and temperature (y, K)")           \
    X(LavaOutflow, lava_outflow, 4, rgba32f, Single, Derived, GridUnlessSplit, 0.0, 68,                          \
      "lava: the step's outflow to left, right, top, bottom (m^3)")
// clang-format on

#endif
