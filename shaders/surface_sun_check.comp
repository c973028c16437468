#version 450
// Frames that ran no step: whether a cell's ground or drawn water changed since the last such
// check, bit for bit (the brush, an undo, a loaded file...: whatever wrote it). Each changed cell
// keeps its new values in R_SUN_SEEN, and one invocation a workgroup raises sun_ctl.changed;
// surface_sun_control.comp then dispatches the sunlight only if something it reads changed.
// Reads 16 bytes a cell (20 with lakes), against surface_sun.comp's 30 marched bilinear samples.
#define SUN_CHECK
#include "render.glsl"

layout(local_size_x = 16, local_size_y = 16) in;

shared uint group_changed;

void main() {
    if (gl_LocalInvocationIndex == 0u) group_changed = 0u;
    barrier();
    ivec2 c = ivec2(gl_GlobalInvocationID.xy);
    if (all(lessThan(c, gridSize()))) {
        vec2 now = vec2(terrainAt(c), waterAt(c));
        vec2 seen = imageLoad(sun_seen_img, c).xy;
        if (floatBitsToUint(now) != floatBitsToUint(seen)) { // NaN included
            imageStore(sun_seen_img, c, vec4(now, 0.0, 0.0));
            group_changed = 1u;
        }
    }
    barrier();
    if (gl_LocalInvocationIndex == 0u && group_changed != 0u) sun_ctl.changed = 1u;
}
