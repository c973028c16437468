#version 450
// Snow, second pass (snow.glsl): the avalanches' gather (what this cell sends and what each
// neighbour sends here), then snowfall and melt, on the step's new ground; the melt goes into the
// step's new water (in place, this cell only). Writes snow_next; sums the snowfall and the melt.
#include "common.glsl"
#include "partials.glsl"
#include "snow.glsl"

// One cell's step: its snowfall and melt (m^3) for the sums.
float[PARTIALS_MAX] snowCell(ivec2 c) {
    float fallen = 0.0, melted = 0.0;
    if (!insideGrid(c)) return float[PARTIALS_MAX](0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
    float snow = imageLoad(snow_cur, c).r;
    float h = snowSurface(c);
    float rate = imageLoad(snow_slide_img, c).r;
    vec2 rise = snowReposeRise();
    float out_sum = 0.0, in_sum = 0.0, ground[4]; // the ground at x - 1, x + 1, y - 1 and y + 1
    for (int k = 0; k < 8; ++k) {
        // Both directions from the same two surfaces: the neighbour's loads serve both.
        ivec2 n = c + kSnowOffsets[k], q = clampToGrid(n);
        float b_n = imageLoad(terrain_next, q).r;
        if (k < 4) ground[k] = b_n;
        float h_n = snowSurfaceOf(b_n, imageLoad(snow_cur, q).r), rate_n = imageLoad(snow_slide_img, q).r;
        float sent = snowSent(h, h_n, rate, k, rise), sent_here = snowSent(h_n, h, rate_n, kSnowOpposite[k], rise);
        if (inGrid(n)) {
            out_sum += sent;
            in_sum += sent_here;
        }
    }
    float per_depth = p.snow_density / 1000.0;
    precise float slid = max(snow + (in_sum - out_sum) * per_depth, 0.0);
    float z = imageLoad(terrain_next, c).r;
    float t = airTemperature(z);
    if (t < 0.0) {
        precise float fall = p.time_step * p.snowfall_rate * rainMaskAt(c);
        fallen = fall;
    }
    precise float lying = slid + fallen;
    // The water is loaded outside the branch (a load under a divergent branch runs lane by lane
    // on a CPU driver).
    float water = imageLoad(water_next, c).r;
    if (t > 0.0 && lying > 0.0) {
        vec2 gradient = centralGradient(c, ground[0], ground[1], ground[2], ground[3]);
        float sun = p.sun_melt > 0.0 ? 1.0 + p.sun_melt * (sunExposure(gradient) - 1.0) : 1.0;
        float melt = min(lying, p.time_step * p.melt_factor * t * sun);
        // What the water gains is exactly what the snow lost.
        precise float left = lying - melt;
        precise float lost = lying - left;
        lying = left;
        melted = lost;
        precise float d = water + lost;
        imageStore(water_next, c, vec4(d));
    }
    imageStore(snow_next, c, vec4(lying));
    return float[PARTIALS_MAX](fallen * cellArea(), melted * cellArea(), 0.0, 0.0, 0.0, 0.0);
}

void main() {
    if (!snowOn()) return; // uniform: off, a pass run on its own (tests) does nothing
    const int slots[PARTIALS_MAX] = int[PARTIALS_MAX](SLOT_SNOWFALL, SLOT_MELT, 0, 0, 0, 0);
    double sums[PARTIALS_MAX];
    [[unroll]] for (int row = 0; row < SUM_ROWS; ++row) rowSums(row, 2, snowCell(rowCell(row)), slots, sums);
    partialsWrite(2, sums, slots, 0u);
}
