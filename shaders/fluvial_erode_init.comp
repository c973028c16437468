#version 450
// Fluvial model, stream power dz/dt = U - K A^m S^n, implicit along the receivers (Braun and
// Willett 2013). For n = 1 each cell's new height is affine in its receiver's new height,
//   z'(i) = a(i) + b(i) z'(r),  a = (z + U dt) / (1 + F),  b = F / (1 + F),  F = K dt A^m / L(i,r)^n,
// which pointer jumping composes in log2(path length) rounds (fluvial_erode.comp) instead of a
// sequential sweep from the outlets. Roots of the composition (b = 0): outlets stay at base
// level; flooded cells only rise with uplift; a cell draining into a lake erodes towards the
// lake's surface. For n != 1, F takes the factor S^(n-1) from the current slope (linearised).
// Also writes the drainage area (m^2) from the accumulation.
#include "fluvial.glsl"

void main() {
    ivec2 c = cellId();
    if (!insideGrid(c)) return;
    uint n = cellCount(), i = cellIndex(c);
    // Right after the accumulation: its result is in the current half.
    float area = float(fluvial_acc[ctl.parity * n + i]) / float(FLUVIAL_ACC_ONE) * cellArea();
    imageStore(drainage_img, c, vec4(area));

    float z = imageLoad(terrain_cur, c).r;
    float rise = p.uplift_rate * imageLoad(uplift_img, c).r * p.fluvial_dt;
    uint r = fluvial_rcv[i];
    vec2 ab = vec2(z + rise, 0.0);
    uint anc = FLUVIAL_NONE;
    if (isOutlet(c)) {
        ab = vec2(z, 0.0);
    } else if (r != i && imageLoad(lake_img, c).r <= 0.0) {
        ivec2 rc = cellAt(r);
        float dist = length(vec2(rc - c)) * p.cell_size;
        float hardness = clamp(imageLoad(hardness_img, c).r, 0.0, 1.0);
        float k = p.stream_power_k * (1.0 - 0.9 * hardness);
        float f = k * p.fluvial_dt * pow(area, p.stream_power_m) / pow(dist, p.stream_power_n);
        bool into_lake = imageLoad(lake_img, rc).r > 0.0;
        float zr = into_lake ? fromOrdered(fluvial_level[r]) : imageLoad(terrain_cur, rc).r;
        if (p.stream_power_n != 1.0) f *= pow(max((z - zr) / dist, 1e-6), p.stream_power_n - 1.0);
        if (into_lake) {
            ab = vec2((z + rise + f * zr) / (1.0 + f), 0.0);
        } else {
            ab = vec2((z + rise) / (1.0 + f), f / (1.0 + f));
            anc = r;
        }
    }
    fluvial_ab[i] = ab;
    fluvial_anc[i] = anc;
}
