#version 450
// Fluvial model, the new ground (one pass over the tiles, after the erosion's rounds over the
// exits): z'(c) = A + B z'(y) with z'(y) from the rounds, plus hillslope diffusion D
// laplacian(z) dt (explicit, on the heights at the start of the iteration; its factor D dt / L^2
// is capped at 0.2, the explicit stability limit). Outlets stay at base level. (The pipe
// model's fields are copied to their other halves beside this pass.) Adds the stream-power
// erosion to the wear map (m eroded since the start).
// Deposition (fluvial_deposition G > 0) starts here: the sediment passing a cell is
// T(j) = E(j) + sum over donors d of (1 - f(d)) T(d), E the volume its stream power eroded, f the
// fraction a cell keeps (Yuan et al. 2019's G A_cell / A; outlets keep nothing). Each cell carries
// its E down its path within the tile, scaled by (1 - f) at each cell it leaves, every amount
// rounded to the fixed point on its own (integer atomics: exact in any order). The exits pass on
// (1 - f) and each ring cell the product of (1 - f) down to its exit, for the rounds across tiles.
#include "fluvial_tree.glsl"

shared float keep[WG_SIZE]; // 1 - f

float neighbourDiff(ivec2 n, float z) { return inGrid(n) ? imageLoad(terrain_cur, n).r - z : 0.0; }

void main() {
    ivec2 tile = fluvialTile();
    ivec2 origin = tile * ivec2(WG_X, WG_Y);
    uint li = gl_LocalInvocationIndex;
    ivec2 local = ivec2(gl_LocalInvocationID.xy);
    ivec2 c = origin + local;
    bool inside = inGrid(c);
    bool deposition = p.fluvial_deposition > 0.0 || p.lake_evaporation > 0.0; // closed lakes keep sediment
    uint i = inside ? cellIndex(c) : 0u;
    float eroded = 0.0; // m of ground
    if (inside) {
        vec2 map = uintBitsToFloat(fluvial_ab[i]);
        uint target = fluvial_anc[i];
        precise float z_stream = map.x;
        if (target != FLUVIAL_NONE)
            z_stream = map.x + map.y * unpackFloats(fluvial_ring_val[ringAt(ctl.parity, target)]).x;
        float z = imageLoad(terrain_cur, c).r;
        float z_new = z;
        float lifted = z; // the ground before erosion: uplift raises the bedrock, and the loose layer on it
        if (!isBase(c, i)) {
            lifted = z + p.uplift_rate * imageLoad(uplift_img, c).r * p.fluvial_time_step;
            z_new = z_stream;
            if (p.hillslope_diffusion > 0.0) {
                float kappa = min(p.hillslope_diffusion * p.fluvial_time_step / cellArea(), 0.2);
                float lap = neighbourDiff(c + ivec2(-1, 0), z) + neighbourDiff(c + ivec2(1, 0), z) +
                            neighbourDiff(c + ivec2(0, -1), z) + neighbourDiff(c + ivec2(0, 1), z);
                z_new += kappa * lap;
            }
            if (imageLoad(lake_img, c).r <= 0.0) eroded = max(lifted - z_stream, 0.0);
        }
        imageStore(terrain_next, c, vec4(z_new));
        if (layersOn()) imageStore(loose_next, c, vec4(looseAfter(imageLoad(loose_cur, c).r, lifted, z_new)));
        vec2 wear = imageLoad(wear_img, c).rg;
        imageStore(wear_img, c, vec4(wear.x + eroded, wear.y, 0.0, 0.0));
    }
    if (!deposition) return; // uniform

    uint parent = treeParentOf(origin, c);
    tree_parent[li] = parent;
    treeClear(li);
    float f = 0.0;
    if (inside && isLakeSinkCell(c, i))
        f = 1.0;
    else if (inside && !isBase(c, i))
        f = min(p.fluvial_deposition * cellArea() / max(imageLoad(drainage_img, c).r, cellArea()), 1.0);
    keep[li] = 1.0 - f;
    barrier();
    if (inside) {
        precise float carried = eroded * cellArea() * float(FLUVIAL_SED_ONE);
        uint k = li;
        for (int n = 0; n < WG_SIZE; ++n) {
            treeAdd(k, uint64_t(carried + 0.5));
            if (tree_parent[k] >= TREE_OUT) break;
            carried *= keep[k];
            k = tree_parent[k];
        }
    }
    barrier();
    if (!inside) return;
    fluvial_ab[i] = unpackUint2x32(treeSum(li)); // the sediment passing c from within the tile
    if (onRing(local)) {
        precise float product = 1.0; // of (1 - f) from c down to its exit, the exit's own excluded
        uint k = li;
        for (int n = 0; n < WG_SIZE && tree_parent[k] < TREE_OUT; ++n) {
            product *= keep[k];
            k = tree_parent[k];
        }
        fluvial_ring_val[ringAt(VAL_AUX, ringNode(c))] = packFloats(keep[li], product);
    }
}
