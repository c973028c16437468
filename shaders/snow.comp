#version 450
// Snow, second pass (snow.glsl): the avalanches' gather (what this cell sends and what each
// neighbour sends here), then snowfall and melt, on the step's new ground; the melt goes into the
// step's new water (in place, this cell only). Writes snow_next; sums the snowfall and the melt.
#include "common.glsl"
#include "partials.glsl"
#include "snow.glsl"

void main() {
    if (!snowOn()) return; // uniform: off, a pass run on its own (tests) does nothing
    ivec2 c = cellId();
    bool inside = insideGrid(c);
    float fallen = 0.0, melted = 0.0;
    if (inside) {
        float snow = imageLoad(snow_cur, c).r;
        float h = snowSurface(c);
        float rate = imageLoad(snow_slide_img, c).r;
        float out_sum = 0.0, in_sum = 0.0;
        for (int k = 0; k < 8; ++k) {
            out_sum += snowSent(c, h, rate, k);
            ivec2 n = c + kSnowOffsets[k], q = clampToGrid(n);
            float sent_here = snowSent(n, snowSurface(n), imageLoad(snow_slide_img, q).r, kSnowOpposite[k]);
            if (inGrid(n)) in_sum += sent_here;
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
        if (t > 0.0 && lying > 0.0) {
            float sun = p.sun_melt > 0.0 ? 1.0 + p.sun_melt * (sunExposure(c) - 1.0) : 1.0;
            float melt = min(lying, p.time_step * p.melt_factor * t * sun);
            // What the water gains is exactly what the snow lost.
            precise float left = lying - melt;
            precise float lost = lying - left;
            lying = left;
            melted = lost;
            precise float d = imageLoad(water_next, c).r + lost;
            imageStore(water_next, c, vec4(d));
        }
        imageStore(snow_next, c, vec4(lying));
        fallen *= cellArea();
        melted *= cellArea();
    }
    partialsWrite(2, float[PARTIALS_MAX](fallen, melted, 0.0, 0.0, 0.0, 0.0),
                  int[PARTIALS_MAX](SLOT_SNOWFALL, SLOT_MELT, 0, 0, 0, 0), 0u);
}
