#version 450
// Fluvial model, lake filling: one in-place sweep of key(c) = min(key(c), candidates from the
// 8 neighbours) (see fluvial.glsl). pc.mode picks the sweep direction (bit 0 flips x, bit 1
// flips y) so that values travel far within one sweep on drivers that run workgroups in order.
// Counts, per subgroup, whether any cell was lowered.
//
// Most of the grid settles in the first sweeps. A cell can only be lowered again after one of
// its neighbours was, so only the tiles (16 x 16 cells) listed by fluvial_tiles.comp sweep: those
// with a lowered cell in or around them in the previous sweep. One workgroup per listed tile,
// in list order (reversed when the sweep runs up).
#include "fluvial.glsl"

void main() {
    uint t = gl_WorkGroupID.x;
    if ((pc.mode & 2) != 0) t = gl_NumWorkGroups.x - 1u - t;
    uint tile_index = fluvial_tiles[tileCount() + t];
    ivec2 tile = ivec2(int(tile_index % uint(p.group_count_x)), int(tile_index / uint(p.group_count_x)));
    uint sweep = uint(pc.mode) >> 2;
    ivec2 local = ivec2(gl_LocalInvocationID.xy);
    if ((pc.mode & 1) != 0) local.x = WG_X - 1 - local.x;
    if ((pc.mode & 2) != 0) local.y = WG_Y - 1 - local.y;
    ivec2 c = tile * ivec2(WG_X, WG_Y) + local;
    bool lowered = false;
    if (insideGrid(c) && !isOutlet(c)) {
        uint i = cellIndex(c);
        uint64_t old_key = fluvial_key[i];
        uint64_t best = old_key;
        uint ground = orderedBits(imageLoad(terrain_cur, c).r);
        for (int k = 0; k < 8; ++k) {
            ivec2 n = c + NB[k];
            if (!inGrid(n)) continue;
            uint64_t kn = fluvial_key[cellIndex(n)];
            if (kn == KEY_INF) continue;
            uint level = keyLevel(kn);
            uint64_t candidate = level < ground ? packKey(ground, 0u) : kn + 1ul;
            best = min(best, candidate);
        }
        if (best < old_key) {
            fluvial_key[i] = best;
            lowered = true;
        }
    }
    if (subgroupAny(lowered) && subgroupElect()) {
        atomicAdd(ctl.changed, 1u);
        atomicMax(fluvial_tiles[tile_index], sweep);
    }
}
