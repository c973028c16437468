// Included by every grid pass: bindings (from shared.h), the cell this invocation owns, the
// layout of 4-channel fields, and the pipe step's water sources. A pass that produces the step's
// sums (partials.glsl) must let every invocation reach them, so it tests `inside` instead of
// returning early.
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#include "field_table.h"
#include "shared.h"

#ifdef FLUVIAL_TILES
// The fluvial model's passes: one invocation per cell of a FLUVIAL_TILE^2 tile.
layout(local_size_x = FLUVIAL_TILE, local_size_y = FLUVIAL_TILE) in;
#define WG_X FLUVIAL_TILE
#define WG_Y FLUVIAL_TILE
#else
// The grid passes: the workgroup's shape is a specialization (SPEC_WG_X x SPEC_WG_Y: the tile's,
// WG_SIZE cells, 16 x 16 unless the host sets it; a pass with rows, partials.glsl's SUM_ROWS,
// gets the tile's height / SUM_ROWS). WG_X and WG_Y are specialization-constant expressions, so shared
// arrays sized by them follow the shape.
layout(local_size_x = 16, local_size_y = 16) in;
layout(local_size_x_id = SPEC_WG_X, local_size_y_id = SPEC_WG_Y) in;
#define WG_X int(gl_WorkGroupSize.x)
#define WG_Y int(gl_WorkGroupSize.y)
#endif

layout(std430, binding = B_PARAMS) readonly buffer ParamsBlock { SimParams p; };
layout(push_constant) uniform PushBlock { PushConstants pc; };
layout(std430, binding = B_PARTIALS) buffer PartialsBlock { double partials[]; };
layout(std430, binding = B_SPRINGS) readonly buffer SpringsBlock { vec4 springs[]; };

// Every field's images, from its row (field_table.h): `<name>_img`, or `<name>_cur` and
// `<name>_next` for a ping-pong field (and `<name>_xy_cur` ... for its split layout).
#define FIELD_IMAGES_Single(name, format, slot) layout(binding = slot, format) uniform image2D name##_img;
#define FIELD_IMAGES_PingPong(name, format, slot)                                                                      \
    layout(binding = slot, format) uniform image2D name##_cur;                                                         \
    layout(binding = slot + 1, format) uniform image2D name##_next;
#define FIELD_IMAGES_PingPongSplit(name, format, slot)                                                                 \
    FIELD_IMAGES_PingPong(name, format, slot) layout(binding = slot + 2, rg32f) uniform image2D name##_xy_cur;         \
    layout(binding = slot + 3, rg32f) uniform image2D name##_zw_cur;                                                   \
    layout(binding = slot + 4, rg32f) uniform image2D name##_xy_next;                                                  \
    layout(binding = slot + 5, rg32f) uniform image2D name##_zw_next;
#define FIELD_IMAGES(Enum, name, channels, format, layout, kept, size, initial, binding, meaning)                      \
    FIELD_IMAGES_##layout(name, format, binding)
ALLUVIUM_FIELDS(FIELD_IMAGES)

// A 4-channel field too large for one allocation is two rg32f images (gpu/simulation.cpp
// decides; the host sets this constant for every pipeline of the simulation).
layout(constant_id = SPEC_SPLIT_WIDE) const bool SPLIT_WIDE = false;
// The step's sums per subgroup, without a workgroup barrier (CPU drivers: gpu/workgroup.h,
// resolvePartialsPerGroup; partials.glsl, grid_models.glsl), p.partials_per_group per workgroup.
layout(constant_id = SPEC_SUBGROUP_PARTIALS) const bool SUBGROUP_PARTIALS = false;
// The pipe step's optional parts compiled into this pipeline (STEP_* in shared.h): the step's
// passes get exactly those the parameters turn on (gpu::stepParts), every other pipeline all of
// them. A CPU driver runs both sides of every branch, uniform ones too, under a mask: on lavapipe
// at 512^2 the parts that are off (sea, springs, rain mask, maps) cost 2.2 ms of a 29 ms step.
layout(constant_id = SPEC_STEP_PARTS) const uint STEP_PARTS = STEP_ALL;
// Whether a part is on: compiled in, and on in the parameters (which the host keeps in step with
// the parts, so the test of `on` is what a pipeline with every part does).
bool partOn(uint part, bool on) { return (STEP_PARTS & part) != 0u && on; }

vec4 loadOutflowCur(ivec2 c) {
    if (SPLIT_WIDE) return vec4(imageLoad(outflow_xy_cur, c).xy, imageLoad(outflow_zw_cur, c).xy);
    return imageLoad(outflow_cur, c);
}
vec4 loadOutflowNext(ivec2 c) {
    if (SPLIT_WIDE) return vec4(imageLoad(outflow_xy_next, c).xy, imageLoad(outflow_zw_next, c).xy);
    return imageLoad(outflow_next, c);
}
void storeOutflowNext(ivec2 c, vec4 o) {
    if (SPLIT_WIDE) {
        imageStore(outflow_xy_next, c, vec4(o.xy, 0.0, 0.0));
        imageStore(outflow_zw_next, c, vec4(o.zw, 0.0, 0.0));
    } else {
        imageStore(outflow_next, c, o);
    }
}
layout(std430, binding = B_DELTA) buffer DeltaBlock { int delta[]; };

#define LEFT 0
#define RIGHT 1
#define TOP 2
#define BOTTOM 3

ivec2 cellId() { return ivec2(gl_GlobalInvocationID.xy); }
// A cell's place in the whole grid, for what depends on where a cell is (rain noise, storms,
// strata, the vent, springs): a block of a grid split over processes starts at the origin, and
// computes the same bits as the whole grid's cell there. Neighbours and edges stay the block's.
ivec2 wholeCell(ivec2 c) { return c + ivec2(p.origin_x, p.origin_y); }
vec2 wholeGrid() { return vec2(p.full_width, p.full_height); }
// Whether this block owns cell c (every cell on one device): counts of a split grid count each
// cell once.
bool ownedCell(ivec2 c) { return c.x >= p.own_x0 && c.y >= p.own_y0 && c.x < p.own_x1 && c.y < p.own_y1; }
bool insideGrid(ivec2 c) { return c.x < p.width && c.y < p.height; }
bool inGrid(ivec2 c) { return c.x >= 0 && c.y >= 0 && c.x < p.width && c.y < p.height; }
// The nearest cell of the grid. A neighbour's value is loaded at clampToGrid(q) and then chosen
// by inGrid(q) (`inGrid(q) ? v : outside`): the load runs in every invocation, outside any branch,
// which CPU drivers vectorize (llvmpipe runs a load under a divergent branch per lane) and GPUs
// do not mind; the value is the same.
ivec2 clampToGrid(ivec2 q) { return clamp(q, ivec2(0), ivec2(p.width - 1, p.height - 1)); }
// The ground's gradient at c by central differences, from the heights of its four neighbours
// loaded at clampToGrid (one-sided at the grid's edges, a single cell wide: 0 across it).
vec2 centralGradient(ivec2 c, float lo_x, float hi_x, float lo_y, float hi_y) {
    ivec2 lo = clampToGrid(c - 1), hi = clampToGrid(c + 1);
    vec2 span = max(vec2(hi - lo), vec2(1.0)) * p.cell_size;
    return vec2(hi_x - lo_x, hi_y - lo_y) / span;
}
float cellArea() { return p.cell_size * p.cell_size; }

#include "weather.glsl"

// Where it rains, 0..1: the rain mask (--rain-mask, the brush) times the weather. Every model's
// rain is times it. The mask is not read while it is uniform (1 everywhere), the weather not
// computed while it is off.
float rainMaskAt(ivec2 c) {
    float mask = partOn(STEP_RAIN_MASK, p.rain_uniform == 0) ? imageLoad(rain_mask_img, c).r : 1.0;
    return partOn(STEP_WEATHER, weatherOn()) ? mask * weatherAt(c) : mask;
}
// Whether the rain differs from cell to cell.
bool rainVaries() { return partOn(STEP_RAIN_MASK, p.rain_uniform == 0) || partOn(STEP_WEATHER, weatherOn()); }

// The water a cell receives at the start of a pipe step (design step 1; m of depth): rain times
// the rain mask, and the springs' rate per cell.
float rainDepth(ivec2 c) {
    float mask = rainMaskAt(c);
    // `precise`: no multiply-add with what the depth is added to. A pipeline without the rain
    // mask (STEP_PARTS) knows mask = 1 and could fuse dt * rate into that add; one with it could
    // not, and the two would round differently.
    precise float depth = p.time_step * p.rain_rate * mask;
    return depth;
}
// An ocean cell, below the sea's surface and connected to a sea edge below it, i.e. its
// spill surface (the lowest level at which it reaches the open sea, gpu/sea.cpp) is under the
// surface. The spill surface is loaded before the test on b (a load under a divergent branch runs
// lane by lane on a CPU driver), under the uniform test for a sea only.
bool isOcean(ivec2 c, float b, float surface) {
    bool sea = partOn(STEP_SEA, p.enable_sea != 0) && p.model == MODEL_PIPE;
    float spill = sea ? imageLoad(sea_spill_img, c).r : 0.0;
    return sea && b < surface && spill < surface;
}

float springDepth(ivec2 c) {
    if (!partOn(STEP_SPRINGS, p.spring_count > 0)) return 0.0;
    precise float depth = p.time_step * imageLoad(spring_rate_img, c).r; // precise: as rainDepth
    return depth;
}
float waterAfterSources(ivec2 c) { return imageLoad(water_cur, c).r + rainDepth(c) + springDepth(c); }

#include "layers.glsl"
#include "vegetation.glsl"
