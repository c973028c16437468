// Heightmaps in metres and their file formats (.png 8/16-bit grey with a JSON sidecar, .f32).
#pragma once

#include <cstddef>
#include <filesystem>
#include <vector>

namespace alluvium {

// Ground heights on a width x height grid, row-major, y down, in metres.
struct Heightmap {
    int width = 0;
    int height = 0;
    std::vector<float> heights; // width * height values

    // Height of cell (x, y); no bounds check beyond the vector's own.
    float at(int x, int y) const {
        return heights[static_cast<std::size_t>(y) * static_cast<std::size_t>(width) +
                       static_cast<std::size_t>(x)];
    }
};

// How to interpret a file that does not say everything about itself.
struct LoadOptions {
    int width = 0, height = 0;                // required for .f32 (from --size WxH); 0 = not given
    bool has_height_range = false;            // --height-range LO:HI given (PNG only)
    double range_lo = 0.0, range_hi = 1000.0; // metres that PNG value 0 and the maximum map to
};

// Largest grid accepted on load, save and generate: per side, and in cells.
constexpr int kMaxGridSide = 16384;
constexpr long long kMaxGridCells = 1LL << 28;

// Loads a .png (8/16-bit grey, grey+alpha; heights = LO + v/maxv*(HI-LO), LO:HI from
// --height-range, else the sidecar "<path>.json" min_m/max_m, else 0:1000) or a .f32 (raw
// little-endian float32, needs width/height). Throws InputError with a one-line message.
Heightmap loadHeightmap(const std::filesystem::path& path, const LoadOptions& opt);

// Saves as .png (16-bit grey normalised to the data's min..max, plus sidecar "<path>.json") or
// .f32 (raw little-endian float32). Atomic; creates the parent directory. Refuses NaN/Inf.
// Throws InputError with a one-line message.
void saveHeightmap(const std::filesystem::path& path, const Heightmap& map, double cell_size);

} // namespace alluvium
