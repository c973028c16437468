// Lava (the pipe model's step, gpu/models/lava.cpp): each cell's lava depth h (m) and
// temperature T (K), on the step's new ground b.
//   flow        a Bingham sheet on the lava surface b + h: through a face of slope S, no flow
//               while h <= h_c = tau_y / (rho g S), else q = rho g S h^3 / (3 eta) (1 - 3/2 r
//               + 1/2 r^3) per metre of face, r = h_c / h (Dragoni 1986; the cellular automata
//               of MAGFLOW and GPUFLOW); the viscosity eta and the yield strength tau_y grow
//               exponentially as it cools below the vent's temperature. What a face carries in
//               a step is at most a fifth of the surfaces' difference times the cell's area (no
//               overshoot), and a cell sends at most the lava it holds.
//   heat        the lava arriving mixes its heat in; then radiation, eps sigma T^4 (the sky taken
//               as cold: air at 290 K returns under 0.5 % above 1100 K), stepped by its exact
//               solution T' = (T^-3 + 3 eps sigma dt / (rho c h))^(-1/3); the ground's
//               conduction, lava_ground_transfer (T - 300 K), exactly; water over it boils at
//               lava_quench (T - 373 K) until it is gone: each joule boils
//               1 / (rho_w (c_w 80 K + L_v)) m^3 (water at 293 K).
//   rock        below lava_solidus the lava becomes bedrock of lava_rock_hardness,
//               lava_density / lava_rock_density times as thick (the molten volume kept in mass).

const float kStefanBoltzmann = 5.670374e-8; // W/(m^2 K^4)
const float kGroundTemperature = 300.0;     // K
const float kBoiling = 373.15;              // K
// Joules that boil a cubic metre of water from 20 C: rho_w (c_w 80 K + L_v).
const float kBoilJoulesPerM3 = 1000.0 * (4186.0 * 80.0 + 2.257e6);

// Off in the split layout (grids too large for one allocation of 16 bytes a cell, which the
// lava's outflow image would need).
bool lavaOn() { return p.enable_lava != 0 && p.model == MODEL_PIPE && !SPLIT_WIDE; }

const ivec2 kLavaOffsets[4] = ivec2[4](ivec2(-1, 0), ivec2(1, 0), ivec2(0, -1), ivec2(0, 1));
const int kLavaOpposite[4] = int[4](1, 0, 3, 2);

// The viscosity and yield strength at temperature t.
float lavaViscosity(float t) { return p.lava_viscosity * exp(p.lava_viscosity_rise * (p.lava_vent_temperature - t)); }
float lavaYield(float t) { return p.lava_yield_strength * exp(p.lava_yield_rise * (p.lava_vent_temperature - t)); }

// The lava (m^3) a cell of depth h and temperature t sends through a face whose surfaces drop by
// `drop` (m) in a step, before the cell's own limit.
float lavaFaceFlow(float h, float t, float drop) {
    if (drop <= 0.0 || h <= 0.0) return 0.0;
    float slope = drop / p.cell_size;
    float rho_g = p.lava_density * p.gravity;
    float critical = lavaYield(t) / (rho_g * slope);
    if (h <= critical) return 0.0;
    float r = critical / h;
    float q = rho_g * slope * h * h * h / (3.0 * lavaViscosity(t)) * (1.0 - 1.5 * r + 0.5 * r * r * r);
    return min(q * p.cell_size * p.time_step, 0.2 * drop * cellArea());
}

// The hardness of a cell once `rock` m of lava rock formed on it: lava_rock_hardness, blended
// with the ground's over the first 10 cm (a film of rock is worn through to what lies under it).
float lavaRockHardness(float hardness, float rock) {
    return hardness + (max(p.lava_rock_hardness, hardness) - hardness) * min(rock / 0.1, 1.0);
}

// Where the vent pours: the lava depth it adds to cell c this step (m).
float ventDepth(ivec2 c) {
    if (p.lava_eruption_rate <= 0.0) return 0.0;
    float radius = max(p.lava_vent_radius, 0.75 * p.cell_size); // at least the centre's cell
    vec2 centre = vec2(p.lava_vent_x, p.lava_vent_y) * wholeGrid();
    vec2 d = (vec2(wholeCell(c)) + 0.5 - centre) * p.cell_size;
    return dot(d, d) <= radius * radius ? p.lava_eruption_rate * p.time_step / (3.14159265 * radius * radius) : 0.0;
}
