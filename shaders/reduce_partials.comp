#version 450
// One level of the fold of the step's sums: workgroup (g, slot) folds partials g * REDUCE_SIZE ..
// of that slot's input level into one partial of the output level. As many levels as the grid
// needs run one after another (gpu/pipe.cpp), down to one partial per slot; each level is spread
// over many workgroups (the last one over the slots), none folds the whole grid.
#include "reduce.glsl"

layout(local_size_x = REDUCE_SIZE) in;
// CPU drivers (gpu/workgroup.h): the step's sums per subgroup, and this fold without barriers.
layout(constant_id = SPEC_SUBGROUP_PARTIALS) const bool SUBGROUP_PARTIALS = false;

#define FOLD_CHUNK 16
shared double fold_values[REDUCE_SIZE];
shared double fold_chunks[REDUCE_SIZE / FOLD_CHUNK];

// Folds partials[first .. first + count) (count <= REDUCE_SIZE) of one slot in a fixed order:
// chunks of FOLD_CHUNK in parallel, then the chunks in order. The result is valid in every
// invocation. Every invocation of the workgroup must call it (it holds barriers).
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
    return acc;
}

// CPU drivers (SUBGROUP_PARTIALS): foldBlock's additions in foldBlock's order, by one invocation.
// A barrier makes a CPU driver run the workgroup as coroutines, which cost more than the few
// hundred loads (lavapipe, 512^2: the fold's levels took 0.5 ms of the step with barriers).
double foldBlockSerial(uint first, uint count, bool is_max) {
    double acc = 0.0lf;
    for (uint i = 0; i < REDUCE_SIZE / FOLD_CHUNK; ++i) {
        double chunk = 0.0lf;
        for (uint j = 0; j < FOLD_CHUNK; ++j) {
            uint k = i * FOLD_CHUNK + j;
            double v = k < count ? partials[first + k] : 0.0lf;
            chunk = is_max ? max(chunk, v) : chunk + v;
        }
        acc = is_max ? max(acc, chunk) : acc + chunk;
    }
    return acc;
}

void main() {
    int slot = int(gl_WorkGroupID.y);
    if (!slotActive(p, slot)) return; // uniform over the workgroup
    if (SUBGROUP_PARTIALS && gl_LocalInvocationIndex != 0) return; // uniform: no barrier on this path
    uint count_in = pc.reduce_count;
    uint count_out = (count_in + REDUCE_SIZE - 1u) / REDUCE_SIZE;
    uint first = pc.reduce_in + uint(slot) * count_in + gl_WorkGroupID.x * REDUCE_SIZE;
    uint count = min(REDUCE_SIZE, count_in - gl_WorkGroupID.x * REDUCE_SIZE);
    bool is_max = slotIsMax(slot);
    double sum = SUBGROUP_PARTIALS ? foldBlockSerial(first, count, is_max) : foldBlock(first, count, is_max);
    if (gl_LocalInvocationIndex == 0) partials[pc.reduce_out + uint(slot) * count_out + gl_WorkGroupID.x] = sum;
}
