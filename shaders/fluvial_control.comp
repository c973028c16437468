#version 450
// One invocation between the fluvial model's iterative passes: counts their rounds, sizes the
// next indirect dispatch from the lists the passes appended to, and empties it (the dispatch
// runs no workgroup) once a loop is done. The host records a bounded number of each round
// (gpu/fluvial.cpp); the rounds that run depend on the terrain only, not on the device.
#extension GL_GOOGLE_include_directive : require
#include "shared.h"

layout(local_size_x = 1) in;
layout(std430, binding = B_PARAMS) readonly buffer ParamsBlock { SimParams p; };
layout(push_constant) uniform PushBlock { PushConstants pc; };
layout(std430, binding = B_FLUVIAL_CONTROL) buffer ControlBlock { FluvialControl ctl; };

uint groups(uint entries) { return (entries + uint(WG_SIZE) - 1u) / uint(WG_SIZE); }

// `count` workgroups in rows (fluvial.glsl's jobGroup() numbers them row by row); a
// job of 0 runs no workgroup, and the passes skip the last row's workgroups past their list.
void setJob(int job, uint count) {
    uint row = p.fluvial_job_row > 0 ? uint(p.fluvial_job_row) : uint(JOB_ROW_GROUPS);
    ctl.job[job * 3] = min(count, row);
    ctl.job[job * 3 + 1] = max((count + row - 1u) / row, 1u);
    ctl.job[job * 3 + 2] = 1u;
}

void main() {
    uint tiles = uint(p.tile_count_x) * uint(p.tile_count_y);
    switch (pc.mode) {
    case CONTROL_START_FILL:
        for (int j = 0; j < FLUVIAL_JOBS; ++j) setJob(j, 0u);
        setJob(JOB_RING, groups(tiles * uint(RING_CELLS)));
        for (int l = 0; l < 4; ++l) ctl.lists[l] = 0u;
        ctl.edges[0] = 0u;
        ctl.edges[1] = 0u;
        ctl.edge_src = 1u; // the first edge round appends to list 0
        ctl.root_src = uint(LIST_PITS);
        ctl.graph_active = 1u;
        ctl.live = 0u;
        ctl.changed = 0u;
        ctl.parity = 0u;
        ctl.flat_parity = 0u;
        ctl.converged = 0u;
        ctl.rounds_label = 0u;
        ctl.rounds_boruvka = 0u;
        ctl.rounds_hook = 0u;
        ctl.rounds_flats = 0u;
        ctl.tiles_flats = 0u;
        for (int t = 0; t < 3; ++t) ctl.rounds_tree[t] = 0u;
        ctl.edges_first = 0u;
        ctl.flat_tiles = 0u;
        ctl.exits = 0u;
        ctl.tree = 0u;
        break;
    case CONTROL_AFTER_LABEL:
        if (ctl.job[JOB_RING * 3] != 0u) {
            ctl.parity ^= 1u;
            ctl.rounds_label += 1u;
            if (ctl.live == 0u) ctl.job[JOB_RING * 3] = 0u;
        }
        ctl.live = 0u;
        break;
    case CONTROL_AFTER_EDGES:
        if (ctl.rounds_boruvka == 0u) ctl.edges_first = ctl.edges[ctl.edge_src ^ 1u];
        ctl.edges[ctl.edge_src] = 0u; // the list just read takes the next round's edges
        ctl.edge_src ^= 1u;
        setJob(JOB_EDGES, 0u);
        setJob(JOB_HOOK, ctl.graph_active != 0u ? groups(ctl.lists[ctl.root_src]) : 0u);
        ctl.lists[LIST_HOOKED] = 0u;
        ctl.lists[ctl.root_src == 1u ? 2u : 1u] = 0u; // the roots that stay go there
        break;
    case CONTROL_AFTER_HOOK:
        if (ctl.job[JOB_HOOK * 3] != 0u) {
            ctl.root_src = ctl.root_src == 1u ? 2u : 1u;
            ctl.parity = 0u;
            if (ctl.lists[LIST_HOOKED] == 0u) {
                ctl.graph_active = 0u; // only roots without a pass are left: they never drain
            } else {
                ctl.rounds_boruvka += 1u;
                setJob(JOB_JUMP, groups(ctl.lists[LIST_HOOKED]));
                setJob(JOB_BASINS, groups(ctl.lists[LIST_PITS]));
            }
        }
        setJob(JOB_HOOK, 0u);
        break;
    case CONTROL_AFTER_HOOK_JUMP:
        if (ctl.job[JOB_JUMP * 3] != 0u) {
            ctl.parity ^= 1u;
            ctl.rounds_hook += 1u;
            if (ctl.live == 0u) ctl.job[JOB_JUMP * 3] = 0u;
        }
        ctl.live = 0u;
        break;
    case CONTROL_AFTER_RELABEL:
        setJob(JOB_JUMP, 0u);
        setJob(JOB_BASINS, 0u);
        if (ctl.lists[ctl.root_src] == 0u) ctl.graph_active = 0u;
        setJob(JOB_EDGES, ctl.graph_active != 0u ? groups(ctl.edges[ctl.edge_src]) : 0u);
        break;
    case CONTROL_START_FLATS:
        // fluvial_level.comp listed the flat tiles.
        setJob(JOB_FLATS, ctl.flat_tiles);
        ctl.parity = 0u;
        ctl.flat_parity = 0u;
        ctl.changed = 0u;
        ctl.converged = ctl.flat_tiles == 0u ? 1u : 0u;
        break;
    case CONTROL_AFTER_FLATS:
        if (ctl.job[JOB_FLATS * 3] != 0u) {
            ctl.parity ^= 1u;
            ctl.rounds_flats += 1u;
            if (ctl.changed == 0u) {
                ctl.converged = 1u;
                ctl.job[JOB_FLATS * 3] = 0u;
            }
        }
        ctl.flat_parity = ctl.parity;
        ctl.changed = 0u;
        break;
    case CONTROL_START_TREE + TREE_ACCUMULATE:
    case CONTROL_START_TREE + TREE_ERODE:
    case CONTROL_START_TREE + TREE_SEDIMENT:
        ctl.tree = uint(pc.mode - CONTROL_START_TREE);
        ctl.parity = 0u;
        ctl.live = 0u;
        setJob(JOB_EXITS, groups(ctl.exits));
        break;
    case CONTROL_START_PUSH:
        setJob(JOB_EXITS, groups(ctl.exits));
        break;
    case CONTROL_AFTER_TREE:
        if (ctl.job[JOB_EXITS * 3] != 0u) {
            ctl.parity ^= 1u;
            ctl.rounds_tree[ctl.tree] += 1u;
            if (ctl.live == 0u) ctl.job[JOB_EXITS * 3] = 0u;
        }
        ctl.live = 0u;
        break;
    }
}
