// Internal to app/io: the format codecs behind loadHeightmap/saveHeightmap, and the checks they
// share. Every function throws InputError with a one-line message.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "io/heightmap.h"

namespace alluvium::detail {

// [SECTION] shared checks (heightmap.cpp)
std::string quoted(const std::filesystem::path& p); // 'path' for messages
// Throws unless w x h is within kMaxGridSide / kMaxGridCells; `what` names the source.
void checkGridSize(long long w, long long h, const std::string& what);
// Throws "<path> contains NaN at cell (x, y); ..." for the first non-finite height.
void checkFiniteHeights(const Heightmap& map, const std::filesystem::path& path);
// Throws if --size was given and differs from the file's own size.
void checkSizeOption(const LoadOptions& opt, long long w, long long h,
                     const std::filesystem::path& path);
// LO..HI metres for an integer image: --height-range, else the sidecar, else 0..1000.
void integerRange(const std::filesystem::path& path, const LoadOptions& opt, long long w,
                  long long h, double& lo, double& hi);
// The whole file, or InputError "cannot open/read '<path>': reason".
std::vector<unsigned char> readWholeFile(const std::filesystem::path& path);

// [SECTION] encoders shared with the export maps (io/maps.cpp)
// A 16-bit grey PNG of width x height samples, row-major (heightmap.cpp).
std::vector<std::byte> encodePng16(int width, int height, const std::vector<uint16_t>& samples,
                                   const std::filesystem::path& path);
// One float channel of an EXR: its name and where its first sample is, `stride` floats apart.
struct ExrChannel {
    std::string name;
    const float* first;
    std::size_t stride;
};
// A float32 EXR with these channels, ZIP-compressed or not (formats_exr.cpp).
std::vector<std::byte> encodeExrChannels(int width, int height, const std::vector<ExrChannel>& channels,
                                         bool compress, const std::filesystem::path& path);

// [SECTION] codecs (formats_exr.cpp, formats_tiff.cpp, formats_asc.cpp)
Heightmap loadExr(const std::filesystem::path& path, const LoadOptions& opt);
std::vector<std::byte> encodeExr(const Heightmap& map, const std::filesystem::path& path);
Heightmap loadTiff(const std::filesystem::path& path, const LoadOptions& opt);
std::vector<std::byte> encodeTiff(const Heightmap& map, const std::filesystem::path& path);
Heightmap loadAsc(const std::filesystem::path& path, const LoadOptions& opt);
std::string encodeAsc(const Heightmap& map, double cell_size);
// Fills the cells where valid[i] == 0 by repeated averaging of their filled 8-neighbours,
// front by front from the valid cells. Returns the number filled. Throws if none is valid.
long long fillNodata(Heightmap& map, std::vector<unsigned char>& valid,
                     const std::filesystem::path& path);

} // namespace alluvium::detail
