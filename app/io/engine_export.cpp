// Heightmaps for game engines' terrain importers (engine_export.h).
#include "io/engine_export.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "io/atomic_file.h"
#include "io/errors.h"
#include "io/formats.h"

namespace alluvium {

namespace fs = std::filesystem;

namespace {

std::string lowerCase(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return s;
}

std::string formatNumber(const char* fmt, double value) {
    char text[64];
    std::snprintf(text, sizeof text, fmt, value);
    return text;
}

// The extensions each engine's importer reads.
std::vector<std::string> engineExtensions(Engine engine) {
    switch (engine) {
    case Engine::Unreal: return {".png", ".r16", ".raw"};
    case Engine::Unity: return {".raw", ".r16"};
    case Engine::Godot: return {".exr"};
    }
    return {};
}

void checkExtension(Engine engine, const fs::path& out) {
    const std::vector<std::string> allowed = engineExtensions(engine);
    const std::string ext = detail::lowerExtension(out);
    if (std::find(allowed.begin(), allowed.end(), ext) != allowed.end()) return;
    std::string list;
    for (const std::string& e : allowed) list += (list.empty() ? "" : ", ") + e;
    throw InputError("--out '" + displayPath(out) + "': " + engineName(engine) + " imports " + list);
}

// Rows in reverse order: Unity's first row is the terrain's z = 0 edge, an image's last.
Heightmap flipRows(const Heightmap& map) {
    Heightmap flipped = map;
    const auto w = std::size_t(map.width);
    for (int y = 0; y < map.height; ++y)
        std::copy_n(map.heights.begin() + std::ptrdiff_t(std::size_t(map.height - 1 - y) * w), w,
                    flipped.heights.begin() + std::ptrdiff_t(std::size_t(y) * w));
    return flipped;
}

// The importer's settings, as JSON and as the lines printed.
nlohmann::json engineSettings(Engine engine, EngineExport& e) {
    const double range = e.hi - e.lo;
    nlohmann::json j = {{"engine", engineName(engine)},
                        {"side", e.side},
                        {"min_m", e.lo},
                        {"max_m", e.hi},
                        {"spacing_x_m", e.spacing_x},
                        {"spacing_y_m", e.spacing_y}};
    if (engine == Engine::Unreal) {
        // A sample v stands (v - 32768) / 128 * Scale Z cm above Location Z: 0 .. 65535 spans
        // 65535 / 128 * Scale Z cm, the height range.
        const double scale_z = range > 0.0 ? range * 100.0 * 128.0 / 65535.0 : 100.0;
        const double location_z = e.lo * 100.0 + 256.0 * scale_z;
        j["scale_cm"] = {e.spacing_x * 100.0, e.spacing_y * 100.0, scale_z};
        j["location_z_cm"] = location_z;
        e.settings = {"Landscape Import: Scale X " + formatNumber("%.6g", e.spacing_x * 100.0) + ", Scale Y " +
                          formatNumber("%.6g", e.spacing_y * 100.0) + ", Scale Z " + formatNumber("%.9g", scale_z),
                      "Location Z: " + formatNumber("%.9g", location_z) + " cm"};
    } else if (engine == Engine::Unity) {
        const double size_x = e.spacing_x * (e.side - 1), size_z = e.spacing_y * (e.side - 1);
        const double size_y = std::max(range, 1e-3);
        j["heightmap_resolution"] = e.side;
        j["terrain_size_m"] = {size_x, size_y, size_z};
        j["position_y_m"] = e.lo;
        j["depth"] = "Bit 16";
        j["byte_order"] = "Windows (little-endian)";
        j["first_row"] = "the terrain's z = 0 edge (the source image's bottom row)";
        e.settings = {"Import Raw: Depth Bit 16, Resolution " + std::to_string(e.side) + ", Byte Order Windows",
                      "Terrain Size: X " + formatNumber("%.6g", size_x) + ", Y " + formatNumber("%.9g", size_y) +
                          ", Z " + formatNumber("%.6g", size_z) + " m; position Y " + formatNumber("%.9g", e.lo) +
                          " m"};
    } else {
        j["heights"] = "metres, float32 EXR channel R";
        e.settings = {"Heights in metres (EXR channel R), " + std::to_string(e.side) + " samples a side",
                      "Vertex spacing: x " + formatNumber("%.6g", e.spacing_x) + " m, y " +
                          formatNumber("%.6g", e.spacing_y) +
                          " m (Heightmap Terrain: map scale x and z; Terrain3D: vertex spacing, one for both)"};
    }
    return j;
}

} // namespace

void checkEngineOutput(Engine engine, const fs::path& out) { checkExtension(engine, out); }

Engine engineNamed(const std::string& name) {
    const std::string n = lowerCase(name);
    if (n == "unreal") return Engine::Unreal;
    if (n == "unity") return Engine::Unity;
    if (n == "godot") return Engine::Godot;
    throw InputError("--for '" + name + "': unknown engine (use unreal, unity or godot)");
}

const char* engineName(Engine engine) {
    switch (engine) {
    case Engine::Unreal: return "unreal";
    case Engine::Unity: return "unity";
    case Engine::Godot: return "godot";
    }
    return "?";
}

const std::vector<int>& engineSides(Engine engine) {
    static const std::vector<int> unreal = {127, 253, 505, 1009, 2017, 4033, 8129};
    static const std::vector<int> pow2_plus_1 = {33, 65, 129, 257, 513, 1025, 2049, 4097};
    return engine == Engine::Unreal ? unreal : pow2_plus_1;
}

int engineSide(Engine engine, int width, int height, int requested) {
    const std::vector<int>& sides = engineSides(engine);
    if (requested != 0) {
        if (std::find(sides.begin(), sides.end(), requested) != sides.end()) return requested;
        std::string list;
        for (int s : sides) list += (list.empty() ? "" : ", ") + std::to_string(s);
        throw InputError("--side " + std::to_string(requested) + ": " + engineName(engine) + " takes " + list);
    }
    const int longer = std::max(width, height);
    for (int s : sides)
        if (s >= longer) return s;
    return sides.back();
}

Heightmap resampleCorners(const Heightmap& map, int width, int height) {
    Heightmap out;
    out.width = width;
    out.height = height;
    out.cell_size = map.cell_size;
    out.heights.resize(std::size_t(width) * std::size_t(height));
    const double fx = width > 1 ? double(map.width - 1) / (width - 1) : 0.0;
    const double fy = height > 1 ? double(map.height - 1) / (height - 1) : 0.0;
    for (int j = 0; j < height; ++j) {
        const double sy = j * fy;
        const int y0 = std::min(int(sy), map.height - 1), y1 = std::min(y0 + 1, map.height - 1);
        const double ty = sy - y0;
        for (int i = 0; i < width; ++i) {
            const double sx = i * fx;
            const int x0 = std::min(int(sx), map.width - 1), x1 = std::min(x0 + 1, map.width - 1);
            const double tx = sx - x0;
            const double top = map.at(x0, y0) + (map.at(x1, y0) - double(map.at(x0, y0))) * tx;
            const double bottom = map.at(x0, y1) + (map.at(x1, y1) - double(map.at(x0, y1))) * tx;
            out.heights[std::size_t(j) * std::size_t(width) + std::size_t(i)] = float(top + (bottom - top) * ty);
        }
    }
    return out;
}

namespace {

// The checks every export makes of its input, and the height range its samples span.
EngineExport prepareExport(Engine engine, const Heightmap& map, double cell_size, const fs::path& out) {
    checkExtension(engine, out);
    if (!std::isfinite(cell_size) || cell_size <= 0.0) throw InputError("--cell-size must be finite and > 0");
    for (std::size_t i = 0; i < map.heights.size(); ++i) {
        if (std::isfinite(map.heights[i])) continue;
        const auto w = std::size_t(map.width);
        throw InputError("refusing to export '" + displayPath(out) + "': cell (" + std::to_string(i % w) + ", " +
                         std::to_string(i / w) + ") is " + (std::isnan(map.heights[i]) ? "NaN" : "infinite"));
    }
    EngineExport e;
    const auto [mn, mx] = std::minmax_element(map.heights.begin(), map.heights.end());
    e.lo = *mn;
    e.hi = *mx;
    return e;
}

// One heightmap in the engine's format, quantized over e's range.
void writeEngineHeights(Engine engine, const fs::path& path, const Heightmap& sampled, const EngineExport& e) {
    if (engine == Engine::Godot)
        writeFileAtomic(path, detail::encodeExrChannels(sampled.width, sampled.height,
                                                        {{"R", sampled.heights.data(), 1}}, true, path));
    else
        saveHeightmap16(path, engine == Engine::Unity ? flipRows(sampled) : sampled, e.spacing_x, e.lo, e.hi);
}

fs::path settingsPath(const fs::path& out) {
    fs::path p = out;
    p += ".import.json";
    return p;
}

} // namespace

EngineExport exportForEngine(Engine engine, const Heightmap& map, double cell_size, const fs::path& out,
                             int requested_side) {
    EngineExport e = prepareExport(engine, map, cell_size, out);
    e.side = engineSide(engine, map.width, map.height, requested_side);
    // The extent between the outermost cell centres is kept (resampleCorners).
    e.spacing_x = cell_size * std::max(map.width - 1, 1) / (e.side - 1);
    e.spacing_y = cell_size * std::max(map.height - 1, 1) / (e.side - 1);
    const Heightmap sampled = resampleCorners(map, e.side, e.side);
    const nlohmann::json settings = engineSettings(engine, e);

    e.settings_file = settingsPath(out);
    OutputBatch outputs; // the heights, their sidecar and the settings together
    writeEngineHeights(engine, out, sampled, e);
    writeTextAtomic(e.settings_file, settings.dump(1) + "\n");
    outputs.commit();
    return e;
}

// [SECTION] tiles

TileLayout parseTiles(const std::string& tiles, int overlap) {
    TileLayout t;
    char x = 0, extra = 0;
    if (std::sscanf(tiles.c_str(), "%d%c%d%c", &t.cols, &x, &t.rows, &extra) != 3 || (x != 'x' && x != 'X') ||
        t.cols < 1 || t.rows < 1 || t.cols > 64 || t.rows > 64)
        throw InputError("--tiles '" + tiles + "': CxR tiles across and down, 1 .. 64 each (e.g. 4x4)");
    // Tiles sharing no sample leave a cell-wide gap between them (a seam); 2 or more overlap.
    if (overlap < 1)
        throw InputError("--overlap " + std::to_string(overlap) +
                         ": neighbouring tiles must share 1 or more samples (with none, a gap opens between them)");
    t.overlap = overlap;
    return t;
}

fs::path tilePath(const fs::path& out, int i, int j) {
    fs::path p = out.parent_path() / out.stem();
    p += "_x" + std::to_string(i) + "_y" + std::to_string(j) + out.extension().string();
    return p;
}

namespace {

// The engine's side whose tiles hold the grid without dropping samples (the largest when none
// does), or the one asked for; it must exceed the overlap.
int tileSide(Engine engine, int width, int height, int requested, const TileLayout& t) {
    int side = engineSide(engine, 1, 1, requested); // the one asked for, checked; else the smallest
    if (requested == 0)
        for (int s : engineSides(engine)) {
            side = s;
            if (t.cols * (s - t.overlap) + t.overlap >= width && t.rows * (s - t.overlap) + t.overlap >= height) break;
        }
    if (side <= t.overlap)
        throw InputError("--overlap " + std::to_string(t.overlap) + ": tiles of " + std::to_string(side) +
                         " samples cannot share that many");
    return side;
}

Heightmap cutTile(const Heightmap& whole, int x0, int y0, int side) {
    Heightmap tile;
    tile.width = tile.height = side;
    tile.heights.resize(std::size_t(side) * std::size_t(side));
    for (int y = 0; y < side; ++y)
        std::copy_n(whole.heights.begin() + std::ptrdiff_t(std::size_t(y0 + y) * std::size_t(whole.width) + x0), side,
                    tile.heights.begin() + std::ptrdiff_t(std::size_t(y) * std::size_t(side)));
    return tile;
}

} // namespace

TiledExport exportTilesForEngine(Engine engine, const Heightmap& map, double cell_size, const fs::path& out,
                                 int requested_side, const TileLayout& t) {
    TiledExport r;
    EngineExport& e = r.whole;
    e = prepareExport(engine, map, cell_size, out);
    e.side = tileSide(engine, map.width, map.height, requested_side, t);
    const int step = e.side - t.overlap;
    r.samples_x = t.cols * step + t.overlap;
    r.samples_y = t.rows * step + t.overlap;
    if (double(r.samples_x) * r.samples_y > double(1u << 30))
        throw InputError("--tiles " + std::to_string(t.cols) + "x" + std::to_string(t.rows) + " of " +
                         std::to_string(e.side) + " samples: " + std::to_string(r.samples_x) + "x" +
                         std::to_string(r.samples_y) + " samples in all, more than 2^30; fewer or smaller tiles");
    e.spacing_x = cell_size * std::max(map.width - 1, 1) / (r.samples_x - 1);
    e.spacing_y = cell_size * std::max(map.height - 1, 1) / (r.samples_y - 1);
    const Heightmap sampled = resampleCorners(map, r.samples_x, r.samples_y);
    nlohmann::json settings = engineSettings(engine, e); // one range and scale for every tile
    settings["tiles"] = {{"cols", t.cols},
                         {"rows", t.rows},
                         {"overlap_samples", t.overlap},
                         {"whole_samples", {r.samples_x, r.samples_y}},
                         {"naming", "<name>_x<column>_y<row>: column from the left, row from the top"}};
    nlohmann::json& list = settings["tiles"]["files"];
    OutputBatch outputs; // every tile and the settings, or none
    for (int j = 0; j < t.rows; ++j)
        for (int i = 0; i < t.cols; ++i) {
            const fs::path path = tilePath(out, i, j);
            writeEngineHeights(engine, path, cutTile(sampled, i * step, j * step, e.side), e);
            r.files.push_back(path);
            // Where the tile's first sample lies: x to the right, y down the image (m); Unity's
            // z runs up the image, its tiles' first rows at the bottom.
            const double x = i * step * e.spacing_x, y = j * step * e.spacing_y;
            nlohmann::json tile = {{"file", path.filename().string()}, {"x", i}, {"y", j}, {"offset_m", {x, y}}};
            if (engine == Engine::Unity) tile["position_m"] = {x, e.lo, (t.rows - 1 - j) * step * e.spacing_y};
            if (engine == Engine::Unreal) tile["location_cm"] = {x * 100.0, y * 100.0};
            list.push_back(tile);
        }
    e.settings_file = settingsPath(out);
    writeTextAtomic(e.settings_file, settings.dump(1) + "\n");
    outputs.commit();
    e.settings.push_back(std::to_string(t.cols) + "x" + std::to_string(t.rows) + " tiles of " + std::to_string(e.side) +
                         " samples, neighbours sharing " + std::to_string(t.overlap) + ": " +
                         r.files.front().filename().string() + " .. " + r.files.back().filename().string());
    return r;
}

} // namespace alluvium
