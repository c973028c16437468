#version 450
// The equilibrium water table's result (gpu/water_table.cpp): the half of the relax pair that
// holds it (push mode bit 0: relax_b) into water_table, and the spill relaxation the rounds used
// the pair for starts again.
#extension GL_KHR_shader_subgroup_ballot : require
#include "common.glsl"
#include "groundwater.glsl"
#include "sea.glsl"

void main() {
    ivec2 c = cellId();
    if (!insideGrid(c)) return;
    int held = pc.mode & 1;
    imageStore(water_table_img, c, vec4(relaxAt(held, c)));
    relaxStore(0, c, SEA_UNREACHED);
    relaxStore(1, c, SEA_UNREACHED);
}
