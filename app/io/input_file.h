// What every input must be before it is read: a regular file (not a folder, a FIFO, a device or
// a socket), and heights within a range that every real terrain and every sensible unit fits.
#pragma once

#include <filesystem>
#include <string>

namespace alluvium {

// Heights are accepted within +-kMaxHeightMagnitude (10,000 km): any terrain on Earth in metres,
// feet or centimetres, with the grid's largest products (height x cell area x cells) far below
// float's limit. A larger value is a wrong unit or a corrupt file, never a terrain.
constexpr double kMaxHeightMagnitude = 1e7;

// Throws InputError (one line) unless `path` names a regular file, or a link to one: a missing
// path, a folder, a FIFO (which would block the reader forever), a device or a socket is
// refused. `what` names the input in the message ("heightmap", "session", "preset").
void requireRegularFile(const std::filesystem::path& path, const std::string& what);

// Throws InputError naming `what` and the accepted range unless |value| <= kMaxHeightMagnitude.
void checkHeightValue(double value, const std::string& what);

} // namespace alluvium
