#version 450
// The musgrave and simple models' last pass: this step's rain and evaporation (per-subgroup
// partials written by their passes through addWaterPartial) folded into the run's double
// totals, so their reports keep a water budget like the pipe model's. One workgroup; fixed
// order, no atomics: deterministic.
#extension GL_GOOGLE_include_directive : require
#include "shared.h"

layout(local_size_x = REDUCE_SIZE) in;
layout(std430, binding = B_PARAMS) readonly buffer ParamsBlock { SimParams p; };
layout(std430, binding = B_PARTIALS) readonly buffer PartialsBlock { float partials[]; };
layout(std430, binding = B_TOTALS) buffer TotalsBlock { Totals totals; };

shared double sums[REDUCE_SIZE];

double slotTotal(int slot) {
    const uint groups = uint(p.partial_count), base = uint(slot) * groups, i = gl_LocalInvocationIndex;
    double acc = 0.0;
    for (uint g = i; g < groups; g += REDUCE_SIZE) acc += double(partials[base + g]);
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
    const double rained = slotTotal(SLOT_RAIN), evaporated = slotTotal(SLOT_EVAPORATED);
    if (gl_LocalInvocationIndex == 0) {
        totals.acc[SLOT_RAIN] += rained;
        totals.acc[SLOT_EVAPORATED] += evaporated;
    }
}
