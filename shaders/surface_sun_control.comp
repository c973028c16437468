#version 450
// One invocation after surface_sun_check.comp: surface_sun.comp's dispatch, the whole grid if a
// cell changed, the sun moved, the grid's scale or the lakes' drawing changed, or the last check
// is not what the sunlight was computed from (sun_ctl.valid 0: a frame that stepped, or none
// yet); else none, and the sunlight of before is kept.
#define SUN_CHECK
#include "render.glsl"

layout(local_size_x = 1) in;

bool sameBits(vec4 a, vec4 b) { return all(equal(floatBitsToUint(a), floatBitsToUint(b))); }

void main() {
    bool same = sun_ctl.valid != 0u && sun_ctl.changed == 0u && sameBits(sun_ctl.sun_dir, f.sun_dir) &&
                sameBits(sun_ctl.grid, f.grid) && floatBitsToUint(sun_ctl.lakes) == floatBitsToUint(f.relief.w);
    sun_ctl.dispatch_x = same ? 0u : (uint(f.grid.x) + 15u) / 16u;
    sun_ctl.dispatch_y = same ? 1u : (uint(f.grid.y) + 15u) / 16u;
    sun_ctl.dispatch_z = 1u;
    if (!same) sun_ctl.recomputed += 1u;
    sun_ctl.changed = 0u;
    sun_ctl.valid = 1u;
    sun_ctl.sun_dir = f.sun_dir;
    sun_ctl.grid = f.grid;
    sun_ctl.lakes = f.relief.w;
}
