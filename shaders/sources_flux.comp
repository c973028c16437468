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
//   friction:  linear drag and Manning, implicit in the new speed, over the upwind depth; on
//              steep and rough beds Manning's n rises so that the flow stays near critical
//              (Grant 1997), and no face runs faster than froude_max sqrt(g h)
// then split into the two cells' outflows and limited so no cell sends more than it holds.
// Reads water_cur and outflow_cur at up to two cells away, terrain_cur at one; writes
// outflow_next (ping-pong).
#include "common.glsl"

// The cells c-2 .. c+2 along one axis: what the two faces of the cell on that axis need.
// Loaded once (image loads are the cost of this pass); local index 2 is the cell itself.
struct Line {
    float d[5];
    float eta[5];
    vec4 w[5];
    bool sea[5];  // ocean cells (at +-1 and the cell), whose surface the sea holds
    float veg[5]; // vegetation density at +-1 and the cell (vegetation.glsl; 0 while it is off)
    int first;    // global index of local cell 0 along the axis
    int n;        // cells along the axis
    int lo, hi;   // outflow channels toward -axis and +axis
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
        l.veg[i] = vegetationAt(clampToGrid(c + (i - 2) * step));
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
            l.sea[i] = in_grid && isOcean(qc, b, pc.sea_surface);
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
// unit width, positive toward +axis. Branch-free (both cases computed, one chosen): CPU drivers
// run a divergent branch for every lane anyway, and pay for its masks.
vec2 face(Line l, int i) {
    int f = l.first + i;
    float w_up = l.w[i - 1][l.hi], w_down = l.w[i][l.lo];
    vec2 inner = vec2(w_up - w_down, w_up * l.d[i - 1] - w_down * l.d[i]);
    float U = f == 0 ? -w_down : w_up;
    vec2 edge = vec2(U, U * (f == 0 ? l.d[i] : l.d[i - 1]));
    bool open_edge = partOn(STEP_OPEN_EDGES, p.edge_mode == EDGE_OPEN) && f >= 0 && f <= l.n;
    return f <= 0 || f >= l.n ? (open_edge ? edge : vec2(0.0)) : inner;
}

// Manning's n over the face between local cells i-1 and i: the bed's, plus the stems of both
// cells' vegetation (the same for the two cells that compute the face).
float faceRoughness(Line l, int i) {
    return vegetationOn() ? p.manning_n + p.vegetation_roughness * 0.5 * (l.veg[i - 1] + l.veg[i]) : p.manning_n;
}

// Manning's n over a steep face: at least the n whose terminal speed on the water surface's slope
// S across the face is froude_max times the critical speed sqrt(g R): n = R^(1/6) S^(1/2) /
// (Fr sqrt(g)), R the depth the face's water moves through. Rough and mobile steep beds hold their
// flow near critical (Grant 1997; step-pools and boulders, Jarrett 1984) where n = 0.03 alone runs
// a film of a centimetre down a 60-degree slope at Froude 6.5 (and the raw relief's steepest faces
// at 10). 0 turns it off.
float steepRoughness(float n, float slope, float hf) {
    float critical = pow(max(hf, 0.0), 1.0 / 6.0) * sqrt(slope) / (max(p.froude_max, 1e-6) * sqrt(p.gravity));
    return p.froude_max > 0.0 ? max(n, critical) : n;
}

// Where the explicit drive overshoots that terminal speed for a step (a jet into still water, the
// tide's rise against the shore, momentum carried onto a flat) the face is held to froude_max
// sqrt(g R) too: the Froude limit of inertial flood models (LISFLOOD-FP's). Not a cap in cells
// per step: it does not change with the time step or the sub-steps.
float froudeLimited(float U, float hf) {
    float most = p.froude_max * sqrt(p.gravity * max(hf, 0.0));
    return p.froude_max > 0.0 ? clamp(U, -most, most) : U;
}

// Friction implicit in the new speed U: U (1 + dt k) + dt g n^2 |U| U / h^(4/3) = U' (k the linear
// drag), solved for U. A steady sheet then moves at Manning's terminal speed h^(2/3) S^(1/2) / n
// whatever dt; dividing U' by a factor of |U'| instead settles below it once dt g S exceeds that
// speed (a 2 mm sheet on a 2 % slope at dt = 1 s: a third of it).
float friction(float U, float hf, float n) {
    float lin = 1.0 + p.time_step * p.flux_damping;
    float a = p.time_step * p.gravity * n * n / pow(hf, 4.0 / 3.0);
    return 2.0 * U / (lin + sqrt(lin * lin + 4.0 * a * abs(U)));
}

// The interior face between local cells i-1 and i (i = 2 or 3) before friction: (U', h), its
// speed after gravity and advection and the upwind depth friction acts over.
vec2 interiorFaceDrive(Line l, int i, out float slope) {
    float da = l.d[i - 1], de = l.d[i];
    vec2 f0 = face(l, i);
    float U = f0.x;
    float acc = -p.gravity * (l.eta[i] - l.eta[i - 1]) / p.cell_size;
    float hm = 0.5 * (da + de);
    vec2 fu = face(l, i - 1), fd = face(l, i + 1);
    float qa = 0.5 * (fu.y + f0.y), qe = 0.5 * (f0.y + fd.y);
    float adv_a = qa / hm * (U - fu.x) / p.cell_size;
    float adv_e = qe / hm * (fd.x - U) / p.cell_size;
    bool wet = hm > p.dry_depth;
    float adv = 0.0;
    adv = wet && qa > 0.0 && U >= 0.0 ? adv + adv_a : adv;
    adv = wet && qe < 0.0 && U <= 0.0 ? adv + adv_e : adv;
    float Un = U + p.time_step * (acc - adv);
    slope = abs(l.eta[i] - l.eta[i - 1]) / p.cell_size; // the water surface's, which drives it
    return vec2(Un, Un > 0.0 ? da : de);
}

// Over an open edge the water falls into a dry ghost cell level with this one; with a sea
// the ghost holds the sea's surface, so the sea does not drain over its edges.
// Before friction, as interiorFaceDrive.
vec2 edgeDrive(Line l, int dir) {
    float dc = l.d[2];
    float drop = partOn(STEP_SEA, p.enable_sea != 0) ? min(dc, l.eta[2] - pc.sea_surface) : dc;
    return vec2(l.w[2][dir] + p.time_step * p.gravity * drop / p.cell_size, dc);
}

// The outflow speed of the cell toward one side (toward -axis: `sign` -1; the face's speed is
// positive toward +axis): through an interior face, or over the grid's edge (open edges only).
// One friction for either.
float sideOutflow(Line l, bool interior, vec2 inner, vec2 edge, float sign, float n, float slope) {
    vec2 drive = interior ? inner : edge;
    float U = froudeLimited(friction(drive.x, drive.y, steepRoughness(n, interior ? slope : 0.0, drive.y)), drive.y);
    bool open = partOn(STEP_OPEN_EDGES, p.edge_mode == EDGE_OPEN);
    float through_face = max(0.0, sign * (drive.y <= p.dry_depth ? 0.0 : U));
    float over_edge = open && !(drive.y <= p.dry_depth || l.sea[2]) ? max(0.0, U) : 0.0;
    return interior ? through_face : over_edge;
}

// Outflow speeds of the cell toward -axis and +axis.
vec2 axisOutflow(Line l) {
    int self = l.first + 2;
    float slope_lo, slope_hi;
    vec2 inner_lo = interiorFaceDrive(l, 2, slope_lo), inner_hi = interiorFaceDrive(l, 3, slope_hi);
    float out_lo = sideOutflow(l, self > 0, inner_lo, edgeDrive(l, l.lo), -1.0, faceRoughness(l, 2), slope_lo);
    float out_hi = sideOutflow(l, self < l.n - 1, inner_hi, edgeDrive(l, l.hi), 1.0, faceRoughness(l, 3), slope_hi);
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
        bool sea0 = isOcean(c, b0, pc.sea_surface);
        vec2 x_out = axisOutflow(loadLine(c, 0, d0, eta0, w0, sea0));
        vec2 y_out = axisOutflow(loadLine(c, 1, d0, eta0, w0, sea0));
        o = vec4(x_out, y_out);
        // Limiter (K of the design): the volume leaving in one step, dt * L * d * sum(w), may not
        // exceed the cell's water L^2 d, i.e. sum(w) <= L / dt.
        float sum = o.x + o.y + o.z + o.w;
        if (sum * p.time_step > p.cell_size) o *= p.cell_size / (sum * p.time_step);
    }
    storeOutflowNext(c, o);
}
