#version 450
// The end of the fold: this step's water and soil sums (one partial per slot, the last level of
// reduce_partials.comp) into the run's double-precision totals, and the sediment correction. The
// semi-Lagrangian transport changed the suspended sediment from `before` to `after`; what should
// remain is before - drained (carried over open edges), so sediment_correct scales every cell
// by (before - drained) / after: the global difference is redistributed in proportion to the
// local amount. The size of each correction is summed. One invocation: the folding is done.
#include "reduce.glsl"
layout(local_size_x = 1) in;
layout(std430, binding = B_TOTALS) buffer TotalsBlock { Totals totals; };

double slotSum(int slot) { return slotActive(p, slot) ? partials[pc.reduce_in + uint(slot)] : 0.0lf; }

void main() {
    if (pc.mode == REDUCE_WAVE_ONLY) { // wave_speed.comp's measure of the state: no budgets
        double wave = slotSum(SLOT_MAX_WAVE);
        totals.step_wave = float(wave);
        return;
    }
    if (pc.mode == REDUCE_GROUNDWATER_ONLY) { // musgrave, simple: their other sums are grid_totals'
        for (int slot = SLOT_INFILTRATED; slot <= SLOT_SEEPED; ++slot) totals.acc[slot] += slotSum(slot);
        return;
    }
    for (int slot = SLOT_RAIN; slot <= SLOT_DEPOSITED; ++slot) totals.acc[slot] += slotSum(slot);
    // groundwater, the sea, snow and lava
    for (int slot = SLOT_INFILTRATED; slot <= SLOT_BOILED; ++slot) totals.acc[slot] += slotSum(slot);
    double speed = slotSum(SLOT_MAX_SPEED);
    double wave = slotSum(SLOT_MAX_WAVE);
    double before = slotSum(SLOT_SED_BEFORE);
    double after = slotSum(SLOT_SED_AFTER);
    double drained = slotSum(SLOT_SED_DRAINED);
    totals.max_speed = max(totals.max_speed, float(speed));
    totals.max_froude = max(totals.max_froude, float(slotSum(SLOT_MAX_FROUDE)));
    // p.time_step is the sub-step's (gpu/simulation.cpp uploads dt / sub-steps).
    totals.step_wave = float(wave);
    totals.max_cfl = max(totals.max_cfl, float(wave * double(p.time_step) / double(p.cell_size)));
    double target = max(0.0lf, before - drained);
    double scale = after > 0.0lf ? target / after : 1.0lf;
    totals.acc[SLOT_SED_AFTER] += after;
    totals.acc[SLOT_SED_DRAINED] += drained;
    totals.acc[TOTAL_CORRECTION_ABS] += abs(target - after);
    totals.sediment_scale = float(scale);
}
