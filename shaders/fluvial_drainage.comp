#version 450
// Fluvial model, end of the drainage accumulation and start of the implicit erosion (one pass
// over the tiles, after the accumulation's rounds over the exits).
// Drainage: each ring cell adds what the exits of the neighbouring tiles poured into it
// (fluvial_tree_push.comp) down its path within the tile to the local sums of
// fluvial_route.comp. Writes the drainage area (m^2).
// Erosion: stream power dz/dt = U - K A^m S^n, implicit along the receivers (Braun and Willett
// 2013). For n = 1 each cell's new height is affine in its receiver's new height,
//   z'(i) = a(i) + b(i) z'(r),  a = (z + U dt) / (1 + F),  b = F / (1 + F),  F = K dt A^m / L(i,r)^n.
// Roots of the composition (b = 0): outlets stay at base level; flooded cells only rise with
// uplift; a cell draining into a lake erodes towards the lake's surface. For n != 1, F takes
// the factor S^(n-1) from the current slope (linearised). Each cell composes the maps down its
// path within the tile, in path order, to z'(c) = A + B z'(y) with y the exit its path leaves by
// (B = 0: a root first); the exits' own a and b go to the rounds across tiles.
#include "fluvial_tree.glsl"

shared float map_a[WG_SIZE];
shared float map_b[WG_SIZE];

void main() {
    ivec2 tile = fluvialTile();
    ivec2 origin = tile * ivec2(WG_X, WG_Y);
    uint li = gl_LocalInvocationIndex;
    ivec2 local = ivec2(gl_LocalInvocationID.xy);
    ivec2 c = origin + local;
    bool inside = inGrid(c);
    uint i = inside ? cellIndex(c) : 0u;
    uint parent = treeParentOf(origin, c);
    tree_parent[li] = parent;
    treeClear(li);
    barrier();
    if (inside && onRing(local)) {
        uint node = ringAt(VAL_INFLOW, ringNode(c));
        uint64_t inflow = fluvial_ring_val[node];
        fluvial_ring_val[node] = 0ul; // for the sediment's
        if (inflow != 0ul) treeAddDown(li, inflow);
    }
    barrier();

    float a = 0.0, b = 0.0;
    if (inside) {
        uint64_t total = fluvial_acc[i] + treeSum(li);
        fluvial_acc[i] = total;
        float area = float(total) / float(FLUVIAL_ACC_ONE) * cellArea();
        imageStore(drainage_img, c, vec4(area));

        float z = imageLoad(terrain_cur, c).r;
        float rise = p.uplift_rate * imageLoad(uplift_img, c).r * p.fluvial_time_step;
        uint code = fluvial_rcv[i];
        a = z + rise;
        if (isBase(c, i)) {
            a = z;
        } else if (code != RCV_SELF && imageLoad(lake_img, c).r <= 0.0) {
            ivec2 rc = c + NB[code];
            uint r = cellIndex(rc);
            float dist = length(vec2(rc - c)) * p.cell_size;
            // Layered ground: where loose material lies the stream erodes it at its own rate (for
            // the whole step: the implicit solution has one rate a cell), else the bedrock.
            float loose = looseAt(c);
            float hardness = clamp(cellHardness(c, z, loose), 0.0, 1.0);
            float k = loose > 0.0 ? p.stream_power_k * p.loose_erodibility : p.stream_power_k * (1.0 - 0.9 * hardness);
            float f = k * p.fluvial_time_step * pow(area, p.stream_power_m) / pow(dist, p.stream_power_n);
            bool into_lake = imageLoad(lake_img, rc).r > 0.0;
            float zr = into_lake ? (isOceanCell(r) ? p.sea_level : fromOrdered(fluvial_level[r])) : imageLoad(terrain_cur, rc).r;
            if (p.stream_power_n != 1.0) f *= pow(max((z - zr) / dist, 1e-6), p.stream_power_n - 1.0);
            if (into_lake) {
                a = (z + rise + f * zr) / (1.0 + f);
            } else {
                a = (z + rise) / (1.0 + f);
                b = f / (1.0 + f);
            }
        }
    }
    map_a[li] = a;
    map_b[li] = b;
    barrier();
    if (!inside) return;
    // z'(c) = A + B z'(y), composed in path order.
    precise float A = 0.0, B = 1.0; // no fused multiply-adds: the same bits on every device
    uint k = li, target = FLUVIAL_NONE;
    for (int n = 0; n < WG_SIZE; ++n) {
        uint kp = tree_parent[k];
        if (kp == TREE_OUT) {
            target = ringNode(origin + treeLocal(k));
            break;
        }
        A = A + B * map_a[k];
        B = B * map_b[k];
        if (B == 0.0 || kp == TREE_ROOT) {
            B = 0.0;
            break;
        }
        k = kp;
    }
    fluvial_ab[i] = floatBitsToUint(vec2(A, B));
    fluvial_anc[i] = target; // the exit's ring node
    if (parent == TREE_OUT) fluvial_ring_val[ringAt(VAL_AUX, ringNode(c))] = packFloats(a, b);
}
