#version 450
// The musgrave and simple models' last pass: this step's rain and evaporation (the per-workgroup,
// on CPU drivers per-subgroup, double sums their passes left in the model-totals buffer,
// grid_models.glsl) folded into the run's
// double totals, so their reports keep a water budget like the pipe model's. One workgroup; a
// fixed order, no atomics: deterministic.
#extension GL_GOOGLE_include_directive : require
#include "shared.h"

layout(local_size_x = REDUCE_SIZE) in;
layout(std430, binding = B_PARAMS) readonly buffer ParamsBlock { SimParams p; };
layout(std430, binding = B_TOTALS) buffer TotalsBlock { Totals totals; };
layout(std430, binding = B_DRAINED) readonly buffer ModelTotalsBlock {
    uint droplet_words[10];
    double water_sums[];
};

shared double sums[REDUCE_SIZE];

double slotTotal(uint slot) {
    const uint count = uint(p.group_count_x * p.group_count_y), i = gl_LocalInvocationIndex;
    double acc = 0.0;
    const uint per_group = uint(p.partials_per_group); // CPU drivers: each workgroup's subgroups
    for (uint g = i; g < count; g += REDUCE_SIZE) {
        double group_sum = 0.0lf; // in grid_models.glsl's order: the same double as a GPU's
        for (uint s = 0u; s < per_group; ++s) group_sum += water_sums[(slot * count + g) * per_group + s];
        acc += group_sum;
    }
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
