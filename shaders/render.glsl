// Included by the viewer's shaders: the simulation images (read-only), the per-frame block and
// sampling helpers in cell coordinates (cell i's centre at i + 0.5, like the brush).
#extension GL_GOOGLE_include_directive : require
#include "render_shared.h"

layout(set = 0, binding = R_TERRAIN, r32f) uniform readonly image2D terrain_img;
layout(set = 0, binding = R_WATER, r32f) uniform readonly image2D water_img;
layout(set = 0, binding = R_SEDIMENT, r32f) uniform readonly image2D sediment_img;
layout(set = 0, binding = R_VELOCITY, rg32f) uniform readonly image2D velocity_img;
layout(set = 0, binding = R_HARDNESS, r32f) uniform readonly image2D hardness_img;
layout(set = 0, binding = R_WEAR, rg32f) uniform readonly image2D wear_img;
layout(set = 0, binding = R_OUTFLOW, rgba32f) uniform readonly image2D outflow_img;
layout(set = 0, binding = R_OUTFLOW_XY, rg32f) uniform readonly image2D outflow_xy_img;
layout(set = 0, binding = R_OUTFLOW_ZW, rg32f) uniform readonly image2D outflow_zw_img;
layout(set = 0, binding = R_LAKE, r32f) uniform readonly image2D lake_img;
layout(set = 0, binding = R_DRAINAGE, r32f) uniform readonly image2D drainage_img;
layout(set = 0, binding = R_WATER_TABLE, r32f) uniform readonly image2D water_table_img;
layout(set = 0, binding = R_SEEPAGE, r32f) uniform readonly image2D seepage_img;
layout(set = 0, binding = R_LOOSE, r32f) uniform readonly image2D loose_img;
layout(set = 0, binding = R_SNOW, r32f) uniform readonly image2D snow_img;
layout(set = 0, binding = R_VEGETATION, rg32f) uniform readonly image2D vegetation_img;
layout(set = 0, binding = R_LAVA, rg32f) uniform readonly image2D lava_img;
#ifdef SUN_WRITER
layout(set = 0, binding = R_SUN, r32f) uniform writeonly image2D sun_img;
#else
layout(set = 0, binding = R_SUN, r32f) uniform readonly image2D sun_img;
#endif
#ifdef SUN_CHECK
layout(set = 0, binding = R_SUN_SEEN, rg32f) uniform image2D sun_seen_img;
layout(std430, set = 1, binding = R_SUN_CONTROL) buffer SunControlBlock {
    uint dispatch_x, dispatch_y, dispatch_z; // surface_sun.comp's workgroups (0: the sunlight is kept)
    uint changed;                            // a cell's ground or water changed (surface_sun_check.comp)
    uint valid;                              // 0: the inputs below, or the sunlight, are not those of the last check
    uint recomputed;                         // sunlight passes the checks dispatched (tests)
    uint pad0, pad1;
    vec4 sun_dir; // the frame block's, when last checked
    vec4 grid;
    float lakes; // relief.w
}
sun_ctl;
#endif

layout(std140, set = 1, binding = R_FRAME) uniform FrameBlock {
    mat4 view_proj;
    vec4 camera_pos; // xyz: eye (m, world: x east, y up, z south); w: 1 orthographic
    vec4 sun_dir;    // xyz: towards the sun; w: shadow softness
    vec4 brush;      // x, y (cells), radius (cells), w: 1 to draw the ring
    vec4 grid;       // width, height (cells), cell size (m), vertical exaggeration
    vec4 mesh;       // vertices per side x, y, skirt base height (m), time (s)
    vec4 overlay;    // x: OVERLAY_*, y: range max, z: water shown, w: sun elevation-ish
    vec4 ray_origin; // picking ray, world
    vec4 ray_dir;
    vec4 relief;  // lowest, highest ground at reset (m), hidden-panel flag, 1: lakes are water (fluvial)
    vec4 storms;  // the weather's storms: time (s), radius (cells), intensity, speed (cells/s)
    vec4 storms2; // ... wind direction (radians), lifetime (s), count, seed
    vec4 ground;  // x: 1 on layered ground; y: snow on; z: snow depth per m of its water; w: vegetation on
    vec4 lava;    // x: 1 while lava flows; y: the vent's temperature (K)
}
f;

#include "storms.glsl"

// The storms' clouds shade the ground under them (0.2 .. 1 of the sunlight): a cloud is opaque
// well before its rain is heavy, so the shadow saturates at a third of the core's rain.
float cloudShadow(vec2 p) {
    if (f.storms2.z < 0.5) return 1.0;
    StormSky s = StormSky(f.storms.x, f.storms.y, f.storms.z, f.storms.w, f.storms2.x, f.storms2.y, int(f.storms2.z),
                          int(f.storms2.w), f.grid.xy);
    return 1.0 - 0.8 * smoothstep(0.0, 0.33, stormCover(p, s));
}

ivec2 gridSize() { return ivec2(f.grid.xy); }
ivec2 clampCell(ivec2 c) { return clamp(c, ivec2(0), gridSize() - 1); }

float terrainAt(ivec2 c) { return imageLoad(terrain_img, clampCell(c)).r; }
// The water drawn: the pipe model's depth, plus the fluvial model's lakes while it runs.
float waterAt(ivec2 c) {
    c = clampCell(c);
    float d = imageLoad(water_img, c).r;
    return f.relief.w > 0.5 ? d + imageLoad(lake_img, c).r : d;
}

// Bilinear sampling between cell centres (p in cells): the lower-left of the four cells around p
// and p's weights between them.
struct Bilinear {
    ivec2 i;
    vec2 t;
};
Bilinear bilinearAt(vec2 p) {
    vec2 q = p - 0.5;
    ivec2 i = ivec2(floor(q));
    return Bilinear(i, q - vec2(i));
}
// Corner k of the four: 0 the lower-left cell, 1 the next in x, 2 the next in y, 3 both; clamped.
ivec2 bilinearCell(Bilinear b, int k) { return clampCell(b.i + ivec2(k & 1, k >> 1)); }
float bilerp(Bilinear b, float v0, float v1, float v2, float v3) {
    return mix(mix(v0, v1, b.t.x), mix(v2, v3, b.t.x), b.t.y);
}
vec2 bilerp(Bilinear b, vec2 v0, vec2 v1, vec2 v2, vec2 v3) {
    return mix(mix(v0, v1, b.t.x), mix(v2, v3, b.t.x), b.t.y);
}
vec3 bilerp(Bilinear b, vec3 v0, vec3 v1, vec3 v2, vec3 v3) {
    return mix(mix(v0, v1, b.t.x), mix(v2, v3, b.t.x), b.t.y);
}
// One channel of an image at p, bilinear (a macro: a function cannot take an image here).
#define IMAGE_BILINEAR_R(img, b)                                                                                       \
    bilerp(b, imageLoad(img, bilinearCell(b, 0)).r, imageLoad(img, bilinearCell(b, 1)).r,                              \
           imageLoad(img, bilinearCell(b, 2)).r, imageLoad(img, bilinearCell(b, 3)).r)

float terrainBilinear(vec2 p) {
    Bilinear b = bilinearAt(p);
    return bilerp(b, terrainAt(b.i), terrainAt(b.i + ivec2(1, 0)), terrainAt(b.i + ivec2(0, 1)),
                  terrainAt(b.i + ivec2(1, 1)));
}

float waterBilinear(vec2 p) {
    Bilinear b = bilinearAt(p);
    return bilerp(b, waterAt(b.i), waterAt(b.i + ivec2(1, 0)), waterAt(b.i + ivec2(0, 1)), waterAt(b.i + ivec2(1, 1)));
}

// World position of cell coordinates p at height h (m).
vec3 worldPos(vec2 p, float h) { return vec3(p.x * f.grid.z, h * f.grid.w, p.y * f.grid.z); }
