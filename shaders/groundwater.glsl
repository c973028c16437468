// Included (after common.glsl) by the groundwater and sea passes. Groundwater is stored
// as metres of water per cell, g, held in the pores between the aquifer's base B and the ground b:
// at most the capacity porosity * (b - B). Its table (the hydraulic head of Dupuit-Forchheimer) is
//   H = B + g / porosity           while the ground is not saturated,
//   H = b + (g - capacity)         beyond: groundwater that arrived this step and seeps out at
//                                  the next (continuous and increasing in g, so explicit steps
//                                  stay stable);
//   H = S + (g - capacity)         in the ocean, where d = S - b: a fixed head, the sea's surface,
//                                  whatever the groundwater flowing in or out within the step
//                                  (the sea supplies it: the next water_exchange restores and
//                                  counts it).
// Water standing on land does not press on the table (a lake leaks through saturated ground, and
// the exchange refills the ground under it by infiltration). The saturated thickness is
// h = H - B (>= 0).

// Groundwater the ground's pores hold (m of water).
float poreCapacity(float b, float base) { return p.porosity * max(b - base, 0.0); }

// The head H of a cell of ground b, standing water d, groundwater g; `ocean`: held by the sea.
float groundwaterHead(float b, float d, float g, float base, bool ocean) {
    float capacity = poreCapacity(b, base);
    if (!ocean && g < capacity) return base + g / p.porosity;
    precise float excess = g - capacity;
    precise float surface = ocean ? b + d : b;
    precise float head = surface + excess;
    return head;
}

// The water table drawn and exported: the head, but never above the ground (standing water is
// the surface water's).
float groundwaterTable(float b, float g, float base) {
    float capacity = poreCapacity(b, base);
    return g < capacity ? base + g / p.porosity : b;
}

// Metres of groundwater a face moves per metre of head difference in one flow sub-step:
// dt_sub K h_face / L^2 (Dupuit: flux K h grad H through a face of width L), with h_face the
// mean of the two cells' saturated thicknesses (symmetric: both cells compute the same number).
// Capped at porosity / 8 so the explicit sub-step keeps the heads within their neighbours'
// range (four faces move at most half the difference): stable for any K, h and dt.
float faceCoefficient(float h_a, float h_b) {
    precise float h_face = 0.5 * (h_a + h_b);
    float dt_sub = p.time_step / float(max(p.groundwater_substeps, 1));
    precise float coef = dt_sub * p.hydraulic_conductivity * h_face / (p.cell_size * p.cell_size);
    return min(coef, 0.125 * p.porosity);
}

// The edges over which the sea reaches the grid: the pipe model's open edges, the fluvial
// model's outlets (OUTLET_* bits).
int seaOutlets() {
    if (p.model == MODEL_FLUVIAL) return p.fluvial_outlets;
    return p.edge_mode == EDGE_OPEN ? (OUTLET_LEFT | OUTLET_RIGHT | OUTLET_TOP | OUTLET_BOTTOM) : 0;
}
bool onSeaEdge(ivec2 c) {
    int o = seaOutlets();
    return ((o & OUTLET_LEFT) != 0 && c.x == 0) || ((o & OUTLET_RIGHT) != 0 && c.x == p.width - 1) ||
           ((o & OUTLET_TOP) != 0 && c.y == 0) || ((o & OUTLET_BOTTOM) != 0 && c.y == p.height - 1);
}

