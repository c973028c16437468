// alluvium export: a heightmap for a game engine's terrain importer (io/engine_export.h). No GPU:
// it never creates a Vulkan context.
#include <algorithm>
#include <cstdio>

#include "commands.h"
#include "io/atomic_file.h"
#include "io/engine_export.h"
#include "io/errors.h"

namespace alluvium {

namespace {

int exportTiles(const ExportOptions& o, Engine engine, const Heightmap& map, double cell_size) {
    const TiledExport t = exportTilesForEngine(engine, map, cell_size, o.out, o.side, parseTiles(o.tiles, o.overlap));
    const EngineExport& e = t.whole;
    std::fprintf(stderr, "alluvium: wrote %zu tiles of %dx%d for %s (%dx%d samples in all, heights %g..%g m) and %s\n",
                 t.files.size(), e.side, e.side, engineName(engine), t.samples_x, t.samples_y, e.lo, e.hi,
                 displayPath(e.settings_file).c_str());
    if (t.samples_x < map.width || t.samples_y < map.height)
        std::fprintf(stderr,
                     "alluvium: note: %dx%d cells are more than %s's largest tiles hold; downsampled to %dx%d\n",
                     map.width, map.height, engineName(engine), t.samples_x, t.samples_y);
    for (const std::string& line : e.settings) std::printf("%s\n", line.c_str());
    return 0;
}

} // namespace

int exportCommand(const ExportOptions& o) {
    const Engine engine = engineNamed(o.engine);
    checkEngineOutput(engine, o.out); // before the input is read
    if (!o.tiles.empty())
        parseTiles(o.tiles, o.overlap); // ... and the tiles'
    else if (o.overlap != 1)
        throw InputError("--overlap: only with --tiles");
    TerrainOptions terrain = o.terrain;
    terrain.hardness = -1.0;
    const InitialTerrain initial = prepareTerrain(terrain, 0.0); // a file: no cell size needed
    double cell_size = o.terrain.cell_size;
    if (cell_size <= 0.0) cell_size = initial.terrain.cell_size;
    if (cell_size <= 0.0) cell_size = Params()[Param::cell_size];

    if (!o.tiles.empty()) return exportTiles(o, engine, initial.terrain, cell_size);
    const EngineExport e = exportForEngine(engine, initial.terrain, cell_size, o.out, o.side);
    std::fprintf(stderr, "alluvium: wrote %s (%dx%d for %s, heights %g..%g m) and %s\n", displayPath(o.out).c_str(),
                 e.side, e.side, engineName(engine), e.lo, e.hi, displayPath(e.settings_file).c_str());
    const int longer = std::max(initial.terrain.width, initial.terrain.height);
    if (e.side < longer)
        std::fprintf(stderr, "alluvium: note: %d cells a side is more than %s takes; downsampled to %d\n", longer,
                     engineName(engine), e.side);
    for (const std::string& line : e.settings) std::printf("%s\n", line.c_str());
    return 0;
}

} // namespace alluvium
