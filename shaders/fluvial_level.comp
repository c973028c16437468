#version 450
// Fluvial model, depression routing 7 (one pass): the lake-filled surface W(c) = max(z(c), spill
// of c's basin) (FLUVIAL_NONE where the basin's component never reached the ocean; with
// lake_evaporation, max(z(c), the level the host solved for c's basin)), and the start of the
// steps across flats: 0 at outlets, the ocean, closed lakes' sinks and cells with a neighbour
// whose W is below their ground (the exits), +infinity elsewhere, in both halves. Lists the tiles holding a cell
// that is neither (a flat's inside, a lake): the flats rounds visit only those.
#include "fluvial_basins.glsl"

const int HALO = WG_X + 2;
shared uint levels[HALO * HALO];
shared uint inner;

uint levelOf(ivec2 c) {
    uint i = cellIndex(c);
    uint b = basinOfCell(i);
    uint z = fillGround(i);
    if (b == FLUVIAL_OCEAN) return z;
    uint spill = fluvial_basin[basinAt(BASIN_COMP, b)] == FLUVIAL_OCEAN ? fluvial_basin[basinAt(BASIN_SPILL, b)]
                                                                        : FLUVIAL_NONE;
    // Lakes that balance evaporation: the host's level, never above the spill (a level solved for
    // an older ground, e.g. under the brush, can only lower a lake for a step).
    if (p.lake_evaporation > 0.0) spill = min(spill, fluvial_lists[lakeAt(LAKE_LEVEL, b)]);
    if (spill == FLUVIAL_NONE) return FLUVIAL_NONE;
    return max(z, spill);
}

// The sink of a closed lake: its basin's pit, the exit of the lake's flat (its own receiver).
bool isLakeSink(uint i) {
    if (p.lake_evaporation <= 0.0) return false;
    uint b = basinOfCell(i);
    return b != FLUVIAL_OCEAN && fluvial_lists[lakeAt(LAKE_SINK, b)] == i;
}

void main() {
    ivec2 tile = fluvialTile();
    ivec2 origin = tile * ivec2(WG_X, WG_Y);
    uint li = gl_LocalInvocationIndex;
    if (li == 0u) inner = 0u;
    for (uint k = li; k < uint(HALO * HALO); k += uint(WG_SIZE)) {
        ivec2 c = origin + ivec2(int(k % uint(HALO)) - 1, int(k / uint(HALO)) - 1);
        levels[k] = inGrid(c) ? levelOf(c) : FLUVIAL_NONE;
    }
    barrier();
    ivec2 local = ivec2(gl_LocalInvocationID.xy);
    ivec2 c = origin + local;
    if (inGrid(c)) {
        uint i = cellIndex(c);
        uint w = levels[(local.y + 1) * HALO + local.x + 1];
        uint steps = FLUVIAL_NONE;
        if (w != FLUVIAL_NONE) {
            bool exit = isOutlet(c) || (isOceanLevel(w) && !inClosedLake(i)) || isLakeSink(i); // base level: outlets, the ocean; closed lakes' sinks
            uint z = fillGround(i);
            for (int k = 0; k < 8 && !exit; ++k) {
                ivec2 n = local + NB[k];
                uint wn = levels[(n.y + 1) * HALO + n.x + 1];
                exit = wn != FLUVIAL_NONE && wn < z;
            }
            steps = exit ? 0u : FLUVIAL_NONE;
            if (!exit) inner = 1u;
        }
        fluvial_level[i] = w;
        fluvial_steps[i] = steps;
        fluvial_steps[cellCount() + i] = steps;
    }
    barrier();
    if (li == 0u) {
        uint t = uint(tile.y) * uint(p.tile_count_x) + uint(tile.x);
        fluvial_tiles[t] = inner;     // "changed in round 0": round 1 visits it and its neighbours
        fluvial_tiles[tileCount() + t] = 0u;
        if (inner != 0u) fluvial_tiles[2u * tileCount() + atomicAdd(ctl.flat_tiles, 1u)] = packCell(tile);
    }
}
