// Shared between the brush passes (brush*.comp) and C++ (gpu/brush.h): the brush runs once per
// frame between simulation steps, on the current ("cur") images, for every erosion model.
#ifndef ALLUVIUM_BRUSH_SHARED_H
#define ALLUVIUM_BRUSH_SHARED_H

#ifdef __cplusplus
namespace alluvium::gpu {
#endif

// Tools: the same numbers as the viewer's keys (1..4 match BRUSH_* in shared.h).
#define BRUSH_TOOL_ADD_WATER 1
#define BRUSH_TOOL_REMOVE_WATER 2
#define BRUSH_TOOL_RAISE 3
#define BRUSH_TOOL_LOWER 4
#define BRUSH_TOOL_SMOOTH 5      // mass-exact diffusion of the ground inside the brush
#define BRUSH_TOOL_FLATTEN 6     // towards `target` (m)
#define BRUSH_TOOL_HARDNESS 7    // hardness towards `target` (0..1)
#define BRUSH_TOOL_PICK_UP 9     // the hand: takes ground away (tallied as held)
#define BRUSH_TOOL_DROP 10       // the hand: puts back all it holds, spread by the brush's weights
#define BRUSH_TOOL_UPLIFT 11     // the fluvial model's uplift multiplier towards `target` (0..10)
#define BRUSH_TOOL_RAIN 12       // the rain mask (the rain's multiplier) towards `target` (0..1)
#define BRUSH_TOOL_SAND 13       // lays loose material (m): ground and loose layer rise together
#define BRUSH_TOOL_SNOW 14       // lays snow (m of the water it holds; tallied as the brush's water)
#define BRUSH_TOOL_VEGETATION 15 // the vegetation's density towards `target` (0..1): plants, clears
#define BRUSH_TOOL_LAVA 16       // pours lava (m) at `target` K (tallied as lava poured)

// Binding slots of the brush's own descriptor set.
#define BB_TERRAIN 0     // r32f, the simulation's current terrain
#define BB_WATER 1       // r32f, current water
#define BB_HARDNESS 2    // r32f
#define BB_SCRATCH 3     // r32f, the smoothed heights before they are committed
#define BB_PARTIALS 4    // float[groups][BRUSH_SLOTS]
#define BB_TOTALS 5      // double[BRUSH_SLOTS], accumulated over the run
#define BB_UPLIFT 6      // r32f, the uplift multiplier (fluvial model)
#define BB_RAIN 7        // r32f, the rain mask
#define BB_LOOSE 8       // r32f, the current loose layer (layered ground)
#define BB_SNOW 9        // r32f, the current snow (m of water)
#define BB_VEGETATION 10 // rg32f, vegetation: density, wetness
#define BB_LAVA 11       // rg32f, the current lava: depth, temperature
#define BB_COUNT 12

// Tally slots (m^3).
#define BRUSH_WATER_ADDED 0
#define BRUSH_WATER_REMOVED 1
#define BRUSH_TERRAIN_ADDED 2
#define BRUSH_TERRAIN_REMOVED 3
#define BRUSH_HAND_PICKED 4  // also counted in TERRAIN_REMOVED
#define BRUSH_HAND_DROPPED 5 // also counted in TERRAIN_ADDED
#define BRUSH_LAVA_POURED 6  // the lava brush's (its tally goes here instead of TERRAIN_ADDED)
#define BRUSH_SLOTS 8

#define BRUSH_WG 16

// Push constants of every brush pass (scalars only: the C++ and GLSL layouts agree).
struct BrushParams {
    int tool;  // BRUSH_TOOL_*
    int width; // cells
    int height;
    int group_count_x;
    int group_count; // workgroups of the apply pass
    float x;         // centre (cells; cell i's centre at i + 0.5)
    float y;
    float radius;    // cells
    float falloff;   // 0: flat disk .. 1: (1 - r^2)^2
    float amount;    // at the centre, for this application: m (water, raise, lower, pick up),
                     // a fraction (smooth <= 0.25, flatten, hardness); drop: 1 / (cell area x
                     // the weight sum), times the volume held (read from the totals on the GPU)
    float target;    // flatten: height (m); hardness: 0..1; uplift: 0..10
    float cell_area; // m^2
    int layers;      // layered ground: what the brush takes comes off the loose layer first,
                     // what the hand drops, smoothing moves and sand lays is loose
};

#ifdef __cplusplus
} // namespace alluvium::gpu
#endif
#endif
