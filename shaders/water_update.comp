#version 450
// Pass 3, water update (design step 3): d += dt * (sum f_in - sum f_out) / L^2 with
// f = L * d * w, so d += dt * (sum d_n w_n->c - d sum w) / L. Over open edges the outflow
// leaves the grid and is counted. Reads water_cur at neighbours; writes water_next.
#include "common.glsl"

float inflow(ivec2 n, int dir) {
    return inGrid(n) ? imageLoad(water_cur, n).r * imageLoad(outflow_next, n)[dir] : 0.0;
}

void main() {
    ivec2 c = cellId();
    bool inside = insideGrid(c);
    float drained = 0.0;
    if (inside) {
        float d = imageLoad(water_cur, c).r;
        vec4 o = imageLoad(outflow_next, c);
        float in_sum = inflow(c + ivec2(-1, 0), RIGHT) + inflow(c + ivec2(1, 0), LEFT) +
                       inflow(c + ivec2(0, -1), BOTTOM) + inflow(c + ivec2(0, 1), TOP);
        float out_sum = d * (o.x + o.y + o.z + o.w);
        imageStore(water_next, c, vec4(max(0.0, d + p.dt * (in_sum - out_sum) / p.cell_size)));
        if (p.edge_mode == EDGE_OPEN) {
            float edge = 0.0;
            if (c.x == 0) edge += o[LEFT];
            if (c.x == p.width - 1) edge += o[RIGHT];
            if (c.y == 0) edge += o[TOP];
            if (c.y == p.height - 1) edge += o[BOTTOM];
            drained = p.dt * p.cell_size * d * edge;
        }
    }
    addPartial(SLOT_DRAINED_WATER, drained);
}
