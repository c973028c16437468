// Included by the fluvial passes (seed 003: river networks and lakes). Cells are indexed
// i = y * width + x; tiles are the 16x16 workgroups.
//
// The lake-filled surface W is what priority flood computes: W(c) is the lowest height at which
// c reaches an outlet, max(z) along the best path. Depression routing finds it in a number of
// rounds bounded by the grid (gpu/fluvial.cpp lists them): every cell points down to its lowest
// neighbour, the pointers end in pits (one basin each) or at outlets (the ocean); for any cell,
// W(c) = max(z(c), S(basin)) where S is the basin's spill height, the minimax distance from the
// basin to the ocean in the graph of basins whose edges are the lowest passes between
// neighbours. Boruvka rounds solve that graph: each component hooks onto its lowest pass to
// another (a unique 64-bit key: ordered height << 32 | edge), and S is the highest pass on the
// way through the hooks to the ocean. Steps across a flat of W (the breadth-first distance to
// its exit, which the receivers on lakes follow) relax tile by tile. Every round reads one half
// of a ping-pong pair and writes the other, so no round's reach depends on the order in which
// workgroups run: the round counts are the same on every device.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_atomic_int64 : require
#extension GL_KHR_shader_subgroup_vote : require
#extension GL_KHR_shader_subgroup_ballot : require
#define FLUVIAL_TILES // FLUVIAL_TILE^2 workgroups, whatever the grid passes' shape
#include "common.glsl"

layout(std430, binding = B_FLUVIAL_LEVEL) buffer LevelBlock { uint fluvial_level[]; };
layout(std430, binding = B_FLUVIAL_STEPS) buffer StepsBlock { uint fluvial_steps[]; };
layout(std430, binding = B_FLUVIAL_RCV) buffer RcvBlock { uint fluvial_rcv[]; };
layout(std430, binding = B_FLUVIAL_ACC) buffer AccBlock { uint64_t fluvial_acc[]; };
layout(std430, binding = B_FLUVIAL_ANC) buffer AncBlock { uint fluvial_anc[]; };
layout(std430, binding = B_FLUVIAL_AB) buffer AbBlock { uvec2 fluvial_ab[]; };
layout(std430, binding = B_FLUVIAL_RING) buffer RingBlock { uint fluvial_ring[]; };
layout(std430, binding = B_FLUVIAL_RING_VAL) buffer RingValBlock { uint64_t fluvial_ring_val[]; };
layout(std430, binding = B_FLUVIAL_CONTROL) buffer ControlBlock { FluvialControl ctl; };
layout(std430, binding = B_FLUVIAL_TILES) buffer TilesBlock { uint fluvial_tiles[]; };

const uint64_t KEY_INF = 0xFFFFFFFFFFFFFFFFul;

uint cellCount() { return uint(p.width) * uint(p.height); }
uint cellIndex(ivec2 c) { return uint(c.y) * uint(p.width) + uint(c.x); }
ivec2 cellAt(uint i) { return ivec2(int(i % uint(p.width)), int(i / uint(p.width))); }
uint tileCount() { return uint(p.tile_count_x) * uint(p.tile_count_y); }

bool isOutlet(ivec2 c) {
    int o = p.fluvial_outlets;
    return ((o & OUTLET_LEFT) != 0 && c.x == 0) || ((o & OUTLET_RIGHT) != 0 && c.x == p.width - 1) ||
           ((o & OUTLET_TOP) != 0 && c.y == 0) || ((o & OUTLET_BOTTOM) != 0 && c.y == p.height - 1);
}

// The sea (enable_sea, seed 003's base level): a cell whose filled level W lies below sea_level
// reaches an outlet through cells all below the sea: it is ocean, base level like an outlet (it
// does not erode, takes no deposit, is its own receiver; rivers erode towards sea_level). The
// fill itself runs on the outlet edges alone (so W of every other cell, which is at or above the
// sea, is unchanged); W < sea_level then marks the ocean in every pass after fluvial_level.
bool isOceanLevel(uint w);
bool isOceanCell(uint i);

// The basins (the fill's labels stay for the whole iteration) and the basin graph's arrays.
layout(std430, binding = B_FLUVIAL_LABEL) buffer LabelBlock { uint fluvial_label[]; };
layout(std430, binding = B_FLUVIAL_BASIN) buffer BasinBlock { uint fluvial_basin[]; };
layout(std430, binding = B_FLUVIAL_LISTS) buffer ListsBlock { uint fluvial_lists[]; };
// The basin of cell i once the labels are resolved (the first edge round resolves them all).
uint basinOfCell(uint i) { return fluvial_label[i] & LABEL_INDEX; }
uint blockCount();
uint basinAt(uint section, uint b) { return section * blockCount() + b; }
// Lakes that balance evaporation (lake_evaporation > 0): per basin, sections of B_FLUVIAL_LISTS
// after its four lists, written by the host before the step (Simulation::prepareFluvialLakes).
#define LAKE_LEVEL 0u    // the basin's water level (ordered bits; FLUVIAL_NONE: none given)
#define LAKE_SINK 1u     // the pit cell of a basin under a closed lake (the lake's sink), else FLUVIAL_NONE
#define LAKE_VOLUME 2u   // float: the lake's volume in the basin (m^3; a dry pan: its pit's room up to the exit)
#define LAKE_SEDIMENT 3u // float: the sediment that reached the sink (m^3; fluvial_deposit.comp writes it)
uint lakeAt(uint section, uint b) { return (4u + section) * blockCount() + b; }
// Sections of B_FLUVIAL_BASIN, each blockCount() long.
#define BASIN_COMP 0u  // the component's root basin (FLUVIAL_OCEAN once it drains out)
#define BASIN_SPILL 1u // the highest pass on the hooks from the basin to its component's root
#define BASIN_PTR 2u   // two halves: a hooked root's pointer towards its new root (itself: a root)
#define BASIN_PASS 4u  // two halves: the highest pass on that way

// Float -> uint with the same order (-0 counts as +0); and back.
uint orderedBits(float f) {
    uint u = floatBitsToUint(f);
    if (u == 0x80000000u) u = 0u;
    return (u & 0x80000000u) != 0u ? ~u : (u | 0x80000000u);
}
float fromOrdered(uint o) { return uintBitsToFloat((o & 0x80000000u) != 0u ? (o & 0x7FFFFFFFu) : ~o); }
uint groundBits(ivec2 c) { return orderedBits(imageLoad(terrain_cur, c).r); }
bool isOceanLevel(uint w) { return p.enable_sea != 0 && w != FLUVIAL_NONE && w < orderedBits(p.sea_level); }
// A cell of a basin under a closed lake (its level may lie below the sea: it is no ocean).
bool inClosedLake(uint i) {
    if (p.lake_evaporation <= 0.0) return false;
    uint b = basinOfCell(i);
    return b != FLUVIAL_OCEAN && fluvial_lists[lakeAt(LAKE_SINK, b)] != FLUVIAL_NONE;
}
bool isOceanCell(uint i) { return isOceanLevel(fluvial_level[i]) && !inClosedLake(i); }
// A closed lake's sink (lake_evaporation > 0; after the route): its own receiver, not base
// level. The sediment arriving there stays in the lake.
bool isLakeSinkCell(ivec2 c, uint i) {
    return p.lake_evaporation > 0.0 && fluvial_rcv[i] == RCV_SELF && !isOutlet(c) && !isOceanCell(i);
}
// Outlets and the ocean: base level.
bool isBase(ivec2 c, uint i) { return isOutlet(c) || isOceanCell(i); }

// The 8 neighbours in a fixed order (ties go to the first), and 1 / distance in cells. The first
// four have smaller indices.
const ivec2 NB[8] = ivec2[8](ivec2(-1, -1), ivec2(0, -1), ivec2(1, -1), ivec2(-1, 0), ivec2(1, 0),
                             ivec2(-1, 1), ivec2(0, 1), ivec2(1, 1));
const float NB_INV_DIST[8] = float[8](0.70710677, 1.0, 0.70710677, 1.0, 1.0, 0.70710677, 1.0, 0.70710677);
// The basin graph's edges: each pair of neighbours once, from the cell with the smaller index.
const ivec2 EDGE_DIRS[4] = ivec2[4](ivec2(1, 0), ivec2(-1, 1), ivec2(0, 1), ivec2(1, 1));

// Tests permute the order in which workgroups take their tiles or list chunks (p.fluvial_tile_order):
// no result and no round count may change.
uint permutedGroup(uint g, uint count) {
    if (p.fluvial_tile_order == 1) return count - 1u - g;
    if (p.fluvial_tile_order == 2) {
        // g * stride + count / 2 modulo count with a prime stride that does not divide count: a bijection.
        const uint primes[6] = uint[6](7u, 11u, 13u, 17u, 19u, 23u);
        for (int k = 0; k < 6; ++k)
            if (count % primes[k] != 0u) return uint((uint64_t(g) * primes[k] + count / 2u) % uint64_t(count));
        return count - 1u - g;
    }
    return g;
}
// The tile a grid-dispatched workgroup works on, and its invocation's cell.
ivec2 fluvialTile() {
    if (p.fluvial_tile_order == 0) return ivec2(gl_WorkGroupID.xy); // (no division: CPU drivers divide slowly)
    uint count = uint(p.tile_count_x) * uint(p.tile_count_y);
    uint g = permutedGroup(gl_WorkGroupID.y * uint(p.tile_count_x) + gl_WorkGroupID.x, count);
    return ivec2(int(g % uint(p.tile_count_x)), int(g / uint(p.tile_count_x)));
}
ivec2 fluvialCell() { return fluvialTile() * ivec2(WG_X, WG_Y) + ivec2(gl_LocalInvocationID.xy); }
// The workgroup of a job (fluvial_control.comp's rows of JOB_ROW_GROUPS), numbered row by row.
uint jobGroup() {
    uint groups = gl_NumWorkGroups.x * gl_NumWorkGroups.y;
    return permutedGroup(gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x, groups);
}
// The entry of a list (or ring node) an invocation of a 1D-indexed pass works on.
uint listEntry() { return jobGroup() * uint(WG_SIZE) + gl_LocalInvocationIndex; }

// Tiles and their border (ring) cells: 16 top, 16 bottom, 14 left, 14 right.
uint ringCount() { return tileCount() * uint(RING_CELLS); }
bool onRing(ivec2 local) { return local.x == 0 || local.y == 0 || local.x == WG_X - 1 || local.y == WG_Y - 1; }
uint ringIndex(ivec2 local) {
    if (local.y == 0) return uint(local.x);
    if (local.y == WG_Y - 1) return 16u + uint(local.x);
    if (local.x == 0) return 32u + uint(local.y - 1);
    return 46u + uint(local.y - 1);
}
uint ringNode(ivec2 c) {
    ivec2 tile = c / ivec2(WG_X, WG_Y);
    return (uint(tile.y) * uint(p.tile_count_x) + uint(tile.x)) * uint(RING_CELLS) + ringIndex(c - tile * ivec2(WG_X, WG_Y));
}
// Cells in lists as x | y << 16 (grids are at most 65535 wide): no division to find them again.
uint packCell(ivec2 c) { return uint(c.x) | (uint(c.y) << 16); }
ivec2 unpackCell(uint v) { return ivec2(int(v & 0xFFFFu), int(v >> 16)); }

// Receivers are stored as the index of the neighbour (NB order), or RCV_SELF.
ivec2 receiverCell(ivec2 c, uint code) { return code == RCV_SELF ? c : c + NB[code]; }

// Basins: the 2x2 block of their pit.
uint blockCount() { return uint((p.width + 1) / 2) * uint((p.height + 1) / 2); }
uint blockOf(ivec2 c) { return uint(c.y / 2) * uint((p.width + 1) / 2) + uint(c.x / 2); }

uint64_t packKey(uint level, uint low) { return (uint64_t(level) << 32) | uint64_t(low); }
uint keyLevel(uint64_t k) { return uint(k >> 32); }

// The steps of cell i, from the half of the flats' ping-pong pair that holds them.
uint flatSteps(uint i) { return fluvial_steps[ctl.flat_parity * cellCount() + i]; }

uint ringAt(uint section, uint node) { return section * ringCount() + node; }
uint64_t packFloats(float lo, float hi) { return packUint2x32(uvec2(floatBitsToUint(lo), floatBitsToUint(hi))); }
vec2 unpackFloats(uint64_t v) { return uintBitsToFloat(unpackUint2x32(v)); }
