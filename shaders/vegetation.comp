#version 450
// Vegetation (vegetation.glsl): each cell on its own, after the pipe step's erosion, snow and
// groundwater: the wetness averaged, the density grown or died back (logistic), uprooted by a
// flood, buried by a deposit. Reads the step's old and new ground, its new water and velocity
// (and the water table with groundwater); the vegetation image in place.
#include "common.glsl"
#include "lava.glsl"

// tan of the ground's slope at c (central differences of the new ground).
float groundSlope(ivec2 c) {
    ivec2 lo = clampToGrid(c - 1), hi = clampToGrid(c + 1);
    vec2 gradient = centralGradient(c, imageLoad(terrain_next, ivec2(lo.x, c.y)).r, imageLoad(terrain_next, ivec2(hi.x, c.y)).r,
                                    imageLoad(terrain_next, ivec2(c.x, lo.y)).r, imageLoad(terrain_next, ivec2(c.x, hi.y)).r);
    return length(gradient);
}

void main() {
    if (!vegetationOn()) return; // uniform: off, a pass on its own does nothing
    ivec2 c = cellId();
    if (!insideGrid(c)) return;
    vec2 state = imageLoad(vegetation_img, c).rg;
    float v = state.x, wet = state.y;
    float b = imageLoad(terrain_next, c).r, d = imageLoad(water_next, c).r;
    wet = mix(wet, d, 1.0 - exp(-p.time_step / p.vegetation_memory));
    float moisture = clamp(wet / p.vegetation_wet_depth, 0.0, 1.0);
    if (p.enable_groundwater != 0) {
        float table = imageLoad(water_table_img, c).r;
        moisture = max(moisture, clamp(1.0 - (b - table) / p.vegetation_root_depth, 0.0, 1.0));
    }
    float steepest = tan(p.vegetation_max_slope);
    float q = moisture * (1.0 - smoothstep(0.75 * steepest, steepest, groundSlope(c)));
    float r = p.vegetation_growth * q - p.vegetation_decay * (1.0 - q);
    if (r > 0.0) v = max(v, p.vegetation_seed);
    // The logistic's exact step: v(t + dt) = v / (v + (1 - v) e^(-r dt)).
    v = v / (v + (1.0 - v) * exp(-r * p.time_step));
    // A flood: bed shear stress rho g n^2 |u|^2 / d^(1/3) (Manning) over the threshold.
    float n = p.manning_n + p.vegetation_roughness * v;
    float speed = length(imageLoad(velocity_img, c).xy);
    float shear = 1000.0 * p.gravity * n * n * speed * speed / pow(max(d, p.dry_depth), 1.0 / 3.0);
    if (d > p.dry_depth && shear > p.vegetation_shear) v *= exp(-p.vegetation_uproot_rate * p.time_step);
    // Burial under what the step deposited.
    float raised = b - imageLoad(terrain_cur, c).r;
    if (raised > 0.0) v *= max(1.0 - raised / p.vegetation_burial, 0.0);
    // Lava burns it.
    if (lavaOn() && imageLoad(lava_next, c).r > 0.0) v = 0.0;
    imageStore(vegetation_img, c, vec4(clamp(v, 0.0, 1.0), wet, 0.0, 0.0));
}
