#version 450
// Thermal and Olsen models (seed 001; Olsen 2004, "Realtime procedural terrain generation"),
// first pass: what each cell sends to each neighbour of the chosen neighbourhood (von Neumann,
// rotated von Neumann = the diagonals, or Moore), as a difference map; talus_gather applies it,
// so every step is mass-exact and independent of the order cells are visited.
//   thermal: neighbours below the talus slope get material: excess e_k = drop_k - T dist_k;
//            the cell sends c * max(e) shared in proportion to the excesses.
//   olsen:   the steepest descent neighbour (largest drop / dist) receives c * drop only if
//            0 < slope <= T: gentle ground flattens, cliffs steeper than T stay.
#include "common.glsl"

const ivec2 kOffsets[8] = ivec2[8](ivec2(-1, 0), ivec2(1, 0), ivec2(0, -1), ivec2(0, 1),
                                   ivec2(-1, -1), ivec2(1, -1), ivec2(-1, 1), ivec2(1, 1));

bool inNeighbourhood(int k) {
    if (p.talus_neighbourhood == NEIGHBOURS_VON_NEUMANN) return k < 4;
    if (p.talus_neighbourhood == NEIGHBOURS_ROTATED) return k >= 4;
    return true;
}

void main() {
    ivec2 c = cellId();
    if (!insideGrid(c)) return;
    float b = imageLoad(terrain_cur, c).r;
    float sent[8] = float[8](0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
    float drop[8];
    float dist[8];
    for (int k = 0; k < 8; ++k) {
        ivec2 n = c + kOffsets[k];
        bool use = inNeighbourhood(k) && inGrid(n);
        drop[k] = use ? b - imageLoad(terrain_cur, n).r : -1.0 / 0.0;
        dist[k] = (k < 4 ? 1.0 : sqrt(2.0)) * p.cell_size;
    }
    if (p.model == MODEL_THERMAL) {
        float largest = 0.0, total = 0.0;
        for (int k = 0; k < 8; ++k) {
            float e = drop[k] - p.talus_slope * dist[k];
            if (e > 0.0) {
                largest = max(largest, e);
                total += e;
            }
        }
        if (total > 0.0) {
            float moved = p.talus_fraction * largest;
            for (int k = 0; k < 8; ++k) {
                float e = drop[k] - p.talus_slope * dist[k];
                if (e > 0.0) sent[k] = moved * e / total;
            }
        }
    } else if (p.model == MODEL_OLSEN) {
        int steepest = -1;
        float steepest_slope = 0.0;
        for (int k = 0; k < 8; ++k) {
            float slope = drop[k] / dist[k];
            if (slope > steepest_slope) {
                steepest_slope = slope;
                steepest = k;
            }
        }
        if (steepest >= 0 && steepest_slope <= p.olsen_talus_slope)
            sent[steepest] = p.talus_fraction * drop[steepest];
    }
    imageStore(thermal_axis, c, vec4(sent[0], sent[1], sent[2], sent[3]));
    imageStore(thermal_diag, c, vec4(sent[4], sent[5], sent[6], sent[7]));
}
