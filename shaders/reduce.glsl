// Single-workgroup reductions over the per-subgroup partial sums of one step, in double
// precision, folded into the run's totals. Deterministic: fixed order, no atomics.
#extension GL_GOOGLE_include_directive : require
#include "shared.h"

layout(local_size_x = REDUCE_SIZE) in;
layout(std430, binding = B_PARAMS) readonly buffer ParamsBlock { SimParams p; };
layout(std430, binding = B_PARTIALS) readonly buffer PartialsBlock { float partials[]; };
layout(std430, binding = B_TOTALS) buffer TotalsBlock { Totals totals; };

shared double reduce_double[REDUCE_SIZE];

// Sum of one slot over all workgroups (0 if the slot is off this step); valid in every
// invocation.
double slotSum(int slot) {
    if (!slotActive(p, slot)) return 0.0lf;
    uint groups = uint(p.partial_count);
    uint base = uint(slot) * groups;
    double acc = 0.0;
    for (uint g = gl_LocalInvocationIndex; g < groups; g += REDUCE_SIZE) acc += double(partials[base + g]);
    uint i = gl_LocalInvocationIndex;
    reduce_double[i] = acc;
    barrier();
    for (uint stride = REDUCE_SIZE / 2; stride > 0; stride >>= 1) {
        if (i < stride) reduce_double[i] += reduce_double[i + stride];
        barrier();
    }
    double r = reduce_double[0];
    barrier();
    return r;
}

float slotMax(int slot) {
    uint groups = uint(p.partial_count);
    uint base = uint(slot) * groups;
    float m = 0.0;
    for (uint g = gl_LocalInvocationIndex; g < groups; g += REDUCE_SIZE) m = max(m, partials[base + g]);
    uint i = gl_LocalInvocationIndex;
    reduce_double[i] = double(m);
    barrier();
    for (uint stride = REDUCE_SIZE / 2; stride > 0; stride >>= 1) {
        if (i < stride) reduce_double[i] = max(reduce_double[i], reduce_double[i + stride]);
        barrier();
    }
    float r = float(reduce_double[0]);
    barrier();
    return r;
}
