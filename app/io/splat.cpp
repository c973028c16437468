// Splat (weight) maps for the engines' terrain materials (splat.h).
#include "io/splat.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include <nlohmann/json.hpp>

#include "io/atomic_file.h"
#include "io/formats.h"

namespace alluvium {

const std::array<const char*, kSplatChannels> kSplatNames = {"rock",     "loose",      "deposits", "wet",
                                                             "riverbed", "vegetation", "snow",     "lava"};

namespace {

enum Channel { Rock, Loose, Deposits, Wet, Riverbed, Vegetation, Snow, Lava };

double splatSmoothstep(double e0, double e1, double x) {
    const double t = std::clamp((x - e0) / (e1 - e0), 0.0, 1.0);
    return t * t * (3.0 - 2.0 * t);
}

double valueAt(const std::vector<float>& v, std::size_t i) { return v.empty() ? 0.0 : double(v[i]); }

// tan of the ground's slope at cell i (central differences, one-sided at the edges).
double slopeAt(const SplatInputs& in, int x, int y) {
    if (in.ground.empty()) return 0.0;
    const int x0 = std::max(x - 1, 0), x1 = std::min(x + 1, in.width - 1);
    const int y0 = std::max(y - 1, 0), y1 = std::min(y + 1, in.height - 1);
    auto h = [&](int cx, int cy) {
        return double(in.ground[std::size_t(cy) * std::size_t(in.width) + std::size_t(cx)]);
    };
    const double gx = (h(x1, y) - h(x0, y)) / (std::max(x1 - x0, 1) * in.cell_size);
    const double gy = (h(x, y1) - h(x, y0)) / (std::max(y1 - y0, 1) * in.cell_size);
    return std::hypot(gx, gy);
}

} // namespace

std::vector<float> splatWeights(const SplatInputs& in) {
    const std::size_t cells = std::size_t(in.width) * std::size_t(in.height);
    double top_flow = 0.0;
    for (float f : in.flow) top_flow = std::max(top_flow, double(f));
    std::vector<float> w(cells * kSplatChannels, 0.0f);
    for (int y = 0; y < in.height; ++y)
        for (int x = 0; x < in.width; ++x) {
            const std::size_t i = std::size_t(y) * std::size_t(in.width) + std::size_t(x);
            // Cliffs (tan 0.6 = 31 degrees to tan 1.2 = 50) keep no soil, plants or deposits.
            const double soft = 1.0 - splatSmoothstep(0.6, 1.2, slopeAt(in, x, y));
            const double flow_mask =
                top_flow > 0.0 ? std::log1p(std::max(valueAt(in.flow, i), 0.0)) / std::log1p(top_flow) : 0.0;
            const std::pair<Channel, double> covers[] = {
                {Lava, splatSmoothstep(0.0, 0.05, valueAt(in.lava, i))},
                {Snow, splatSmoothstep(0.0, 0.1, valueAt(in.snow, i))},
                {Wet, splatSmoothstep(0.0, 0.05, valueAt(in.water_depth, i))},
                {Riverbed, splatSmoothstep(0.35, 0.8, flow_mask)},
                {Vegetation, std::clamp(valueAt(in.vegetation, i), 0.0, 1.0) * soft},
                {Deposits, splatSmoothstep(0.0, 0.2, valueAt(in.deposited, i) - valueAt(in.eroded, i)) * soft},
                {Loose, (in.layered ? splatSmoothstep(0.0, 0.3, valueAt(in.loose, i)) : 1.0) * soft},
            };
            double left = 1.0;
            float* cell = &w[i * kSplatChannels];
            for (const auto& [channel, cover] : covers) {
                const double share = left * std::clamp(cover, 0.0, 1.0);
                cell[channel] = float(share);
                left -= share;
            }
            cell[Rock] = float(std::max(left, 0.0));
        }
    return w;
}

std::vector<uint8_t> quantiseSplat(const std::vector<float>& weights) {
    std::vector<uint8_t> q(weights.size());
    for (std::size_t c = 0; c + kSplatChannels <= weights.size(); c += kSplatChannels) {
        double total = 0.0;
        for (int k = 0; k < kSplatChannels; ++k) total += std::max(double(weights[c + k]), 0.0);
        std::array<double, kSplatChannels> scaled{}, rest{};
        int sum = 0;
        for (int k = 0; k < kSplatChannels; ++k) {
            // Normalised again: rounding in the weights' floats must not move the sum off 255.
            scaled[k] = total > 0.0 ? std::max(double(weights[c + k]), 0.0) / total * 255.0 : (k == Rock ? 255.0 : 0.0);
            q[c + k] = uint8_t(std::floor(scaled[k]));
            rest[k] = scaled[k] - q[c + k];
            sum += q[c + k];
        }
        for (; sum < 255; ++sum) {
            const int k = int(std::max_element(rest.begin(), rest.end()) - rest.begin());
            ++q[c + k];
            rest[k] = -1.0;
        }
    }
    return q;
}

void writeSplatMaps(const std::filesystem::path& dir, int width, int height, const std::vector<float>& weights) {
    const std::vector<uint8_t> q = quantiseSplat(weights);
    const std::size_t cells = std::size_t(width) * std::size_t(height);
    nlohmann::json files = nlohmann::json::array();
    for (int file = 0; file < 2; ++file) {
        std::vector<uint8_t> rgba(cells * 4);
        for (std::size_t i = 0; i < cells; ++i)
            for (int k = 0; k < 4; ++k)
                rgba[i * 4 + std::size_t(k)] = q[i * kSplatChannels + std::size_t(file * 4 + k)];
        const std::string name = "splat" + std::to_string(file) + ".png";
        writeFileAtomic(dir / name, detail::encodePng8(width, height, 4, rgba, dir / name));
        files.push_back({{"file", name},
                         {"channels",
                          {kSplatNames[file * 4], kSplatNames[file * 4 + 1], kSplatNames[file * 4 + 2],
                           kSplatNames[file * 4 + 3]}}});
    }
    const nlohmann::json doc = {
        {"width", width},
        {"height", height},
        {"files", files},
        {"sum", "the eight channels of a pixel sum to 255 (weight 1)"},
        {"engines",
         {{"unity",
           "four Terrain Layers per file, in channel order (the alphamaps: splat0 -> layers 0-3, splat1 -> 4-7)"},
          {"unreal", "one weight-blended Landscape layer per channel (import each channel as its layer's weightmap)"},
          {"godot", "Heightmap Terrain: splat0 and splat1 as its splatmaps; Terrain3D: the control map's texture "
                    "ids from the largest channel"}}}};
    writeTextAtomic(dir / "splat.json", doc.dump(1) + "\n");
}

} // namespace alluvium
