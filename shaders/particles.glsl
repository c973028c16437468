// Shared by particles.comp and particles_apply.comp: the droplets' 64-bit fixed-point
// accumulators. Integer atomics commute, so a step's result does not depend on the order the
// droplets run in; 64 bits hold every sum the parameter table allows (the bound is in
// particles.comp).
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_atomic_int64 : require

// Per-cell height changes of one step, in units of 2^-20 m (PARTICLE_FIXED_ONE). The same
// binding is declared `int delta[]` in common.glsl; these passes use only this view of it.
layout(std430, binding = B_DELTA) buffer DeltaBlock64 { int64_t delta64[]; };

// One step's droplet totals, folded into the run's Totals by particles_apply and reset there.
layout(std430, binding = B_DRAINED) buffer DropletTotalsBlock {
    int64_t soil_drained;     // soil carried off open edges (2^-20 m of a cell's height)
    int64_t water_evaporated; // droplet water (units of 2^-32 of a droplet volume unit)
    int64_t water_drained;    // water of droplets that left through an open edge
    int64_t water_absorbed;   // water of droplets that ended on the map (it soaks in)
    int64_t droplets_unborn;  // droplets drawn on a cell where the rain mask kept them from falling
};
#define PARTICLE_WATER_ONE 4294967296.0lf // 2^32 units per droplet volume unit
