#version 450
// Fluvial model, depression routing 1 (one pass): every cell points to its lowest lower
// neighbour on the unfilled ground, else (inside a flat) to the first equal neighbour with a
// smaller index, else it is a pit: a basin of its own. Outlets are roots of the ocean. The
// pointers only go down in (height, index), so they form a forest.
// Inside the tile, every cell follows the pointers (in shared memory) to its root or to the
// first cell outside the tile: its label is then its basin (LABEL_RESOLVED) or the ring node of
// that cell (LABEL_EXTERNAL), which the label rounds over the ring nodes resolve
// (fluvial_label_jump.comp). Also starts the basin graph:
// each pit is a component of its own, listed in LIST_PITS.
#include "fluvial_basins.glsl"

const int HALO = WG_X + 2;
shared uint ground[HALO * HALO]; // ordered height bits, FLUVIAL_NONE outside the grid
shared uint target[WG_SIZE];

uint groundAt(ivec2 local) { return ground[(local.y + 1) * HALO + local.x + 1]; }

void main() {
    ivec2 tile = fluvialTile();
    ivec2 origin = tile * ivec2(WG_X, WG_Y);
    uint li = gl_LocalInvocationIndex;
    for (uint k = li; k < uint(HALO * HALO); k += uint(WG_SIZE)) {
        ivec2 c = origin + ivec2(int(k % uint(HALO)) - 1, int(k / uint(HALO)) - 1);
        ground[k] = inGrid(c) ? groundBits(c) : FLUVIAL_NONE;
    }
    barrier();

    ivec2 local = ivec2(gl_LocalInvocationID.xy);
    ivec2 c = origin + local;
    bool inside = inGrid(c);
    bool pit = false;
    uint t = LABEL_RESOLVED | FLUVIAL_OCEAN;
    if (inside && !isOutlet(c)) {
        uint own = groundAt(local), lowest = own;
        int down = -1;
        for (int k = 0; k < 8; ++k) {
            uint g = groundAt(local + NB[k]); // FLUVIAL_NONE (outside) is never lower
            if (g < lowest) {
                lowest = g;
                down = k;
            }
        }
        for (int k = 0; k < 4 && down < 0; ++k)
            if (groundAt(local + NB[k]) == own) down = k;
        if (down < 0) {
            pit = true;
            t = LABEL_RESOLVED | blockOf(c);
        } else {
            ivec2 n = local + NB[down];
            bool in_tile = n.x >= 0 && n.y >= 0 && n.x < WG_X && n.y < WG_Y;
            t = in_tile ? uint(n.y * WG_X + n.x) : (LABEL_EXTERNAL | ringNode(origin + n));
        }
    }
    target[li] = t;
    barrier();
    // Follow the pointers within the tile (a path holds at most its 256 cells): reads only.
    for (int n = 0; n < WG_SIZE && (t & (LABEL_RESOLVED | LABEL_EXTERNAL)) == 0u; ++n) t = target[t];
    if (inside) {
        fluvial_rcv[cellIndex(c)] = groundAt(local); // fillGround() for the passes of the fill
        fluvial_label[cellIndex(c)] = t;
    }
    if (onRing(local)) fluvial_ring[ringNode(c)] = t; // half 0 (outside the grid: the ocean, never asked)
    if (pit) {
        uint b = blockOf(c);
        fluvial_basin[basinAt(BASIN_COMP, b)] = b;
        fluvial_basin[basinAt(BASIN_SPILL, b)] = 0u;
        fluvial_best[b] = KEY_INF;
    }
    uvec4 ballot = subgroupBallot(pit);
    uint base = 0u;
    if (subgroupElect()) base = atomicAdd(ctl.lists[LIST_PITS], subgroupBallotBitCount(ballot));
    base = subgroupBroadcastFirst(base);
    if (pit) fluvial_lists[listAt(LIST_PITS, base + subgroupBallotExclusiveBitCount(ballot))] = blockOf(c);
}
