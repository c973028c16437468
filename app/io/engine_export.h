// Heightmaps for game engines' terrain importers (`alluvium export --for ENGINE`): the sizes each
// engine documents, resampled so the terrain keeps its extent, written in the engine's format
// with the import settings that give back its heights in metres.
//   unreal  Landscape: 127, 253, 505, 1009, 2017, 4033 or 8129 a side (Unreal's recommended
//           landscape sizes), 16-bit grey PNG or .r16/.raw; Scale X/Y from the cell size, Scale Z
//           and Location Z from the height range (a sample v is (v - 32768) / 128 * Scale Z cm
//           above Location Z)
//   unity   Terrain: 2^n + 1 a side (33 .. 4097), .raw 16-bit little-endian, its first row the
//           terrain's z = 0 edge (the image's bottom row); Terrain Size x/z from the extent and y
//           from the height range, the terrain's position y at the lowest height
//   godot   the Heightmap Terrain plugin (2^n + 1 a side, 33 .. 4097) and Terrain3D: a float32
//           EXR (channel R) in metres
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "io/heightmap.h"

namespace alluvium {

enum class Engine { Unreal, Unity, Godot };

// "unreal", "unity" or "godot"; throws InputError naming the choices otherwise.
Engine engineNamed(const std::string& name);
const char* engineName(Engine engine);
// The sides an engine's importer documents, ascending.
const std::vector<int>& engineSides(Engine engine);
// The side to export a width x height grid at: `requested` when it is one of the engine's sides
// (InputError otherwise), or with 0 the smallest that holds the grid's longer side (the largest
// when none does).
int engineSide(Engine engine, int width, int height, int requested);

// Throws InputError unless the engine imports `out`'s extension.
void checkEngineOutput(Engine engine, const std::filesystem::path& out);

// Bilinear resampling onto width x height samples with the corners kept: sample (i, j) lies at
// (i (w - 1) / (width - 1), j (h - 1) / (height - 1)) of the source, so the extent between the
// outermost cell centres is the same. Never outside the source's height range.
Heightmap resampleCorners(const Heightmap& map, int width, int height);

struct EngineExport {
    int side = 0;                        // samples a side
    double lo = 0.0, hi = 0.0;           // the source's height range (m): 16-bit 0 and 65535
    double spacing_x = 0.0;              // metres between samples across
    double spacing_y = 0.0;              // ... and down
    std::vector<std::string> settings;   // the importer's settings, one "Name: value" each
    std::filesystem::path settings_file; // where they were written (JSON)
};

// Resamples `map` (cells of cell_size m) to the engine's side (engineSide) and writes `out`
// (its extension must be one the engine imports: InputError otherwise) and "<out>.import.json"
// with the settings, atomically and together. Heights keep the source's range exactly: its
// lowest and highest heights are 16-bit 0 and 65535 whatever the resampling kept.
EngineExport exportForEngine(Engine engine, const Heightmap& map, double cell_size, const std::filesystem::path& out,
                             int requested_side);

// Tiles for engines that place terrains side by side (Unreal World Partition's landscape
// regions, Unity's terrain neighbours): cols x rows tiles of the engine's side S, neighbours
// sharing `overlap` rows or columns of samples, so they join without seams.
struct TileLayout {
    int cols = 1, rows = 1, overlap = 1;
};
// "CxR" (--tiles) and K (--overlap); throws InputError naming what is wrong.
TileLayout parseTiles(const std::string& tiles, int overlap);

struct TiledExport {
    EngineExport whole;                       // its side is each tile's; its range and spacing all tiles'
    int samples_x = 0, samples_y = 0;         // the whole grid of samples the tiles cut
    std::vector<std::filesystem::path> files; // row after row: tile (x, y) at y * cols + x
};
// "<stem>_x<i>_y<j><ext>" of `out`: column i from the left, row j from the top (image order).
std::filesystem::path tilePath(const std::filesystem::path& out, int i, int j);
// Resamples `map` onto cols (S - K) + K by rows (S - K) + K samples (corners kept), S the
// engine's side (the smallest that holds the grid, or `requested_side`), and writes the tiles and
// one "<out>.import.json" with the settings all tiles share (one height range, so a height is
// the same 16-bit value in every tile) and each tile's place, atomically and together.
TiledExport exportTilesForEngine(Engine engine, const Heightmap& map, double cell_size,
                                 const std::filesystem::path& out, int requested_side, const TileLayout& tiles);

} // namespace alluvium
