// Export maps for texturing tools: each layer of the final state as a 16-bit grey PNG mask (with
// its range in a sidecar) and a 32-bit float OpenEXR in physical units, plus one multi-layer EXR.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace alluvium {

// One map on the grid, row-major, y down, `components.size()` floats per cell.
struct MapLayer {
    std::string name;                    // file stem and EXR layer name: "water_depth"
    std::vector<std::string> components; // empty or one: a scalar; else e.g. {"u", "v"}
    std::vector<float> data;             // width * height * max(1, components.size())
    std::string unit;                    // "m", "m^3", "m/s", "1"
    bool log_mask = false;               // also write "<name>_log.png": log(1 + x) / log(1 + max)
    bool mask_from_min = false;          // mask over min..max even when min >= 0 (heights)
    std::string mask_name;               // vector layers: stem of the magnitude mask ("speed"); empty = name
};

// Writes into dir (created if missing), for each layer:
//   <name>.png + <name>.png.json  16-bit mask over 0..max (min..max if the data goes below 0 or
//                                 mask_from_min); the sidecar gives min, max, unit, the decoding
//                                 and min_m/max_m so loadHeightmap reads the PNG back in units;
//                                 vector layers: the magnitude, in <mask_name>.png
//   <name>_log.png + .json        if log_mask
//   <name>.exr                    float32, channel "Y" (scalars) or the components
// and maps.exr: every layer as float32 channels "<name>" or "<name>.<component>".
// Every file is written atomically and all are encoded before the first is written. Throws
// InputError (one line) for a bad layer (wrong size, NaN/Inf) or a file that cannot be written.
void writeMaps(const std::filesystem::path& dir, int width, int height, const std::vector<MapLayer>& layers);

// The name of the multi-layer file in dir.
inline constexpr const char* kMultiLayerMapsFile = "maps.exr";

} // namespace alluvium
