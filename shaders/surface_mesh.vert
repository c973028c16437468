#version 450
// The drawn surface: a grid of at most MESH_MAX^2 vertices (plus a skirt ring) whose heights
// surface_prepare.comp computed this frame from the simulation's images, so its
// cost does not grow with the simulation (and CPU drivers, which shade vertices on one thread,
// do little here). LAYER picks the ground or the water surface.
#include "render.glsl"

layout(std430, set = 1, binding = R_VERTICES) readonly buffer VertexBlock { vec4 vertices[]; };

layout(constant_id = SPEC_LAYER) const int LAYER = LAYER_TERRAIN;

layout(location = 0) out vec2 v_cell;   // cell coordinates
layout(location = 1) out vec3 v_world;
layout(location = 2) out float v_skirt; // 1 on the skirt ring

void main() {
    int nx = int(f.mesh.x), ny = int(f.mesh.y);
    int gx = gl_VertexIndex % (nx + 2), gy = gl_VertexIndex / (nx + 2);
    bool skirt = gx == 0 || gy == 0 || gx == nx + 1 || gy == ny + 1;
    vec2 ij = vec2(clamp(gx - 1, 0, nx - 1), clamp(gy - 1, 0, ny - 1));
    vec2 span = max(vec2(nx - 1, ny - 1), vec2(1.0));
    vec2 p = 0.5 + ij / span * (f.grid.xy - 1.0);
    vec4 v = vertices[gl_VertexIndex];
    float ground = v.x;
    float h = ground;
    if (LAYER == LAYER_WATER) {
        // Dry vertices sink a little below the ground so the water surface ends at the shore.
        h = v.y > WET_DEPTH ? ground + v.y : ground - 0.05 * f.grid.z;
        if (skirt) h = ground;
    } else if (skirt) {
        h = f.mesh.z;
    }
    v_cell = p;
    v_world = worldPos(p, h);
    v_skirt = skirt ? 1.0 : 0.0;
    gl_Position = f.view_proj * vec4(v_world, 1.0);
}
