// Layered ground (enable_layers, loose_*, strata_*): bedrock under a loose layer of regolith
// and sediment, `loose` metres thick (the ground height stays the terrain field: bedrock is
// terrain - loose). Every model erodes and deposits through these functions:
//   - erosion takes the loose layer first, at loose_erodibility, then bedrock scaled by 1 - its
//     hardness (layeredErosion);
//   - whatever a step adds to a cell's ground is loose, what it takes comes off the loose layer
//     first (looseAfter: one rule for deposits, thermal moves, droplets and the brush's piles);
//   - bedrock hardness is the hardness map, or mixed towards bands by elevation (rockHardness):
//     the band is that of the bedrock's top, so a valley cutting down meets hard and soft rock in
//     turn and its walls step into cliffs and terraces.
// With layers off nothing here reads or writes the loose layer, and the arithmetic is exactly
// that of a single material.

#include "hash.glsl"

bool layersOn() { return partOn(STEP_LAYERS, p.enable_layers != 0); }
float looseAt(ivec2 c) { return layersOn() ? imageLoad(loose_cur, c).r : 0.0; }

// The loose layer once a cell's ground went from `before` to `after` (m): gains are loose,
// losses take the loose layer first (and the bedrock once it is gone).
float looseAfter(float loose, float before, float after) { return max(loose + (after - before), 0.0); }

// What a cell loses to an erosion whose demand (m) is what bare rock of hardness 0 would lose.
float layeredErosion(float demand, float loose, float hardness) {
    if (!layersOn() || loose <= 0.0) return demand * (1.0 - hardness);
    float loose_demand = demand * p.loose_erodibility;
    if (loose_demand <= loose) return loose_demand;
    // The loose layer goes in the share loose / loose_demand of the step; the rest of the demand
    // meets the bedrock.
    float rest = 1.0 - loose / loose_demand;
    return loose + demand * rest * (1.0 - hardness);
}

// A thermal move on layered ground, from the move at the rock's talus slope and the one at the
// loose material's angle of repose, each (factor, tan(talus), volume that leaves / area): the
// loose layer slides, but no more of it than lies there; the cell moves whichever moves more.
vec2 layeredThermal(vec3 rock, vec3 slide, float loose) {
    float moved = min(slide.z, loose);
    if (moved <= rock.z) return rock.xy;
    return vec2(slide.x * (moved / slide.z), slide.y);
}

// The hardness of the bedrock of cell c whose top is at `bedrock` (m). Strata: planes of
// strata_thickness dipping by strata_tilt towards the direction the seed picks; each band is
// soft (0 .. 0.05) or hard (0.6 .. 1) by the hash of its index, mixed with the hardness map by
// strata_contrast.
float rockHardness(ivec2 c, float bedrock) {
    float h = imageLoad(hardness_img, c).r;
    if (!partOn(STEP_STRATA, p.strata_contrast > 0.0)) return h;
    float angle = float(hash32(uint(p.strata_seed)) & 0xFFFFu) * (6.28318530718 / 65536.0);
    vec2 at = (vec2(wholeCell(c)) + 0.5) * p.cell_size;
    float z = bedrock + tan(p.strata_tilt) * dot(at, vec2(cos(angle), sin(angle)));
    float band = clamp(floor(z / p.strata_thickness), -1e9, 1e9);
    uint key = hash32(uint(int(band)) ^ hash32(uint(p.strata_seed) + 0x9e3779b9u));
    float v = float(key & 0xFFFFu) / 65535.0;
    float banded = v < 0.5 ? 0.1 * v : 0.2 + 0.8 * v;
    return mix(h, banded, p.strata_contrast);
}

// A cell's rock hardness from its ground b and loose layer (bedrock = b - loose).
float cellHardness(ivec2 c, float b, float loose) { return rockHardness(c, b - loose); }
