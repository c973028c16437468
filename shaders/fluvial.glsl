// Included by the fluvial passes (seed 003: river networks and lakes). The fill, routing,
// accumulation and implicit erosion all work on cell indices i = y * width + x.
//
// Lake filling is the fixed point of key(c) = min over neighbours n of
//   (z(c), 0)              if W(n) < z(c)   (c drains over its own ground), else
//   (W(n), steps(n) + 1)                    (c is flooded to n's level, one step further from the exit)
// with key = (W, steps) compared lexicographically, outlets fixed at (z, 0) and every other cell
// starting at +infinity. W is the lake-filled surface (the least surface >= z from which every
// cell reaches an outlet without going uphill: what priority-flood computes), steps the distance
// across a flat to its exit. Packed as one uint64 (the float's ordered bits high, steps low),
// the lexicographic minimum is an integer minimum, and every value a sweep reads is an upper
// bound of the fixed point, so sweeping in place (Gauss-Seidel, alternating directions)
// converges to exactly the same result as any other order.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_atomic_int64 : require
#extension GL_KHR_shader_subgroup_vote : require
#include "common.glsl"

layout(std430, binding = B_FLUVIAL_KEY) coherent buffer KeyBlock { uint64_t fluvial_key[]; };
layout(std430, binding = B_FLUVIAL_RCV) buffer RcvBlock { uint fluvial_rcv[]; };
layout(std430, binding = B_FLUVIAL_ACC) buffer AccBlock { uint64_t fluvial_acc[]; };
layout(std430, binding = B_FLUVIAL_ANC) buffer AncBlock { uint fluvial_anc[]; };
layout(std430, binding = B_FLUVIAL_AB) buffer AbBlock { vec2 fluvial_ab[]; };
layout(std430, binding = B_FLUVIAL_CONTROL) buffer ControlBlock { FluvialControl ctl; };
// [0, tiles): the last fill sweep that lowered a cell of the tile; [tiles, 2 tiles): the tiles to sweep.
layout(std430, binding = B_FLUVIAL_TILES) buffer TilesBlock { uint fluvial_tiles[]; };
uint tileCount() { return uint(p.group_count_x) * uint(p.group_count_y); }

const uint64_t KEY_INF = 0xFFFFFFFFFFFFFFFFul;

uint cellCount() { return uint(p.width) * uint(p.height); }
uint cellIndex(ivec2 c) { return uint(c.y) * uint(p.width) + uint(c.x); }
ivec2 cellAt(uint i) { return ivec2(int(i % uint(p.width)), int(i / uint(p.width))); }

bool isOutlet(ivec2 c) {
    int o = p.fluvial_outlets;
    return ((o & OUTLET_LEFT) != 0 && c.x == 0) || ((o & OUTLET_RIGHT) != 0 && c.x == p.width - 1) ||
           ((o & OUTLET_TOP) != 0 && c.y == 0) || ((o & OUTLET_BOTTOM) != 0 && c.y == p.height - 1);
}

// Float -> uint with the same order (-0 counts as +0); and back.
uint orderedBits(float f) {
    uint u = floatBitsToUint(f);
    if (u == 0x80000000u) u = 0u;
    return (u & 0x80000000u) != 0u ? ~u : (u | 0x80000000u);
}
float fromOrdered(uint o) { return uintBitsToFloat((o & 0x80000000u) != 0u ? (o & 0x7FFFFFFFu) : ~o); }

uint64_t packKey(uint level, uint steps) { return (uint64_t(level) << 32) | uint64_t(steps); }
uint keyLevel(uint64_t k) { return uint(k >> 32); }
uint keySteps(uint64_t k) { return uint(k & 0xFFFFFFFFul); }

// The 8 neighbours in a fixed order (ties go to the first), and 1 / distance in cells.
const ivec2 NB[8] = ivec2[8](ivec2(-1, -1), ivec2(0, -1), ivec2(1, -1), ivec2(-1, 0), ivec2(1, 0),
                             ivec2(-1, 1), ivec2(0, 1), ivec2(1, 1));
const float NB_INV_DIST[8] = float[8](0.70710677, 1.0, 0.70710677, 1.0, 1.0, 0.70710677, 1.0, 0.70710677);

// Fluvial model, stream-power erosion of cell i this iteration (m of ground): what uplift would
// have raised it to, minus the implicit solution (before diffusion). 0 for outlets and lakes.
float streamErosion(ivec2 c, uint i) {
    if (isOutlet(c) || imageLoad(lake_img, c).r > 0.0) return 0.0;
    float rise = p.uplift_rate * imageLoad(uplift_img, c).r * p.fluvial_dt;
    return max(imageLoad(terrain_cur, c).r + rise - fluvial_ab[ctl.parity * cellCount() + i].x, 0.0);
}

// Fraction of the sediment passing cell c that it keeps (Yuan et al. 2019's G term, G A_cell / A);
// outlets keep nothing (it leaves the grid).
float depositFraction(ivec2 c) {
    if (isOutlet(c)) return 0.0;
    return min(p.fluvial_deposition * cellArea() / max(imageLoad(drainage_img, c).r, cellArea()), 1.0);
}
