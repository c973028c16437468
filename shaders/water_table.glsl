// Included (after common.glsl, groundwater.glsl and sea.glsl) by the equilibrium water table's
// passes (seed 003; gpu/water_table.cpp): how each cell takes part in the relaxation.
//   water bodies: the ocean (fixed at sea_level) and lakes, the depressions the spill surface W
//                 fills (W > b; sea_spill holds W, relaxed with the fluvial model's outlets);
//   fixed cells:  the ocean; without a sea, the outlet edges at their ground (water leaves there).

// Successive over-relaxation of the red-black rounds (water_table.comp).
const float TABLE_OVERRELAX = 1.6;
// Push mode bit: the last rounds are plain Gauss-Seidel (no over-relaxation), which does not
// amplify the float rounding of a converged table (over-relaxed, cells at ~100 m kept moving by
// ~10 ulps, 7.6e-5 m, round after round).
const int TABLE_POLISH = 4;

bool tableOcean(ivec2 c, float b) { return p.enable_sea != 0 && b < p.sea_level && imageLoad(sea_spill, c).r < p.sea_level; }
bool tableLake(ivec2 c, float b) {
    float w = imageLoad(sea_spill, c).r;
    return w < SEA_UNREACHED && w > b;
}
// The value a fixed cell holds, or NaN-free sentinel -1e38 for a free one.
const float TABLE_FREE = -1.0e38;
float tableFixed(ivec2 c, float b) {
    if (tableOcean(c, b)) return p.sea_level;
    if (p.enable_sea == 0 && onSeaEdge(c)) return b;
    return TABLE_FREE;
}
