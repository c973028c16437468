#version 450
// Fluvial model, depression routing 3 (a round of the basin graph): every pair of neighbouring
// cells in different components offers its pass, max(z_a, z_b), to both components, keyed by
// (ordered height << 32 | cell << 2 | direction) so that the lowest pass of each component is
// unique and does not depend on the order of the atomics. The first round (pc.mode 0) scans the
// grid, resolves the labels left external by the tiles (the label rounds are done) and lists
// the boundary cells; later rounds scan that list and drop the pairs that became one component.
#include "fluvial_basins.glsl"

uint resolvedLabel(uint i) {
    uint v = fluvial_label[i];
    if ((v & LABEL_EXTERNAL) != 0u) v = fluvial_ring[ctl.parity * ringCount() + (v & LABEL_INDEX)];
    return v & LABEL_INDEX;
}

void offer(uint comp, uint64_t key) {
    if (comp != FLUVIAL_OCEAN) atomicMin(fluvial_best[comp], key);
}

void main() {
    bool scan = pc.mode == 0;
    uint a = 0u, mask = 0u;
    ivec2 ca = ivec2(0);
    bool valid;
    if (scan) {
        ivec2 c = fluvialCell();
        ca = c;
        valid = inGrid(c);
        if (valid) {
            a = cellIndex(c);
            mask = 0xFu;
        }
    } else {
        uint k = listEntry();
        valid = k < ctl.edges[ctl.edge_src];
        if (valid) {
            uint e = fluvial_edges[ctl.edge_src * cellCount() + k];
            a = e >> 4;
            mask = e & 0xFu;
            ca = cellAt(a);
        }
    }
    uint keep = 0u;
    if (valid) {
        uint la = scan ? resolvedLabel(a) : basinOfCell(a);
        uint comp_a = scan ? la : compOf(la); // the first round: every basin is its own component
        uint za = fillGround(a);
        for (uint d = 0u; d < 4u; ++d) {
            if ((mask & (1u << d)) == 0u) continue;
            ivec2 cb = ca + EDGE_DIRS[d];
            if (!inGrid(cb)) continue;
            uint b = cellIndex(cb);
            uint comp_b = scan ? resolvedLabel(b) : compOf(basinOfCell(b));
            if (comp_a == comp_b) continue;
            uint64_t key = packKey(max(za, fillGround(b)), (a << 2) | d);
            offer(comp_a, key);
            offer(comp_b, key);
            keep |= 1u << d;
        }
        if (scan) fluvial_label[a] = LABEL_RESOLVED | la;
    }
    bool append = keep != 0u;
    uvec4 ballot = subgroupBallot(append);
    uint dst = ctl.edge_src ^ 1u; // the scan round too: edge_src starts at 1
    uint base = 0u;
    if (subgroupElect()) base = atomicAdd(ctl.edges[dst], subgroupBallotBitCount(ballot));
    base = subgroupBroadcastFirst(base);
    if (append) fluvial_edges[dst * cellCount() + base + subgroupBallotExclusiveBitCount(ballot)] = (a << 4) | keep;
}
