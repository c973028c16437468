#version 450
// Fluvial model, deposition (one pass over the tiles, after the sediment's rounds over the
// exits): each ring cell takes what the exits of neighbouring tiles poured into it ((1 - f) of
// the sediment passing them, fluvial_tree_push.comp), and carries it down its path within the
// tile like
// fluvial_apply.comp carries each cell's own; each cell then keeps f T of the sediment T
// passing it (m^3), raising its new ground by f T / cell_area, and adds it to the wear map's
// deposition. What reaches an outlet leaves the grid; what reaches a closed lake's sink is noted
// for its basin (fluvial_lake_fill.comp settles it over the lake).
#include "fluvial_tree.glsl"

shared float keep[WG_SIZE]; // 1 - f

float depositFraction(ivec2 c) {
    if (isLakeSinkCell(c, cellIndex(c))) return 1.0; // a closed lake keeps what reaches it
    if (isBase(c, cellIndex(c))) return 0.0; // what reaches the sea leaves (sediment_out)
    return min(p.fluvial_deposition * cellArea() / max(imageLoad(drainage_img, c).r, cellArea()), 1.0);
}

void main() {
    ivec2 tile = fluvialTile();
    ivec2 origin = tile * ivec2(WG_X, WG_Y);
    uint li = gl_LocalInvocationIndex;
    ivec2 local = ivec2(gl_LocalInvocationID.xy);
    ivec2 c = origin + local;
    bool inside = inGrid(c);
    uint i = inside ? cellIndex(c) : 0u;
    float f = inside ? depositFraction(c) : 0.0;
    keep[li] = 1.0 - f;
    tree_parent[li] = treeParentOf(origin, c);
    treeClear(li);
    barrier();
    if (inside && onRing(local)) {
        precise double inflow = double(fluvial_ring_val[ringAt(VAL_INFLOW, ringNode(c))]);
        uint k = li;
        for (int n = 0; n < WG_SIZE && inflow > 0.0; ++n) {
            treeAdd(k, uint64_t(inflow + 0.5));
            if (tree_parent[k] >= TREE_OUT) break;
            inflow *= double(keep[k]);
            k = tree_parent[k];
        }
    }
    barrier();
    if (!inside) return;
    uint64_t local_sum = packUint2x32(fluvial_ab[i]);
    float passing = float(double(local_sum + treeSum(li)) / FLUVIAL_SED_ONE);
    if (isLakeSinkCell(c, i)) { // a closed lake: fluvial_lake_fill.comp spreads it over the lake
        fluvial_lists[lakeAt(LAKE_SEDIMENT, basinOfCell(i))] = floatBitsToUint(passing);
        return;
    }
    float kept = f * passing / cellArea();
    if (kept <= 0.0) return;
    imageStore(terrain_next, c, vec4(imageLoad(terrain_next, c).r + kept));
    if (layersOn()) imageStore(loose_next, c, vec4(imageLoad(loose_next, c).r + kept));
    vec2 wear = imageLoad(wear_img, c).rg;
    imageStore(wear_img, c, vec4(wear.x, wear.y + kept, 0.0, 0.0));
}
