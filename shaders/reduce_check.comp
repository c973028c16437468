#version 450
// Test-only (tests/test_passes.cpp): feeds the step's fold with known values, so the fold can be
// checked against a CPU sum: every cell's water depth into SLOT_RAIN (a sum) and into
// SLOT_MAX_SPEED (a maximum), through the same per-workgroup partials as the real passes.
#include "common.glsl"
#include "partials.glsl"

void main() {
    ivec2 c = cellId();
    float v = insideGrid(c) ? imageLoad(water_cur, c).r : 0.0;
    partialsWrite(2, float[PARTIALS_MAX](v, v, 0.0, 0.0, 0.0, 0.0),
                  int[PARTIALS_MAX](SLOT_RAIN, SLOT_MAX_SPEED, 0, 0, 0, 0), 0u);
}
