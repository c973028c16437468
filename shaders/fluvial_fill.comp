#version 450
// Fluvial model, lake filling: one in-place sweep of key(c) = min(key(c), candidates from the
// 8 neighbours) (see fluvial.glsl). pc.mode picks the sweep direction (bit 0 flips x, bit 1
// flips y) so that values travel far within one sweep on drivers that run workgroups in order.
// Counts, per subgroup, whether any cell was lowered.
#include "fluvial.glsl"

void main() {
    ivec2 g = cellId();
    ivec2 c = ivec2((pc.mode & 1) != 0 ? p.width - 1 - g.x : g.x, (pc.mode & 2) != 0 ? p.height - 1 - g.y : g.y);
    bool lowered = false;
    if (g.x < p.width && g.y < p.height && !isOutlet(c)) {
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
    if (subgroupAny(lowered) && subgroupElect()) atomicAdd(ctl.changed, 1u);
}
