#version 450
// The equilibrium water table (seed 003; gpu/water_table.cpp): one half-round of the relaxation
// to the table T that minimises E = S + U - G + C, in metres of head (energies over rho g):
//   S  surface tension, sum over the 4-neighbour edges of sigma_e sqrt(L^2 + dT^2) / L (the seed
//      uses the edges' lengths): sigma_air between water-body cells whose table is above the ground
//      (lakes and the sea come out flat), sigma_ground otherwise (the sponge);
//   G  gravity, (gravity / 2) (T - level)^2 on a lake cell (the supply holds it at its spill
//      surface W) and on land where the table rises above the ground (level: the ground; water on
//      land runs off);
//   C  capillarity and U the internal potential act where the sponge touches a water body:
//      (internal - capillarity) porosity T: capillarity pulls the table up into the ground beside
//      lakes and the sea, the internal potential (water likes to stay together) pulls it back;
//      there the table never lies below the water body beside it.
// Elsewhere in the ground only S acts: the table is the membrane spanned between the water bodies
// and the fixed cells (water_table.glsl), and never below the aquifer base.
// Each cell minimises its terms with its neighbours held (the edge lengths lagged), over-relaxed
// by TABLE_OVERRELAX (successive over-relaxation: the membrane converges in rounds proportional
// to the grid's side rather than its square) except in the last rounds (TABLE_POLISH: plain
// Gauss-Seidel, which settles the kinks over-relaxation circles around), red-black:
// push mode bit 1 picks the colour updated, the other colour is copied; bit 0 the half read
// (relax_b if set), the other is written. A cell that moved more than 1e-5 m and more than float
// rounding counts in ctl.changed[the round's parity] (TABLE_ROUND_ODD), both colours: the report's
// convergence.
#extension GL_KHR_shader_subgroup_ballot : require
#include "common.glsl"
#include "groundwater.glsl"
#include "sea.glsl"
#include "water_table.glsl"

const ivec2 kFaces[4] = ivec2[4](ivec2(-1, 0), ivec2(1, 0), ivec2(0, -1), ivec2(0, 1));

// The tension of a cell's side of its edges.
float sideTension(bool lake, bool ocean, float t, float b) {
    return (lake || ocean) && t > b ? p.table_tension_air : p.table_tension_ground;
}

void main() {
    ivec2 c = cellId();
    int src = pc.mode & 1;
    int colour = (pc.mode >> 1) & 1;
    int slot = (pc.mode & TABLE_ROUND_ODD) != 0 ? 1 : 0; // both half-rounds count here
    if (c == ivec2(0) && colour == 0) ctl.changed[1 - slot] = 0u; // the next round's

    bool moved = false;
    if (insideGrid(c)) {
        float t = relaxAt(src, c);
        float next = t;
        float b = imageLoad(terrain_cur, c).r;
        if (((c.x + c.y) & 1) == colour && tableFixed(c, b) == TABLE_FREE) {
            bool lake = tableLake(c, b);
            float own = sideTension(lake, false, t, b);
            float inv_area = 1.0 / (p.cell_size * p.cell_size);
            float num = 0.0, den = 0.0, beside = -SEA_UNREACHED;
            bool contact = false;
            for (int k = 0; k < 4; ++k) {
                ivec2 n = c + kFaces[k];
                if (!inGrid(n)) continue;
                float tn = relaxAt(src, n);
                float bn = imageLoad(terrain_cur, n).r;
                bool ocean_n = tableOcean(n, bn), lake_n = tableLake(n, bn);
                float sigma = min(own, sideTension(lake_n, ocean_n, tn, bn));
                float slope = (t - tn) / p.cell_size;
                float w = sigma * inv_area / sqrt(1.0 + slope * slope);
                num += w * tn;
                den += w;
                if ((lake_n || ocean_n) && tn > bn) {
                    contact = true;
                    beside = max(beside, tn);
                }
            }
            // The cell's minimum with its neighbours held: on a lake, against the well at the spill
            // surface; on land, in the ground (with the contact's load, never below the water
            // body beside it) unless that lies above the ground, then against the well at the
            // ground (the kink between the two is the ground itself).
            float best = t;
            if (lake) {
                best = (num + p.table_gravity * imageLoad(sea_spill_img, c).r) / (den + p.table_gravity);
            } else {
                float load = contact ? (p.table_internal - p.table_capillarity) * p.porosity : 0.0;
                best = den > 0.0 ? (num - load) / den : t;
                if (contact) best = max(best, beside);
                if (best > b) best = max((num + p.table_gravity * b) / (den + p.table_gravity), b);
            }
            next = t + ((pc.mode & TABLE_POLISH) != 0 ? 1.0 : TABLE_OVERRELAX) * (best - t);
            if (!lake && (best - b) * (next - b) < 0.0) next = b; // over-relaxed, never across the kink
            if (!lake && contact && next <= b) next = max(next, beside);
            next = max(next, imageLoad(aquifer_base_img, c).r);
        }
        relaxStore(1 - src, c, next);
        // Moved: by more than 1e-5 m and more than float rounding (8 to 16 ulps: 9.6e-5 m at 100 m,
        // where plain Gauss-Seidel still steps between neighbouring floats).
        moved = abs(next - t) > max(1e-5, 9.6e-7 * abs(t));
    }
    countChanged(moved && ownedCell(c), slot); // a split grid's bands are their owners' to count
}
