#version 450
// Fluvial model, deposition (after the erosion, when fluvial_deposition > 0): the sediment
// passing a cell is T(j) = E(j) + sum over donors d of (1 - f(d)) T(d), with E the volume the
// cell's stream power eroded and f the fraction a cell keeps. As a sum over upstream cells,
// T(j) = sum of E(i) P(i -> j), P the product of (1 - f) along the path, which pointer jumping
// accumulates like the drainage area (fluvial_sediment.comp). Starts it: E in units of
// FLUVIAL_SED_ONE per m^3, (1 - f), and the receiver as first ancestor.
#include "fluvial.glsl"

void main() {
    ivec2 c = cellId();
    if (!insideGrid(c)) return;
    uint n = cellCount(), i = cellIndex(c);
    float eroded = streamErosion(c, i) * cellArea();
    fluvial_acc[i] = uint64_t(double(eroded) * FLUVIAL_SED_ONE + 0.5);
    fluvial_acc[n + i] = 0ul;
    uint r = fluvial_rcv[i];
    fluvial_anc[i] = r == i ? FLUVIAL_NONE : r;
    fluvial_ab[n + i] = vec2(0.0); // this half is the next round's output
    fluvial_ab[i] = vec2(0.0, 1.0 - depositFraction(c));
}
