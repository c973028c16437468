#version 450
// Pipe step, pass 3 of 4 (GPUs): erosion/deposition, sediment transport, thermal erosion and
// evaporation (design steps 5 to 8) in one pass over the grid; the equations are in
// pipe_erosion.glsl. The transport's sums before and after (and what open edges carry off) give
// the correction that sediment_correct applies once the step's sums are folded.
// A cell's new ground depends on the eroded ground of its 5x5 neighbourhood and on the old
// ground around those (the tilt), so each workgroup erodes its tile plus a ring of 2 cells in
// shared memory, computes the thermal outflows of its tile plus a ring of 1, and gathers. Halo
// cells are computed by the same code as owned ones (bit-identical in every workgroup), so what
// a neighbour's workgroup subtracts is exactly what this one adds: thermal moves are mass-exact.
// CPU drivers, where shared memory costs more than image reads, run the same functions as three
// passes instead (erosion.comp, transport_thermal_outflow_evaporation.comp, thermal_gather.comp).
// Reads terrain_cur, sediment_cur, hardness, velocity, water_mid (and loose_cur on layered
// ground); writes terrain_next, sediment_next, water_next (loose_next, and the wear map when
// recorded).
#include "common.glsl"
#include "partials.glsl"
#include "pipe_erosion.glsl"

// Tile regions, relative to the tile's first cell T: B = T-3 .. (old ground, for the tilt),
// E = T-2 .. (eroded ground and sediment, hardness), S = T-1 .. (thermal outflows).
#define B_W (WG_X + 6)
#define B_H (WG_Y + 6)
#define E_W (WG_X + 4)
#define E_H (WG_Y + 4)
#define S_W (WG_X + 2)
#define S_H (WG_Y + 2)

shared float old_ground[B_W * B_H];
shared float eroded_ground[E_W * E_H]; // +inf outside the grid: never lower than a neighbour
shared float eroded_sediment[E_W * E_H];
shared vec2 rock_e[E_W * E_H];    // hardness, loose layer after erosion (layers.glsl)
shared vec4 sent_axis[S_W * S_H]; // what each cell of S sends left, right, top, bottom
shared vec4 sent_diag[S_W * S_H]; // ... top-left, top-right, bottom-left, bottom-right
shared vec2 own_moved[WG_SIZE];   // the owned cells' eroded and deposited volumes

const ivec2 kNeighbours[8] = ivec2[8](ivec2(-1, 0), ivec2(1, 0), ivec2(0, -1), ivec2(0, 1), ivec2(-1, -1), ivec2(1, -1),
                                      ivec2(-1, 1), ivec2(1, 1));

ivec2 tileOrigin() { return ivec2(gl_WorkGroupID.xy) * ivec2(WG_X, WG_Y); }
float oldGround(ivec2 q, ivec2 t) {
    ivec2 r = q - (t - 3);
    return old_ground[r.y * B_W + r.x];
}
int eIndex(ivec2 q, ivec2 t) {
    ivec2 r = q - (t - 2);
    return r.y * E_W + r.x;
}
int sIndex(ivec2 q, ivec2 t) {
    ivec2 r = q - (t - 1);
    return r.y * S_W + r.x;
}
float erodedGround(ivec2 q, ivec2 t) { return eroded_ground[eIndex(q, t)]; }

// What cell y of S sends to the neighbour in direction k (kNeighbours' order).
float sent(ivec2 y, int k, ivec2 t) {
    int i = sIndex(y, t);
    return k < 4 ? sent_axis[i][k] : sent_diag[i][k - 4];
}

void main() {
    ivec2 t = tileOrigin();
    ivec2 c = cellId();
    bool inside = insideGrid(c);
    uint local = gl_LocalInvocationIndex;

    // Old ground of the tile and a ring of 3.
    for (uint i = local; i < uint(B_W * B_H); i += WG_SIZE) {
        ivec2 q = t - 3 + ivec2(int(i) % B_W, int(i) / B_W);
        old_ground[i] = inGrid(q) ? imageLoad(terrain_cur, q).r : 0.0;
    }
    barrier();

    // Erosion of the tile and a ring of 2.
    for (uint i = local; i < uint(E_W * E_H); i += WG_SIZE) {
        ivec2 r = ivec2(int(i) % E_W, int(i) / E_W);
        ivec2 x = t - 2 + r;
        float b = 1.0 / 0.0, s = 0.0, hardness = 0.0, loose = 0.0;
        vec2 moved = vec2(0.0);
        if (inGrid(x)) {
            b = oldGround(x, t);
            s = sedimentAtStart(x);
            loose = looseAt(x);
            hardness = cellHardness(x, b, loose);
            if (p.enable_erosion != 0) {
                ivec2 lo = max(x - 1, ivec2(0)), hi = min(x + 1, ivec2(p.width - 1, p.height - 1));
                float sin_tilt = tiltSine(oldGround(ivec2(lo.x, x.y), t), oldGround(ivec2(hi.x, x.y), t), hi.x - lo.x,
                                          oldGround(ivec2(x.x, lo.y), t), oldGround(ivec2(x.x, hi.y), t), hi.y - lo.y);
                moved = erodeCell(b, s, sin_tilt, imageLoad(velocity_img, x).xy, imageLoad(water_mid_img, x).r,
                                  hardness, loose, rootBinding(x));
            }
            if (layersOn()) loose = looseAfter(loose, oldGround(x, t), b);
        }
        eroded_ground[i] = b;
        eroded_sediment[i] = s;
        rock_e[i] = vec2(hardness, loose);
        ivec2 own = r - 2;
        if (all(greaterThanEqual(own, ivec2(0))) && all(lessThan(own, ivec2(WG_X, WG_Y))))
            own_moved[own.y * WG_X + own.x] = moved;
    }
    barrier();

    // Thermal outflows of the tile and a ring of 1.
    if (p.enable_thermal != 0) {
        for (uint i = local; i < uint(S_W * S_H); i += WG_SIZE) {
            ivec2 y = t - 1 + ivec2(int(i) % S_W, int(i) / S_W);
            vec4 axis = vec4(0.0), diag = vec4(0.0);
            if (inGrid(y)) {
                float b = erodedGround(y, t);
                float b_n[8];
                for (int k = 0; k < 8; ++k) b_n[k] = erodedGround(y + kNeighbours[k], t);
                vec2 rock = rock_e[eIndex(y, t)];
                vec2 rate = thermalRate(b, rock.x, rock.y, b_n);
                if (vegetationOn()) rate.x *= creepSlowing(y);
                for (int k = 0; k < 4; ++k) {
                    axis[k] = thermalSent(rate, b, b_n[k], k);
                    diag[k] = thermalSent(rate, b, b_n[k + 4], k + 4);
                }
            }
            sent_axis[i] = axis;
            sent_diag[i] = diag;
        }
    }
    barrier();

    float sed_before = 0.0, sed_after = 0.0, sed_drained = 0.0, evaporated = 0.0;
    vec2 moved = own_moved[local];
    if (inside) {
        float area = cellArea();
        float b = erodedGround(c, t);
        float s = eroded_sediment[eIndex(c, t)];

        float next = s;
        sed_before = s * area;
        if (p.enable_transport != 0) {
            ivec2 lo, hi;
            vec2 f;
            transportFootprint(c, imageLoad(velocity_img, c).xy, lo, hi, f);
            next = bilinear(eroded_sediment[eIndex(lo, t)], eroded_sediment[eIndex(ivec2(hi.x, lo.y), t)],
                            eroded_sediment[eIndex(ivec2(lo.x, hi.y), t)], eroded_sediment[eIndex(hi, t)], f);
            sed_drained = edgeSediment(c, s);
        }
        sed_after = next * area;
        imageStore(sediment_next, c, vec4(next));

        // Thermal: what this cell sends, and what each neighbour sends here (through its slot
        // facing us: the neighbour to our left sends through its "right" slot, and so on).
        if (p.enable_thermal != 0) {
            const int opposite[8] = int[8](1, 0, 3, 2, 7, 6, 5, 4);
            float out_sum = 0.0, in_sum = 0.0;
            for (int k = 0; k < 8; ++k) {
                out_sum += sent(c, k, t);
                ivec2 y = c + kNeighbours[k];
                if (inGrid(y)) in_sum += sent(y, opposite[k], t);
            }
            b = b - out_sum + in_sum;
        }
        imageStore(terrain_next, c, vec4(b));
        if (layersOn()) imageStore(loose_next, c, vec4(looseAfter(imageLoad(loose_cur, c).r, oldGround(c, t), b)));

        float d = imageLoad(water_mid_img, c).r;
        evaporated = evaporate(d) * area;
        imageStore(water_next, c, vec4(d));

        if (partOn(STEP_MAPS, p.record_maps != 0) && p.enable_erosion != 0) {
            vec2 wear = imageLoad(wear_img, c).rg;
            imageStore(wear_img, c, vec4(wear + moved / area, 0.0, 0.0));
        }
    } else {
        moved = vec2(0.0);
    }
    partialsWrite(6, float[PARTIALS_MAX](moved.x, moved.y, sed_before, sed_after, sed_drained, evaporated),
                  int[PARTIALS_MAX](SLOT_ERODED, SLOT_DEPOSITED, SLOT_SED_BEFORE, SLOT_SED_AFTER, SLOT_SED_DRAINED,
                                    SLOT_EVAPORATED),
                  1u << 4);
}
