#version 450
// Pass 6, sediment transport (design step 6): semi-Lagrangian s(x) = s(x - v dt), bilinear,
// sample positions clamped to the grid. Not conservative by itself: the pass also sums the
// sediment before and after, and what the water carries over open edges, so that
// reduce_sediment can compute the correction that sediment_correct applies.
// Reads sediment_cur at neighbours; writes sediment_next.
#include "common.glsl"

float sed(int x, int y) { return imageLoad(sediment_cur, ivec2(x, y)).r; }

void main() {
    ivec2 c = cellId();
    bool inside = insideGrid(c);
    vec4 sums = vec4(0.0); // before, after, drained
    if (inside) {
        float area = cellArea();
        float s = imageLoad(sediment_cur, c).r;
        float next = s;
        sums.x = s * area;
        if (p.enable_transport != 0) {
            vec2 v = imageLoad(velocity_img, c).xy;
            float px = clamp(float(c.x) - v.x * p.dt / p.cell_size, 0.0, float(p.width - 1));
            float py = clamp(float(c.y) - v.y * p.dt / p.cell_size, 0.0, float(p.height - 1));
            int x0 = min(int(floor(px)), p.width - 1), y0 = min(int(floor(py)), p.height - 1);
            int x1 = min(x0 + 1, p.width - 1), y1 = min(y0 + 1, p.height - 1);
            float fx = px - float(x0), fy = py - float(y0);
            float top = sed(x0, y0) + fx * (sed(x1, y0) - sed(x0, y0));
            float bottom = sed(x0, y1) + fx * (sed(x1, y1) - sed(x0, y1));
            next = top + fy * (bottom - top);
            if (p.edge_mode == EDGE_OPEN) {
                // The water leaving over the edge this step takes its share of the sediment.
                vec4 o = imageLoad(outflow_next, c);
                float edge = 0.0;
                if (c.x == 0) edge += o[LEFT];
                if (c.x == p.width - 1) edge += o[RIGHT];
                if (c.y == 0) edge += o[TOP];
                if (c.y == p.height - 1) edge += o[BOTTOM];
                sums.z = s * min(1.0, p.dt * edge / p.cell_size) * area;
            }
        }
        sums.y = next * area;
        imageStore(sediment_next, c, vec4(next));
    }
    addPartial(SLOT_SED_BEFORE, sums.x);
    addPartial(SLOT_SED_AFTER, sums.y);
    addPartial(SLOT_SED_DRAINED, sums.z);
}
