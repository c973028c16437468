#version 450
// Fluvial model, end of an iteration: the new ground from the implicit erosion, plus hillslope
// diffusion D laplacian(z) dt (explicit, on the heights at the start of the iteration; its
// factor D dt / L^2 is capped at 0.2, the explicit stability limit). Outlets stay at base level.
// The other ping-pong fields are carried over unchanged (the pipe model's water waits).
// Adds the stream-power erosion to the wear map (m eroded since the start).
#include "fluvial.glsl"

float neighbourDiff(ivec2 n, float z) { return inGrid(n) ? imageLoad(terrain_cur, n).r - z : 0.0; }

void main() {
    ivec2 c = cellId();
    if (!insideGrid(c)) return;
    uint i = cellIndex(c);
    float z = imageLoad(terrain_cur, c).r;
    float z_new = z;
    if (!isOutlet(c)) {
        z_new = fluvial_ab[ctl.parity * cellCount() + i].x;
        if (p.hillslope_diffusion > 0.0) {
            float kappa = min(p.hillslope_diffusion * p.fluvial_dt / cellArea(), 0.2);
            float lap = neighbourDiff(c + ivec2(-1, 0), z) + neighbourDiff(c + ivec2(1, 0), z) +
                        neighbourDiff(c + ivec2(0, -1), z) + neighbourDiff(c + ivec2(0, 1), z);
            z_new += kappa * lap;
        }
    }
    imageStore(terrain_next, c, vec4(z_new));
    vec2 wear = imageLoad(wear_img, c).rg;
    imageStore(wear_img, c, vec4(wear.x + streamErosion(c, i), wear.y, 0.0, 0.0));
    imageStore(water_next, c, imageLoad(water_cur, c));
    imageStore(sediment_next, c, imageLoad(sediment_cur, c));
    storeOutflowNext(c, loadOutflowCur(c));
}
