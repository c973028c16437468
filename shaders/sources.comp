#version 450
// Pass 1, water sources (design step 1): d += dt * (rain * rain_mask + springs + brush).
// The brush also raises and lowers the ground. In place on the current images.
#include "common.glsl"

void main() {
    ivec2 c = cellId();
    bool inside = insideGrid(c);
    float area = cellArea();
    vec4 water_sums = vec4(0.0);  // rain, spring, brush add, brush remove
    vec2 soil_sums = vec2(0.0);   // brush add, brush remove
    if (inside) {
        float d = imageLoad(water_cur, c).r;
        float rain = p.dt * p.rain_rate * imageLoad(rain_mask, c).r;
        d += rain;
        water_sums.x = rain * area;
        vec2 centre = vec2(c) + 0.5;
        for (int k = 0; k < p.spring_count; ++k) {
            vec4 sp = springs[k];
            vec2 delta = centre - sp.xy;
            if (dot(delta, delta) <= sp.z * sp.z) {
                float v = p.dt * sp.w / area;
                d += v;
                water_sums.y += v * area;
            }
        }
        if (p.brush_tool != BRUSH_NONE) {
            vec2 delta = centre - vec2(p.brush_x, p.brush_y);
            float t2 = dot(delta, delta) / (p.brush_radius * p.brush_radius);
            float weight = t2 < 1.0 ? (1.0 - t2) * (1.0 - t2) : 0.0;
            float amount = p.dt * p.brush_strength * weight;
            if (amount > 0.0) {
                if (p.brush_tool == BRUSH_ADD_WATER) {
                    d += amount;
                    water_sums.z = amount * area;
                } else if (p.brush_tool == BRUSH_REMOVE_WATER) {
                    float removed = min(d, amount);
                    d -= removed;
                    water_sums.w = removed * area;
                } else if (p.brush_tool == BRUSH_RAISE || p.brush_tool == BRUSH_LOWER) {
                    float b = imageLoad(terrain_cur, c).r;
                    bool raise = p.brush_tool == BRUSH_RAISE;
                    imageStore(terrain_cur, c, vec4(raise ? b + amount : b - amount));
                    if (raise) soil_sums.x = amount * area; else soil_sums.y = amount * area;
                }
            }
        }
        imageStore(water_cur, c, vec4(d));
    }
    addPartial(SLOT_RAIN, water_sums.x);
    addPartial(SLOT_SPRING, water_sums.y);
    addPartial(SLOT_BRUSH_WATER_ADD, water_sums.z);
    addPartial(SLOT_BRUSH_WATER_REMOVE, water_sums.w);
    addPartial(SLOT_BRUSH_SOIL_ADD, soil_sums.x);
    addPartial(SLOT_BRUSH_SOIL_REMOVE, soil_sums.y);
}
