// The fold of the step's sums (partials.glsl leaves one double per workgroup and slot): each
// level folds REDUCE_SIZE partials of a slot into one, in a fixed order, in many workgroups at
// once (reduce_partials.comp); the last level of <= REDUCE_SIZE partials is folded into the
// run's totals by reduce_totals.comp. Deterministic: no atomics, the same tree every time.
#extension GL_GOOGLE_include_directive : require
#include "shared.h"

layout(local_size_x = REDUCE_SIZE) in;
layout(std430, binding = B_PARAMS) readonly buffer ParamsBlock { SimParams p; };
layout(push_constant) uniform PushBlock { PushConstants pc; };
layout(std430, binding = B_PARTIALS) buffer PartialsBlock { double partials[]; };

#define FOLD_CHUNK 16
shared double fold_values[REDUCE_SIZE];
shared double fold_chunks[REDUCE_SIZE / FOLD_CHUNK];


// Folds partials[first .. first + count) (count <= REDUCE_SIZE) of one slot; the result is valid
// in every invocation. Every invocation of the workgroup must call it (it holds barriers).
double foldBlock(uint first, uint count, bool is_max) {
    uint i = gl_LocalInvocationIndex;
    fold_values[i] = i < count ? partials[first + i] : 0.0lf;
    barrier();
    if (i < REDUCE_SIZE / FOLD_CHUNK) {
        double acc = 0.0lf;
        for (uint j = 0; j < FOLD_CHUNK; ++j) {
            double v = fold_values[i * FOLD_CHUNK + j];
            acc = is_max ? max(acc, v) : acc + v;
        }
        fold_chunks[i] = acc;
    }
    barrier();
    double acc = 0.0lf;
    for (uint j = 0; j < REDUCE_SIZE / FOLD_CHUNK; ++j) acc = is_max ? max(acc, fold_chunks[j]) : acc + fold_chunks[j];
    barrier(); // the next call overwrites the shared arrays
    return acc;
}
