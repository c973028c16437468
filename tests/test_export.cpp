// Tests of the export of maps (app/io/maps): every file written and nothing else, 16-bit PNG masks
// that decode with their sidecars, EXRs of the physical values, bad layers and unwritable folders.
// No Vulkan. The terrain mesh: test_export_mesh.cpp; the helpers: export_files.h.
//
// [SECTION] helpers: reading PNG/EXR back
// [SECTION] maps
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <OpenEXR/ImfChannelList.h>
#include <OpenEXR/ImfFrameBuffer.h>
#include <OpenEXR/ImfHeader.h>
#include <OpenEXR/ImfInputFile.h>
#include <nlohmann/json.hpp>

#include "io/errors.h"
#include "io/heightmap.h"
#include "io/maps.h"

#include "export_files.h"
#include "test_util.h"

namespace fs = std::filesystem;
using namespace alluvium;

// [SECTION] helpers ---------------------------------------------------------------------------
namespace {

using test::expectInputError;

// Bit depth and colour type from a PNG's IHDR (signature 8 + length 4 + "IHDR" 4 + w 4 + h 4).
void pngFormat(const fs::path& path, int& depth, int& colour_type, uint32_t& w, uint32_t& h) {
    const std::string b = readText(path);
    ASSERT_GE(b.size(), 26u);
    auto be32 = [&](std::size_t at) {
        return (uint32_t(uint8_t(b[at])) << 24) | (uint32_t(uint8_t(b[at + 1])) << 16) |
               (uint32_t(uint8_t(b[at + 2])) << 8) | uint32_t(uint8_t(b[at + 3]));
    };
    EXPECT_EQ(b.substr(12, 4), "IHDR");
    w = be32(16);
    h = be32(20);
    depth = uint8_t(b[24]);
    colour_type = uint8_t(b[25]);
}

struct Exr {
    int width = 0, height = 0;
    std::map<std::string, std::vector<float>> channels;
    std::map<std::string, Imf::PixelType> types;
};

Exr readExr(const fs::path& path) {
    Imf::InputFile file(path.c_str());
    const Imath::Box2i dw = file.header().dataWindow();
    Exr e;
    e.width = dw.max.x - dw.min.x + 1;
    e.height = dw.max.y - dw.min.y + 1;
    const std::size_t n = std::size_t(e.width) * std::size_t(e.height);
    Imf::FrameBuffer fb;
    for (auto it = file.header().channels().begin(); it != file.header().channels().end(); ++it) {
        e.types[it.name()] = it.channel().type;
        auto& v = e.channels[it.name()];
        v.assign(n, -12345.0f);
    }
    for (auto& [name, v] : e.channels)
        fb.insert(name, Imf::Slice(Imf::FLOAT, reinterpret_cast<char*>(v.data()), sizeof(float),
                                   sizeof(float) * std::size_t(e.width)));
    file.setFrameBuffer(fb);
    file.readPixels(dw.min.y, dw.max.y);
    return e;
}

// [SECTION] maps ------------------------------------------------------------------------------

constexpr int kW = 37, kH = 23;

// A synthetic end state, every layer with its own shape.
std::vector<MapLayer> syntheticLayers() {
    const std::size_t n = std::size_t(kW) * kH;
    std::vector<MapLayer> layers;
    auto scalar = [&](const std::string& name, const std::string& unit, auto fn) {
        MapLayer l;
        l.name = name;
        l.unit = unit;
        l.data.resize(n);
        for (int y = 0; y < kH; ++y)
            for (int x = 0; x < kW; ++x) l.data[std::size_t(y) * kW + std::size_t(x)] = static_cast<float>(fn(x, y));
        layers.push_back(std::move(l));
        return &layers.back();
    };
    scalar("water_depth", "m", [](int x, int y) { return x > 20 ? 0.01 * (x - 20) * (1 + y % 3) : 0.0; });
    scalar("sediment", "m", [](int x, int y) { return 1e-4 * (x + y); });
    scalar("hardness", "1", [](int x, int y) { return 0.2 + 0.6 * (x + 2 * y) / (kW - 1 + 2 * (kH - 1)); });
    scalar("flow", "m^3", [](int x, int y) { return std::pow(10.0, (x % 9) - 2) * (1 + y % 2); })->log_mask = true;
    scalar("erosion", "m", [](int x, int y) { return x == y ? 3.5 : 0.001 * x; });
    scalar("deposition", "m", [](int x, int y) { return (x * y) % 7 * 0.25; });
    MapLayer v;
    v.name = "velocity";
    v.components = {"u", "v"};
    v.unit = "m/s";
    v.mask_name = "speed";
    for (int y = 0; y < kH; ++y) {
        for (int x = 0; x < kW; ++x) {
            v.data.push_back(static_cast<float>(0.1 * (x - 18)));
            v.data.push_back(static_cast<float>(-0.05 * y));
        }
    }
    layers.push_back(std::move(v));
    scalar("height", "m", [](int x, int y) { return -20.0 + 3.0 * x + 0.5 * y; })->mask_from_min = true;
    return layers;
}

std::vector<double> maskValues(const MapLayer& l) {
    std::vector<double> out;
    const std::size_t n = std::max<std::size_t>(1, l.components.size());
    for (std::size_t i = 0; i < l.data.size() / n; ++i) {
        double s = 0.0;
        for (std::size_t c = 0; c < n; ++c) s += double(l.data[i * n + c]) * l.data[i * n + c];
        out.push_back(n == 1 ? l.data[i] : std::sqrt(s));
    }
    return out;
}

TEST(Maps, WritesEveryFileAndNothingElse) {
    const fs::path dir = scratchDir() / "maps";
    const auto layers = syntheticLayers();
    writeMaps(dir, kW, kH, layers);
    std::set<std::string> expected = {"maps.exr", "flow_log.png", "flow_log.png.json", "speed.png", "speed.png.json"};
    for (const MapLayer& l : layers) {
        expected.insert(l.name + ".exr");
        if (l.name != "velocity") {
            expected.insert(l.name + ".png");
            expected.insert(l.name + ".png.json");
        }
    }
    EXPECT_EQ(listDir(dir), expected);
}

TEST(Maps, PngMasksAreSixteenBitGreyAndDecodeWithTheirSidecar) {
    const fs::path dir = scratchDir();
    const auto layers = syntheticLayers();
    writeMaps(dir, kW, kH, layers);
    for (const MapLayer& l : layers) {
        const std::string stem = l.mask_name.empty() ? l.name : l.mask_name;
        SCOPED_TRACE(stem);
        const fs::path png = dir / (stem + ".png");
        int depth = 0, colour = -1;
        uint32_t w = 0, h = 0;
        pngFormat(png, depth, colour, w, h);
        EXPECT_EQ(depth, 16);
        EXPECT_EQ(colour, 0); // grey
        EXPECT_EQ(w, uint32_t(kW));
        EXPECT_EQ(h, uint32_t(kH));

        const std::vector<double> values = maskValues(l);
        const auto [mn, mx] = std::minmax_element(values.begin(), values.end());
        const nlohmann::json side = readJson(dir / (stem + ".png.json"));
        EXPECT_EQ(side["width"], kW);
        EXPECT_EQ(side["height"], kH);
        EXPECT_EQ(side["unit"], l.unit);
        EXPECT_EQ(side["layer"], l.name);
        EXPECT_EQ(side["encoding"], "linear");
        const double lo = (*mn < 0.0 || l.mask_from_min) ? *mn : 0.0;
        EXPECT_DOUBLE_EQ(side["min"].get<double>(), lo);
        EXPECT_DOUBLE_EQ(side["max"].get<double>(), *mx);
        EXPECT_DOUBLE_EQ(side["data_min"].get<double>(), *mn);

        // The app's own loader decodes the mask back to units through the sidecar.
        const Heightmap back = loadHeightmap(png, {});
        ASSERT_EQ(back.heights.size(), values.size());
        const double step = (*mx - lo) / 65535.0;
        for (std::size_t i = 0; i < values.size(); ++i)
            ASSERT_NEAR(back.heights[i], values[i], step * 0.51 + 1e-6 * std::abs(values[i]) + 1e-9) << "cell " << i;
        // 0..max: the largest value is white, zero (if present) is black.
        const auto imax = std::size_t(std::max_element(values.begin(), values.end()) - values.begin());
        EXPECT_NEAR(back.heights[imax], *mx, 1e-6 * std::abs(*mx));
    }
}

TEST(Maps, FlowHasALogMask) {
    const fs::path dir = scratchDir();
    const auto layers = syntheticLayers();
    writeMaps(dir, kW, kH, layers);
    const MapLayer& flow =
        *std::find_if(layers.begin(), layers.end(), [](const MapLayer& l) { return l.name == "flow"; });
    const double mx = *std::max_element(flow.data.begin(), flow.data.end());
    const nlohmann::json side = readJson(dir / "flow_log.png.json");
    EXPECT_EQ(side["encoding"], "log1p");
    EXPECT_NEAR(side["max"].get<double>(), mx, 1e-9 * mx);
    // loadHeightmap reads the mask as log(1 + flow) (min_m 0, max_m log(1 + max)).
    const Heightmap back = loadHeightmap(dir / "flow_log.png", {});
    const double step = std::log1p(mx) / 65535.0;
    for (std::size_t i = 0; i < flow.data.size(); ++i) {
        ASSERT_NEAR(back.heights[i], std::log1p(double(flow.data[i])), step) << i;
        // The mask itself is log(1 + flow) / log(1 + max): small flows stay visible.
        const double mask = back.heights[i] / std::log1p(mx);
        if (flow.data[i] >= 0.01f) {
            ASSERT_GT(mask, 0.0005);
        }
    }
}

TEST(Maps, ExrsHoldPhysicalValuesExactly) {
    const fs::path dir = scratchDir();
    const auto layers = syntheticLayers();
    writeMaps(dir, kW, kH, layers);
    for (const MapLayer& l : layers) {
        SCOPED_TRACE(l.name);
        const Exr e = readExr(dir / (l.name + ".exr"));
        EXPECT_EQ(e.width, kW);
        EXPECT_EQ(e.height, kH);
        if (l.components.empty()) {
            ASSERT_EQ(e.channels.size(), 1u);
            ASSERT_TRUE(e.channels.count("Y"));
            EXPECT_EQ(e.types.at("Y"), Imf::FLOAT);
            EXPECT_EQ(e.channels.at("Y"), l.data);
            // and the app's own loader reads it as a heightmap.
            EXPECT_EQ(loadHeightmap(dir / (l.name + ".exr"), {}).heights, l.data);
        } else {
            ASSERT_EQ(e.channels.size(), l.components.size());
            for (std::size_t c = 0; c < l.components.size(); ++c) {
                const auto& ch = e.channels.at(l.components[c]);
                for (std::size_t i = 0; i < ch.size(); ++i) ASSERT_EQ(ch[i], l.data[i * l.components.size() + c]);
            }
        }
    }
}

TEST(Maps, MultiLayerExrHasEveryLayerAsNamedChannels) {
    const fs::path dir = scratchDir();
    const auto layers = syntheticLayers();
    writeMaps(dir, kW, kH, layers);
    const Exr e = readExr(dir / kMultiLayerMapsFile);
    EXPECT_EQ(e.width, kW);
    EXPECT_EQ(e.height, kH);
    std::set<std::string> names;
    for (const auto& [name, v] : e.channels) names.insert(name);
    EXPECT_EQ(names, (std::set<std::string>{"water_depth", "sediment", "hardness", "flow", "erosion", "deposition",
                                            "velocity.u", "velocity.v", "height"}));
    for (const MapLayer& l : layers) {
        SCOPED_TRACE(l.name);
        if (l.components.empty()) {
            EXPECT_EQ(e.channels.at(l.name), l.data);
            EXPECT_EQ(e.types.at(l.name), Imf::FLOAT);
            continue;
        }
        for (std::size_t c = 0; c < l.components.size(); ++c) {
            const auto& ch = e.channels.at(l.name + "." + l.components[c]);
            for (std::size_t i = 0; i < ch.size(); ++i) ASSERT_EQ(ch[i], l.data[i * l.components.size() + c]);
        }
    }
}

TEST(Maps, ConstantLayersAndOneCell) {
    const fs::path dir = scratchDir();
    MapLayer zero{"water_depth", {}, std::vector<float>(6, 0.0f), "m"};
    zero.log_mask = true;
    MapLayer flat{"hardness", {}, std::vector<float>(6, 0.5f), "1"};
    writeMaps(dir, 3, 2, {zero, flat});
    const nlohmann::json side = readJson(dir / "water_depth.png.json");
    EXPECT_EQ(side["min"].get<double>(), 0.0);
    EXPECT_EQ(side["max"].get<double>(), 0.0);
    EXPECT_EQ(loadHeightmap(dir / "water_depth.png", {}).heights, std::vector<float>(6, 0.0f));
    EXPECT_EQ(loadHeightmap(dir / "water_depth_log.png", {}).heights, std::vector<float>(6, 0.0f));
    // 0..max: a uniform 0.5 is white with max 0.5.
    EXPECT_EQ(loadHeightmap(dir / "hardness.png", {}).heights, std::vector<float>(6, 0.5f));

    const fs::path one = scratchDir() / "one";
    writeMaps(one, 1, 1, {{"flow", {}, {2.5f}, "m^3"}});
    EXPECT_EQ(readExr(one / kMultiLayerMapsFile).channels.at("flow"), std::vector<float>{2.5f});
}

TEST(Maps, BadLayersAreInputErrorsAndWriteNothing) {
    const fs::path dir = scratchDir() / "out";
    expectInputError(
        [&] {
            writeMaps(dir, 3, 2, {{"flow", {}, std::vector<float>(5, 0.0f), "m^3"}});
        },
        {"flow", "5 values, expected 6"});
    expectInputError(
        [&] {
            writeMaps(dir, 3, 2, {{"flow", {"u", "v"}, std::vector<float>(6, 0.0f), "m/s"}});
        },
        {"expected 12"});
    std::vector<float> nan(6, 1.0f);
    nan[4] = std::nanf("");
    expectInputError(
        [&] {
            writeMaps(dir, 3, 2, {{"sediment", {}, std::vector<float>(6, 0.0f), "m"}, {"flow", {}, nan, "m^3"}});
        },
        {"flow", "not finite"});
    expectInputError([&] { writeMaps(dir, 3, 2, {{"../x", {}, std::vector<float>(6, 0.0f), "m"}}); }, {"names"});
    expectInputError([&] { writeMaps(dir, 0, 2, {}); }, {"0x2"});
    MapLayer velocity{"velocity", {"u", "v"}, std::vector<float>(12, 0.0f), "m/s"};
    velocity.mask_name = "speed";
    expectInputError(
        [&] {
            writeMaps(dir, 3, 2, {velocity, {"speed", {}, std::vector<float>(6, 0.0f), "m/s"}});
        },
        {"two map layers would write", "speed.png"});
    expectInputError(
        [&] {
            writeMaps(dir, 3, 2, {{"maps", {}, std::vector<float>(6, 0.0f), "m"}});
        },
        {"two map layers would write", "maps.exr"});
    EXPECT_FALSE(fs::exists(dir));
}

TEST(Maps, UnwritableFolderLeavesNoPartialFiles) {
    const fs::path base = scratchDir();
    // A file stands where the folder should be, or where one of its parents should be.
    std::ofstream(base / "file") << "x";
    const auto layers = syntheticLayers();
    expectInputError([&] { writeMaps(base / "file", kW, kH, layers); }, {"cannot write"});
    expectInputError([&] { writeMaps(base / "file" / "maps", kW, kH, layers); }, {"cannot write"});
    EXPECT_EQ(listDir(base), std::set<std::string>{"file"});
    EXPECT_EQ(readText(base / "file"), "x");

    // A folder where a later file goes: refused before the first file is written.
    fs::create_directories(base / "out" / "maps.exr");
    expectInputError([&] { writeMaps(base / "out", kW, kH, layers); }, {"maps.exr", "Is a directory"});
    EXPECT_EQ(listDir(base / "out"), std::set<std::string>{"maps.exr"});
}

} // namespace
