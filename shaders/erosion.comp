#version 450
// Pipe step, pass 3a of the direct passes (CPU drivers; GPUs run the fused
// erosion_transport_thermal_evaporation.comp, with the same equations from pipe_erosion.glsl):
// erosion/deposition (design step 5) of every cell into the eroded image, which the transport
// and thermal erosion read at neighbours.
#include "common.glsl"
#include "partials.glsl"
#include "pipe_erosion.glsl"

float ground(int x, int y) { return imageLoad(terrain_cur, ivec2(x, y)).r; }

// Erodes cell c into the eroded image; returns its sums' values (0 outside the grid).
float[PARTIALS_MAX] erodeInto(ivec2 c) {
    bool inside = insideGrid(c);
    vec2 moved = vec2(0.0);
    if (inside) {
        float b = ground(c.x, c.y);
        float s = sedimentAtStart(c);
        if (p.enable_erosion != 0) {
            ivec2 lo = max(c - 1, ivec2(0)), hi = min(c + 1, ivec2(p.width - 1, p.height - 1));
            float sin_tilt = tiltSine(ground(lo.x, c.y), ground(hi.x, c.y), hi.x - lo.x, ground(c.x, lo.y),
                                      ground(c.x, hi.y), hi.y - lo.y);
            float loose = looseAt(c);
            moved = erodeCell(b, s, sin_tilt, imageLoad(velocity_img, c).xy, imageLoad(water_mid_img, c).r,
                              cellHardness(c, b, loose), loose, rootBinding(c));
            if (partOn(STEP_MAPS, p.record_maps != 0)) {
                vec2 wear = imageLoad(wear_img, c).rg;
                imageStore(wear_img, c, vec4(wear + moved / cellArea(), 0.0, 0.0));
            }
        }
        imageStore(eroded_img, c, vec4(b, s, 0.0, 0.0));
    }
    return float[PARTIALS_MAX](moved.x, moved.y, 0.0, 0.0, 0.0, 0.0);
}

void main() {
    const int slots[PARTIALS_MAX] = int[PARTIALS_MAX](SLOT_ERODED, SLOT_DEPOSITED, 0, 0, 0, 0);
    double sums[PARTIALS_MAX];
    [[unroll]] for (int row = 0; row < SUM_ROWS; ++row) rowSums(row, 2, erodeInto(rowCell(row)), slots, sums);
    partialsWrite(2, sums, slots, 0u);
}
