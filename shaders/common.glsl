// Included by every grid pass: bindings (from shared.h), the cell this invocation owns, and
// workgroup reductions. A pass that reduces must let every invocation reach the reduction, so
// passes test `inside` instead of returning early.
#extension GL_GOOGLE_include_directive : require
#include "shared.h"

layout(local_size_x = WG_X, local_size_y = WG_Y) in;

layout(std430, binding = B_PARAMS) readonly buffer ParamsBlock { SimParams p; };
layout(std430, binding = B_PARTIALS) buffer PartialsBlock { float partials[]; };
layout(std430, binding = B_SPRINGS) readonly buffer SpringsBlock { vec4 springs[]; };

layout(binding = B_TERRAIN_CUR, r32f) uniform image2D terrain_cur;
layout(binding = B_TERRAIN_NEXT, r32f) uniform image2D terrain_next;
layout(binding = B_WATER_CUR, r32f) uniform image2D water_cur;
layout(binding = B_WATER_NEXT, r32f) uniform image2D water_next;
layout(binding = B_SEDIMENT_CUR, r32f) uniform image2D sediment_cur;
layout(binding = B_SEDIMENT_NEXT, r32f) uniform image2D sediment_next;
layout(binding = B_OUTFLOW_CUR, rgba32f) uniform image2D outflow_cur;
layout(binding = B_OUTFLOW_NEXT, rgba32f) uniform image2D outflow_next;
layout(binding = B_VELOCITY, rg32f) uniform image2D velocity_img;
layout(binding = B_HARDNESS, r32f) uniform image2D hardness_img;
layout(binding = B_THERMAL_AXIS, rgba32f) uniform image2D thermal_axis;
layout(binding = B_THERMAL_DIAG, rgba32f) uniform image2D thermal_diag;
layout(binding = B_RAIN_MASK, r32f) uniform image2D rain_mask;

#define LEFT 0
#define RIGHT 1
#define TOP 2
#define BOTTOM 3

ivec2 cellId() { return ivec2(gl_GlobalInvocationID.xy); }
bool insideGrid(ivec2 c) { return c.x < p.width && c.y < p.height; }
bool inGrid(ivec2 c) { return c.x >= 0 && c.y >= 0 && c.x < p.width && c.y < p.height; }
float cellArea() { return p.cell_size * p.cell_size; }

shared vec4 reduce_buffer[WG_SIZE];

// Sum (or max) of v over the workgroup; the result is valid in invocation 0.
vec4 groupSum(vec4 v) {
    uint i = gl_LocalInvocationIndex;
    reduce_buffer[i] = v;
    barrier();
    for (uint stride = WG_SIZE / 2; stride > 0; stride >>= 1) {
        if (i < stride) reduce_buffer[i] += reduce_buffer[i + stride];
        barrier();
    }
    vec4 r = reduce_buffer[0];
    barrier();
    return r;
}

vec4 groupMax(vec4 v) {
    uint i = gl_LocalInvocationIndex;
    reduce_buffer[i] = v;
    barrier();
    for (uint stride = WG_SIZE / 2; stride > 0; stride >>= 1) {
        if (i < stride) reduce_buffer[i] = max(reduce_buffer[i], reduce_buffer[i + stride]);
        barrier();
    }
    vec4 r = reduce_buffer[0];
    barrier();
    return r;
}

uint groupIndex() { return gl_WorkGroupID.y * uint(p.group_count_x) + gl_WorkGroupID.x; }
uint groupCount() { return uint(p.group_count_x * p.group_count_y); }

void writePartial(int slot, float value) {
    if (gl_LocalInvocationIndex == 0) partials[uint(slot) * groupCount() + groupIndex()] = value;
}
