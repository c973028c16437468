#version 450
// Before the drawing, once per frame: for each vertex of the drawn grid (skirt ring included),
// the ground height and water depth (bilinear between cells); and the list of the water
// surface's triangles, only where some corner is wet, for an indirect draw. Run as compute, this
// work is spread over every core of a CPU driver, where vertex shading is not.
#include "render.glsl"

layout(local_size_x = PREPARE_WG) in;

layout(std430, set = 1, binding = R_VERTICES) writeonly buffer VertexBlock { vec4 vertices[]; };
layout(std430, set = 1, binding = R_WATER_INDICES) writeonly buffer IndexBlock { uint water_indices[]; };
// ground_lo/hi: the drawn ground's lowest and highest height (ordered float bits; the host
// resets them), for the colours' altitude range while uplift raises the land (fluvial model only).
layout(std430, set = 1, binding = R_PICK) buffer PickBlock { vec4 hit; uint non_finite; uint ground_lo; uint ground_hi; };

uint orderedBits(float v) {
    uint u = floatBitsToUint(v);
    return (u & 0x80000000u) != 0u ? ~u : (u | 0x80000000u);
}
layout(std430, set = 1, binding = R_WATER_DRAW) buffer DrawBlock {
    uint index_count; // VkDrawIndexedIndirectCommand; the host sets it to 0, 1, 0, 0, 0
    uint instance_count;
    uint first_index;
    int vertex_offset;
    uint first_instance;
};

// Cell coordinates of vertex (gx, gy) of the (n + 2)^2 grid (the ring repeats the border).
vec2 vertexCell(int gx, int gy, int nx, int ny) {
    vec2 ij = vec2(clamp(gx - 1, 0, nx - 1), clamp(gy - 1, 0, ny - 1));
    vec2 span = max(vec2(nx - 1, ny - 1), vec2(1.0));
    return 0.5 + ij / span * (f.grid.xy - 1.0);
}

void main() {
    int nx = int(f.mesh.x), ny = int(f.mesh.y);
    int vx = nx + 2, vy = ny + 2;
    int k = int((gl_WorkGroupID.y * uint(PREPARE_ROW_GROUPS) + gl_WorkGroupID.x) * uint(PREPARE_WG) + gl_LocalInvocationID.x);
    if (k >= vx * vy) return;
    int gx = k % vx, gy = k / vx;
    vec2 p = vertexCell(gx, gy, nx, ny);
    float ground = terrainBilinear(p);
    float depth = waterBilinear(p);
    vertices[k] = vec4(ground, depth, 0.0, 0.0);
    // The NaN watchdog, for every model: a non-finite value spreads to its neighbours within a
    // few steps, so the drawn grid's samples find it. (Only ever set: no race to lose.)
    if (isnan(ground) || isinf(ground) || isnan(depth) || isinf(depth)) non_finite = 1u;
    else if (f.relief.w > 0.5) { // only the fluvial model's uplift moves the range (see viewer.cpp)
        uint bits = orderedBits(ground);
        atomicMin(ground_lo, bits);
        atomicMax(ground_hi, bits);
    }

    // The quad whose first corner is this vertex: drawn as water if any corner is wet.
    if (gx + 1 < vx && gy + 1 < vy) {
        float wet = max(max(depth, waterBilinear(vertexCell(gx + 1, gy, nx, ny))),
                        max(waterBilinear(vertexCell(gx, gy + 1, nx, ny)), waterBilinear(vertexCell(gx + 1, gy + 1, nx, ny))));
        if (wet > WET_DEPTH) {
            uint a = uint(k), b = a + 1u, c = a + uint(vx), d = c + 1u;
            uint base = atomicAdd(index_count, 6u);
            water_indices[base + 0u] = a;
            water_indices[base + 1u] = c;
            water_indices[base + 2u] = b;
            water_indices[base + 3u] = b;
            water_indices[base + 4u] = c;
            water_indices[base + 5u] = d;
        }
    }
}
