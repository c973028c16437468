#version 450
// The largest |v| + sqrt(g d) of the current state (the speed in the CFL number), for the pipe
// model's first step, before any step has measured it (gpu/simulation.cpp, run()). Folded by
// reduce_totals in its wave-only mode into totals.step_wave.
#include "common.glsl"
#include "partials.glsl"

void main() {
    ivec2 c = cellId();
    float wave = 0.0;
    if (insideGrid(c))
        wave = length(imageLoad(velocity_img, c).xy) + sqrt(p.gravity * max(imageLoad(water_cur, c).r, 0.0));
    partialsWrite(1, float[PARTIALS_MAX](wave, 0.0, 0.0, 0.0, 0.0, 0.0),
                  int[PARTIALS_MAX](SLOT_MAX_WAVE, 0, 0, 0, 0, 0), 0u);
}
