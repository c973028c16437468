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
#extension GL_EXT_control_flow_attributes : require

#define PARTIALS_MAX 6      // slots one pass may produce
#define SUBGROUPS_MAX (WG_SIZE / 4) // the context accepts subgroups of 4 lanes or more

shared double partial_subgroups[PARTIALS_MAX * SUBGROUPS_MAX];

// CPU drivers (SUBGROUP_PARTIALS, common.glsl): each subgroup leaves its partial in partials[]
// and the workgroup holds no barrier; reduce_subgroups.comp then folds each workgroup's
// subgroups in the order the loop below does, so the sums are bit for bit the same. A barrier
// makes a CPU driver run the whole pass as coroutines: on lavapipe at 512^2 the step took
// 39.1-40.0 ms with it, 35.3-37.1 ms this way (reduce_subgroups included).

// Rows of cells per invocation (CPU drivers; 1 on GPUs): the passes that produce sums in every
// pipe step (water_velocity, erosion, transport_thermal_outflow_evaporation) run WG_X x WG_Y
// invocations over a tile of WG_X x (WG_Y * SUM_ROWS) cells, the grid passes' tile (the host
// sets the workgroup's height to the tile's / SUM_ROWS), so the workgroups and their partials
// are the same. Each invocation adds its cells' values (rowSums, in double) before the subgroup
// reduction, which a CPU driver runs as a loop over the lanes. With 4 rows on lavapipe at 512^2:
// water_velocity 5.7-5.8 -> 4.4-4.5 ms, erosion 4.0-4.1 -> 3.5-3.6. The loops over rows are
// [[unroll]]: a loop left in the shader runs its stores masked on a CPU driver (transport 7.8 ms
// against 7.0-7.1 unrolled). With one partial per subgroup, the subgroups left over (up to
// p.partials_per_group: SUM_ROWS times gl_NumSubgroups) get 0, so reduce_subgroups folds the
// same number of partials and nothing another pass left there.
layout(constant_id = SPEC_SUM_ROWS) const int SUM_ROWS = 1;

// Cell `row` (0 .. SUM_ROWS - 1) of this invocation: rows one above the other.
ivec2 rowCell(int row) {
    return ivec2(gl_GlobalInvocationID.x, int(gl_GlobalInvocationID.y) * SUM_ROWS + row);
}

// Adds one row's values into the invocation's sums (the first row sets them): in double, a max
// for the max slots.
void rowSums(int row, int count, float values[PARTIALS_MAX], int slots[PARTIALS_MAX], inout double sums[PARTIALS_MAX]) {
    for (int k = 0; k < count; ++k) {
        double v = double(values[k]);
        sums[k] = row == 0 ? v : (slotIsMax(slots[k]) ? max(sums[k], v) : sums[k] + v);
    }
}

uint partialGroupCount() { return uint(p.group_count_x) * uint(p.group_count_y); }
uint partialGroup() { return gl_WorkGroupID.y * uint(p.group_count_x) + gl_WorkGroupID.x; }

// Whether this workgroup's tile touches the grid's edge (edge-only sums are 0 elsewhere).
bool tileOnEdge() {
    uvec2 g = gl_WorkGroupID.xy;
    return g.x == 0u || g.y == 0u || g.x + 1u == uint(p.group_count_x) || g.y + 1u == uint(p.group_count_y);
}

// Whether a slot is summed: active for the parameters (slotActive) and, for the slots of the
// step's optional parts, its part compiled in (STEP_PARTS). The two agree, since the host builds
// the parts from the parameters it uploads; testing the part first leaves a pipeline without it
// no reduction and no read of the parameter for that slot (test_step_parts_spirv).
bool slotOn(int slot) {
    uint part = slot == SLOT_SPRING                                     ? STEP_SPRINGS
                : slot == SLOT_DRAINED_WATER || slot == SLOT_SED_DRAINED ? STEP_OPEN_EDGES
                : slot == SLOT_SEA_IN || slot == SLOT_SEA_OUT            ? STEP_SEA
                                                                          : 0u;
    return (part == 0u || (STEP_PARTS & part) != 0u) && slotActive(p, slot);
}

// `edge_only`: bit k set when slot k is 0 away from the grid's edge (what open edges carry off):
// interior workgroups write 0 without reducing. Subgroup reductions are the costly part of the
// sums on CPU drivers.
// `sums`: the invocation's (rowSums), or a single cell's values (the float overload).
void partialsWrite(int count, double sums[PARTIALS_MAX], int slots[PARTIALS_MAX], uint edge_only) {
    bool edge = tileOnEdge();
    [[unroll]] for (int k = 0; k < count; ++k) {
        if (slotOn(slots[k])) { // uniform: the whole workgroup skips it
            double s = 0.0lf;
            if (edge || (edge_only & (1u << k)) == 0u) {
                double v = sums[k];
                s = slotIsMax(slots[k]) ? subgroupMax(v) : subgroupAdd(v);
            }
            if (SUBGROUP_PARTIALS) {
                // Every invocation stores its subgroup's sum (the same value at the same address): a
                // store whose address and value are uniform is one scalar store on a CPU driver,
                // where subgroupElect() would make it a loop over the lanes (1 ms of the step at
                // 512^2 on lavapipe).
                uint per_group = uint(p.partials_per_group);
                uint first = uint(p.subgroup_partials_at) + (uint(slots[k]) * partialGroupCount() + partialGroup()) * per_group;
                partials[first + gl_SubgroupID] = s;
                [[unroll]] for (int row = 1; row < SUM_ROWS; ++row) partials[first + gl_SubgroupID + uint(row) * gl_NumSubgroups] = 0.0lf;
            } else if (subgroupElect()) {
                partial_subgroups[uint(k) * SUBGROUPS_MAX + gl_SubgroupID] = s;
            }
        }
    }
    if (SUBGROUP_PARTIALS) return;
    barrier();
    uint i = gl_LocalInvocationIndex;
    if (i < uint(count) && slotOn(slots[i])) {
        bool is_max = slotIsMax(slots[i]);
        double acc = 0.0lf;
        for (uint g = 0; g < gl_NumSubgroups; ++g) {
            double v = partial_subgroups[i * SUBGROUPS_MAX + g];
            acc = is_max ? max(acc, v) : acc + v;
        }
        partials[uint(slots[i]) * partialGroupCount() + partialGroup()] = acc;
    }
}

void partialsWrite(int count, float values[PARTIALS_MAX], int slots[PARTIALS_MAX], uint edge_only) {
    double sums[PARTIALS_MAX];
    rowSums(0, count, values, slots, sums);
    partialsWrite(count, sums, slots, edge_only);
}
