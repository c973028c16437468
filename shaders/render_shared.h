// Shared between the viewer's GLSL (surface_mesh.vert, surface_shade.frag, pick.comp) and C++ (app/viewer): the
// descriptor bindings of the drawing, the overlay views and the size of the drawn mesh.
#ifndef ALLUVIUM_RENDER_SHARED_H
#define ALLUVIUM_RENDER_SHARED_H

// Set 0: the simulation's images, read-only (one set per parity key of the simulation).
// clang-format off
#define R_TERRAIN 0  // r32f   ground height (m)
#define R_WATER 1    // r32f   water depth (m)
#define R_SEDIMENT 2 // r32f   suspended sediment (m)
#define R_VELOCITY 3 // rg32f  (m/s)
#define R_HARDNESS 4 // r32f
#define R_WEAR 5     // rg32f  eroded, deposited since the start (m)
#define R_OUTFLOW 6  // rgba32f face speeds (m/s)
#define R_SUN 7      // r32f   the viewer's own: sunlight reaching each cell, 0..1 (surface_sun.comp)
#define R_LAKE 8     // r32f   the fluvial model's lake depth (m), drawn as water in that model
#define R_DRAINAGE 9 // r32f   the fluvial model's drainage area (m^2)
#define R_OUTFLOW_XY 10 // rg32f the outflow's left, right when the simulation splits it (huge grids)
#define R_OUTFLOW_ZW 11 // rg32f ... top, bottom
#define R_WATER_TABLE 12 // r32f the water table (m): the groundwater's, or the equilibrium's
#define R_SEEPAGE 13     // r32f groundwater seeping out (m/s): springs, drawn as such
#define R_SUN_SEEN 14    // rg32f the viewer's own: each cell's ground and drawn water (m) when a
                         // paused frame last checked them (surface_sun_check.comp)
#define R_LOOSE 15       // r32f layered ground: the loose layer's thickness (m)
#define R_SNOW 16        // r32f snow, as the water it holds (m)
#define R_VEGETATION 17  // rg32f vegetation: density 0..1, recent wetness (m)
#define R_LAVA 18        // rg32f lava: depth (m), temperature (K)
#define R_IMAGE_COUNT 19
// Set 1: per frame in flight.
#define R_FRAME 0 // uniform FrameBlock (the C++ mirror is viewer::FrameUniforms)
#define R_PICK 1  // buffer: vec4 hit (cell x, cell y, height m, 1 if hit), uint non_finite (the
                  // host clears it; surface_prepare.comp sets it if a height or depth is NaN/Inf)
#define R_VERTICES 2     // buffer: vec4 per mesh vertex (ground m, water depth m, 0, 0)
#define R_WATER_INDICES 3 // buffer: uint[], the triangles of the wet quads (an index buffer)
#define R_WATER_DRAW 4   // buffer: VkDrawIndexedIndirectCommand of the water surface
#define R_SUN_CONTROL 5  // buffer: SunControl, one for all frames (surface_sun_control.comp)
#define R_FRAME_BINDINGS 6
// SunControl's `valid` word (render.glsl's SunControlBlock; the C++ mirror is viewer::SunControl),
// which frames that step clear.
#define SUN_CONTROL_VALID 4
#define PREPARE_WG 64    // surface_prepare.comp: invocations per workgroup (one per vertex)
#define PREPARE_ROW_GROUPS 4096 // surface_prepare.comp: workgroups per row of its dispatch (in y above that)
#define WET_DEPTH 3e-3   // m: shallower water is not drawn (a film the eye would not see)
// clang-format on

// The drawn grid: at most this many vertices a side whatever the simulation's size, plus a ring
// of skirt vertices around it (so (n + 2)^2 vertices in all), by device: a discrete GPU draws up
// to 2048^2 (one vertex per cell up to 2048^2 cells: the mesh follows the simulation's detail),
// an integrated one 512^2, CPU drivers (lavapipe shades vertices on one thread) 128^2. The
// fragments read every cell for normals and colours at any mesh size.
#define MESH_MAX_DISCRETE 2048
#define MESH_MAX 512
#define MESH_MAX_CPU 128
// Specialization constants of the drawing shaders.
#define SPEC_LAYER 0         // LAYER_TERRAIN or LAYER_WATER
#define SPEC_SPLIT_OUTFLOW 1 // bool: the outflow is two rg32f images

#define OVERLAY_NONE 0
#define OVERLAY_WATER_DEPTH 1
#define OVERLAY_SPEED 2
#define OVERLAY_SEDIMENT 3
#define OVERLAY_HARDNESS 4
#define OVERLAY_FLUX 5
#define OVERLAY_WEAR 6        // erosion (red) / deposition (blue) since reset, diverging
#define OVERLAY_DRAINAGE 7    // fluvial model: log10 of the upstream area in cells (the river network)
#define OVERLAY_WATER_TABLE 8 // depth of the water table below the ground (m; 0 where it is at the surface)
#define OVERLAY_WATER_LEVEL 9 // seed 003: the water surface's elevation as a hue (a turn every `range` m)
#define OVERLAY_LOOSE 10      // layered ground: the loose layer's thickness (m), bare bedrock at 0
#define OVERLAY_SNOW 11       // snow: how deep it lies (m)
#define OVERLAY_VEGETATION 12 // vegetation: its density 0..1
#define OVERLAY_LAVA 13       // lava: its temperature (K; 0 where none)
#define OVERLAY_COUNT 14

#define LAYER_TERRAIN 0
#define LAYER_WATER 1

#endif
