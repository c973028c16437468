// Storms drifting over the terrain (the `storm_*` parameters), shared by the passes that rain
// (weather.glsl) and the viewer, which draws their clouds' shadows (surface_shade.frag): the same
// function of the same numbers, so the shadow is where it rains.
// Storm k lives `lifetime` seconds, over and over, each life offset by a hashed phase; each life
// starts at a hashed point (upwind of the grid by half its travel, so storms cross it), moves
// downwind at `speed`, and rains with intensity sin(pi age / lifetime) times (1 - (d / R)^2)^2
// within its radius R. Hashes are integer (the same on every device).

struct StormSky {
    float time;      // s since the start
    float radius;    // cells
    float intensity; // 0..1, the core's rain at the peak of its life
    float speed;     // cells a second
    float direction; // radians, the wind's heading (x right, y down)
    float lifetime;  // s
    int count;       // 0: no storms
    int seed;
    vec2 grid; // cells
};

#include "hash.glsl"

// How much it rains at `cell` from the storms (0..1 before the caller's clamp).
float stormCover(vec2 cell, StormSky s) {
    float cover = 0.0;
    vec2 wind = vec2(cos(s.direction), sin(s.direction));
    float travel = s.speed * s.lifetime;
    for (int k = 0; k < min(s.count, 16); ++k) {
        uint key = hash32(uint(s.seed) * 0x9e3779b9u + uint(k) * 0x85ebca6bu);
        float clock = s.time + hashUnit(key) * s.lifetime;
        float life = floor(clock / s.lifetime);
        float age = clock - life * s.lifetime;
        uint born = hash32(key ^ uint(int(life)) * 0xc2b2ae35u);
        vec2 start = vec2(hashUnit(born), hashUnit(born + 1u)) * s.grid - wind * (0.5 * travel);
        vec2 centre = start + wind * (s.speed * age);
        vec2 d = (cell - centre) / max(s.radius, 1e-3);
        float t2 = dot(d, d);
        if (t2 >= 1.0) continue;
        float falloff = (1.0 - t2) * (1.0 - t2);
        cover += s.intensity * sin(3.14159265 * age / s.lifetime) * falloff;
    }
    return cover;
}
