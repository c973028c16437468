// Shared by the musgrave and simple models (seeds 000 and 001): the 8 neighbours and the
// slot through which a neighbour sends to us (the opposite direction).
const ivec2 kNeighbours[8] = ivec2[8](ivec2(-1, 0), ivec2(1, 0), ivec2(0, -1), ivec2(0, 1),
                                      ivec2(-1, -1), ivec2(1, -1), ivec2(-1, 1), ivec2(1, 1));
const int kOpposite[8] = int[8](1, 0, 3, 2, 7, 6, 5, 4);

// What neighbour n (at direction k from us) put in its slot facing us.
float sentToUs(ivec2 n, int k) {
    int slot = kOpposite[k];
    return slot < 4 ? imageLoad(thermal_axis_img, n)[slot] : imageLoad(thermal_diag_img, n)[slot - 4];
}

// Exact transfer between the ground (float, metres) and the sediment: returns the new ground
// height and, in `moved`, exactly what it lost (or gained), so ground + sediment is conserved
// to the bit. `precise` keeps the compiler from folding b - (b - x) back into x.
float lowerGround(float b, float amount, out float moved) {
    precise float lowered = b - amount;
    precise float d = b - lowered;
    moved = d;
    return lowered;
}
float raiseGround(float b, float amount, out float moved) {
    precise float raised = b + amount;
    precise float d = raised - b;
    moved = d;
    return raised;
}


// The water budget: this step's sums of the rain and the evaporation (m^3), one double per
// workgroup and slot (a subgroup sum, then the workgroup's subgroups in order), kept in the
// model-totals buffer after the droplets' counters (particles.glsl) and folded into the run's
// totals by grid_totals.comp. One value per workgroup keeps that fold at 8 bytes per 256 cells
// (about 1% of a musgrave step on a GPU); its own buffer, not the pipe model's partials, so the
// models' budgets do not depend on how the pipe model folds its sums.
#define WATER_RAIN 0
#define WATER_EVAPORATED 1
layout(std430, binding = B_DRAINED) buffer ModelTotalsBlock {
    uint droplet_words[2 * DROPLET_COUNTERS]; // particles.glsl's int64 counters
    double water_sums[];   // [2][workgroups]
};

shared double water_subgroup_sums[MAX_SUBGROUPS];

// Every invocation of the workgroup, inside the grid or not, must reach this (uniform control
// flow: it holds barriers), so every sum of the slot is rewritten each step. The sums lie at
// [slot][workgroup][p.partials_per_group]: one per workgroup on GPUs; on CPU drivers
// (SUBGROUP_PARTIALS) one per subgroup, without the barriers, which grid_totals adds up per
// workgroup in the order used here, so the totals are the same to the bit.
void addWaterSum(int slot, float value) {
    double sum = subgroupAdd(double(value));
    uint groups = uint(p.group_count_x * p.group_count_y);
    uint group = gl_WorkGroupID.y * uint(p.group_count_x) + gl_WorkGroupID.x;
    if (SUBGROUP_PARTIALS) {
        // every lane: the same value at the same address (one store on a CPU driver)
        water_sums[(uint(slot) * groups + group) * uint(p.partials_per_group) + gl_SubgroupID] = sum;
        return;
    }
    if (subgroupElect()) water_subgroup_sums[gl_SubgroupID] = sum;
    barrier();
    if (gl_LocalInvocationIndex == 0u) {
        double acc = 0.0lf;
        for (uint g = 0u; g < gl_NumSubgroups; ++g) acc += water_subgroup_sums[g];
        water_sums[uint(slot) * groups + group] = acc;
    }
    barrier();
}
