#version 450
// Pass 5, erosion and deposition (design step 5). Capacity
//   C = Kc * max(sin(tilt), min_tilt) * |v| * min(1, d / capacity_depth)
// If C > s, dissolve min(1, dt Ks) (C - s) (1 - hardness) from the ground into the water;
// else settle min(1, dt Kd) (s - C) back onto the ground. b + s is unchanged.
// Reads terrain_cur at neighbours (tilt) and writes terrain_next; sediment_cur in place.
#include "common.glsl"

float height(int x, int y) { return imageLoad(terrain_cur, ivec2(x, y)).r; }

void main() {
    ivec2 c = cellId();
    bool inside = insideGrid(c);
    float eroded = 0.0, deposited = 0.0;
    if (inside) {
        float b = imageLoad(terrain_cur, c).r;
        if (p.enable_erosion != 0) {
            // Central differences inside, one-sided at the edges, zero on a 1-cell axis.
            int xl = max(c.x - 1, 0), xr = min(c.x + 1, p.width - 1);
            int yt = max(c.y - 1, 0), yb = min(c.y + 1, p.height - 1);
            float gx = xr > xl ? (height(xr, c.y) - height(xl, c.y)) / (float(xr - xl) * p.cell_size) : 0.0;
            float gy = yb > yt ? (height(c.x, yb) - height(c.x, yt)) / (float(yb - yt) * p.cell_size) : 0.0;
            float g2 = gx * gx + gy * gy;
            float sin_tilt = sqrt(g2 / (1.0 + g2));
            float speed = length(imageLoad(velocity_img, c).xy);
            float capacity = p.sediment_capacity * max(sin_tilt, p.min_tilt) * speed;
            if (p.capacity_depth > 0.0)
                capacity *= min(1.0, imageLoad(water_next, c).r / p.capacity_depth);
            float s = imageLoad(sediment_cur, c).r;
            // Exact transfer: the sediment gains exactly what the stored ground height lost (a
            // change below half an ulp of b would otherwise vanish from b but not from s, and
            // soil would drift over thousands of steps). `precise` stops the compiler from
            // folding b - (b - e) back into e.
            if (capacity > s) {
                float e = min(1.0, p.dt * p.dissolve_rate) * (capacity - s) *
                          (1.0 - imageLoad(hardness_img, c).r);
                precise float lowered = b - e;
                precise float applied = b - lowered;
                b = lowered;
                s += applied;
                eroded = applied * cellArea();
            } else {
                float dep = min(1.0, p.dt * p.deposit_rate) * (s - capacity);
                precise float raised = b + dep;
                precise float applied = raised - b;
                dep = applied;
                b = raised;
                // Rounding b up can settle up to half an ulp more than s held (only when
                // dt Kd >= 1 empties the water): keep s >= 0, a loss far below b's precision.
                s = max(0.0, s - dep);
                deposited = dep * cellArea();
            }
            imageStore(sediment_cur, c, vec4(s));
            // Wear and deposition maps (m since the start).
            vec2 wear = imageLoad(wear_img, c).rg;
            imageStore(wear_img, c, vec4(wear + vec2(eroded, deposited) / cellArea(), 0.0, 0.0));
        }
        imageStore(terrain_next, c, vec4(b));
    }
    addPartial(SLOT_ERODED, eroded);
    addPartial(SLOT_DEPOSITED, deposited);
}
