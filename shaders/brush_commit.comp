#version 450
// Smoothing, second half: the smoothed heights replace the ground inside the brush's box.
#include "brush.glsl"

layout(local_size_x = BRUSH_WG, local_size_y = BRUSH_WG) in;

void main() {
    ivec2 c = ivec2(gl_GlobalInvocationID.xy);
    if (!inGrid(c)) return;
    imageStore(terrain_img, c, imageLoad(scratch_img, c));
}
