#version 450
// The point under the mouse: marches the picking ray over the current terrain (half a cell per
// step, then bisection), so the brush lands where the cursor is even on steep slopes. One
// invocation; the host reads the result a frame or two later.
#include "render.glsl"

layout(local_size_x = 1) in;
layout(std430, set = 1, binding = R_PICK) buffer PickBlock { vec4 hit; uint non_finite; };

// Height of the ray above the ground at world point w (m of height).
float above(vec3 w) {
    vec2 p = w.xz / f.grid.z;
    return w.y / f.grid.w - terrainBilinear(p);
}

bool inside(vec3 w) {
    vec2 p = w.xz / f.grid.z;
    return all(greaterThanEqual(p, vec2(0.0))) && all(lessThanEqual(p, f.grid.xy));
}

void main() {
    vec3 o = f.ray_origin.xyz, dir = normalize(f.ray_dir.xyz);
    // Clip the ray to the grid's footprint (slab test in x and z).
    vec2 lo = vec2(0.0), hi = f.grid.xy * f.grid.z;
    vec2 safe = vec2(abs(dir.x) > 1e-9 ? dir.x : 1e-9, abs(dir.z) > 1e-9 ? dir.z : 1e-9);
    vec2 inv = 1.0 / safe;
    vec2 t0 = (lo - o.xz) * inv, t1 = (hi - o.xz) * inv;
    float t_enter = max(max(min(t0.x, t1.x), min(t0.y, t1.y)), 0.0);
    float t_exit = min(max(t0.x, t1.x), max(t0.y, t1.y));
    hit = vec4(0.0);
    if (t_exit <= t_enter) return;
    float step_len = 0.5 * f.grid.z;
    // At most 16384 steps (a vertical ray's slab interval is unbounded: clamp before int()).
    int steps = int(min((t_exit - t_enter) / step_len, 16384.0)) + 2;
    float prev_t = t_enter;
    for (int k = 0; k <= steps; ++k) {
        float t = min(t_enter + float(k) * step_len, t_exit);
        if (above(o + dir * t) <= 0.0) {
            float a = prev_t, b = t;
            for (int j = 0; j < 24; ++j) {
                float m = 0.5 * (a + b);
                if (above(o + dir * m) > 0.0) a = m; else b = m;
            }
            vec3 w = o + dir * b;
            hit = vec4(w.xz / f.grid.z, w.y / f.grid.w, 1.0);
            return;
        }
        prev_t = t;
    }
}
