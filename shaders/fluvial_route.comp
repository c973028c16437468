#version 450
// Fluvial model, routing on the filled surface W: a cell's receiver is its steepest-descent
// neighbour (drop over distance, 8 neighbours); on a flat (a lake) it is the neighbour one step
// nearer the flat's exit. Every receiver has a lower W, or the same W and fewer steps, so every
// path ends at an outlet. (Were the flats' rounds cut short, a step count is still an upper
// bound that a neighbour undercuts by one, so the paths still end at exits; cells no round
// reached drain nowhere: the report says the fill fell short.)
// Writes the lake depth W - z, and starts the drainage accumulation within the tile: each
// cell's rain (the rain mask, in units of FLUVIAL_ACC_ONE) summed down its path to the tile's
// exit; the tile's exits are listed for the rounds across tiles, and each ring cell notes the
// exit its path leaves by.
#include "fluvial_tree.glsl"

void main() {
    ivec2 tile = fluvialTile();
    ivec2 origin = tile * ivec2(WG_X, WG_Y);
    uint li = gl_LocalInvocationIndex;
    treeClear(li);

    ivec2 local = ivec2(gl_LocalInvocationID.xy);
    ivec2 c = origin + local;
    bool inside = inGrid(c);
    uint i = inside ? cellIndex(c) : 0u;
    uint parent = TREE_ROOT;
    uint weight = 0u;
    if (inside) {
        uint wc = fluvial_level[i];
        uint receiver = RCV_SELF;
        float lake = 0.0;
        if (isOceanLevel(wc) && !inClosedLake(i)) {
            lake = max(p.sea_level - fromOrdered(fluvial_rcv[i]), 0.0); // the sea, drawn as water; its own receiver
        } else if (wc != FLUVIAL_NONE && !isOutlet(c)) {
            precise float w = fromOrdered(wc);
            lake = max(w - fromOrdered(fluvial_rcv[i]), 0.0); // the ground, as the fill left it
            precise float best_slope = 0.0;
            uint best_steps = flatSteps(i);
            int best = -1, flat_best = -1;
            for (int k = 0; k < 8; ++k) {
                ivec2 n = c + NB[k];
                if (!inGrid(n)) continue;
                uint wn_bits = fluvial_level[cellIndex(n)];
                if (wn_bits == FLUVIAL_NONE) continue; // unreached
                precise float wn = fromOrdered(wn_bits);
                if (wn < w) {
                    precise float slope = (w - wn) * NB_INV_DIST[k];
                    if (slope > best_slope) {
                        best_slope = slope;
                        best = k;
                    }
                } else if (wn == w) {
                    uint sn = flatSteps(cellIndex(n));
                    if (sn < best_steps) {
                        best_steps = sn;
                        flat_best = k;
                    }
                }
            }
            if (best < 0) best = flat_best;
            if (best >= 0) receiver = uint(best);
        }
        imageStore(lake_img, c, vec4(lake));
        float rain = clamp(imageLoad(rain_mask_img, c).r, 0.0, 1.0);
        weight = uint(rain * float(FLUVIAL_ACC_ONE) + 0.5);
        fluvial_rcv[i] = receiver; // replaces the ground bits the fill kept here (read above, own cell only)
        if (receiver != RCV_SELF) {
            ivec2 rl = local + NB[receiver];
            bool in_tile = rl.x >= 0 && rl.y >= 0 && rl.x < WG_X && rl.y < WG_Y;
            parent = in_tile ? uint(rl.y * WG_X + rl.x) : TREE_OUT;
        }
    }
    tree_parent[li] = parent;
    barrier();
    uint exit_cell = FLUVIAL_NONE;
    if (inside) {
        // Local sums stay below 2^24 (256 cells of at most 2^16): the low word suffices.
        uint k = li;
        for (int n = 0; n < WG_SIZE; ++n) { // a path holds at most the tile's cells
            atomicAdd(tree_lo[k], weight);
            if (tree_parent[k] >= TREE_OUT) break;
            k = tree_parent[k];
        }
        if (tree_parent[k] == TREE_OUT) exit_cell = k;
    }
    barrier();
    bool exit = inside && parent == TREE_OUT;
    if (inside) {
        fluvial_acc[i] = uint64_t(tree_lo[li]);
        if (onRing(local)) {
            fluvial_ring[ringAt(RING_EXIT, ringNode(c))] =
                exit_cell == FLUVIAL_NONE ? FLUVIAL_NONE : ringNode(origin + treeLocal(exit_cell));
            fluvial_ring_val[ringAt(VAL_INFLOW, ringNode(c))] = 0ul; // fluvial_tree_push.comp adds into it
        }
    }
    uvec4 ballot = subgroupBallot(exit);
    uint base = 0u;
    if (subgroupElect()) base = atomicAdd(ctl.exits, subgroupBallotBitCount(ballot));
    base = subgroupBroadcastFirst(base);
    if (exit) fluvial_ring[ringAt(RING_LIST, base + subgroupBallotExclusiveBitCount(ballot))] = packCell(c);
}
