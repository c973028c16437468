// Included (after common.glsl) by the passes that produce the step's sums: each such pass
// leaves ONE partial per workgroup and slot, summed in double precision (a subgroup reduction,
// then the workgroup's subgroups in order), so the fold (reduce_partials.comp,
// reduce_totals.comp) sees a fixed number of partials and is exact to ~1e-15 relative.
//
// Every invocation of the workgroup must call partialsWrite (uniform control flow: it holds a
// barrier), with 0 for a cell outside the grid. Double subgroup arithmetic needs only
// shaderFloat64 (the context requires it).
#extension GL_KHR_shader_subgroup_arithmetic : require

#define PARTIALS_MAX 6      // slots one pass may produce
#define SUBGROUPS_MAX (WG_SIZE / 4) // the context accepts subgroups of 4 lanes or more

shared double partial_subgroups[PARTIALS_MAX * SUBGROUPS_MAX];

bool slotIsMax(int slot) { return slot == SLOT_MAX_SPEED || slot == SLOT_MAX_WAVE; }
uint partialGroupCount() { return uint(p.group_count_x) * uint(p.group_count_y); }
uint partialGroup() { return gl_WorkGroupID.y * uint(p.group_count_x) + gl_WorkGroupID.x; }

// Whether this workgroup's tile touches the grid's edge (edge-only sums are 0 elsewhere).
bool tileOnEdge() {
    uvec2 g = gl_WorkGroupID.xy;
    return g.x == 0u || g.y == 0u || g.x + 1u == uint(p.group_count_x) || g.y + 1u == uint(p.group_count_y);
}

// `edge_only`: bit k set when slot k is 0 away from the grid's edge (what open edges carry off):
// interior workgroups write 0 without reducing. Subgroup reductions are the costly part of the
// sums on CPU drivers.
void partialsWrite(int count, float values[PARTIALS_MAX], int slots[PARTIALS_MAX], uint edge_only) {
    bool edge = tileOnEdge();
    for (int k = 0; k < count; ++k) {
        if (!slotActive(p, slots[k])) continue; // uniform: the whole workgroup skips it
        double s = 0.0lf;
        if (edge || (edge_only & (1u << k)) == 0u) {
            double v = double(values[k]);
            s = slotIsMax(slots[k]) ? subgroupMax(v) : subgroupAdd(v);
        }
        if (subgroupElect()) partial_subgroups[uint(k) * SUBGROUPS_MAX + gl_SubgroupID] = s;
    }
    barrier();
    uint i = gl_LocalInvocationIndex;
    if (i < uint(count) && slotActive(p, slots[i])) {
        bool is_max = slotIsMax(slots[i]);
        double acc = 0.0lf;
        for (uint g = 0; g < gl_NumSubgroups; ++g) {
            double v = partial_subgroups[i * SUBGROUPS_MAX + g];
            acc = is_max ? max(acc, v) : acc + v;
        }
        partials[uint(slots[i]) * partialGroupCount() + partialGroup()] = acc;
    }
}
