#version 450
// Pass 11, evaporation (design step 8): d *= max(0, 1 - Ke dt), in place; the loss is counted.
#include "common.glsl"

void main() {
    ivec2 c = cellId();
    bool inside = insideGrid(c);
    float evaporated = 0.0;
    if (inside && p.enable_evaporation != 0) {
        float d = imageLoad(water_next, c).r;
        float e = d * min(1.0, p.evaporation_rate * p.dt);
        imageStore(water_next, c, vec4(d - e));
        evaporated = e * cellArea();
    }
    addPartial(SLOT_EVAPORATED, evaporated);
}
