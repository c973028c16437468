// The pipe step's erosion/deposition and thermal erosion as pure functions of a cell's values, so
// the fused pass (erosion_transport_thermal_evaporation.comp, tiles in shared memory: GPUs) and
// the direct passes (erosion.comp, transport_thermal_outflow_evaporation.comp, thermal_gather.comp:
// CPU drivers, where shared memory is slow) compute exactly the same numbers.

layout(std430, binding = B_TOTALS) readonly buffer TotalsBlock { Totals totals; };

// The suspended sediment at the start of the step's erosion. When the step before was recorded
// with another one after it, it left its sediment correction (sediment_correct.comp) to this
// pass (pc.mode ERODE_CARRIED_CORRECTION, gpu/pipe.cpp): the same product s * scale, rounded
// once (`precise`: no multiply-add with what follows), so the bits are those of the pass.
float sedimentAtStart(ivec2 q) {
    precise float s = imageLoad(sediment_cur, q).r;
    if (pc.mode == ERODE_CARRIED_CORRECTION) s = s * totals.sediment_scale;
    return s;
}

// Sine of the ground's tilt from central differences (one-sided at the edges, zero along a
// 1-cell axis): `lo`/`hi` are the heights at the clamped neighbours, `span` their distance in
// cells (0 when the axis has one cell).
float tiltSine(float x_lo, float x_hi, int x_span, float y_lo, float y_hi, int y_span) {
    float gx = x_span > 0 ? (x_hi - x_lo) / (float(x_span) * p.cell_size) : 0.0;
    float gy = y_span > 0 ? (y_hi - y_lo) / (float(y_span) * p.cell_size) : 0.0;
    float g2 = gx * gx + gy * gy;
    return sqrt(g2 / (1.0 + g2));
}

// Design step 5: capacity C = Kc max(sin tilt, min_tilt) |v| min(1, d / capacity_depth). If C > s,
// dissolve min(1, dt Ks)(C - s)(1 - hardness) from the ground into the water (from its loose
// layer first: layers.glsl), times what roots leave (`roots`, vegetation.glsl's rootBinding),
// else settle min(1, dt (Kd + w_s / d))(s - C). `b` and `s` are updated; returns the volumes
// eroded (x) and deposited (y).
vec2 erodeCell(inout float b, inout float s, float sin_tilt, vec2 v, float depth, float hardness, float loose,
               float roots) {
    if (p.enable_erosion == 0) return vec2(0.0);
    float capacity = p.sediment_capacity * max(sin_tilt, p.min_tilt) * length(v);
    if (p.capacity_depth > 0.0) capacity *= min(1.0, depth / p.capacity_depth);
    // Exact transfer: the sediment gains exactly what the stored ground height lost (a change
    // below half an ulp of b would otherwise vanish from b but not from s, and soil would drift
    // over thousands of steps). `precise` stops the compiler from folding b - (b - e) into e.
    if (capacity > s) {
        float demand = min(1.0, p.time_step * p.dissolve_rate) * (capacity - s);
        float e = layeredErosion(vegetationOn() ? demand * roots : demand, loose, hardness);
        precise float lowered = b - e;
        precise float applied = b - lowered;
        b = lowered;
        s += applied;
        return vec2(applied * cellArea(), 0.0);
    }
    // Grains falling at w_s through water d deep settle at w_s / d of the load a second (the
    // excess over capacity): fast where a jet slows in shallow water, slowly in deep water.
    float settle = p.settling_velocity > 0.0 ? p.settling_velocity / max(depth, p.dry_depth) : 0.0;
    float dep = min(1.0, p.time_step * (p.deposit_rate + settle)) * (s - capacity);
    precise float raised = b + dep;
    precise float applied = raised - b;
    b = raised;
    // Rounding b up can settle up to half an ulp more than s held (only when dt Kd >= 1 empties
    // the water): keep s >= 0, a loss far below b's precision.
    s = max(0.0, s - applied);
    return vec2(0.0, applied * cellArea());
}

// Design step 7, thermal erosion. A cell of eroded ground b sends to each lower neighbour n the
// excess over the talus drop, e = max((b - b_n) - tan(talus) dist, 0) (the talus angle grows with
// hardness); half the largest excess (times min(1, dt K / L^2)) leaves, shared in proportion to the
// excesses. K (thermal_rate) is a diffusivity: on a uniform slope a face carries K / 2 times the
// slope's excess over the talus slope, so a slope W metres wide slumps in a time of W^2 / K at any
// cell size (a rate per cell would slump it 4 times slower at half the cell size); the 1 is the
// explicit limit (a pair of cells then stands exactly at the angle). thermalRate gives the cell's
// factor (moved / total excess, or 0) and its tan(talus); thermalSent what it sends to neighbour
// k (left, right, top, bottom, then top-left, top-right, bottom-left, bottom-right) of height b_n
// (+inf outside the grid). Every pass that needs an
// amount computes it with thermalSent from the same values, so the sender subtracts exactly what
// the receiver adds.
float thermalSent(vec2 rate, float b, float b_n, int k) {
    precise float drop = rate.y * (k < 4 ? p.cell_size : sqrt(2.0) * p.cell_size);
    precise float amount = rate.x * max((b - b_n) - drop, 0.0);
    return amount;
}

// The share of the excess a step moves, dt K / L^2, at most 1.
float thermalShare() { return min(1.0, p.time_step * p.thermal_rate / (p.cell_size * p.cell_size)); }

// The thermal rate at talus slope tan_talus: (factor, tan_talus, the volume that leaves / area).
vec3 thermalRateAt(float tan_talus, float b, float b_n[8]) {
    vec2 rate = vec2(0.0, tan_talus);
    float largest = 0.0, total = 0.0;
    for (int k = 0; k < 8; ++k) {
        float e = thermalSent(vec2(1.0, rate.y), b, b_n[k], k);
        largest = max(largest, e);
        total += e;
    }
    if (total > 0.0) rate.x = 0.5 * thermalShare() * largest / total;
    return vec3(rate, rate.x * total);
}

// Rock stands at the talus angle (steeper by hardness); on layered ground a loose layer stands at
// its angle of repose (layeredThermal).
vec2 thermalRate(float b, float hardness, float loose, float b_n[8]) {
    vec3 rock = thermalRateAt(tan(min(p.talus_angle + hardness * p.talus_hardness_gain, radians(89.0))), b, b_n);
    if (!layersOn() || loose <= 0.0) return rock.xy;
    return layeredThermal(rock, thermalRateAt(tan(p.loose_repose_angle), b, b_n), loose);
}

// Design step 8: evaporation, d (1 - min(1, Ke dt)); returns the depth lost: exactly what the
// stored depth lost (a sea refilled every step would otherwise round the budget away).
float evaporate(inout float d) {
    if (p.enable_evaporation == 0) return 0.0;
    float e = d * min(1.0, p.evaporation_rate * p.time_step);
    precise float kept = d - e;
    precise float lost = d - kept;
    d = kept;
    return lost;
}

// The sediment that open edges carry off with the water leaving this step (m^3).
float edgeSediment(ivec2 c, float s) {
    if (!partOn(STEP_OPEN_EDGES, p.edge_mode == EDGE_OPEN) ||
        (c.x != 0 && c.y != 0 && c.x != p.width - 1 && c.y != p.height - 1))
        return 0.0;
    vec4 o = loadOutflowNext(c);
    float edge = 0.0;
    if (c.x == 0) edge += o[LEFT];
    if (c.x == p.width - 1) edge += o[RIGHT];
    if (c.y == 0) edge += o[TOP];
    if (c.y == p.height - 1) edge += o[BOTTOM];
    return s * min(1.0, p.time_step * edge / p.cell_size) * cellArea();
}

// Design step 6, semi-Lagrangian transport s(x) = s_e(x - v dt), bilinear, sampled inside the
// grid. Where it samples for cell c: the lower corner (clamped to within 2
// cells of c, which |v| <= L / dt guarantees up to rounding; the clamp only keeps a non-finite
// velocity from reading outside a tile's ring), the upper corner and the weights.
// The point is found in whole-grid coordinates (a float's last bits depend on its size), then
// brought back to the block's (wholeCell): a split grid samples the same point with the same weights.
void transportFootprint(ivec2 c, vec2 v, out ivec2 lo, out ivec2 hi, out vec2 f) {
    ivec2 g = wholeCell(c);
    float px = clamp(float(g.x) - v.x * p.time_step / p.cell_size, 0.0, float(p.full_width - 1));
    float py = clamp(float(g.y) - v.y * p.time_step / p.cell_size, 0.0, float(p.full_height - 1));
    lo = ivec2(min(int(floor(px)), p.full_width - 1), min(int(floor(py)), p.full_height - 1));
    f = vec2(px - float(lo.x), py - float(lo.y));
    lo = clamp(lo - (g - c), max(c - 2, ivec2(0)), c + 1);
    hi = min(lo + 1, ivec2(p.width - 1, p.height - 1));
}

float bilinear(float s00, float s10, float s01, float s11, vec2 f) {
    float top = s00 + f.x * (s10 - s00);
    float bottom = s01 + f.x * (s11 - s01);
    return top + f.y * (bottom - top);
}
