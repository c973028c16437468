#version 450
// Fluvial model, deposition: each cell keeps f T of the sediment T passing it (m^3), raising its
// new ground by f T / cell_area, and adds it to the wear map's deposition. What reaches an
// outlet leaves the grid.
#include "fluvial.glsl"

void main() {
    ivec2 c = cellId();
    if (!insideGrid(c)) return;
    uint i = cellIndex(c);
    float passing = float(double(fluvial_acc[ctl.parity * cellCount() + i]) / FLUVIAL_SED_ONE);
    float kept = depositFraction(c) * passing / cellArea();
    if (kept <= 0.0) return;
    imageStore(terrain_next, c, vec4(imageLoad(terrain_next, c).r + kept));
    vec2 wear = imageLoad(wear_img, c).rg;
    imageStore(wear_img, c, vec4(wear.x, wear.y + kept, 0.0, 0.0));
}
