#version 450
// The drawn surface: a grid of at most MESH_MAX^2 vertices (plus a skirt ring) that samples the
// simulation's images, so its cost does not grow with the simulation. LAYER picks the ground or
// the water surface. Shadows are marched here, per vertex, towards the sun over the full-
// resolution heightfield: soft, and cheap enough for a CPU driver.
#include "render.glsl"

layout(constant_id = 0) const int LAYER = LAYER_TERRAIN;

layout(location = 0) out vec2 v_cell;   // cell coordinates
layout(location = 1) out vec3 v_world;
layout(location = 2) out float v_skirt; // 1 on the skirt ring
layout(location = 3) out float v_shadow;

float sunShadow(vec2 p, float h) {
    vec3 s = normalize(f.sun_dir.xyz);
    float horizontal = max(length(s.xz), 1e-3);
    vec2 dir = s.xz / horizontal;                               // cells per unit of march
    float rise = s.y / horizontal * f.grid.z / max(f.grid.w, 1e-3); // metres per cell marched
    float lit = 1.0;
    float t = 1.0;
    for (int k = 0; k < 28; ++k) {
        vec2 q = p + dir * t;
        if (q.x < 0.0 || q.y < 0.0 || q.x > f.grid.x || q.y > f.grid.y) break;
        float above = h + rise * t - terrainAt(ivec2(q));
        lit = min(lit, f.sun_dir.w * above / (t * f.grid.z));
        if (lit <= 0.0) break;
        t *= 1.2;
    }
    return clamp(lit, 0.0, 1.0);
}

void main() {
    int nx = int(f.mesh.x), ny = int(f.mesh.y);
    int gx = gl_VertexIndex % (nx + 2), gy = gl_VertexIndex / (nx + 2);
    bool skirt = gx == 0 || gy == 0 || gx == nx + 1 || gy == ny + 1;
    vec2 ij = vec2(clamp(gx - 1, 0, nx - 1), clamp(gy - 1, 0, ny - 1));
    vec2 span = max(vec2(nx - 1, ny - 1), vec2(1.0));
    vec2 p = 0.5 + ij / span * (f.grid.xy - 1.0);
    float ground = terrainBilinear(p);
    float h = ground;
    if (LAYER == LAYER_WATER) {
        float d = waterBilinear(p);
        // Dry vertices sink a little below the ground so the water surface ends at the shore.
        h = d > 1e-3 ? ground + d : ground - 0.05 * f.grid.z;
        if (skirt) h = ground;
    } else if (skirt) {
        h = f.mesh.z;
    }
    v_cell = p;
    v_world = worldPos(p, h);
    v_skirt = skirt ? 1.0 : 0.0;
    v_shadow = skirt ? 1.0 : sunShadow(p, max(h, ground) + 0.02 * f.grid.z);
    gl_Position = f.view_proj * vec4(v_world, 1.0);
}
