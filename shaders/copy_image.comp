#version 450
// The bench's yardstick for images: a plain copy of one rgba32f storage image into another,
// 16x16 invocations per workgroup like the simulation's passes.
layout(local_size_x = 16, local_size_y = 16) in;
layout(binding = 2, rgba32f) uniform readonly image2D source_img;
layout(binding = 3, rgba32f) uniform writeonly image2D target_img;

void main() {
    ivec2 c = ivec2(gl_GlobalInvocationID.xy);
    if (any(greaterThanEqual(c, imageSize(source_img)))) return;
    imageStore(target_img, c, imageLoad(source_img, c));
}
