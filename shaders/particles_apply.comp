#version 450
// Particles model, second pass: the ground takes this step's height changes, delta * 2^-20 m.
// The sum b + s + delta 2^-20 is formed in double (to 1e-16 of the height; exactly while the
// height is below 2^32 m and s above 2^-20 ulp(b)) and split into the largest float at or below
// it, the new ground, and the rest, below one ulp of the ground, kept as suspended sediment
// s >= 0. So ground plus sediment is conserved to double precision, however large the changes
// (a float ground alone loses up to half an ulp per cell per step: with millions of droplets
// piling a cell kilometres high, more than 1e-5 of the soil); the sediment another model left in suspension settles (this
// model has no flowing water to carry it). Then delta back to zero for the next step; the
// step's droplet totals (soil carried off open edges, the droplets' water: released,
// evaporated, drained, absorbed) folded into the run's totals. Water and outflow are not
// written: their ping-pong halves stay (Simulation::writtenPingPong).
#include "common.glsl"
#include "particles.glsl"
layout(std430, binding = B_TOTALS) buffer TotalsBlock { Totals totals; };

// The largest float <= x; NaN and infinities stay what they are.
float floatAtOrBelow(double x) {
    float f = float(x);
    if (!(double(f) > x)) return f;
    if (f > 0.0) return uintBitsToFloat(floatBitsToUint(f) - 1u);
    if (f < 0.0) return uintBitsToFloat(floatBitsToUint(f) + 1u);
    return -1.17549435e-38; // below a tiny negative x: the smallest normal (denormals may flush)
}

void main() {
    ivec2 c = cellId();
    if (!insideGrid(c)) return;
    if (c == ivec2(0)) { // this step's droplet totals, into the run's (m^3; a droplet volume unit counts as 1 m^3)
        totals.acc[SLOT_SED_DRAINED] += double(soil_drained) * (1.0lf / PARTICLE_FIXED_ONE) * double(cellArea());
        totals.acc[SLOT_RAIN] += double(int64_t(max(p.particle_count, 0)) - droplets_unborn) * double(p.particle_volume);
        totals.acc[SLOT_EVAPORATED] += double(water_evaporated) / PARTICLE_WATER_ONE;
        totals.acc[SLOT_DRAINED_WATER] += double(water_drained) / PARTICLE_WATER_ONE;
        totals.acc[TOTAL_WATER_ABSORBED] += double(water_absorbed) / PARTICLE_WATER_ONE;
        soil_drained = 0;
        water_evaporated = 0;
        water_drained = 0;
        water_absorbed = 0;
        droplets_unborn = 0;
    }
    const uint i = uint(c.y) * uint(p.width) + uint(c.x);
    const int64_t d = delta64[i];
    const float b = imageLoad(terrain_cur, c).r;
    const float s = imageLoad(sediment_cur, c).r;
    float ground = b, rest = s;
    if (d != 0 || s != 0.0) {
        const double total = double(b) + double(s) + double(d) * (1.0lf / PARTICLE_FIXED_ONE);
        ground = floatAtOrBelow(total);
        rest = float(total - double(ground));
    }
    imageStore(terrain_next, c, vec4(ground));
    if (layersOn()) imageStore(loose_next, c, vec4(looseAfter(imageLoad(loose_cur, c).r, b, ground)));
    imageStore(sediment_next, c, vec4(rest));
    delta64[i] = 0;
}
