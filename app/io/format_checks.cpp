// The checks and reads the heightmap codecs share (io/format_checks.h).
#include "io/format_checks.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "io/atomic_file.h"
#include "io/errors.h"
#include "io/input_file.h"

namespace alluvium::detail {

namespace fs = std::filesystem;

std::string quoted(const fs::path& p) { return "'" + displayPath(p) + "'"; }

std::string lowerExtension(const fs::path& p) {
    std::string ext = p.extension().string();
    for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return ext;
}

void checkGridSize(long long w, long long h, const std::string& what) {
    if (w < 1 || h < 1 || w > kMaxGridSide || h > kMaxGridSide || w * h > kMaxGridCells) {
        throw InputError(what + " is " + std::to_string(w) + "x" + std::to_string(h) + " cells; supported is 1.." +
                         std::to_string(kMaxGridSide) + " per side and at most 2^28 cells");
    }
}

bool findNonFinite(const Heightmap& map, int& bx, int& by) {
    for (std::size_t i = 0; i < map.heights.size(); ++i) {
        if (!std::isfinite(map.heights[i])) {
            bx = static_cast<int>(i % static_cast<std::size_t>(map.width));
            by = static_cast<int>(i / static_cast<std::size_t>(map.width));
            return true;
        }
    }
    return false;
}

std::string valueName(float v) {
    if (std::isnan(v)) return "NaN";
    return v > 0 ? "+Inf" : "-Inf";
}

std::unique_ptr<FILE, int (*)(FILE*)> openForRead(const fs::path& path) {
    FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) throw InputError("cannot open " + quoted(path) + ": " + std::strerror(errno));
    return {f, &std::fclose};
}

bool readSidecarRange(const fs::path& png_path, uint32_t w, uint32_t h, double& lo, double& hi) {
    fs::path side = png_path;
    side += ".json";
    std::error_code ec;
    if (!fs::is_regular_file(side, ec)) return false;
    std::ifstream in(side, std::ios::binary);
    if (!in) throw InputError("cannot open " + quoted(side) + ": " + std::strerror(errno));
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(in);
        lo = j.at("min_m").get<double>();
        hi = j.at("max_m").get<double>();
    } catch (const nlohmann::json::exception& e) {
        std::string what = e.what();
        std::replace(what.begin(), what.end(), '\n', ' ');
        throw InputError("sidecar " + quoted(side) + " is not valid (needs numbers min_m, max_m): " + what);
    }
    // A stale sidecar from another image would silently give wrong heights.
    if ((j.contains("width") && j["width"].is_number() && j["width"].get<double>() != w) ||
        (j.contains("height") && j["height"].is_number() && j["height"].get<double>() != h)) {
        throw InputError("sidecar " + quoted(side) + " describes a different size than " + quoted(png_path) + " (" +
                         std::to_string(w) + "x" + std::to_string(h) + "); fix or remove it, or give --height-range");
    }
    return true;
}

void checkFiniteHeights(const Heightmap& map, const fs::path& path) {
    int bx = 0, by = 0;
    if (findNonFinite(map, bx, by)) {
        throw InputError(quoted(path) + " contains " + valueName(map.at(bx, by)) + " at cell (" + std::to_string(bx) +
                         ", " + std::to_string(by) + "); heights must be finite metres");
    }
}

void checkSizeOption(const LoadOptions& opt, long long w, long long h, const fs::path& path) {
    if (opt.width == 0 && opt.height == 0) return;
    if (opt.width != w || opt.height != h) {
        throw InputError("--size " + std::to_string(opt.width) + "x" + std::to_string(opt.height) + " does not match " +
                         quoted(path) + " (" + std::to_string(w) + "x" + std::to_string(h) + ")");
    }
}

void integerRange(const fs::path& path, const LoadOptions& opt, long long w, long long h, double& lo, double& hi) {
    lo = 0.0;
    hi = 1000.0;
    if (opt.has_height_range) {
        lo = opt.range_lo;
        hi = opt.range_hi;
    } else {
        readSidecarRange(path, static_cast<uint32_t>(w), static_cast<uint32_t>(h), lo, hi);
    }
    checkHeightValue(lo, "the height range's LO for " + quoted(path));
    checkHeightValue(hi, "the height range's HI for " + quoted(path));
    if (hi < lo) {
        std::ostringstream s;
        s << "height range " << lo << ":" << hi << " for " << quoted(path) << " is invalid (needs finite LO <= HI)";
        throw InputError(s.str());
    }
}

std::vector<unsigned char> readWholeFile(const fs::path& path) {
    auto file = openForRead(path);
    std::error_code ec;
    const uint64_t size = fs::file_size(path, ec);
    if (ec) throw InputError("cannot open " + quoted(path) + ": " + ec.message());
    std::vector<unsigned char> bytes(static_cast<std::size_t>(size));
    if (std::fread(bytes.data(), 1, bytes.size(), file.get()) != bytes.size()) {
        throw InputError("cannot read " + quoted(path) + ": " +
                         (std::ferror(file.get()) ? std::strerror(errno) : "file shrank"));
    }
    return bytes;
}

} // namespace alluvium::detail
