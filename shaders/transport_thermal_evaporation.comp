#version 450
// Pipe step, pass 3b of the direct passes (CPU drivers; see erosion.comp): sediment transport,
// thermal erosion and evaporation (design steps 6 to 8) from the eroded image. Each cell
// computes the thermal outflows of its 8 neighbours toward it itself (image reads are cheap on
// CPU drivers, shared memory is not); every workgroup computes a cell's outflows with the same
// code from the same values, so what a cell loses is exactly what its neighbours gain.
#include "common.glsl"
#include "partials.glsl"
#include "pipe_erosion.glsl"

const ivec2 kNeighbours[8] = ivec2[8](ivec2(-1, 0), ivec2(1, 0), ivec2(0, -1), ivec2(0, 1),
                                      ivec2(-1, -1), ivec2(1, -1), ivec2(-1, 1), ivec2(1, 1));

float erodedGround(ivec2 q) { return inGrid(q) ? imageLoad(eroded_img, q).r : 1.0 / 0.0; }
float erodedSediment(ivec2 q) { return imageLoad(eroded_img, q).g; }

void outflowOf(ivec2 y, out vec4 axis, out vec4 diag) {
    vec4 h_axis, h_diag;
    for (int k = 0; k < 4; ++k) {
        h_axis[k] = erodedGround(y + kNeighbours[k]);
        h_diag[k] = erodedGround(y + kNeighbours[k + 4]);
    }
    thermalOutflow(erodedGround(y), imageLoad(hardness_img, y).r, h_axis, h_diag, axis, diag);
}

void main() {
    ivec2 c = cellId();
    bool inside = insideGrid(c);
    float sed_before = 0.0, sed_after = 0.0, sed_drained = 0.0, evaporated = 0.0;
    if (inside) {
        float area = cellArea();
        vec2 eroded = imageLoad(eroded_img, c).rg;
        float b = eroded.x, s = eroded.y;

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

        // Thermal: what this cell sends, and what each neighbour sends here (through its slot
        // facing us), in the same order as the fused pass.
        if (p.enable_thermal != 0) {
            const int opposite[8] = int[8](1, 0, 3, 2, 7, 6, 5, 4);
            vec4 axis, diag;
            outflowOf(c, axis, diag);
            float out_sum = 0.0, in_sum = 0.0;
            for (int k = 0; k < 8; ++k) out_sum += k < 4 ? axis[k] : diag[k - 4];
            for (int k = 0; k < 8; ++k) {
                ivec2 y = c + kNeighbours[k];
                if (!inGrid(y)) continue;
                vec4 y_axis, y_diag;
                outflowOf(y, y_axis, y_diag);
                int o = opposite[k];
                in_sum += o < 4 ? y_axis[o] : y_diag[o - 4];
            }
            b = b - out_sum + in_sum;
        }
        imageStore(terrain_next, c, vec4(b));

        float d = imageLoad(water_mid, c).r;
        evaporated = evaporate(d) * area;
        imageStore(water_next, c, vec4(d));
    }
    partialsWrite(4, float[PARTIALS_MAX](sed_before, sed_after, sed_drained, evaporated, 0.0, 0.0),
                  int[PARTIALS_MAX](SLOT_SED_BEFORE, SLOT_SED_AFTER, SLOT_SED_DRAINED, SLOT_EVAPORATED, 0, 0));
}
