#version 450
// The equilibrium water table (seed 003; gpu/water_table.cpp), its start: a wet world, every
// depression full to its spill surface W, the ocean at sea_level, the table at the ground
// elsewhere. Writes both halves of the relax pair (the red-black rounds copy the cells they do
// not update).
#extension GL_KHR_shader_subgroup_ballot : require
#include "common.glsl"
#include "groundwater.glsl"
#include "sea.glsl"
#include "water_table.glsl"

void main() {
    ivec2 c = cellId();
    if (c == ivec2(0)) ctl.changed[0] = 0u; // the first round counts its moved cells here
    if (!insideGrid(c)) return;
    float b = imageLoad(terrain_cur, c).r;
    float t = tableFixed(c, b);
    if (t == TABLE_FREE) t = tableLake(c, b) ? imageLoad(sea_spill_img, c).r : b;
    relaxStore(0, c, t);
    relaxStore(1, c, t);
}
