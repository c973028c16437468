#version 450
// Musgrave model (seed 000; Musgrave, Kolb & Mace 1989), first pass: rain (every
// musgrave_rain_interval steps), then for each cell the water to move to all lower neighbours
// (by water surface a + w) in proportion to the drop, at most half the largest drop (so no
// neighbour ends up above us) and at most the cell's water; and the sediment exchange:
//   c = Kc * dw;  s > c: send c, deposit Kd (s - c), keep (1 - Kd)(s - c)
//                 else:  send s + Ks (c - s) dissolved from the ground (scaled by 1 - hardness)
// Writes the kept amounts to the "next" images and the shares to the thermal images (as a
// difference map); musgrave_apply gathers them. The rain is counted for the water budget.
#include "common.glsl"
#include "grid_models.glsl"

float rain() {
    return pc.step_index % max(p.musgrave_rain_interval, 1) == 0 ? p.musgrave_rain_amount : 0.0;
}

// One cell's transfers; returns the rain it received (m).
float transfer(ivec2 c) {
    float a = imageLoad(terrain_cur, c).r;
    precise float w0 = imageLoad(water_cur, c).r;
    precise float w = w0 + rain();
    precise float rained = w - w0;
    float s = imageLoad(sediment_cur, c).r;
    float h = a + w;
    float drop[8];
    float total_drop = 0.0, largest = 0.0;
    for (int k = 0; k < 8; ++k) {
        ivec2 n = c + kNeighbours[k];
        drop[k] = 0.0;
        if (!inGrid(n)) continue;
        float hn = imageLoad(terrain_cur, n).r + imageLoad(water_cur, n).r + rain();
        if (hn < h) {
            drop[k] = h - hn;
            total_drop += drop[k];
            largest = max(largest, drop[k]);
        }
    }
    float moved = total_drop > 0.0 ? min(w, 0.5 * largest) : 0.0;
    float sent = 0.0;
    if (moved > 0.0) {
        float capacity = p.musgrave_capacity * moved;
        float exchanged;
        if (s > capacity) {
            sent = capacity;
            a = raiseGround(a, p.musgrave_deposition * (s - capacity), exchanged);
            s = max(0.0, (s - capacity) - exchanged);
        } else {
            float dissolved = p.musgrave_softness * (capacity - s) * (1.0 - imageLoad(hardness_img, c).r);
            a = lowerGround(a, dissolved, exchanged);
            sent = s + exchanged;
            s = 0.0;
        }
    } else {
        float exchanged;
        a = raiseGround(a, p.musgrave_deposition * s, exchanged);
        s = max(0.0, s - exchanged);
    }
    vec4 axis = vec4(0.0), diag = vec4(0.0);
    if (moved > 0.0) {
        axis = moved * vec4(drop[0], drop[1], drop[2], drop[3]) / total_drop;
        diag = moved * vec4(drop[4], drop[5], drop[6], drop[7]) / total_drop;
    }
    imageStore(thermal_axis, c, axis);
    imageStore(thermal_diag, c, diag);
    imageStore(scratch_img, c, vec4(moved, sent, 0.0, 0.0));
    imageStore(terrain_next, c, vec4(a));
    imageStore(water_next, c, vec4(w - moved));
    imageStore(sediment_next, c, vec4(s));
    return rained;
}

void main() {
    ivec2 c = cellId();
    float rained = insideGrid(c) ? transfer(c) : 0.0;
    addWaterSum(WATER_RAIN, rained * cellArea());
}
