// Heightmaps in metres and their file formats: .png 8/16-bit grey and .r16/.raw 16-bit (with a
// JSON sidecar), .f32/.r32 raw float32, .exr (OpenEXR), .tif/.tiff, .asc (ESRI ASCII grid).
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace alluvium {

// Ground heights on a width x height grid, row-major, y down, in metres.
struct Heightmap {
    int width = 0;
    int height = 0;
    std::vector<float> heights;  // width * height values
    double cell_size = 0.0;      // metres per cell when the file says (.asc); 0 = unknown
    long long nodata_filled = 0; // NODATA cells filled from their neighbours on load (.asc)

    // Height of cell (x, y); no bounds check beyond the vector's own.
    float at(int x, int y) const {
        return heights[static_cast<std::size_t>(y) * static_cast<std::size_t>(width) + static_cast<std::size_t>(x)];
    }
};

// How to interpret a file that does not say everything about itself.
struct LoadOptions {
    int width = 0, height = 0;                // required for .f32/.r32/.r16/.raw (--size WxH); 0 = not given
    bool has_height_range = false;            // --height-range LO:HI given (integer formats only)
    double range_lo = 0.0, range_hi = 1000.0; // metres that integer value 0 and the maximum map to
    std::string channel;                      // EXR channel to load (--channel); empty = the first
};

// Largest grid accepted on load, save and generate: per side, and in cells.
constexpr int kMaxGridSide = 16384;
constexpr long long kMaxGridCells = 1LL << 28;

// Loads by extension (case-insensitive). Integer formats map 0..max to LO..HI metres (from
// --height-range, else the sidecar "<path>.json" min_m/max_m, else 0:1000):
//   .png           8/16-bit grey (grey+alpha: alpha ignored)
//   .r16, .raw     16-bit unsigned little-endian, needs width/height
//   .tif, .tiff    single-sample 8/16/32-bit unsigned (as above) or 32-bit float (metres)
// Float formats are metres: .f32/.r32 (raw little-endian float32, needs width/height), .exr
// (the first channel or opt.channel; half, float or uint), .asc (ESRI ASCII grid: sets
// cell_size; NODATA cells are filled from their neighbours and counted in nodata_filled).
// Throws InputError with a one-line message, also for NaN/Inf (naming the first bad cell).
Heightmap loadHeightmap(const std::filesystem::path& path, const LoadOptions& opt);

// Saves by extension: .png/.r16/.raw 16-bit normalised to the data's min..max plus sidecar
// "<path>.json"; .f32/.r32 raw float32; .exr one 32-bit float channel "Y"; .tif/.tiff 32-bit
// float (both uncompressed); .asc with the cell size and shortest exact float text. All metres.
// Atomic; creates the parent directory. Refuses NaN/Inf. Throws InputError with a one-line
// message.
void saveHeightmap(const std::filesystem::path& path, const Heightmap& map, double cell_size);
// The 16-bit formats (.png, .r16/.raw) over a given range: lo .. hi metres to 0 .. 65535 (heights
// outside clamp), the sidecar saying so. Throws InputError for another extension.
void saveHeightmap16(const std::filesystem::path& path, const Heightmap& map, double cell_size, double lo, double hi);

// True if loadHeightmap/saveHeightmap know the extension (case-insensitive).
bool isHeightmapExtension(const std::filesystem::path& path);
// True for the headerless formats (.f32/.r32/.r16/.raw), whose size comes from --size.
bool isRawHeightmap(const std::filesystem::path& path);
// True if saveHeightmap writes a sidecar "<path>.json" for this extension.
bool writesSidecar(const std::filesystem::path& path);

} // namespace alluvium
