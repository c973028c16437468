// Snow (the pipe model's step, gpu/models/snow.cpp), each cell's snow held as the water it would
// melt to (m), lying 1000 / snow_density times as deep:
//   air         T = air_temperature - lapse_rate z + season_amplitude sin(2 pi t / season_period)
//               at the ground's height z and the step's time t
//   snowfall    snowfall_rate dt, times the rain mask and the weather, where T < 0
//   melt        degree-days, dt melt_factor max(T, 0), times the sunlight the slope gets relative to
//               flat ground (sun_melt of it: 0 the same everywhere): at most the snow there; the
//               melt is the water's
//   avalanches  the snow's surface (ground + depth) steeper than snow_repose_angle towards a
//               neighbour of the eight slides, as the thermal model's talus: a cell sends half its
//               largest excess, shared in proportion to the excesses, and at most its snow.
// Every amount moved is computed from the same values by the sender's and the receiver's
// invocations (snowSent), so the slide keeps the snow to rounding whatever the order cells run in.

bool snowOn() { return p.enable_snow != 0 && p.model == MODEL_PIPE; }

float airTemperature(float z) {
    float season =
        p.season_amplitude > 0.0 ? p.season_amplitude * sin(6.283185307 * pc.sim_time / p.season_period) : 0.0;
    return p.air_temperature - p.lapse_rate * z + season;
}

// How deep snow that holds `water` m of water lies (m).
float snowDepth(float water) { return water * (1000.0 / p.snow_density); }

const ivec2 kSnowOffsets[8] = ivec2[8](ivec2(-1, 0), ivec2(1, 0), ivec2(0, -1), ivec2(0, 1), ivec2(-1, -1),
                                       ivec2(1, -1), ivec2(-1, 1), ivec2(1, 1));
const int kSnowOpposite[8] = int[8](1, 0, 3, 2, 7, 6, 5, 4);

// The snow's surface over ground `b` of snow `water`, the same bits wherever it is computed: a
// compiler free to fuse the multiply and the add would fuse it in one invocation and not in its
// neighbour's, and the two would then send each other different amounts (GPUs do; the snow
// drifted by 1.7e-6 of itself over 1,500 avalanche steps on an NVIDIA H200).
float snowSurfaceOf(float b, float water) {
    precise float depth = snowDepth(water);
    precise float h = b + depth;
    return h;
}

// The snow's surface at cell q (clamped to the grid: the loads stay outside any branch).
float snowSurface(ivec2 q) {
    ivec2 c = clampToGrid(q);
    return snowSurfaceOf(imageLoad(terrain_next, c).r, imageLoad(snow_cur, c).r);
}

// The drop (m) from a cell's snow surface to its neighbour's at the angle of repose, across a side
// (rise[0]) and a diagonal (rise[1]): computed once per invocation (tan is costly, and a compiler
// need not hoist it out of the neighbours' loop).
vec2 snowReposeRise() { return tan(p.snow_repose_angle) * vec2(1.0, 1.41421356) * p.cell_size; }

// How far the snow's surface at a cell, `from` (m), stands above the angle of repose towards its
// neighbour k whose surface is `to` (m; 0 where it does not). The caller checks the neighbour is on
// the grid.
float snowExcess(float from, float to, int k, vec2 rise) {
    precise float e = (from - to) - (k < 4 ? rise.x : rise.y);
    return e > 0.0 ? e : 0.0;
}

// What a cell of surface `from` and slide rate `rate` sends its neighbour k of surface `to` (m of
// depth).
float snowSent(float from, float to, float rate, int k, vec2 rise) {
    precise float sent = rate * snowExcess(from, to, k, rise);
    return sent;
}

// The sunlight on a slope of that gradient relative to flat ground's (0 in the slope's own shade).
float sunExposure(vec2 gradient) {
    vec3 normal = normalize(vec3(-gradient, 1.0));
    vec3 sun = vec3(cos(p.sun_elevation) * vec2(sin(p.sun_azimuth), cos(p.sun_azimuth)), sin(p.sun_elevation));
    return max(dot(normal, sun), 0.0) / sun.z;
}
