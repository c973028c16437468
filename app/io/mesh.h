// The terrain as a triangle mesh for DCC tools and engines: Wavefront OBJ or glTF 2.0.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <vector>

#include "io/heightmap.h"

namespace alluvium {

// An indexed triangle mesh: y up, metres; x = column * cell size, z = row * cell size.
struct TerrainMesh {
    std::vector<float> positions;  // xyz per vertex
    std::vector<float> normals;    // xyz per vertex, unit length, y > 0
    std::vector<float> uvs;        // uv per vertex, texel centres: ((col + 0.5) / W, (row + 0.5) / H)
    std::vector<uint32_t> indices; // 3 per triangle, counter-clockwise seen from above (+y)
};

// The grid simplified with meshoptimizer to at most target_triangles triangles (where the locked
// border allows; else the border is simplified too). Normals come from the full-resolution
// heightmap by central differences. Throws InputError for a grid under 2x2 cells ("a mesh needs
// at least 2x2 cells"), non-finite heights, a bad cell size or target_triangles < 2.
TerrainMesh buildTerrainMesh(const Heightmap& terrain, double cell_size, std::size_t target_triangles);

// buildTerrainMesh, written by extension (case-insensitive): .obj (v/vt/vn/f, the OBJ's v
// flipped so row 0 is the top of a texture) or .gltf (glTF 2.0 JSON with the buffer embedded as
// a base64 data URI). Atomic; creates the parent directory. Throws InputError.
void writeTerrainMesh(const std::filesystem::path& path, const Heightmap& terrain, double cell_size,
                      std::size_t target_triangles);

} // namespace alluvium
