#version 450
// Pipe step, pass 3b of the direct passes (CPU drivers; see erosion.comp): sediment transport,
// the first half of thermal erosion and evaporation (design steps 6 to 8) from the eroded image.
// Thermal erosion is split in two here: each cell's thermal rate (what share of its excess over
// the talus drop leaves, and its tan(talus)) goes to the thermal_rate image, and thermal_gather
// moves the material. Equations: pipe_erosion.glsl.
#include "common.glsl"
#include "partials.glsl"
#include "pipe_erosion.glsl"

const ivec2 kNeighbours[8] = ivec2[8](ivec2(-1, 0), ivec2(1, 0), ivec2(0, -1), ivec2(0, 1), ivec2(-1, -1), ivec2(1, -1),
                                      ivec2(-1, 1), ivec2(1, 1));

float erodedGround(ivec2 q) {
    float b = imageLoad(eroded_img, clampToGrid(q)).r;
    return inGrid(q) ? b : 1.0 / 0.0;
}
float erodedSediment(ivec2 q) { return imageLoad(eroded_img, q).g; }

// Moves cell c's sediment and water; returns its sums' values (0 outside the grid).
float[PARTIALS_MAX] transportCell(ivec2 c) {
    bool inside = insideGrid(c);
    float sed_before = 0.0, sed_after = 0.0, sed_drained = 0.0, evaporated = 0.0;
    if (inside) {
        float area = cellArea();
        vec2 eroded = imageLoad(eroded_img, c).rg;
        float s = eroded.y;

        float next = s;
        sed_before = s * area;
        if (p.enable_transport != 0) {
            ivec2 lo, hi;
            vec2 f;
            transportFootprint(c, imageLoad(velocity_img, c).xy, lo, hi, f);
            next = bilinear(erodedSediment(lo), erodedSediment(ivec2(hi.x, lo.y)), erodedSediment(ivec2(lo.x, hi.y)),
                            erodedSediment(hi), f);
            sed_drained = edgeSediment(c, s);
        }
        sed_after = next * area;
        imageStore(sediment_next, c, vec4(next));

        if (p.enable_thermal != 0) {
            float b_n[8];
            for (int k = 0; k < 8; ++k) b_n[k] = erodedGround(c + kNeighbours[k]);
            // The hardness of the bedrock as the step began, the loose layer after the erosion
            // (as the fused pass has them).
            float ground = imageLoad(terrain_cur, c).r, loose = looseAt(c);
            float hardness = cellHardness(c, ground, loose);
            loose = layersOn() ? looseAfter(loose, ground, eroded.x) : 0.0;
            vec2 rate = thermalRate(eroded.x, hardness, loose, b_n);
            if (vegetationOn()) rate.x *= creepSlowing(c);
            imageStore(thermal_rate_img, c, vec4(rate, 0.0, 0.0));
        }

        float d = imageLoad(water_mid_img, c).r;
        evaporated = evaporate(d) * area;
        imageStore(water_next, c, vec4(d));
    }
    return float[PARTIALS_MAX](sed_before, sed_after, sed_drained, evaporated, 0.0, 0.0);
}

void main() {
    const int slots[PARTIALS_MAX] =
        int[PARTIALS_MAX](SLOT_SED_BEFORE, SLOT_SED_AFTER, SLOT_SED_DRAINED, SLOT_EVAPORATED, 0, 0);
    double sums[PARTIALS_MAX];
    [[unroll]] for (int row = 0; row < SUM_ROWS; ++row) rowSums(row, 4, transportCell(rowCell(row)), slots, sums);
    partialsWrite(4, sums, slots, 1u << 2);
}
