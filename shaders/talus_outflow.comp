#version 450
// Thermal and Olsen models, first pass: each cell's transfer rate (talus.glsl) into the
// thermal_rate image (8 bytes per cell); talus_gather moves the ground.
#include "common.glsl"
#include "talus.glsl"

void main() {
    ivec2 c = cellId();
    if (!insideGrid(c)) return;
    float b = imageLoad(terrain_cur, c).r;
    vec2 rate = vec2(0.0, -1.0);
    if (p.model == MODEL_THERMAL) {
        float largest = 0.0, total = 0.0;
        for (int k = 0; k < 8; ++k) {
            float e = talusDrop(c, b, k) - p.talus_slope * talusDistance(k);
            if (e > 0.0) {
                largest = max(largest, e);
                total += e;
            }
        }
        if (total > 0.0) rate.x = p.talus_fraction * largest / total;
    } else if (p.model == MODEL_OLSEN) {
        int steepest = -1;
        float steepest_slope = 0.0;
        for (int k = 0; k < 8; ++k) {
            float slope = talusDrop(c, b, k) / talusDistance(k);
            if (slope > steepest_slope) {
                steepest_slope = slope;
                steepest = k;
            }
        }
        if (steepest >= 0 && steepest_slope <= p.olsen_talus_slope)
            rate = vec2(p.talus_fraction * talusDrop(c, b, steepest), float(steepest));
    }
    imageStore(thermal_rate_img, c, vec4(rate, 0.0, 0.0));
}
