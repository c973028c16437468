#version 450
// Smoothing, second half: the smoothed heights replace the ground inside the brush's box; on
// layered ground what a cell gains is loose (the material smoothing moves), what it loses comes
// off its loose layer first.
#include "brush.glsl"

layout(local_size_x = BRUSH_WG, local_size_y = BRUSH_WG) in;

void main() {
    ivec2 c = ivec2(gl_GlobalInvocationID.xy);
    if (!inGrid(c)) return;
    float after = imageLoad(scratch_img, c).r;
    changeLoose(c, after - imageLoad(terrain_img, c).r, true);
    imageStore(terrain_img, c, vec4(after));
}
