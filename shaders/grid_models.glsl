// Shared by the musgrave and simple models (seeds 000 and 001): the 8 neighbours and the
// slot through which a neighbour sends to us (the opposite direction).
const ivec2 kNeighbours[8] = ivec2[8](ivec2(-1, 0), ivec2(1, 0), ivec2(0, -1), ivec2(0, 1),
                                      ivec2(-1, -1), ivec2(1, -1), ivec2(-1, 1), ivec2(1, 1));
const int kOpposite[8] = int[8](1, 0, 3, 2, 7, 6, 5, 4);

// What neighbour n (at direction k from us) put in its slot facing us.
float sentToUs(ivec2 n, int k) {
    int slot = kOpposite[k];
    return slot < 4 ? imageLoad(thermal_axis, n)[slot] : imageLoad(thermal_diag, n)[slot - 4];
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

// Every model step leaves every ping-pong field written in its "next" half.
void carryOutflow(ivec2 c) { imageStore(outflow_next, c, imageLoad(outflow_cur, c)); }

// The water budget: this step's per-subgroup sum of `value` (m^3) into the partials of `slot`
// (SLOT_RAIN, SLOT_EVAPORATED), which grid_totals folds into the run's totals. Unlike
// addPartial it does not depend on the pipe model's switches; every invocation of the
// workgroup, inside the grid or not, must reach it, so every partial of the slot is rewritten.
void addWaterPartial(int slot, float value) {
    float sum = subgroupAdd(value);
    if (subgroupElect()) partials[partialIndex(slot)] = sum;
}
