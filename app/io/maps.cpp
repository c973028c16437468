// Export maps: 16-bit PNG masks with JSON sidecars, float32 OpenEXR per layer and one multi-layer
// OpenEXR. Everything is encoded in memory first, then each file is written atomically.
//
// [SECTION] checks and masks
// [SECTION] PNG (libpng into memory)
// [SECTION] OpenEXR (into memory)
// [SECTION] writeMaps
#include "io/maps.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <set>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "io/atomic_file.h"
#include "io/errors.h"
#include "io/formats.h"
#include "io/heightmap.h"

namespace alluvium {

namespace fs = std::filesystem;

namespace {

using detail::quoted;

// [SECTION] checks and masks ------------------------------------------------------------------

std::size_t componentCount(const MapLayer& layer) { return std::max<std::size_t>(1, layer.components.size()); }

bool isPlainName(const std::string& s) {
    if (s.empty()) return false;
    return std::all_of(s.begin(), s.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
    });
}

void checkLayer(const MapLayer& layer, std::size_t cells, const fs::path& dir) {
    if (!isPlainName(layer.name) || (!layer.mask_name.empty() && !isPlainName(layer.mask_name)))
        throw InputError("map layer '" + layer.name + "': names must be letters, digits, '_' or '-'");
    for (const std::string& c : layer.components)
        if (!isPlainName(c)) throw InputError("map layer '" + layer.name + "': bad component name '" + c + "'");
    const std::size_t n = componentCount(layer);
    if (layer.data.size() != cells * n) {
        throw InputError("map layer '" + layer.name + "' has " + std::to_string(layer.data.size()) +
                         " values, expected " + std::to_string(cells * n));
    }
    for (std::size_t i = 0; i < layer.data.size(); ++i) {
        if (!std::isfinite(layer.data[i])) {
            throw InputError("refusing to write the maps in " + quoted(dir) + ": layer '" + layer.name +
                             "' is not finite at value " + std::to_string(i));
        }
    }
}

// The per-cell value a mask shows: the scalar, or the magnitude of a vector.
std::vector<double> maskSource(const MapLayer& layer, std::size_t cells) {
    const std::size_t n = componentCount(layer);
    std::vector<double> out(cells);
    for (std::size_t i = 0; i < cells; ++i) {
        if (n == 1) {
            out[i] = layer.data[i];
            continue;
        }
        double sum = 0.0;
        for (std::size_t c = 0; c < n; ++c) sum += double(layer.data[i * n + c]) * layer.data[i * n + c];
        out[i] = std::sqrt(sum);
    }
    return out;
}

std::vector<uint16_t> quantise(const std::vector<double>& values, double lo, double hi) {
    std::vector<uint16_t> q(values.size());
    const double range = hi - lo;
    for (std::size_t i = 0; i < values.size(); ++i) {
        const double t = range > 0.0 ? (values[i] - lo) / range : 0.0;
        q[i] = static_cast<uint16_t>(std::clamp(std::lround(t * 65535.0), 0L, 65535L));
    }
    return q;
}

// [SECTION] EXR channels ----------------------------------------------------------------------

using detail::ExrChannel;

// The channels of a layer, named "<prefix><component>" ("Y" for a scalar without a prefix).
std::vector<ExrChannel> layerChannels(const MapLayer& layer, bool multi_layer) {
    const std::size_t n = componentCount(layer);
    std::vector<ExrChannel> out;
    if (layer.components.size() <= 1) {
        out.push_back({multi_layer ? layer.name : "Y", layer.data.data(), 1});
        return out;
    }
    for (std::size_t c = 0; c < n; ++c) {
        std::string name = multi_layer ? layer.name + "." + layer.components[c] : layer.components[c];
        out.push_back({std::move(name), layer.data.data() + c, n});
    }
    return out;
}

// [SECTION] writeMaps -------------------------------------------------------------------------

struct Output {
    fs::path path;
    std::vector<std::byte> bytes;
};

} // namespace

void writeMaps(const fs::path& dir, int width, int height, const std::vector<MapLayer>& layers) {
    if (width < 1 || height < 1 || width > kMaxGridSide || height > kMaxGridSide)
        throw InputError("cannot write maps of " + std::to_string(width) + "x" + std::to_string(height) + " cells");
    const std::size_t cells = static_cast<std::size_t>(width) * static_cast<std::size_t>(height);
    std::set<std::string> names;
    for (const MapLayer& layer : layers) {
        checkLayer(layer, cells, dir);
        if (!names.insert(layer.name).second) throw InputError("map layer '" + layer.name + "' given twice");
    }

    std::vector<Output> outputs;
    auto addText = [&](const fs::path& path, const nlohmann::json& j) {
        const std::string text = j.dump(1) + "\n";
        const auto* p = reinterpret_cast<const std::byte*>(text.data());
        outputs.push_back({path, std::vector<std::byte>(p, p + text.size())});
    };
    auto addMask = [&](const std::string& stem, const MapLayer& layer, const std::vector<uint16_t>& q,
                       nlohmann::json side) {
        const fs::path png = dir / (stem + ".png");
        outputs.push_back({png, detail::encodePng16(width, height, q, png)});
        side["width"] = width;
        side["height"] = height;
        side["layer"] = layer.name;
        side["unit"] = layer.unit;
        fs::path json = png;
        json += ".json";
        addText(json, side);
    };

    std::vector<ExrChannel> all_channels;
    for (const MapLayer& layer : layers) {
        const std::vector<double> values = maskSource(layer, cells);
        const auto [mn, mx] = std::minmax_element(values.begin(), values.end());
        const double lo = (layer.mask_from_min || *mn < 0.0) ? *mn : 0.0;
        const double hi = *mx;
        const std::string stem = layer.mask_name.empty() ? layer.name : layer.mask_name;
        // min_m/max_m (the names of a heightmap's sidecar) let loadHeightmap decode the mask.
        addMask(stem, layer, quantise(values, lo, hi),
                {{"data_min", *mn},
                 {"data_max", *mx},
                 {"min", lo},
                 {"max", hi},
                 {"min_m", lo},
                 {"max_m", hi},
                 {"encoding", "linear"},
                 {"decode", "x = min + v/65535*(max-min)"},
                 {"of", layer.components.size() > 1 ? "magnitude" : "value"}});
        if (layer.log_mask) {
            std::vector<double> logs(values.size());
            for (std::size_t i = 0; i < values.size(); ++i) logs[i] = std::log1p(std::max(0.0, values[i]));
            const double log_hi = std::log1p(std::max(0.0, hi));
            addMask(stem + "_log", layer, quantise(logs, 0.0, log_hi),
                    {{"data_min", *mn},
                     {"data_max", *mx},
                     {"min", 0.0},
                     {"max", std::max(0.0, hi)},
                     {"min_m", 0.0},
                     {"max_m", log_hi},
                     {"encoding", "log1p"},
                     {"decode", "x = exp(v/65535*log(1+max)) - 1"},
                     {"of", layer.components.size() > 1 ? "magnitude" : "value"}});
        }
        const fs::path exr = dir / (layer.name + ".exr");
        outputs.push_back({exr, detail::encodeExrChannels(width, height, layerChannels(layer, false), true, exr)});
        for (ExrChannel& c : layerChannels(layer, true)) all_channels.push_back(std::move(c));
    }
    if (!all_channels.empty()) {
        const fs::path exr = dir / kMultiLayerMapsFile;
        outputs.push_back({exr, detail::encodeExrChannels(width, height, all_channels, true, exr)});
    }
    std::set<fs::path> paths;
    for (const Output& o : outputs)
        if (!paths.insert(o.path).second) throw InputError("two map layers would write " + quoted(o.path));
    // A folder standing where a file goes would fail half-way through; refuse it up front.
    for (const Output& o : outputs) {
        std::error_code ec;
        if (fs::is_directory(o.path, ec)) throw InputError("cannot write " + quoted(o.path) + ": Is a directory");
    }
    for (const Output& o : outputs) writeFileAtomic(o.path, o.bytes);
}

} // namespace alluvium
