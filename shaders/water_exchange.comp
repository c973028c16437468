#version 450
// Groundwater and the sea, first pass (gpu/groundwater.cpp): after the model's own passes, on the
// step's new ground b and water d, each cell on its own:
//   seepage:      groundwater beyond the pores' capacity porosity (b - B) (the table reached the
//                 surface: springs, baseflow) comes out as surface water;
//   infiltration: min(d, dt infiltration_rate, free pore space) soaks into the ground;
//   the sea:      an ocean cell (groundwater.glsl) is held at the step's sea surface S: d = S - b,
//                 its ground saturated. What that adds is counted as from the sea, what it
//                 removes (rivers arriving, a falling tide) as gone into the sea; its currents
//                 decay at sea_damping (the step's outflow speeds, read by the next step).
// Reads terrain_next, aquifer_base, sea_spill; updates water_next and the groundwater in place
// (its own cell only); writes the seepage rate (springs, for the viewer) and the water table
// image.
#include "common.glsl"
#include "partials.glsl"
#include "groundwater.glsl"

void main() {
    ivec2 c = cellId();
    bool inside = insideGrid(c);
    float infiltrated = 0.0, seeped = 0.0, sea_in = 0.0, sea_out = 0.0;
    if (inside) {
        float b = imageLoad(terrain_next, c).r;
        float d = imageLoad(water_next, c).r;
        float g = imageLoad(groundwater_img, c).r;
        float base = imageLoad(aquifer_base_img, c).r;
        bool groundwater = p.enable_groundwater != 0;
        float capacity = groundwater ? poreCapacity(b, base) : 0.0;
        float seep = 0.0;
        if (groundwater) {
            // Exact transfers: the water gets exactly what the stored groundwater lost, and loses
            // exactly what it gained (fl(g - x) differs from g by a representable amount), so a
            // steady trickle does not round the budget away step after step.
            precise float g_seeped = g - max(g - capacity, 0.0);
            precise float seeped_out = g - g_seeped;
            g = g_seeped;
            d += seeped_out;
            float soak = min(min(d, p.time_step * p.infiltration_rate), max(capacity - g, 0.0));
            precise float g_soaked = g + soak;
            precise float in_ = g_soaked - g;
            g = g_soaked;
            d = max(d - in_, 0.0);
            infiltrated = in_;
            seeped = seeped_out;
            seep = seeped_out;
        }
        if (isOcean(c, b, pc.sea_surface)) {
            // Each change is exact (the new value and the old differ by a representable amount
            // when they are close, and the sea's changes from one step to the next are small).
            float held = pc.sea_surface - b;
            precise float change = held - d;
            sea_in = max(change, 0.0);
            sea_out = max(-change, 0.0);
            d = held;
            if (groundwater) {
                precise float refill = capacity - g;
                sea_in += max(refill, 0.0);
                sea_out += max(-refill, 0.0);
                g = capacity;
            }
            seep = 0.0; // no spring drawn in the sea
            // The open sea absorbs currents (a sponge layer): without it a pinned, frictionless
            // sea would slosh on for ever, and rivers' jets would cross it.
            storeOutflowNext(c, loadOutflowNext(c) * exp(-p.sea_damping * p.time_step));
        }
        imageStore(water_next, c, vec4(d));
        if (groundwater) {
            imageStore(groundwater_img, c, vec4(g));
            imageStore(seepage_img, c, vec4(seep / p.time_step));
            imageStore(water_table_img, c, vec4(groundwaterTable(b, g, base)));
        }
        float area = cellArea();
        infiltrated *= area;
        seeped *= area;
        sea_in *= area;
        sea_out *= area;
    }
    partialsWrite(4, float[PARTIALS_MAX](infiltrated, seeped, sea_in, sea_out, 0.0, 0.0),
                  int[PARTIALS_MAX](SLOT_INFILTRATED, SLOT_SEEPED, SLOT_SEA_IN, SLOT_SEA_OUT, 0, 0), 0u);
}
