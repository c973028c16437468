// Included (after common.glsl and groundwater.glsl) by the sea's spill relaxation and the water
// table's (gpu/sea.cpp, gpu/water_table.cpp): the control block, and the two halves of the
// relaxation's ping-pong pair.
layout(std430, binding = B_SEA_CONTROL) buffer SeaControlBlock { SeaControl ctl; };

float relaxAt(int half_index, ivec2 q) {
    return half_index == 0 ? imageLoad(relax_a_img, q).r : imageLoad(relax_b_img, q).r;
}
void relaxStore(int half_index, ivec2 q, float v) {
    if (half_index == 0) imageStore(relax_a_img, q, vec4(v));
    else imageStore(relax_b_img, q, vec4(v));
}

// Counts the invocations of the workgroup for which `changed` holds into ctl.changed[parity]
// (one atomic per subgroup).
void countChanged(bool changed, int parity) {
    uint n = subgroupBallotBitCount(subgroupBallot(changed));
    if (subgroupElect() && n > 0u) atomicAdd(ctl.changed[parity], n);
}
