// Procedural starting terrain: deterministic, resolution-independent fractal mountains.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "io/heightmap.h"

namespace alluvium {

// A generated landscape and its rock hardness.
struct GeneratedTerrain {
    Heightmap terrain; // metres, relief about 0.25 * min(width, height) * cell (>= 0 but the island's sea floor)
    std::vector<float> hardness; // 0 soft .. 1 rock, same size: warped altitude strata
    std::vector<float> rain;     // where it rains, 0 .. 1 (the rain mask), or empty: everywhere
};

// The procedural starts. Carved: mountains with a river network already cut in (a landscape as
// erosion leaves it). The others are raw relief that no water has shaped yet, full of pits, so
// erosion is seen making its valleys: fractal noise (fBm), ridged noise, faults (seed 000: random
// fault planes, one side raised), a volcano (a cone with a crater), an island (land in a sea
// at 0 m, on a shelf), a mountain front (a range draining through one notch onto a plain) and a
// river mouth (a valley whose catchment alone gets rain, opening into a bay of a shallow sea).
enum class TerrainShape { Carved, Fractal, Ridged, Faults, Volcano, Island, MountainFront, RiverMouth };
constexpr int kTerrainShapeCount = int(TerrainShape::RiverMouth) + 1; // the enum's last, plus one
// "carved", "fractal", ...; terrainShapeList() joins them for help and messages.
const char* terrainShapeName(TerrainShape shape);
std::optional<TerrainShape> terrainShapeFromName(const std::string& name);
std::string terrainShapeList();

// A terrain from the seed: bit-identical for the same arguments on every platform. Features are
// placed in world coordinates (metres), so the same seed and extent (width * cell_size) give
// the same landscape at any resolution. Throws InputError for sizes outside 1..16384 (2^28
// cells) or a cell size that is not finite and positive.
GeneratedTerrain generateTerrain(int width, int height, uint64_t seed, double cell_size,
                                 TerrainShape shape = TerrainShape::Carved);
// The raw shapes (not Carved), for generateTerrain; arguments already checked.
GeneratedTerrain generateRawTerrain(int width, int height, uint64_t seed, double cell_size, TerrainShape shape);

} // namespace alluvium
