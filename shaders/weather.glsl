// The weather (the `rain_noise*`, `storm_*` and `orographic*` parameters): a factor 0..1 on every
// model's rain, times the rain mask (rainMaskAt, common.glsl), evaluated where the rain falls from
// the step's time and the ground: no image of its own, so it moves no bytes but the ground's.
//   noise rain   1 - contrast (1 - n), n a value-noise fBm over space (rain_noise_scale) and time
//                (it drifts through rain_noise_period): some areas get little rain, some more;
//   storms       storm_background + their cover (storms.glsl), clamped to 1;
//   orographic   more rain with height (a full share at orographic_height above the lowest
//                ground, a fifth at the bottom) and on slopes facing the wind, mixed in by
//                `orographic` (0 off).
// The fluvial model's steps are years: it reads the rain mask alone.
#include "storms.glsl"

bool weatherOn() { return p.rain_noise > 0.0 || p.storm_count > 0 || p.orographic > 0.0; }

float valueHash(ivec3 q, int seed) {
    return hashUnit(uint(q.x) * 0x8da6b343u ^ uint(q.y) * 0xd8163841u ^ uint(q.z) * 0xcb1ab31fu ^ uint(seed));
}

float valueNoise(vec3 x, int seed) {
    vec3 i = floor(x), f = x - i;
    vec3 u = f * f * (3.0 - 2.0 * f);
    ivec3 q = ivec3(i);
    float v000 = valueHash(q, seed), v100 = valueHash(q + ivec3(1, 0, 0), seed);
    float v010 = valueHash(q + ivec3(0, 1, 0), seed), v110 = valueHash(q + ivec3(1, 1, 0), seed);
    float v001 = valueHash(q + ivec3(0, 0, 1), seed), v101 = valueHash(q + ivec3(1, 0, 1), seed);
    float v011 = valueHash(q + ivec3(0, 1, 1), seed), v111 = valueHash(q + ivec3(1, 1, 1), seed);
    return mix(mix(mix(v000, v100, u.x), mix(v010, v110, u.x), u.y), mix(mix(v001, v101, u.x), mix(v011, v111, u.x), u.y),
               u.z);
}

float noiseRain(ivec2 c) {
    vec3 x = vec3((vec2(wholeCell(c)) + 0.5) * p.cell_size / p.rain_noise_scale, pc.sim_time / p.rain_noise_period);
    float n = 0.0, amplitude = 0.5;
    for (int octave = 0; octave < 3; ++octave) {
        n += amplitude * valueNoise(x, p.rain_noise_seed + octave);
        x = vec3(x.xy * 2.03, x.z * 1.5);
        amplitude *= 0.5;
    }
    n = clamp((n / 0.875 - 0.5) * 2.0 + 0.5, 0.0, 1.0); // stretched: the fBm's middle to 0..1
    return 1.0 - p.rain_noise * (1.0 - n);
}

float stormRain(ivec2 c) {
    StormSky s = StormSky(pc.sim_time, p.storm_radius / p.cell_size, p.storm_intensity, p.storm_speed / p.cell_size,
                          p.wind_direction, p.storm_lifetime, p.storm_count, p.storm_seed, wholeGrid());
    return min(p.storm_background + stormCover(vec2(wholeCell(c)) + 0.5, s), 1.0);
}

float orographicRain(ivec2 c) {
    float z = imageLoad(terrain_cur, c).r;
    ivec2 lo = clampToGrid(c - 1), hi = clampToGrid(c + 1);
    vec2 gradient = centralGradient(c, imageLoad(terrain_cur, ivec2(lo.x, c.y)).r, imageLoad(terrain_cur, ivec2(hi.x, c.y)).r,
                                    imageLoad(terrain_cur, ivec2(c.x, lo.y)).r, imageLoad(terrain_cur, ivec2(c.x, hi.y)).r);
    // Facing the wind: the ground rises along the wind's heading.
    float facing = dot(gradient, vec2(cos(p.wind_direction), sin(p.wind_direction)));
    float lift = 0.2 + 0.8 * clamp((z - p.orographic_base) / p.orographic_height, 0.0, 1.0) +
                 p.orographic_slope * max(facing, 0.0);
    return mix(1.0, clamp(lift, 0.0, 1.0), p.orographic);
}

float weatherAt(ivec2 c) {
    float w = 1.0;
    if (p.rain_noise > 0.0) w *= noiseRain(c);
    if (p.storm_count > 0) w *= stormRain(c);
    if (p.orographic > 0.0) w *= orographicRain(c);
    return w;
}
