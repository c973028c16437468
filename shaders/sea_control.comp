#version 450
// The control of a relaxation run to its end within one recording (gpu/sea.cpp): one invocation.
// Push mode 0: start (the next round covers the grid, no rounds yet); 2 | h: after a round that
// read half h: when it changed nothing, the remaining rounds dispatch nothing.
#extension GL_GOOGLE_include_directive : require
#include "shared.h"
layout(local_size_x = 1) in;
layout(std430, binding = B_PARAMS) readonly buffer ParamsBlock { SimParams p; };
layout(push_constant) uniform PushBlock { PushConstants pc; };
layout(std430, binding = B_SEA_CONTROL) buffer SeaControlBlock { SeaControl ctl; };

void main() {
    if (pc.mode == 0) {
        ctl.dispatch_x = uint(p.group_count_x);
        ctl.dispatch_y = uint(p.group_count_y);
        ctl.dispatch_z = 1u;
        ctl.rounds = 0u;
        return;
    }
    if (ctl.dispatch_x == 0u) return;
    ctl.rounds += 1u;
    if (ctl.changed[pc.mode & 1] == 0u) ctl.dispatch_x = 0u;
}
