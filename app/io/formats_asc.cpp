// ESRI ASCII grids (.asc): a header of "key value" lines (ncols, nrows, xllcorner|xllcenter,
// yllcorner|yllcenter, cellsize, optional NODATA_value; keys in any case), then nrows rows of
// ncols heights in metres, the first row north. NODATA cells are filled from their neighbours.
// A grid in geographic degrees (a cell size under 0.1 and corners within +-360/+-90) gets the
// cell size in metres of a square of the same area at its mean latitude (the origin 0,0, as in
// the grids Alluvium writes, is taken as metres).
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <string_view>

#include "io/errors.h"
#include "io/formats.h"

namespace alluvium::detail {

namespace fs = std::filesystem;

namespace {

bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

// Splits the text into whitespace-separated tokens on demand.
struct Tokens {
    std::string_view text;
    std::size_t pos = 0;
    std::string_view next() {
        while (pos < text.size() && isSpace(text[pos])) ++pos;
        const std::size_t start = pos;
        while (pos < text.size() && !isSpace(text[pos])) ++pos;
        return text.substr(start, pos - start);
    }
    std::string_view peek() {
        const std::size_t saved = pos;
        std::string_view t = next();
        pos = saved;
        return t;
    }
};

bool parseDouble(std::string_view t, double& v) {
    if (!t.empty() && t.front() == '+') t.remove_prefix(1); // from_chars refuses a leading '+'
    auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    return ec == std::errc() && ptr == t.data() + t.size() && !t.empty();
}

// double -> float without the undefined behaviour of an out-of-range conversion.
float toFloat(double d) {
    if (std::isfinite(d) && std::abs(d) > static_cast<double>(std::numeric_limits<float>::max()))
        return std::copysign(std::numeric_limits<float>::infinity(), static_cast<float>(d > 0 ? 1 : -1));
    return static_cast<float>(d);
}

// A float; values beyond float range become +-Inf (and are refused by the caller), tiny ones
// round to zero or a denormal.
bool parseFloat(std::string_view t, float& f) {
    if (!t.empty() && t.front() == '+') t.remove_prefix(1);
    if (t.empty()) return false;
    auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), f);
    if (ptr != t.data() + t.size()) return false;
    if (ec == std::errc::result_out_of_range) {
        double d = 0.0;
        if (!parseDouble(t, d)) return false;
        f = toFloat(d);
        return true;
    }
    return ec == std::errc();
}

std::string shown(std::string_view t) {
    std::string s(t.substr(0, 40));
    for (char& c : s)
        if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = '?';
    return s;
}

} // namespace

long long fillNodata(Heightmap& map, std::vector<unsigned char>& valid, const fs::path& path) {
    const int w = map.width, h = map.height;
    const auto idx = [w](int x, int y) {
        return static_cast<std::size_t>(y) * static_cast<std::size_t>(w) + static_cast<std::size_t>(x);
    };
    long long missing = 0;
    for (unsigned char v : valid) missing += v ? 0 : 1;
    if (missing == 0) return 0;
    if (missing == static_cast<long long>(valid.size())) throw InputError(quoted(path) + " has only NODATA cells");

    // The front: missing cells next to a valid one. Each round fills the whole front with the
    // mean of its valid neighbours (all from earlier rounds), so the result does not depend on
    // the order of cells and there is no spike at any constant.
    std::vector<unsigned char> queued(valid.size(), 0);
    std::vector<std::size_t> front, next;
    auto pushNeighbours = [&](int x, int y, std::vector<std::size_t>& into) {
        for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
                const int nx = x + dx, ny = y + dy;
                if ((dx || dy) && nx >= 0 && ny >= 0 && nx < w && ny < h) {
                    const std::size_t n = idx(nx, ny);
                    if (!valid[n] && !queued[n]) {
                        queued[n] = 1;
                        into.push_back(n);
                    }
                }
            }
    };
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            if (valid[idx(x, y)]) {
                // only cells at the border of a hole have missing neighbours worth queueing
                pushNeighbours(x, y, front);
            }
    std::vector<float> values;
    while (!front.empty()) {
        values.resize(front.size());
        for (std::size_t k = 0; k < front.size(); ++k) {
            const int x = static_cast<int>(front[k] % static_cast<std::size_t>(w));
            const int y = static_cast<int>(front[k] / static_cast<std::size_t>(w));
            double sum = 0.0;
            int count = 0;
            for (int dy = -1; dy <= 1; ++dy)
                for (int dx = -1; dx <= 1; ++dx) {
                    const int nx = x + dx, ny = y + dy;
                    if ((dx || dy) && nx >= 0 && ny >= 0 && nx < w && ny < h && valid[idx(nx, ny)]) {
                        sum += map.heights[idx(nx, ny)];
                        ++count;
                    }
                }
            values[k] = static_cast<float>(sum / count); // count >= 1: queued next to a valid cell
        }
        for (std::size_t k = 0; k < front.size(); ++k) {
            map.heights[front[k]] = values[k];
            valid[front[k]] = 1;
        }
        next.clear();
        for (std::size_t n : front)
            pushNeighbours(static_cast<int>(n % static_cast<std::size_t>(w)),
                           static_cast<int>(n / static_cast<std::size_t>(w)), next);
        front.swap(next);
    }
    return missing;
}

Heightmap loadAsc(const fs::path& path, const LoadOptions& opt) {
    const std::vector<unsigned char> bytes = readWholeFile(path);
    Tokens tok{std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size())};
    const std::string bad = quoted(path) + " is not a valid ESRI ASCII grid: ";

    double ncols = -1, nrows = -1, xll = NAN, yll = NAN, cellsize = NAN, nodata = NAN;
    bool has_nodata = false, x_center = false, y_center = false;
    for (;;) {
        std::string_view t = tok.peek();
        if (t.empty() || !std::isalpha(static_cast<unsigned char>(t.front()))) break;
        // "nan"/"inf" start with a letter but are data (and bad): stop at them too.
        std::string key(t);
        for (char& c : key) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        if (key == "nan" || key == "inf" || key == "-inf" || key == "infinity") break;
        tok.next();
        std::string_view value = tok.next();
        double v = 0.0;
        if (!parseDouble(value, v))
            throw InputError(bad + "header '" + shown(t) + "' has no number (got '" + shown(value) + "')");
        if (key == "ncols")
            ncols = v;
        else if (key == "nrows")
            nrows = v;
        else if (key == "xllcorner" || key == "xllcenter")
            xll = v, x_center = key == "xllcenter";
        else if (key == "yllcorner" || key == "yllcenter")
            yll = v, y_center = key == "yllcenter";
        else if (key == "cellsize")
            cellsize = v;
        else if (key == "nodata_value")
            nodata = v, has_nodata = true;
        else
            throw InputError(bad + "unknown header key '" + shown(t) + "'");
    }
    if (ncols < 0 || nrows < 0 || std::isnan(cellsize) || std::isnan(xll) || std::isnan(yll))
        throw InputError(bad + "the header needs ncols, nrows, xllcorner (or xllcenter), "
                               "yllcorner (or yllcenter) and cellsize");
    if (ncols != std::floor(ncols) || nrows != std::floor(nrows) || ncols > 1e9 || nrows > 1e9)
        throw InputError(bad + "ncols and nrows must be whole numbers");
    const auto w = static_cast<long long>(ncols), h = static_cast<long long>(nrows);
    checkGridSize(w, h, quoted(path));
    checkSizeOption(opt, w, h, path);
    if (!std::isfinite(cellsize) || cellsize <= 0.0) throw InputError(bad + "cellsize must be finite and > 0");

    // Each value takes at least two bytes ("0 "): a header that claims more cells than the file
    // can hold is refused before the grid is allocated.
    const std::size_t n = static_cast<std::size_t>(w * h);
    const std::size_t data_bytes = tok.text.size() - std::min(tok.pos, tok.text.size());
    if (data_bytes + 1 < 2 * n) {
        throw InputError(quoted(path) + " is truncated: " + std::to_string(w) + "x" + std::to_string(h) + " needs " +
                         std::to_string(n) + " values, but only " + std::to_string(data_bytes) +
                         " bytes follow the header");
    }

    Heightmap map;
    map.width = static_cast<int>(w);
    map.height = static_cast<int>(h);
    map.heights.resize(n);
    std::vector<unsigned char> valid(n, 1);
    const float nodata_f = toFloat(nodata);
    long long missing = 0;
    for (std::size_t i = 0; i < n; ++i) {
        std::string_view t = tok.next();
        const int x = static_cast<int>(i % static_cast<std::size_t>(w));
        const int y = static_cast<int>(i / static_cast<std::size_t>(w));
        if (t.empty()) {
            throw InputError(quoted(path) + " is truncated: " + std::to_string(w) + "x" + std::to_string(h) +
                             " needs " + std::to_string(n) + " values, found " + std::to_string(i));
        }
        // Read as float directly (not via double: no double rounding), so that the shortest
        // text of a float reads back as the same bits.
        float f = 0.0f;
        if (!parseFloat(t, f)) {
            throw InputError(bad + "'" + shown(t) + "' at cell (" + std::to_string(x) + ", " + std::to_string(y) +
                             ") is not a number");
        }
        if (has_nodata && (f == nodata_f || (std::isnan(f) && std::isnan(nodata_f)))) {
            valid[i] = 0;
            ++missing;
            map.heights[i] = 0.0f;
            continue;
        }
        if (!std::isfinite(f)) {
            throw InputError(quoted(path) + " contains " +
                             (std::isnan(f) ? std::string("NaN") : std::string(f > 0 ? "+Inf" : "-Inf")) +
                             " at cell (" + std::to_string(x) + ", " + std::to_string(y) +
                             "); heights must be finite metres (or the NODATA_value)");
        }
        map.heights[i] = f;
    }
    if (!tok.next().empty()) throw InputError(bad + "more values than ncols x nrows = " + std::to_string(n));

    if (missing > 0) map.nodata_filled = fillNodata(map, valid, path);

    // Geographic grids give the cell size in degrees; use metres (an equal-area square at the
    // mean latitude, on a sphere of radius 6371 km).
    const double xc = x_center ? xll - cellsize / 2 : xll, yc = y_center ? yll - cellsize / 2 : yll;
    const double top = yc + cellsize * static_cast<double>(h);
    const bool degrees = cellsize < 0.1 && (xc != 0.0 || yc != 0.0) && std::abs(xc) <= 360.0 &&
                         std::abs(xc + cellsize * static_cast<double>(w)) <= 360.0 && std::abs(yc) <= 90.0 &&
                         std::abs(top) <= 90.0;
    if (degrees) {
        const double kPi = 3.14159265358979323846;
        const double metres_per_degree = 6371000.0 * kPi / 180.0;
        const double lat = 0.5 * (yc + top) * kPi / 180.0;
        map.cell_size = cellsize * metres_per_degree * std::sqrt(std::max(std::cos(lat), 1e-6));
    } else {
        map.cell_size = cellsize;
    }
    return map;
}

std::string encodeAsc(const Heightmap& map, double cell_size) {
    std::string out;
    out.reserve(map.heights.size() * 10 + 200);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", cell_size);
    out += "ncols " + std::to_string(map.width) + "\nnrows " + std::to_string(map.height) +
           "\nxllcorner 0\nyllcorner 0\ncellsize " + buf + "\n";
    for (int y = 0; y < map.height; ++y) {
        for (int x = 0; x < map.width; ++x) {
            // Shortest text that reads back as the same float: exact and compact.
            auto [end, ec] = std::to_chars(buf, buf + sizeof buf, map.at(x, y));
            (void)ec;
            out.append(buf, end);
            out += x + 1 < map.width ? ' ' : '\n';
        }
    }
    return out;
}

} // namespace alluvium::detail
