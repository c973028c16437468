#version 450
// Lava, second pass (lava.glsl): the flow's gather (what this cell sent, what each neighbour sent
// here, with its heat), the vent's eruption, cooling by radiation, the ground and water, and
// solidification into bedrock. Writes lava_next; the step's new ground, hardness, water (and
// loose layer) in place, this cell only. Sums the lava erupted and solidified and the water
// boiled.
#include "common.glsl"
#include "lava.glsl"
#include "partials.glsl"

// Cooling over dt of lava of depth h (m) from temperature t, under `water` m of water: the new
// temperature; `boiled` the water boiled away (m).
float cooled(float t, float h, float water, out float boiled) {
    float heat_capacity = p.lava_density * p.lava_heat_capacity * h; // J/(m^2 K)
    float dt = p.time_step;
    if (p.lava_emissivity > 0.0) {
        // T (1 + 3 eps sigma dt T^3 / (rho c h))^(-1/3): the exact solution, written so that
        // pow() sees a number near 1 (T^-3 would lose digits to pow's exp2(log2) on GPUs).
        float x = 3.0 * p.lava_emissivity * kStefanBoltzmann * dt * t * t * t / heat_capacity;
        t *= pow(1.0 + x, -1.0 / 3.0);
    }
    t = kGroundTemperature + (t - kGroundTemperature) * exp(-p.lava_ground_transfer * dt / heat_capacity);
    boiled = 0.0;
    if (water > 0.0 && t > kBoiling && p.lava_quench > 0.0) {
        float quenched = kBoiling + (t - kBoiling) * exp(-p.lava_quench * dt / heat_capacity);
        float joules = (t - quenched) * heat_capacity; // per m^2
        boiled = min(joules / kBoilJoulesPerM3, water);
        t -= boiled * kBoilJoulesPerM3 / heat_capacity;
    }
    return t;
}

// One cell's step: the lava erupted and solidified and the water boiled there (m^3) for the sums.
float[PARTIALS_MAX] lavaCell(ivec2 c) {
    float erupted = 0.0, solidified = 0.0, boiled = 0.0;
    if (insideGrid(c)) {
        vec2 lava = imageLoad(lava_cur, c).rg;
        vec4 sent = imageLoad(lava_outflow_img, c);
        float area = cellArea();
        precise float volume = lava.x * area - (sent.x + sent.y + sent.z + sent.w);
        float heat = max(volume, 0.0) * lava.y;
        for (int k = 0; k < 4; ++k) {
            ivec2 n = c + kLavaOffsets[k], q = clampToGrid(n);
            float in_k = inGrid(n) ? imageLoad(lava_outflow_img, q)[kLavaOpposite[k]] : 0.0;
            volume += in_k;
            heat += in_k * imageLoad(lava_cur, q).g;
        }
        float vent = ventDepth(c) * area;
        volume += vent;
        heat += vent * p.lava_vent_temperature;
        erupted = vent;
        volume = max(volume, 0.0);
        float h = volume / area;
        float t = volume > 0.0 ? heat / volume : 0.0;
        if (h > 0.0) {
            float water = imageLoad(water_next, c).r, gone = 0.0;
            t = cooled(t, h, water, gone);
            if (gone > 0.0) {
                precise float left = water - gone;
                boiled = (water - left) * area;
                imageStore(water_next, c, vec4(left));
            }
            if (t <= p.lava_solidus) {
                float b = imageLoad(terrain_next, c).r, rock = h * (p.lava_density / p.lava_rock_density);
                imageStore(terrain_next, c, vec4(b + rock));
                imageStore(hardness_img, c, vec4(lavaRockHardness(imageLoad(hardness_img, c).r, rock)));
                if (layersOn()) imageStore(loose_next, c, vec4(0.0)); // buried under the new rock
                solidified = volume;
                h = 0.0;
                t = 0.0;
            }
        }
        imageStore(lava_next, c, vec4(h, h > 0.0 ? t : 0.0, 0.0, 0.0));
    }
    return float[PARTIALS_MAX](erupted, solidified, boiled, 0.0, 0.0, 0.0);
}

void main() {
    if (!lavaOn()) return; // uniform: off, a pass run on its own (tests) does nothing
    const int slots[PARTIALS_MAX] = int[PARTIALS_MAX](SLOT_LAVA_ERUPTED, SLOT_LAVA_SOLIDIFIED, SLOT_BOILED, 0, 0, 0);
    double sums[PARTIALS_MAX];
    [[unroll]] for (int row = 0; row < SUM_ROWS; ++row) rowSums(row, 3, lavaCell(rowCell(row)), slots, sums);
    partialsWrite(3, sums, slots, 0u);
}
