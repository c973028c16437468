// Procedural starting terrain: deterministic, resolution-independent fractal mountains.
#pragma once

#include <cstdint>
#include <vector>

#include "io/heightmap.h"

namespace alluvium {

// A generated landscape and its rock hardness.
struct GeneratedTerrain {
    Heightmap terrain;           // metres, >= 0, relief about 0.25 * min(width, height) * cell
    std::vector<float> hardness; // 0 soft .. 1 rock, same size: warped altitude strata
};

// Mountains from the seed: bit-identical for the same arguments on every platform. Features are
// placed in world coordinates (metres), so the same seed and extent (width * cell_size) give
// the same landscape at any resolution. Throws InputError for sizes outside 1..16384 (2^28
// cells) or a cell size that is not finite and positive.
GeneratedTerrain generateTerrain(int width, int height, uint64_t seed, double cell_size);

} // namespace alluvium
