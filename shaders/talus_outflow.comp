#version 450
// Thermal and Olsen models, first pass: each cell's transfer rate (talus.glsl) into the
// thermal_rate image (8 bytes per cell); talus_gather moves the ground.
#include "common.glsl"
#include "talus.glsl"

// The thermal model's rate at talus slope `slope`: (factor, slope, the volume that leaves / area).
vec3 thermalRateAt(ivec2 c, float b, float slope) {
    float largest = 0.0, total = 0.0;
    for (int k = 0; k < 8; ++k) {
        float e = talusDrop(c, b, k) - slope * talusDistance(k);
        if (e > 0.0) {
            largest = max(largest, e);
            total += e;
        }
    }
    float factor = total > 0.0 ? p.talus_fraction * largest / total : 0.0;
    return vec3(factor, slope, factor * total);
}

// Layered ground: rock stands at the talus slope, steeper by hardness (as the pipe model's
// talus angle); loose material at its angle of repose (layeredThermal).
vec2 layeredThermalRate(ivec2 c, float b) {
    float loose = imageLoad(loose_cur, c).r;
    float hardness = cellHardness(c, b, loose);
    float rock_angle = min(atan(p.talus_slope) + hardness * p.talus_hardness_gain, radians(89.0));
    vec3 rock = thermalRateAt(c, b, tan(rock_angle));
    if (loose <= 0.0) return rock.xy;
    return layeredThermal(rock, thermalRateAt(c, b, tan(p.loose_repose_angle)), loose);
}

void main() {
    ivec2 c = cellId();
    if (!insideGrid(c)) return;
    float b = imageLoad(terrain_cur, c).r;
    vec2 rate = vec2(0.0, -1.0);
    if (p.model == MODEL_THERMAL && layersOn()) {
        rate = layeredThermalRate(c, b);
    } else if (p.model == MODEL_THERMAL) {
        rate.x = thermalRateAt(c, b, p.talus_slope).x; // one slope for all: talus_gather reads p.talus_slope
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
        if (steepest >= 0 && steepest_slope <= p.olsen_talus_slope) {
            float amount = p.talus_fraction * talusDrop(c, b, steepest);
            // Layered ground: the loose layer moves first, the bedrock under it by 1 - hardness.
            if (layersOn()) {
                float loose = imageLoad(loose_cur, c).r;
                amount = layeredErosion(amount, loose, cellHardness(c, b, loose));
            }
            rate = vec2(amount, float(steepest));
        }
    }
    imageStore(thermal_rate_img, c, vec4(rate, 0.0, 0.0));
}
