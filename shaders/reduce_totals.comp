#version 450
// Pass 12: fold this step's water and soil sums into the run's double-precision totals.
#include "reduce.glsl"

void main() {
    for (int slot = SLOT_RAIN; slot <= SLOT_DEPOSITED; ++slot) {
        double sum = slotSum(slot);
        if (gl_LocalInvocationIndex == 0) totals.acc[slot] += sum;
    }
    float speed = slotMax(SLOT_MAX_SPEED);
    if (gl_LocalInvocationIndex == 0) totals.max_speed = max(totals.max_speed, speed);
}
