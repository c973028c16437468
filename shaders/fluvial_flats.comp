#version 450
// Fluvial model, depression routing 8 (rounds): steps across the flats of W, the breadth-first
// distance within a connected set of equal W to its exits, as the fixed point of
//   steps(c) = 0 at exits, else 1 + min over the neighbours n with W(n) = W(c) of steps(n).
// One round: every listed flat tile whose neighbourhood changed in the previous round loads its
// steps and those of its border from the current half, relaxes its own cells to the tile's
// fixed point in shared memory (in place: any order reaches the same fixed point), and writes
// the other half. The rounds follow the flats' geodesics a tile at a time, whatever order the
// tiles run in. A tile left out did not change and holds the same steps in both halves.
#include "fluvial.glsl"

const int HALO = WG_X + 2;
shared uint levels[HALO * HALO];
shared uint steps[HALO * HALO];
shared uint flags[3]; // [0], [1]: something was lowered in an odd / even sweep; [2]: the tile changed

uint at(ivec2 local) { return uint((local.y + 1) * HALO + local.x + 1); }

void main() {
    uint g = jobGroup(); // a flat tile
    if (g >= ctl.flat_tiles) return; // the last row's workgroups past the list (uniform)
    ivec2 tile = unpackCell(fluvial_tiles[2u * tileCount() + g]);
    uint t = uint(tile.y) * uint(p.tile_count_x) + uint(tile.x);
    uint round_ = ctl.rounds_flats + 1u;
    uint seen = ((round_ - 1u) & 1u) * tileCount(), mine = (round_ & 1u) * tileCount();
    // Visited when this tile or a neighbour changed in the previous round.
    bool visit = false;
    for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
            ivec2 n = tile + ivec2(dx, dy);
            if (n.x >= 0 && n.y >= 0 && n.x < p.tile_count_x && n.y < p.tile_count_y)
                visit = visit || fluvial_tiles[seen + uint(n.y) * uint(p.tile_count_x) + uint(n.x)] != 0u;
        }
    if (!visit) { // uniform
        if (gl_LocalInvocationIndex == 0u) fluvial_tiles[mine + t] = 0u;
        return;
    }
    ivec2 origin = tile * ivec2(WG_X, WG_Y);
    uint li = gl_LocalInvocationIndex;
    uint cur = ctl.parity * cellCount(), next = (ctl.parity ^ 1u) * cellCount();
    for (uint k = li; k < uint(HALO * HALO); k += uint(WG_SIZE)) {
        ivec2 c = origin + ivec2(int(k % uint(HALO)) - 1, int(k / uint(HALO)) - 1);
        bool in_grid = inGrid(c);
        levels[k] = in_grid ? fluvial_level[cellIndex(c)] : FLUVIAL_NONE;
        steps[k] = in_grid ? fluvial_steps[cur + cellIndex(c)] : FLUVIAL_NONE;
    }
    if (li == 0u) {
        flags[0] = 0u;
        flags[1] = 0u;
        flags[2] = 0u;
    }
    barrier();
    ivec2 local = ivec2(gl_LocalInvocationID.xy);
    ivec2 c = origin + local;
    uint me = at(local);
    uint w = levels[me], before = steps[me];
    // Exits (0) and cells no outlet reaches never change.
    bool relax = inGrid(c) && w != FLUVIAL_NONE && before != 0u;
    for (uint sweep = 0u;; ++sweep) {
        if (relax) {
            uint s = steps[me], best = s;
            for (int k = 0; k < 8; ++k) {
                uint n = at(local + NB[k]);
                if (levels[n] == w && steps[n] != FLUVIAL_NONE) best = min(best, steps[n] + 1u);
            }
            if (best < s) {
                atomicMin(steps[me], best); // neighbours read it meanwhile: old or new, both upper bounds
                flags[sweep & 1u] = 1u;
            }
        }
        barrier();
        bool again = flags[sweep & 1u] != 0u;
        barrier();
        if (li == 0u) flags[sweep & 1u] = 0u; // read by everyone above; set again two sweeps on
        if (!again) break;
    }
    if (inGrid(c)) {
        uint s = steps[me];
        fluvial_steps[next + cellIndex(c)] = s;
        if (s != before) flags[2] = 1u;
    }
    barrier();
    if (li == 0u) {
        fluvial_tiles[mine + t] = flags[2];
        atomicAdd(ctl.tiles_flats, 1u);
        if (flags[2] != 0u) atomicAdd(ctl.changed, 1u);
    }
}
