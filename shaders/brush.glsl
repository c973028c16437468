// Included by the brush passes: bindings, push constants and the brush's weight.
#extension GL_GOOGLE_include_directive : require
#include "brush_shared.h"

layout(push_constant) uniform BrushBlock { BrushParams b; };
layout(binding = BB_TERRAIN, r32f) uniform image2D terrain_img;
layout(binding = BB_WATER, r32f) uniform image2D water_img;
layout(binding = BB_HARDNESS, r32f) uniform image2D hardness_img;
layout(binding = BB_SCRATCH, r32f) uniform image2D scratch_img;
layout(binding = BB_UPLIFT, r32f) uniform image2D uplift_img;
layout(binding = BB_RAIN, r32f) uniform image2D rain_img;
layout(binding = BB_LOOSE, r32f) uniform image2D loose_img;
layout(binding = BB_SNOW, r32f) uniform image2D snow_img;
layout(binding = BB_VEGETATION, rg32f) uniform image2D vegetation_img;
layout(binding = BB_LAVA, rg32f) uniform image2D lava_img;

// The loose layer once the ground of cell c changed by dh (m): gains are loose if `loose_gain`
// (else they are rock: the sculptor's raise), losses take the loose layer first.
void changeLoose(ivec2 c, float dh, bool loose_gain) {
    if (b.layers == 0 || (dh > 0.0 && !loose_gain)) return;
    imageStore(loose_img, c, vec4(max(imageLoad(loose_img, c).r + dh, 0.0)));
}
layout(std430, binding = BB_PARTIALS) buffer PartialsBlock { float partials[]; };
layout(std430, binding = BB_TOTALS) buffer TotalsBlock { double totals[BRUSH_SLOTS]; };

// 0 outside the disk; inside, (1 - t^2)^(2 falloff) with t the distance over the radius.
float brushWeight(ivec2 c) {
    vec2 d = vec2(c) + 0.5 - vec2(b.x, b.y);
    float t2 = dot(d, d) / (b.radius * b.radius);
    if (t2 >= 1.0) return 0.0;
    return b.falloff <= 0.0 ? 1.0 : pow(1.0 - t2, 2.0 * b.falloff);
}

bool inGrid(ivec2 c) { return c.x >= 0 && c.y >= 0 && c.x < b.width && c.y < b.height; }
