#version 450
// The bench's yardstick (app/cmd_bench.cpp): a plain copy of one buffer into another, 16 bytes
// per invocation, so the device's own copy bandwidth is measured in the same run as the passes.
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer Source { vec4 source[]; };
layout(std430, binding = 1) writeonly buffer Target { vec4 target[]; };
layout(push_constant) uniform Push { uint count; } pc;

void main() {
    uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    uint i = group * 256u + gl_LocalInvocationIndex;
    if (i < pc.count) target[i] = source[i];
}
