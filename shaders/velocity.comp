#version 450
// Pass 4, velocity (design step 4; Mei et al. 2007): the mean net discharge through the two
// faces on each axis over the mean depth of the step. Dry cells get zero; |v| is capped at
// L / dt (nothing crosses more than a cell per step). Also accumulates the flow map.
#include "common.glsl"

float discharge(ivec2 n, int dir) {
    return inGrid(n) ? imageLoad(water_cur, n).r * imageLoad(outflow_next, n)[dir] : 0.0;
}

void main() {
    ivec2 c = cellId();
    bool inside = insideGrid(c);
    float speed_out = 0.0;
    if (inside) {
        vec2 v = vec2(0.0);
        float mean_depth = 0.5 * (imageLoad(water_cur, c).r + imageLoad(water_next, c).r);
        if (mean_depth > p.dry_depth) {
            float qx = 0.5 * (discharge(c + ivec2(-1, 0), RIGHT) - discharge(c, LEFT) +
                              discharge(c, RIGHT) - discharge(c + ivec2(1, 0), LEFT));
            float qy = 0.5 * (discharge(c + ivec2(0, -1), BOTTOM) - discharge(c, TOP) +
                              discharge(c, BOTTOM) - discharge(c + ivec2(0, 1), TOP));
            v = vec2(qx, qy) / mean_depth;
            float speed = length(v);
            float cap = p.cell_size / p.dt;
            if (speed > cap) v *= cap / speed;
            speed_out = min(speed, cap);
            // Flow map: the water volume crossing the cell this step, |v| d L dt (m^3).
            float flow = imageLoad(flow_img, c).r;
            imageStore(flow_img, c, vec4(flow + speed_out * mean_depth * p.cell_size * p.dt));
        }
        imageStore(velocity_img, c, vec4(v, 0.0, 0.0));
    }
    maxPartial(SLOT_MAX_SPEED, speed_out);
}
