// Included (after common.glsl) by the passes that produce the step's sums: each such pass
// leaves ONE partial per workgroup and slot, summed in double precision (a subgroup reduction,
// then the workgroup's subgroups in order), so the fold (reduce_partials.comp,
// reduce_totals.comp) sees a fixed number of partials and is exact to ~1e-15 relative. On CPU
// drivers the second half, the workgroup's subgroups in order, is reduce_subgroups.comp's.
//
// Every invocation of the workgroup must call partialsWrite (uniform control flow: it holds a
// barrier), with 0 for a cell outside the grid. Double subgroup arithmetic needs only
// shaderFloat64 (the context requires it).
#extension GL_KHR_shader_subgroup_arithmetic : require

#define PARTIALS_MAX 6      // slots one pass may produce
#define SUBGROUPS_MAX (WG_SIZE / 4) // the context accepts subgroups of 4 lanes or more

shared double partial_subgroups[PARTIALS_MAX * SUBGROUPS_MAX];

// CPU drivers (SUBGROUP_PARTIALS, common.glsl): each subgroup leaves its partial in partials[]
// and the workgroup holds no barrier; reduce_subgroups.comp then folds each workgroup's
// subgroups in the order the loop below does, so the sums are bit for bit the same. A barrier
// makes a CPU driver run the whole pass as coroutines: on lavapipe at 512^2 the step took
// 39.1-40.0 ms with it, 35.3-37.1 ms this way (reduce_subgroups included).

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
        if (SUBGROUP_PARTIALS) {
            // Every invocation stores its subgroup's sum (the same value at the same address): a
            // store whose address and value are uniform is one scalar store on a CPU driver,
            // where subgroupElect() would make it a loop over the lanes (1 ms of the step at
            // 512^2 on lavapipe).
            uint per_group = uint(p.partials_per_group);
            partials[uint(p.subgroup_partials_at) + (uint(slots[k]) * partialGroupCount() + partialGroup()) * per_group +
                     gl_SubgroupID] = s;
        } else if (subgroupElect()) {
            partial_subgroups[uint(k) * SUBGROUPS_MAX + gl_SubgroupID] = s;
        }
    }
    if (SUBGROUP_PARTIALS) return;
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
