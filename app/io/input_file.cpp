#include "io/input_file.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "io/atomic_file.h"
#include "io/errors.h"

namespace fs = std::filesystem;

namespace alluvium {

namespace {

// Why a path that exists is not a regular file, as strerror would say it.
std::string kindReason(fs::file_type type) {
    switch (type) {
    case fs::file_type::directory: return std::strerror(EISDIR);
    case fs::file_type::fifo: return "it is a FIFO";
    case fs::file_type::socket: return "it is a socket";
    case fs::file_type::block: return "it is a block device";
    case fs::file_type::character: return "it is a character device";
    default: return "it is not a regular file";
    }
}

} // namespace

void requireRegularFile(const fs::path& path, const std::string& what) {
    if (path.empty()) throw InputError("the " + what + " path is empty");
    const std::string open = "cannot open '" + displayPath(path) + "': ";
    std::error_code ec;
    const fs::file_status status = fs::status(path, ec); // follows links
    if (status.type() == fs::file_type::not_found) throw InputError(open + std::strerror(ENOENT));
    if (ec) throw InputError(open + ec.message());
    if (status.type() != fs::file_type::regular)
        throw InputError(open + kindReason(status.type()) + " (a " + what + " must be a regular file)");
}

void checkHeightValue(double value, const std::string& what) {
    if (std::isfinite(value) && std::abs(value) <= kMaxHeightMagnitude) return;
    char number[32];
    std::snprintf(number, sizeof number, "%.9g", value);
    throw InputError(what + " is " + number + " m; heights must lie within -1e7..1e7 m (10,000 km either way)");
}

} // namespace alluvium
