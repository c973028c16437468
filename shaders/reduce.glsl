// The fold of the step's sums (partials.glsl leaves one double per workgroup and slot): each
// level folds REDUCE_SIZE partials of a slot into one, in a fixed order, in many workgroups at
// once (reduce_partials.comp), down to one partial per slot, which reduce_totals.comp adds to the
// run's totals. Deterministic: no atomics, the same tree every time. The bindings both use.
#extension GL_GOOGLE_include_directive : require
#include "shared.h"

layout(std430, binding = B_PARAMS) readonly buffer ParamsBlock { SimParams p; };
layout(push_constant) uniform PushBlock { PushConstants pc; };
layout(std430, binding = B_PARTIALS) buffer PartialsBlock { double partials[]; };
