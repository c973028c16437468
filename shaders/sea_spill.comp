#version 450
// The sea, one round of its spill relaxation (gpu/sea.cpp). The spill surface W of a cell is the
// lowest level from which it reaches a sea edge (groundwater.glsl's seaOutlets) through its 4
// neighbours: the least over paths of the highest ground on the path, the surface priority-flood
// fills depressions to. A cell is ocean while W is under the sea's surface, so the tide needs no
// new relaxation: only a changed ground does. Rounds of
//   W'(c) = max(b(c), min(b(c) if c is on a sea edge, min over the 4 neighbours of W(n)))
// from W = SEA_UNREACHED everywhere decrease to W, one cell further per round; each reads one half
// of the relax pair and writes the other, so neither the result nor the number of rounds depends
// on the order in which workgroups run.
// Push mode: bit 0 the half read (relax_b if set), bit 1 the first round (the half read counts as
// unreached), bit 2 read the ground from terrain_next (rounds recorded within a step, after the
// model's passes) instead of terrain_cur. A cell that changed by more than 1 mm (erosion moves
// the ground a little every step; the ocean does not care) counts in ctl.changed[the half read];
// the round clears the other counter for the next round.
#extension GL_KHR_shader_subgroup_ballot : require
#include "common.glsl"
#include "groundwater.glsl"
#include "sea.glsl"

const ivec2 kFaces[4] = ivec2[4](ivec2(-1, 0), ivec2(1, 0), ivec2(0, -1), ivec2(0, 1));

void main() {
    ivec2 c = cellId();
    int src = pc.mode & 1;
    bool first = (pc.mode & 2) != 0;
    if (c == ivec2(0)) ctl.changed[1 - src] = 0u;
    bool changed = false;
    if (insideGrid(c)) {
        float b = (pc.mode & 4) != 0 ? imageLoad(terrain_next, c).r : imageLoad(terrain_cur, c).r;
        float lowest = onSeaEdge(c) ? b : SEA_UNREACHED;
        if (!first) {
            for (int k = 0; k < 4; ++k) {
                ivec2 n = c + kFaces[k];
                float there = relaxAt(src, clampToGrid(n)); // outside any branch (common.glsl)
                lowest = inGrid(n) ? min(lowest, there) : lowest;
            }
        }
        float w = lowest >= SEA_UNREACHED ? SEA_UNREACHED : max(b, lowest);
        float old = first ? SEA_UNREACHED : relaxAt(src, c);
        relaxStore(1 - src, c, w);
        changed = (old >= SEA_UNREACHED) != (w >= SEA_UNREACHED) || abs(w - old) > 1e-3;
    }
    countChanged(changed && ownedCell(c), src); // a split grid's bands are their owners' to count
}
