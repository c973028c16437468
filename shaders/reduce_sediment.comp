#version 450
// Pass 7: the sediment correction. The semi-Lagrangian transport changed the total suspended
// sediment from `before` to `after`; what should remain is before - drained (carried over open
// edges). Scale every cell by (before - drained) / after: the global difference is
// redistributed in proportion to the local amount. The size of each correction is summed.
#include "reduce.glsl"

void main() {
    double before = slotSum(SLOT_SED_BEFORE);
    double after = slotSum(SLOT_SED_AFTER);
    double drained = slotSum(SLOT_SED_DRAINED);
    if (gl_LocalInvocationIndex == 0) {
        double target = max(0.0lf, before - drained);
        double scale = after > 0.0lf ? target / after : 1.0lf;
        totals.acc[SLOT_SED_AFTER] += after;
        totals.acc[SLOT_SED_DRAINED] += drained;
        totals.acc[TOTAL_CORRECTION_ABS] += abs(target - after);
        totals.sediment_scale = float(scale);
    }
}
