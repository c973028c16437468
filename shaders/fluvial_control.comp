#version 450
// One invocation between the fluvial model's iterative passes: counts them, and stops them on
// the GPU (the next indirect dispatch becomes empty) once a fill sweep changes nothing or no
// cell has an ancestor left to jump to. The host records a bounded number of each.
#extension GL_GOOGLE_include_directive : require
#include "shared.h"

layout(local_size_x = 1) in;
layout(std430, binding = B_PARAMS) readonly buffer ParamsBlock { SimParams p; };
layout(push_constant) uniform PushBlock { PushConstants pc; };
layout(std430, binding = B_FLUVIAL_CONTROL) buffer ControlBlock { FluvialControl ctl; };

void wholeGrid() {
    ctl.dispatch_x = uint(p.group_count_x);
    ctl.dispatch_y = uint(p.group_count_y);
    ctl.dispatch_z = 1u;
}

void main() {
    switch (pc.mode) {
    case CONTROL_START_FILL:
        ctl.dispatch_x = 0u; // fluvial_tiles.comp counts the tiles of each sweep
        ctl.dispatch_y = 1u;
        ctl.dispatch_z = 1u;
        ctl.changed = 0u;
        ctl.live = 0u;
        ctl.parity = 0u;
        ctl.sweeps = 0u;
        ctl.rounds = 0u;
        ctl.converged = 0u;
        ctl.tiles_swept = 0u;
        break;
    case CONTROL_AFTER_FILL:
        if (ctl.dispatch_x != 0u) {
            ctl.sweeps += 1u;
            ctl.tiles_swept += ctl.dispatch_x;
            if (ctl.changed == 0u) ctl.converged = 1u;
        }
        ctl.dispatch_x = 0u;
        ctl.dispatch_y = 1u;
        ctl.changed = 0u;
        break;
    case CONTROL_START_JUMPS:
        ctl.acc_parity = ctl.parity;
        ctl.parity = 0u;
        ctl.live = 0u;
        wholeGrid();
        break;
    case CONTROL_AFTER_JUMP:
        if (ctl.dispatch_x != 0u) {
            ctl.parity ^= 1u;
            ctl.rounds += 1u;
            if (ctl.live == 0u) ctl.dispatch_x = 0u;
        }
        ctl.live = 0u;
        break;
    }
}
