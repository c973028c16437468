// Internal to app/io: the format codecs behind loadHeightmap/saveHeightmap (their shared checks:
// io/format_checks.h). Every function throws InputError with a one-line message.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "io/format_checks.h"
#include "io/heightmap.h"

namespace alluvium::detail {

// [SECTION] encoders shared with the export maps (io/maps.cpp)
// A 16-bit grey PNG of width x height samples, row-major (heightmap.cpp).
std::vector<std::byte> encodePng16(int width, int height, const std::vector<uint16_t>& samples,
                                   const std::filesystem::path& path);
// An 8-bit PNG of width x height pixels of 1 (grey) or 4 (RGBA) samples, row-major (heightmap.cpp).
std::vector<std::byte> encodePng8(int width, int height, int channels, const std::vector<uint8_t>& samples,
                                  const std::filesystem::path& path);
// One float channel of an EXR: its name and where its first sample is, `stride` floats apart.
struct ExrChannel {
    std::string name;
    const float* first;
    std::size_t stride;
};
// A float32 EXR with these channels, ZIP-compressed or not (formats_exr.cpp).
std::vector<std::byte> encodeExrChannels(int width, int height, const std::vector<ExrChannel>& channels, bool compress,
                                         const std::filesystem::path& path);

// [SECTION] codecs (formats_exr.cpp, formats_tiff.cpp, formats_asc.cpp)
Heightmap loadExr(const std::filesystem::path& path, const LoadOptions& opt);
std::vector<std::byte> encodeExr(const Heightmap& map, const std::filesystem::path& path);
Heightmap loadTiff(const std::filesystem::path& path, const LoadOptions& opt);
std::vector<std::byte> encodeTiff(const Heightmap& map, const std::filesystem::path& path);
Heightmap loadAsc(const std::filesystem::path& path, const LoadOptions& opt);
std::string encodeAsc(const Heightmap& map, double cell_size);
// Fills the cells where valid[i] == 0 by repeated averaging of their filled 8-neighbours,
// front by front from the valid cells. Returns the number filled. Throws if none is valid.
long long fillNodata(Heightmap& map, std::vector<unsigned char>& valid, const std::filesystem::path& path);

} // namespace alluvium::detail
