// Included (after common.glsl, groundwater.glsl and sea.glsl) by the equilibrium water table's
// passes (seed 003; gpu/water_table.cpp): how each cell takes part in the relaxation.
//   water bodies: the ocean (fixed at sea_level) and lakes, the depressions the spill surface W
//                 fills (W > b; sea_spill holds W, relaxed with the fluvial model's outlets);
//   fixed cells:  the ocean; without a sea, the outlet edges at their ground (water leaves there).

// Successive over-relaxation of the red-black rounds (water_table.comp).
// The last rounds (TABLE_POLISH) are plain Gauss-Seidel, which settles the kinks that
// over-relaxation circles around (on a procedural 128^2 terrain, over-relaxed to the end, 1,034
// cells kept moving by ~10 ulps round after round, some 0.022 m from the settled table).
const float TABLE_OVERRELAX = 1.6;

bool tableOcean(ivec2 c, float b) { return p.enable_sea != 0 && b < p.sea_level && imageLoad(sea_spill_img, c).r < p.sea_level; }
bool tableLake(ivec2 c, float b) {
    float w = imageLoad(sea_spill_img, c).r;
    return w < SEA_UNREACHED && w > b;
}
// The value a fixed cell holds, or NaN-free sentinel -1e38 for a free one.
const float TABLE_FREE = -1.0e38;
float tableFixed(ivec2 c, float b) {
    if (tableOcean(c, b)) return p.sea_level;
    if (p.enable_sea == 0 && onSeaEdge(c)) return b;
    return TABLE_FREE;
}
