#version 450
// Fluvial model, routing on the filled surface W: a cell's receiver is its steepest-descent
// neighbour (drop over distance, 8 neighbours); on a flat (a lake) it is the neighbour one step
// nearer the flat's exit. Every receiver has a lower W, or the same W and fewer steps, so every
// path ends at an outlet. (Were the flats' rounds cut short, a step count is still an upper
// bound that a neighbour undercuts by one, so the paths still end at exits; cells no round
// reached drain nowhere: the report says the fill fell short.)
// Writes the lake depth W - z and starts the drainage accumulation: each cell's own rain
// (the rain mask, in units of FLUVIAL_ACC_ONE) and its first ancestor, its receiver.
#include "fluvial.glsl"

void main() {
    ivec2 c = cellId();
    if (!insideGrid(c)) return;
    uint i = cellIndex(c);
    uint wc = fluvial_level[i];
    float z = imageLoad(terrain_cur, c).r;
    uint receiver = i;
    float lake = 0.0;
    if (wc != FLUVIAL_NONE && !isOutlet(c)) {
        precise float w = fromOrdered(wc);
        lake = max(w - z, 0.0);
        precise float best_slope = 0.0;
        uint best_steps = flatSteps(i);
        uint flat_receiver = i;
        for (int k = 0; k < 8; ++k) {
            ivec2 n = c + NB[k];
            if (!inGrid(n)) continue;
            uint ni = cellIndex(n);
            uint wn_bits = fluvial_level[ni];
            if (wn_bits == FLUVIAL_NONE) continue;
            precise float wn = fromOrdered(wn_bits);
            if (wn < w) {
                precise float slope = (w - wn) * NB_INV_DIST[k];
                if (slope > best_slope) {
                    best_slope = slope;
                    receiver = ni;
                }
            } else if (wn == w) {
                uint sn = flatSteps(ni);
                if (sn < best_steps) {
                    best_steps = sn;
                    flat_receiver = ni;
                }
            }
        }
        if (receiver == i) receiver = flat_receiver;
    }
    fluvial_rcv[i] = receiver;
    imageStore(lake_img, c, vec4(lake));
    uint n = cellCount();
    float rain = clamp(imageLoad(rain_mask, c).r, 0.0, 1.0);
    fluvial_acc[i] = uint64_t(rain * float(FLUVIAL_ACC_ONE) + 0.5);
    fluvial_acc[n + i] = 0ul;
    fluvial_anc[i] = receiver == i ? FLUVIAL_NONE : receiver;
}
