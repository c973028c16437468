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

// The rain event's water on cell c: its amount times the rain mask.
float rain(ivec2 c) {
    return pc.step_index % max(p.musgrave_rain_interval, 1) == 0 ? p.musgrave_rain_amount * rainMaskAt(c) : 0.0;
}

// One cell's transfers; returns the rain it received (m).
float transfer(ivec2 c) {
    float a = imageLoad(terrain_cur, c).r, a_start = a;
    float loose = looseAt(c);
    precise float w0 = imageLoad(water_cur, c).r;
    precise float w = w0 + rain(c);
    precise float rained = w - w0;
    float s = imageLoad(sediment_cur, c).r;
    float h = a + w;
    float drop[8];
    float total_drop = 0.0, largest = 0.0;
    for (int k = 0; k < 8; ++k) {
        ivec2 n = c + kNeighbours[k], q = clampToGrid(n); // loads outside any branch (common.glsl)
        float hn = imageLoad(terrain_cur, q).r + imageLoad(water_cur, q).r + rain(q);
        drop[k] = inGrid(n) && hn < h ? h - hn : 0.0;
        total_drop += drop[k]; // + 0 where nothing drops: the same sum
        largest = max(largest, drop[k]);
    }
    float moved = total_drop > 0.0 ? min(w, 0.5 * largest) : 0.0;
    // The three cases (the water moves and leaves sediment / dissolves ground; no water moves and
    // the sediment settles) are all computed and one kept: no divergent branch, which a CPU
    // driver runs for every lane with masks anyway.
    bool moves = moved > 0.0;
    float capacity = p.musgrave_capacity * moved;
    bool leaves = s > capacity;
    float settled, dissolved_moved, settled_still;
    float a_leaves = raiseGround(a, p.musgrave_deposition * (s - capacity), settled);
    float s_leaves = max(0.0, (s - capacity) - settled);
    float a_dissolves =
        lowerGround(a, layeredErosion(p.musgrave_softness * (capacity - s), loose, cellHardness(c, a, loose)),
                    dissolved_moved);
    float a_still = raiseGround(a, p.musgrave_deposition * s, settled_still);
    float s_still = max(0.0, s - settled_still);
    float sent = moves ? (leaves ? capacity : s + dissolved_moved) : 0.0;
    a = moves ? (leaves ? a_leaves : a_dissolves) : a_still;
    s = moves ? (leaves ? s_leaves : 0.0) : s_still;
    vec4 axis = moves ? moved * vec4(drop[0], drop[1], drop[2], drop[3]) / total_drop : vec4(0.0);
    vec4 diag = moves ? moved * vec4(drop[4], drop[5], drop[6], drop[7]) / total_drop : vec4(0.0);
    imageStore(thermal_axis_img, c, axis);
    imageStore(thermal_diag_img, c, diag);
    imageStore(scratch_img, c, vec4(moved, sent, 0.0, 0.0));
    imageStore(terrain_next, c, vec4(a));
    if (layersOn()) imageStore(loose_next, c, vec4(looseAfter(loose, a_start, a)));
    imageStore(water_next, c, vec4(w - moved));
    imageStore(sediment_next, c, vec4(s));
    return rained;
}

void main() {
    ivec2 c = cellId();
    float rained = insideGrid(c) ? transfer(c) : 0.0;
    addWaterSum(WATER_RAIN, rained * cellArea());
}
