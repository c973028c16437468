// The thermal and olsen models (seed 001; Olsen 2004, "Realtime procedural terrain generation"):
// what a cell sends to each neighbour of the chosen neighbourhood (von Neumann, rotated von
// Neumann = the diagonals, or Moore), from its transfer rate (talus_outflow.comp writes it to the
// thermal_rate image; talus_gather.comp moves the ground). Every amount is computed here from the
// same values by the sender's and the receiver's invocations, so the step is mass-exact and
// independent of the order cells are visited.
//   thermal: neighbours below the talus slope get material: excess e_k = drop_k - T dist_k; the
//            cell sends c max(e) shared in proportion to the excesses: rate = c max(e) / sum(e),
//            e_k rate to each.
//   olsen:   the steepest descent neighbour (largest drop / dist) receives c drop only if
//            0 < slope <= T: gentle ground flattens, cliffs steeper than T stay. rate = (c drop,
//            the neighbour's index).

const ivec2 kTalusOffsets[8] = ivec2[8](ivec2(-1, 0), ivec2(1, 0), ivec2(0, -1), ivec2(0, 1),
                                        ivec2(-1, -1), ivec2(1, -1), ivec2(-1, 1), ivec2(1, 1));
const int kTalusOpposite[8] = int[8](1, 0, 3, 2, 7, 6, 5, 4);

bool inNeighbourhood(int k) {
    if (p.talus_neighbourhood == NEIGHBOURS_VON_NEUMANN) return k < 4;
    if (p.talus_neighbourhood == NEIGHBOURS_ROTATED) return k >= 4;
    return true;
}

float talusDistance(int k) { return (k < 4 ? 1.0 : sqrt(2.0)) * p.cell_size; }

// Drop from ground b to neighbour k of cell c (-inf where it is not a neighbour). The load is
// made at the grid's nearest cell, outside any branch (clampToGrid, common.glsl).
float talusDrop(ivec2 c, float b, int k) {
    ivec2 n = c + kTalusOffsets[k];
    float b_n = imageLoad(terrain_cur, clampToGrid(n)).r;
    return inNeighbourhood(k) && inGrid(n) ? b - b_n : -1.0 / 0.0;
}

// On layered ground (layers.glsl) the thermal model's cells keep their own talus slope in
// rate.y: rock's, steeper by hardness, or the loose material's angle of repose.
float talusSlope(vec2 rate) { return layersOn() ? rate.y : p.talus_slope; }

// What cell c (ground b, transfer rate `rate`) sends to its neighbour k.
float talusSent(ivec2 c, float b, vec2 rate, int k) {
    if (p.model == MODEL_OLSEN) return int(rate.y) == k ? rate.x : 0.0;
    precise float e = talusDrop(c, b, k) - talusSlope(rate) * talusDistance(k);
    precise float amount = e > 0.0 ? rate.x * e : 0.0;
    return amount;
}
