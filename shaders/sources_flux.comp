#version 450
// Pipe step, pass 1 of 4: water sources and outflow flux (design steps 1 and 2).
// Sources (step 1): the flux sees every depth after this step's rain and springs,
// waterAfterSources() in common.glsl; the water update (water_velocity.comp) adds the same
// amount to the cell itself and counts it, so nothing stores the sourced depth in between.
// Outflow flux (step 2; Mei et al. 2007 pipe model with the pipe's cross-section
// A = L * d of the cell the water leaves). The image stores the outflow face speed w = f / A
// (m/s) per direction, so f = L * d * w. Each face's signed speed U is advanced by
//   gravity:   -g * (eta_e - eta_a) / L                  (eta = b + d, the water surface)
//   advection: momentum-conservative upwind (Stelling & Duinmeijer 2003), which the dry-bed
//              dam break needs to run at the right speed
//   friction:  implicit linear drag and Manning, over the upwind depth
// then split into the two cells' outflows and limited so no cell sends more than it holds.
// Reads water_cur and outflow_cur at up to two cells away, terrain_cur at one; writes
// outflow_next (ping-pong).
#include "common.glsl"

// Issue 12: an ocean cell (below the sea's surface and connected to the open sea, gpu/sea.cpp).
// The sea holds its surface (water_exchange.comp) and reaches beyond the grid: no water leaves
// an ocean cell over the grid's edge.
bool seaCell(ivec2 q, float b) {
    return p.enable_sea != 0 && b < pc.sea_surface && imageLoad(sea_spill, q).r < pc.sea_surface;
}

// The cells c-2 .. c+2 along one axis: what the two faces of the cell on that axis need.
// Loaded once (image loads are the cost of this pass); local index 2 is the cell itself.
struct Line {
    float d[5];
    float eta[5];
    vec4 w[5];
    bool sea[5]; // issue 12: ocean cells (at +-1 and the cell), whose surface the sea holds
    int first;  // global index of local cell 0 along the axis
    int n;      // cells along the axis
    int lo, hi; // outflow channels toward -axis and +axis
};

// `centre` holds the cell's own depth, surface and outflow, loaded once for both axes. The
// surface is needed at +-1 only (gravity), depth and outflow at +-2 (advection).
Line loadLine(ivec2 c, int axis, float d0, float eta0, vec4 w0, bool sea0) {
    Line l;
    ivec2 step = axis == 0 ? ivec2(1, 0) : ivec2(0, 1);
    l.first = (axis == 0 ? c.x : c.y) - 2;
    l.n = axis == 0 ? p.width : p.height;
    l.lo = axis == 0 ? LEFT : TOP;
    l.hi = axis == 0 ? RIGHT : BOTTOM;
    for (int i = 0; i < 5; ++i) {
        l.sea[i] = false;
        if (i == 2) {
            l.d[i] = d0;
            l.eta[i] = eta0;
            l.w[i] = w0;
            l.sea[i] = sea0;
            continue;
        }
        ivec2 q = c + (i - 2) * step;
        bool in_grid = inGrid(q);
        ivec2 qc = clampToGrid(q);
        float d = waterAfterSources(qc);
        l.d[i] = in_grid ? d : 0.0;
        if (i == 1 || i == 3) {
            float b = imageLoad(terrain_cur, qc).r;
            l.eta[i] = in_grid ? b + d : 0.0;
            l.sea[i] = in_grid && seaCell(qc, b);
        } else {
            l.eta[i] = 0.0;
        }
        vec4 w = loadOutflowCur(qc);
        l.w[i] = in_grid ? w : vec4(0.0);
    }
    return l;
}

// Face between local cells i-1 and i (global face f = first + i, between global cells f-1 and
// f; faces 0 and n are the grid's edges). Returns (U, q): the face speed and the discharge per
// unit width, positive toward +axis.
vec2 face(Line l, int i) {
    int f = l.first + i;
    if (f <= 0 || f >= l.n) {
        if (p.edge_mode != EDGE_OPEN || f < 0 || f > l.n) return vec2(0.0);
        float U = f == 0 ? -l.w[i][l.lo] : l.w[i - 1][l.hi];
        return vec2(U, U * (f == 0 ? l.d[i] : l.d[i - 1]));
    }
    return vec2(l.w[i - 1][l.hi] - l.w[i][l.lo], l.w[i - 1][l.hi] * l.d[i - 1] - l.w[i][l.lo] * l.d[i]);
}

float friction(float U, float hf) {
    float n2 = p.manning_n * p.manning_n;
    return U / (1.0 + p.dt * (p.flux_damping + p.gravity * n2 * abs(U) / pow(hf, 4.0 / 3.0)));
}

// New speed of the interior face between local cells i-1 and i (i = 2 or 3).
float interiorFace(Line l, int i) {
    float da = l.d[i - 1], de = l.d[i];
    vec2 f0 = face(l, i);
    float U = f0.x;
    float acc = -p.gravity * (l.eta[i] - l.eta[i - 1]) / p.cell_size;
    float adv = 0.0;
    float hm = 0.5 * (da + de);
    if (hm > p.dry_depth) {
        vec2 fu = face(l, i - 1), fd = face(l, i + 1);
        float qa = 0.5 * (fu.y + f0.y), qe = 0.5 * (f0.y + fd.y);
        if (qa > 0.0 && U >= 0.0) adv += qa / hm * (U - fu.x) / p.cell_size;
        if (qe < 0.0 && U <= 0.0) adv += qe / hm * (fd.x - U) / p.cell_size;
    }
    float Un = U + p.dt * (acc - adv);
    float hf = Un > 0.0 ? da : de;
    if (hf <= p.dry_depth) return 0.0;
    return friction(Un, hf);
}

// Over an open edge the water falls into a dry ghost cell level with this one; with a sea
// (issue 12) the ghost holds the sea's surface, so the sea does not drain over its edges.
float edgeOutflow(Line l, int dir) {
    float dc = l.d[2];
    if (dc <= p.dry_depth || l.sea[2]) return 0.0;
    float drop = p.enable_sea != 0 ? min(dc, l.eta[2] - pc.sea_surface) : dc;
    float Un = l.w[2][dir] + p.dt * p.gravity * drop / p.cell_size;
    return max(0.0, friction(Un, dc));
}

// Outflow speeds of the cell toward -axis and +axis.
vec2 axisOutflow(Line l) {
    bool open = p.edge_mode == EDGE_OPEN;
    int self = l.first + 2;
    float out_lo = self > 0 ? max(0.0, -interiorFace(l, 2)) : (open ? edgeOutflow(l, l.lo) : 0.0);
    float out_hi = self < l.n - 1 ? max(0.0, interiorFace(l, 3)) : (open ? edgeOutflow(l, l.hi) : 0.0);
    return vec2(out_lo, out_hi);
}

void main() {
    ivec2 c = cellId();
    if (!insideGrid(c)) return;
    vec4 o = vec4(0.0);
    if (p.enable_flow != 0) {
        float d0 = waterAfterSources(c);
        float b0 = imageLoad(terrain_cur, c).r;
        float eta0 = b0 + d0;
        vec4 w0 = loadOutflowCur(c);
        bool sea0 = seaCell(c, b0);
        vec2 x_out = axisOutflow(loadLine(c, 0, d0, eta0, w0, sea0));
        vec2 y_out = axisOutflow(loadLine(c, 1, d0, eta0, w0, sea0));
        o = vec4(x_out, y_out);
        // Limiter (K of the design): the volume leaving in one step, dt * L * d * sum(w), may not
        // exceed the cell's water L^2 d, i.e. sum(w) <= L / dt.
        float sum = o.x + o.y + o.z + o.w;
        if (sum * p.dt > p.cell_size) o *= p.cell_size / (sum * p.dt);
    }
    storeOutflowNext(c, o);
}
