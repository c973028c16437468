#version 450
// Pipe step, pass 2 of 4: water update and velocity (design steps 1, 3 and 4).
//   sources (1):  d_s = d + rain + springs, the same amount the flux saw (common.glsl); counted
//                 here, once per cell.
//   water (3):    d' = d_s + dt (sum f_in - sum f_out) / L^2 with f = L d_s w, i.e.
//                 d' = d_s + dt (sum d_s(n) w_n->c - d_s sum w) / L. Over open edges the outflow
//                 leaves the grid and is counted.
//   velocity (4): the mean net discharge through the two faces on each axis (Mei et al. 2007)
//                 over the depth it moves through: the mean of the faces' upwind depths, and
//                 never less than the cell's mean depth (d_s + d') / 2. Over the cell's depth
//                 alone, a thin cell flooded by a deep neighbour would move at q / d, without
//                 bound as d goes to 0 (its first step: exactly L / dt); over the faces' depths
//                 |v| is at most the faster face's speed, which friction and the Froude limit
//                 bound (sources_flux.comp). Dry cells get zero. The flow map (when recorded)
//                 gains the water volume crossing the cell, |q| L dt (q the discharge the
//                 velocity was made of). The largest |v| + sqrt(g d') sets the next
//                 step's sub-steps; the largest Froude number of the cells deeper than
//                 FROUDE_MIN_DEPTH goes to the totals: on each axis the velocity over the
//                 critical speed of the depth it was averaged over, sqrt(g h) (a cell at the foot
//                 of a drop passes its deep neighbour's jet through a film: the jet is the flow).
// Reads water_cur (+ sources) and outflow_next at the 4 neighbours; writes water_mid (erosion
// reads it; evaporation comes last) and velocity.
#include "common.glsl"
#include "partials.glsl"

// Discharge per unit width of cell n through its face `dir` (m^2/s), d_s(n) w_n[dir], and the
// depth it moves through, d_s(n).
vec2 discharge(ivec2 n, int dir) {
    ivec2 q = clampToGrid(n);
    float d = waterAfterSources(q);
    float f = d * loadOutflowNext(q)[dir];
    return inGrid(n) ? vec2(f, d) : vec2(0.0);
}

// The upwind depth of a face: the neighbour's when it flows in, the cell's own (d) when the
// cell's outflow speed w through it is positive, 0 when nothing crosses.
float faceDepth(vec2 in_flow, float w, float d) { return in_flow.x > 0.0 ? in_flow.y : (w > 0.0 ? d : 0.0); }

// Updates cell c; returns its sums' values (0 outside the grid).
float[PARTIALS_MAX] updateCell(ivec2 c) {
    bool inside = insideGrid(c);
    float rain = 0.0, spring = 0.0, drained = 0.0, speed_out = 0.0, wave = 0.0, froude = 0.0;
    if (inside) {
        float area = cellArea();
        rain = rainDepth(c);
        spring = springDepth(c);
        float d0 = imageLoad(water_cur, c).r;
        float d = d0 + rain + spring;
        if (partOn(STEP_SEA, p.enable_sea != 0) && isOcean(c, imageLoad(terrain_cur, c).r, pc.sea_surface)) {
            // On the deep, still sea (held at its surface every step) count the rain and
            // springs as the depth stored them: fl(d + rain) - d, not rain.
            precise float with_rain = d0 + rain;
            precise float with_both = with_rain + spring;
            rain = with_rain - d0;
            spring = with_both - with_rain;
        }
        vec4 o = loadOutflowNext(c);
        // What flows in from the left neighbour (through its right face), and so on.
        vec2 from_left = discharge(c + ivec2(-1, 0), RIGHT), from_right = discharge(c + ivec2(1, 0), LEFT);
        vec2 from_top = discharge(c + ivec2(0, -1), BOTTOM), from_bottom = discharge(c + ivec2(0, 1), TOP);
        float in_sum = from_left.x + from_right.x + from_top.x + from_bottom.x;
        float out_sum = d * (o.x + o.y + o.z + o.w);
        float d_new = max(0.0, d + p.time_step * (in_sum - out_sum) / p.cell_size);
        imageStore(water_mid_img, c, vec4(d_new));
        if (partOn(STEP_OPEN_EDGES, p.edge_mode == EDGE_OPEN)) {
            float edge = 0.0;
            if (c.x == 0) edge += o[LEFT];
            if (c.x == p.width - 1) edge += o[RIGHT];
            if (c.y == 0) edge += o[TOP];
            if (c.y == p.height - 1) edge += o[BOTTOM];
            drained = p.time_step * p.cell_size * d * edge;
        }

        vec2 v = vec2(0.0);
        float mean_depth = 0.5 * (d + d_new);
        // The speed in the CFL number: the flow's and that of gravity waves.
        wave = sqrt(p.gravity * d_new);
        if (mean_depth > p.dry_depth) {
            float qx = 0.5 * (from_left.x - d * o[LEFT] + d * o[RIGHT] - from_right.x);
            float qy = 0.5 * (from_top.x - d * o[TOP] + d * o[BOTTOM] - from_bottom.x);
            float hx = 0.5 * (faceDepth(from_left, o[LEFT], d) + faceDepth(from_right, o[RIGHT], d));
            float hy = 0.5 * (faceDepth(from_top, o[TOP], d) + faceDepth(from_bottom, o[BOTTOM], d));
            vec2 h = max(vec2(mean_depth), vec2(hx, hy));
            v = vec2(qx, qy) / h;
            float speed = length(v);
            wave += speed;
            speed_out = speed;
            froude = d_new > FROUDE_MIN_DEPTH ? length(v / sqrt(p.gravity * h)) : 0.0;
            if (partOn(STEP_MAPS, p.record_maps != 0)) {
                float flow = imageLoad(flow_img, c).r;
                imageStore(flow_img, c, vec4(flow + length(vec2(qx, qy)) * p.cell_size * p.time_step));
            }
        }
        imageStore(velocity_img, c, vec4(v, 0.0, 0.0));
        rain *= area;
        spring *= area;
    }
    return float[PARTIALS_MAX](rain, spring, drained, speed_out, wave, froude);
}

void main() {
    const int slots[PARTIALS_MAX] =
        int[PARTIALS_MAX](SLOT_RAIN, SLOT_SPRING, SLOT_DRAINED_WATER, SLOT_MAX_SPEED, SLOT_MAX_WAVE, SLOT_MAX_FROUDE);
    double sums[PARTIALS_MAX];
    [[unroll]] for (int row = 0; row < SUM_ROWS; ++row) rowSums(row, 6, updateCell(rowCell(row)), slots, sums);
    partialsWrite(6, sums, slots, 1u << 2);
}
