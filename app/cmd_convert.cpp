// alluvium convert: a heightmap from one file format to another. No GPU: it never creates a
// Vulkan context.
#include <algorithm>
#include <cstdio>

#include "commands.h"
#include "io/atomic_file.h"
#include "io/errors.h"

namespace alluvium {

int convertCommand(const ConvertOptions& o) {
    if (!isHeightmapExtension(o.out)) {
        throw InputError("--out '" + displayPath(o.out) +
                         "': unsupported extension (use .png, .r16, .raw, .f32, .r32, .exr, .tif, "
                         ".tiff or .asc)");
    }
    TerrainOptions terrain = o.terrain;
    terrain.hardness = -1.0;
    const InitialTerrain initial = prepareTerrain(terrain, 0.0); // a file: no cell size needed
    const Heightmap& map = initial.terrain;

    // The cell size written (.asc header, sidecars): --cell-size, else the input's, else the
    // parameter table's default.
    double cell_size = o.terrain.cell_size;
    if (cell_size <= 0.0) cell_size = map.cell_size;
    if (cell_size <= 0.0) cell_size = Params()[Param::cell_size];

    OutputBatch outputs; // the image and its sidecar together
    saveHeightmap(o.out, map, cell_size);
    outputs.commit();
    const auto [mn, mx] = std::minmax_element(map.heights.begin(), map.heights.end());
    std::fprintf(stderr, "alluvium: wrote %s%s: %dx%d cells of %g m, heights %g..%g m\n", displayPath(o.out).c_str(),
                 writesSidecar(o.out) ? " (+ .json)" : "", map.width, map.height, cell_size, static_cast<double>(*mn),
                 static_cast<double>(*mx));
    return 0;
}

} // namespace alluvium
