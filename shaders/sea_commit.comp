#version 450
// The sea: puts a finished spill relaxation in use (gpu/sea.cpp). Push mode bit 0: the half that
// holds the relaxation (relax_b if set); bit 1: unconditionally (a relaxation run to its end
// within one recording), else only if the round that wrote it changed nothing (the rounds run
// a few per step behind the surface in use). When it commits, it copies the half into sea_spill
// and starts the next relaxation (the half becomes unreached).
#extension GL_KHR_shader_subgroup_ballot : require
#include "common.glsl"
#include "groundwater.glsl"
#include "sea.glsl"

void main() {
    ivec2 c = cellId();
    int held = pc.mode & 1;
    bool commit = (pc.mode & 2) != 0 || ctl.changed[1 - held] == 0u; // the round read the other half
    if (!commit) return; // uniform
    if (c == ivec2(0)) ctl.commits += 1u;
    if (!insideGrid(c)) return;
    imageStore(sea_spill_img, c, vec4(relaxAt(held, c)));
    relaxStore(held, c, SEA_UNREACHED);
}
