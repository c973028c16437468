// Included by every grid pass: bindings (from shared.h), the cell this invocation owns, and
// workgroup reductions. A pass that reduces must let every invocation reach the reduction, so
// passes test `inside` instead of returning early.
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#include "shared.h"

layout(local_size_x = WG_X, local_size_y = WG_Y) in;

layout(std430, binding = B_PARAMS) readonly buffer ParamsBlock { SimParams p; };
layout(push_constant) uniform PushBlock { PushConstants pc; };
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
layout(binding = B_WEAR, rg32f) uniform image2D wear_img;
layout(binding = B_FLOW, r32f) uniform image2D flow_img;
layout(binding = B_SCRATCH, rgba32f) uniform image2D scratch_img;
layout(binding = B_LAKE, r32f) uniform image2D lake_img;
layout(binding = B_DRAINAGE, r32f) uniform image2D drainage_img;
layout(binding = B_UPLIFT, r32f) uniform image2D uplift_img;
layout(std430, binding = B_DELTA) buffer DeltaBlock { int delta[]; };

#define LEFT 0
#define RIGHT 1
#define TOP 2
#define BOTTOM 3

ivec2 cellId() { return ivec2(gl_GlobalInvocationID.xy); }
bool insideGrid(ivec2 c) { return c.x < p.width && c.y < p.height; }
bool inGrid(ivec2 c) { return c.x >= 0 && c.y >= 0 && c.x < p.width && c.y < p.height; }
float cellArea() { return p.cell_size * p.cell_size; }

// Per-step sums without barriers (a barrier is costly on CPU drivers such as lavapipe): each
// subgroup adds its invocations' values and one invocation writes the subgroup's partial.
// Every invocation of the workgroup must reach these calls (passes that reduce never return
// early), so every partial slot is rewritten each step.
uint partialIndex(int slot) {
    uint group = gl_WorkGroupID.y * uint(p.group_count_x) + gl_WorkGroupID.x;
    return uint(slot) * uint(p.partial_count) + group * gl_NumSubgroups + gl_SubgroupID;
}

void addPartial(int slot, float value) {
    if (!slotActive(p, slot)) return; // uniform: the whole workgroup skips it
    float sum = subgroupAdd(value);
    if (subgroupElect()) partials[partialIndex(slot)] = sum;
}

void maxPartial(int slot, float value) {
    float m = subgroupMax(value);
    if (subgroupElect()) partials[partialIndex(slot)] = m;
}
