#version 450
// Pass 2, outflow flux (design step 2; Mei et al. 2007 pipe model with the pipe's cross-section
// A = L * d of the cell the water leaves). The image stores the outflow face speed w = f / A
// (m/s) per direction, so f = L * d * w. Each face's signed speed U is advanced by
//   gravity:   -g * (eta_e - eta_a) / L                  (eta = b + d, the water surface)
//   advection: momentum-conservative upwind (Stelling & Duinmeijer 2003), which the dry-bed
//              dam break needs to run at the right speed
//   friction:  implicit linear drag and Manning, over the upwind depth
// then split into the two cells' outflows and limited so no cell sends more than it holds.
// Reads outflow_cur at up to two cells away; writes outflow_next (ping-pong).
#include "common.glsl"

float depth(ivec2 c) { return imageLoad(water_cur, c).r; }
float surface(ivec2 c) { return imageLoad(terrain_cur, c).r + imageLoad(water_cur, c).r; }
vec4 outflowAt(ivec2 c) { return imageLoad(outflow_cur, c); }

// Face f on `axis` (0 x, 1 y) of line k, between cells f-1 and f. Returns (U, q): speed and
// discharge per unit width, positive toward +axis.
ivec2 cellOn(int axis, int i, int k) { return axis == 0 ? ivec2(i, k) : ivec2(k, i); }

vec2 face(int axis, int f, int k) {
    int n = axis == 0 ? p.width : p.height;
    int lo = axis == 0 ? LEFT : TOP;
    int hi = axis == 0 ? RIGHT : BOTTOM;
    if (f <= 0 || f >= n) {
        if (p.edge_mode != EDGE_OPEN || f < 0 || f > n) return vec2(0.0);
        ivec2 c = cellOn(axis, f == 0 ? 0 : n - 1, k);
        float U = f == 0 ? -outflowAt(c)[lo] : outflowAt(c)[hi];
        return vec2(U, U * depth(c));
    }
    ivec2 a = cellOn(axis, f - 1, k);
    ivec2 e = cellOn(axis, f, k);
    vec4 wa = outflowAt(a), we = outflowAt(e);
    return vec2(wa[hi] - we[lo], wa[hi] * depth(a) - we[lo] * depth(e));
}

float friction(float U, float hf) {
    float n2 = p.manning_n * p.manning_n;
    return U / (1.0 + p.dt * (p.flux_damping + p.gravity * n2 * abs(U) / pow(hf, 4.0 / 3.0)));
}

float interiorFace(int axis, int f, int k) {
    ivec2 a = cellOn(axis, f - 1, k);
    ivec2 e = cellOn(axis, f, k);
    float da = depth(a), de = depth(e);
    vec2 f0 = face(axis, f, k);
    float U = f0.x;
    float acc = -p.gravity * (surface(e) - surface(a)) / p.cell_size;
    float adv = 0.0;
    float hm = 0.5 * (da + de);
    if (hm > p.dry_depth) {
        vec2 fu = face(axis, f - 1, k), fd = face(axis, f + 1, k);
        float qa = 0.5 * (fu.y + f0.y), qe = 0.5 * (f0.y + fd.y);
        if (qa > 0.0 && U >= 0.0) adv += qa / hm * (U - fu.x) / p.cell_size;
        if (qe < 0.0 && U <= 0.0) adv += qe / hm * (fd.x - U) / p.cell_size;
    }
    float Un = U + p.dt * (acc - adv);
    float hf = Un > 0.0 ? da : de;
    if (hf <= p.dry_depth) return 0.0;
    return friction(Un, hf);
}

// Over an open edge the water falls into a dry ghost cell level with this one.
float edgeOutflow(ivec2 c, int dir) {
    float dc = depth(c);
    if (dc <= p.dry_depth) return 0.0;
    float Un = outflowAt(c)[dir] + p.dt * p.gravity * dc / p.cell_size;
    return max(0.0, friction(Un, dc));
}

void main() {
    ivec2 c = cellId();
    if (!insideGrid(c)) return;
    vec4 o = vec4(0.0);
    if (p.enable_flow != 0) {
        bool open = p.edge_mode == EDGE_OPEN;
        o[LEFT] = c.x > 0 ? max(0.0, -interiorFace(0, c.x, c.y)) : (open ? edgeOutflow(c, LEFT) : 0.0);
        o[RIGHT] = c.x < p.width - 1 ? max(0.0, interiorFace(0, c.x + 1, c.y))
                                     : (open ? edgeOutflow(c, RIGHT) : 0.0);
        o[TOP] = c.y > 0 ? max(0.0, -interiorFace(1, c.y, c.x)) : (open ? edgeOutflow(c, TOP) : 0.0);
        o[BOTTOM] = c.y < p.height - 1 ? max(0.0, interiorFace(1, c.y + 1, c.x))
                                       : (open ? edgeOutflow(c, BOTTOM) : 0.0);
        // Limiter (K of the design): the volume leaving in one step, dt * L * d * sum(w), may not
        // exceed the cell's water L^2 d, i.e. sum(w) <= L / dt.
        float sum = o.x + o.y + o.z + o.w;
        if (sum * p.dt > p.cell_size) o *= p.cell_size / (sum * p.dt);
    }
    imageStore(outflow_next, c, o);
}
