#version 450
// Before the drawing, once per frame: how much of the sun reaches each cell's surface (ground,
// or water where wet), as a soft shadow marched towards the sun over the full-resolution
// heightfield (the penumbra widens with the distance to the occluder). The fragments sample it
// bilinearly, so shadows are as sharp as the grid whatever the drawn mesh.
#define SUN_WRITER
#include "render.glsl"

layout(local_size_x = 16, local_size_y = 16) in;

float sunShadow(vec2 p, float h) {
    vec3 s = normalize(f.sun_dir.xyz);
    float horizontal = max(length(s.xz), 1e-3);
    vec2 dir = s.xz / horizontal;                                   // cells per unit of march
    float rise = s.y / horizontal * f.grid.z / max(f.grid.w, 1e-3); // metres per cell marched
    float lit = 1.0;
    float t = 2.0; // from two cells out: the nearest slope is the lambert term's business
    for (int k = 0; k < 30; ++k) {
        vec2 q = p + dir * t;
        if (q.x < 0.0 || q.y < 0.0 || q.x > f.grid.x || q.y > f.grid.y) break;
        float above = h + rise * t - terrainBilinear(q); // bilinear: no staircase at the edges
        lit = min(lit, f.sun_dir.w * above / (t * f.grid.z));
        if (lit <= 0.0) break;
        t *= 1.18;
    }
    return clamp(lit, 0.0, 1.0);
}

void main() {
    ivec2 c = ivec2(gl_GlobalInvocationID.xy);
    if (any(greaterThanEqual(c, gridSize()))) return;
    float surface = terrainAt(c) + max(waterAt(c), 0.0);
    imageStore(sun_img, c, vec4(sunShadow(vec2(c) + 0.5, surface + 0.02 * f.grid.z)));
}
