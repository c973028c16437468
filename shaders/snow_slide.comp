#version 450
// Snow, first pass (snow.glsl): each cell's avalanche rate into the snow_slide image, from the
// step's new ground and the snow at its start; snow.comp moves the snow.
#include "common.glsl"
#include "snow.glsl"

void main() {
    if (!snowOn()) return; // uniform: off, a pass run on its own (tests) does nothing
    ivec2 c = cellId();
    if (!insideGrid(c)) return;
    float snow = imageLoad(snow_cur, c).r;
    float h = snowSurface(c);
    float largest = 0.0, total = 0.0;
    vec2 rise = snowReposeRise();
    for (int k = 0; k < 8; ++k) {
        ivec2 n = c + kSnowOffsets[k];
        float e = snowExcess(h, snowSurface(n), k, rise);
        e = inGrid(n) ? e : 0.0;
        largest = max(largest, e);
        total += e;
    }
    // Half the largest excess (a pair of cells then stands exactly at the angle), at most the
    // snow's depth; the 1 - 2^-20 keeps the sum of the shares within the snow after rounding.
    float moved = min(0.5 * largest, snowDepth(snow) * (1.0 - 1.0 / 1048576.0));
    imageStore(snow_slide_img, c, vec4(total > 0.0 ? moved / total : 0.0));
}
