#version 450
// The musgrave and simple models' last pass: this step's rain and evaporation (the per-workgroup
// double sums their passes left in the model-totals buffer, grid_models.glsl) folded into the run's
// double totals, so their reports keep a water budget like the pipe model's. One workgroup; a
// fixed order, no atomics: deterministic.
#extension GL_GOOGLE_include_directive : require
#include "shared.h"

layout(local_size_x = REDUCE_SIZE) in;
layout(std430, binding = B_PARAMS) readonly buffer ParamsBlock { SimParams p; };
layout(std430, binding = B_TOTALS) buffer TotalsBlock { Totals totals; };
layout(std430, binding = B_DRAINED) readonly buffer ModelTotalsBlock {
    uint droplet_words[8];
    double water_sums[];
};

shared double sums[REDUCE_SIZE];

double slotTotal(uint slot) {
    const uint count = uint(p.group_count_x * p.group_count_y), i = gl_LocalInvocationIndex;
    double acc = 0.0;
    for (uint g = i; g < count; g += REDUCE_SIZE) acc += water_sums[slot * count + g];
    sums[i] = acc;
    barrier();
    for (uint stride = REDUCE_SIZE / 2; stride > 0; stride >>= 1) {
        if (i < stride) sums[i] += sums[i + stride];
        barrier();
    }
    const double total = sums[0];
    barrier();
    return total;
}

void main() {
    const double rained = slotTotal(0), evaporated = slotTotal(1); // WATER_RAIN, WATER_EVAPORATED
    if (gl_LocalInvocationIndex == 0) {
        totals.acc[SLOT_RAIN] += rained;
        totals.acc[SLOT_EVAPORATED] += evaporated;
    }
}
