// The checks and reads every heightmap codec shares (heightmap.cpp and formats_*.cpp), so the
// codecs and the dispatch by extension depend on them and not on each other. Internal to app/io;
// every function throws InputError with a one-line message.
#pragma once

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "io/heightmap.h"

namespace alluvium::detail {

std::string quoted(const std::filesystem::path& p);         // 'path' for messages
std::string lowerExtension(const std::filesystem::path& p); // ".png" of "A.PNG"
// Throws unless w x h is within kMaxGridSide / kMaxGridCells; `what` names the source.
void checkGridSize(long long w, long long h, const std::string& what);
// The first non-finite cell, or false; "NaN", "+Inf" or "-Inf".
bool findNonFinite(const Heightmap& map, int& bx, int& by);
std::string valueName(float v);
// Throws "<path> contains NaN at cell (x, y); ..." for the first non-finite height.
void checkFiniteHeights(const Heightmap& map, const std::filesystem::path& path);
// Throws if --size was given and differs from the file's own size.
void checkSizeOption(const LoadOptions& opt, long long w, long long h, const std::filesystem::path& path);
// Reads min_m/max_m from the sidecar <path>.json of a w x h image; false if there is none.
bool readSidecarRange(const std::filesystem::path& image_path, uint32_t w, uint32_t h, double& lo, double& hi);
// LO..HI metres for an integer image: --height-range, else the sidecar, else 0..1000.
void integerRange(const std::filesystem::path& path, const LoadOptions& opt, long long w, long long h, double& lo,
                  double& hi);
// Opens for reading or throws "cannot open '<path>': <strerror>" (loadHeightmap has refused what is
// not a regular file before any codec opens it).
std::unique_ptr<FILE, int (*)(FILE*)> openForRead(const std::filesystem::path& path);
// The whole file, or InputError "cannot open/read '<path>': reason".
std::vector<unsigned char> readWholeFile(const std::filesystem::path& path);

} // namespace alluvium::detail
