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

EngineExport exportForEngine(Engine engine, const Heightmap& map, double cell_size, const fs::path& out,
                             int requested_side) {
    checkExtension(engine, out);
    if (!std::isfinite(cell_size) || cell_size <= 0.0) throw InputError("--cell-size must be finite and > 0");
    for (std::size_t i = 0; i < map.heights.size(); ++i) {
        if (std::isfinite(map.heights[i])) continue;
        const auto w = std::size_t(map.width);
        throw InputError("refusing to export '" + displayPath(out) + "': cell (" + std::to_string(i % w) + ", " +
                         std::to_string(i / w) + ") is " + (std::isnan(map.heights[i]) ? "NaN" : "infinite"));
    }
    EngineExport e;
    e.side = engineSide(engine, map.width, map.height, requested_side);
    const auto [mn, mx] = std::minmax_element(map.heights.begin(), map.heights.end());
    e.lo = *mn;
    e.hi = *mx;
    // The extent between the outermost cell centres is kept (resampleCorners).
    e.spacing_x = cell_size * std::max(map.width - 1, 1) / (e.side - 1);
    e.spacing_y = cell_size * std::max(map.height - 1, 1) / (e.side - 1);
    const Heightmap sampled = resampleCorners(map, e.side, e.side);
    const nlohmann::json settings = engineSettings(engine, e);

    e.settings_file = out;
    e.settings_file += ".import.json";
    OutputBatch outputs; // the heights, their sidecar and the settings together
    if (engine == Engine::Godot) {
        writeFileAtomic(out, detail::encodeExrChannels(e.side, e.side, {{"R", sampled.heights.data(), 1}}, true, out));
    } else {
        saveHeightmap16(out, engine == Engine::Unity ? flipRows(sampled) : sampled, e.spacing_x, e.lo, e.hi);
    }
    writeTextAtomic(e.settings_file, settings.dump(1) + "\n");
    outputs.commit();
    return e;
}

} // namespace alluvium
