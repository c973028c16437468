// Tests of the export: maps (app/io/maps) and the terrain mesh (app/io/mesh). No Vulkan.
//
// [SECTION] helpers: scratch folders, reading PNG/EXR/OBJ/glTF back
// [SECTION] maps
// [SECTION] mesh: building
// [SECTION] mesh: OBJ
// [SECTION] mesh: glTF
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <OpenEXR/ImfChannelList.h>
#include <OpenEXR/ImfFrameBuffer.h>
#include <OpenEXR/ImfHeader.h>
#include <OpenEXR/ImfInputFile.h>
#include <nlohmann/json.hpp>

#include "io/errors.h"
#include "io/heightmap.h"
#include "io/maps.h"
#include "io/mesh.h"
#include "io/terrain_gen.h"

#include "test_util.h"

namespace fs = std::filesystem;
using namespace alluvium;

// [SECTION] helpers ---------------------------------------------------------------------------
namespace {

fs::path scratchDir() { return test::scratchDir("export"); }

std::set<std::string> listDir(const fs::path& dir) {
    const std::vector<std::string> names = test::listDir(dir);
    return {names.begin(), names.end()};
}

using test::expectInputError;

std::string readText(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

nlohmann::json readJson(const fs::path& path) { return nlohmann::json::parse(readText(path)); }

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
    const MapLayer& flow = *std::find_if(layers.begin(), layers.end(), [](const MapLayer& l) { return l.name == "flow"; });
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
    expectInputError([&] { writeMaps(dir, 3, 2, {{"flow", {}, std::vector<float>(5, 0.0f), "m^3"}}); },
                     {"flow", "5 values, expected 6"});
    expectInputError([&] { writeMaps(dir, 3, 2, {{"flow", {"u", "v"}, std::vector<float>(6, 0.0f), "m/s"}}); },
                     {"expected 12"});
    std::vector<float> nan(6, 1.0f);
    nan[4] = std::nanf("");
    expectInputError(
        [&] { writeMaps(dir, 3, 2, {{"sediment", {}, std::vector<float>(6, 0.0f), "m"}, {"flow", {}, nan, "m^3"}}); },
        {"flow", "not finite"});
    expectInputError([&] { writeMaps(dir, 3, 2, {{"../x", {}, std::vector<float>(6, 0.0f), "m"}}); }, {"names"});
    expectInputError([&] { writeMaps(dir, 0, 2, {}); }, {"0x2"});
    MapLayer velocity{"velocity", {"u", "v"}, std::vector<float>(12, 0.0f), "m/s"};
    velocity.mask_name = "speed";
    expectInputError([&] { writeMaps(dir, 3, 2, {velocity, {"speed", {}, std::vector<float>(6, 0.0f), "m/s"}}); },
                     {"two map layers would write", "speed.png"});
    expectInputError([&] { writeMaps(dir, 3, 2, {{"maps", {}, std::vector<float>(6, 0.0f), "m"}}); },
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

// [SECTION] mesh: building --------------------------------------------------------------------

Heightmap grid(int w, int h, const std::function<float(int, int)>& fn) {
    Heightmap m{w, h, {}};
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) m.heights.push_back(fn(x, y));
    return m;
}

// Vertical error of a mesh against the heightmap at every grid point, and how many grid points
// no triangle covers (holes).
void verticalError(const TerrainMesh& m, const Heightmap& t, double cell, double& max_error, long long& uncovered) {
    std::vector<char> covered(t.heights.size(), 0);
    max_error = 0.0;
    for (std::size_t f = 0; f < m.indices.size(); f += 3) {
        double px[3], pz[3], py[3];
        for (int k = 0; k < 3; ++k) {
            const std::size_t v = m.indices[f + std::size_t(k)];
            px[k] = m.positions[3 * v] / cell;
            py[k] = m.positions[3 * v + 1];
            pz[k] = m.positions[3 * v + 2] / cell;
        }
        const double det = (pz[1] - pz[2]) * (px[0] - px[2]) + (px[2] - px[1]) * (pz[0] - pz[2]);
        if (std::abs(det) < 1e-12) continue;
        const int x0 = std::max(0, int(std::floor(std::min({px[0], px[1], px[2]}))));
        const int x1 = std::min(t.width - 1, int(std::ceil(std::max({px[0], px[1], px[2]}))));
        const int z0 = std::max(0, int(std::floor(std::min({pz[0], pz[1], pz[2]}))));
        const int z1 = std::min(t.height - 1, int(std::ceil(std::max({pz[0], pz[1], pz[2]}))));
        for (int z = z0; z <= z1; ++z) {
            for (int x = x0; x <= x1; ++x) {
                const double a = ((pz[1] - pz[2]) * (x - px[2]) + (px[2] - px[1]) * (z - pz[2])) / det;
                const double b = ((pz[2] - pz[0]) * (x - px[2]) + (px[0] - px[2]) * (z - pz[2])) / det;
                const double c = 1.0 - a - b;
                if (a < -1e-6 || b < -1e-6 || c < -1e-6) continue;
                covered[std::size_t(z) * std::size_t(t.width) + std::size_t(x)] = 1;
                max_error = std::max(max_error, std::abs(a * py[0] + b * py[1] + c * py[2] - t.at(x, z)));
            }
        }
    }
    uncovered = std::count(covered.begin(), covered.end(), 0);
}

// No triangle faces down in plan (folded over); triangles of zero area in plan (vertical
// slivers where the simplified surface steps) are at most max_slivers of them.
void expectFacingUp(const TerrainMesh& m, double max_slivers = 0.0) {
    std::size_t slivers = 0;
    for (std::size_t f = 0; f < m.indices.size(); f += 3) {
        const float* a = &m.positions[3 * m.indices[f]];
        const float* b = &m.positions[3 * m.indices[f + 1]];
        const float* c = &m.positions[3 * m.indices[f + 2]];
        // y of (b - a) x (c - a)
        const double ny = double(b[2] - a[2]) * (c[0] - a[0]) - double(b[0] - a[0]) * (c[2] - a[2]);
        ASSERT_GE(ny, 0.0) << "triangle " << f / 3 << " is folded over: (" << a[0] << ", " << a[2] << "), ("
                           << b[0] << ", " << b[2] << "), (" << c[0] << ", " << c[2] << ")";
        if (ny == 0.0) ++slivers;
    }
    EXPECT_LE(double(slivers), max_slivers * double(m.indices.size() / 3)) << slivers << " slivers";
}

TEST(Mesh, SmallNonSquareGridIsKeptWhole) {
    const double cell = 2.5;
    const Heightmap t = grid(3, 2, [](int x, int y) { return float(10 * x + y); });
    const TerrainMesh m = buildTerrainMesh(t, cell, 200000);
    ASSERT_EQ(m.indices.size(), 12u);
    ASSERT_EQ(m.positions.size(), 18u);
    expectFacingUp(m);
    std::set<std::pair<int, int>> seen;
    for (std::size_t v = 0; v < 6; ++v) {
        const int x = int(std::lround(m.positions[3 * v] / cell)), y = int(std::lround(m.positions[3 * v + 2] / cell));
        seen.insert({x, y});
        EXPECT_EQ(m.positions[3 * v + 1], t.at(x, y));
        EXPECT_FLOAT_EQ(m.uvs[2 * v], float((x + 0.5) / 3));
        EXPECT_FLOAT_EQ(m.uvs[2 * v + 1], float((y + 0.5) / 2));
        // Normal of h = 10 x + y (per cell) = 4 x' + 0.4 z' in metres: (-4, 1, -0.4) normalised.
        const double len = std::sqrt(16.0 + 1.0 + 0.16);
        EXPECT_NEAR(m.normals[3 * v], -4.0 / len, 1e-6);
        EXPECT_NEAR(m.normals[3 * v + 1], 1.0 / len, 1e-6);
        EXPECT_NEAR(m.normals[3 * v + 2], -0.4 / len, 1e-6);
    }
    EXPECT_EQ(seen.size(), 6u);
}

TEST(Mesh, TinyAndDegenerateGrids) {
    const TerrainMesh m = buildTerrainMesh(grid(2, 2, [](int, int) { return 1.0f; }), 1.0, 200000);
    EXPECT_EQ(m.indices.size(), 6u);
    expectFacingUp(m);
    for (auto [w, h] : {std::pair{1, 5}, std::pair{5, 1}, std::pair{1, 1}})
        expectInputError([&] { buildTerrainMesh(grid(w, h, [](int, int) { return 0.0f; }), 1.0, 100); },
                         {"a mesh needs at least 2x2 cells"});
    expectInputError([&] { buildTerrainMesh(grid(4, 4, [](int, int) { return 0.0f; }), 0.0, 100); }, {"cell size"});
    expectInputError([&] { buildTerrainMesh(grid(4, 4, [](int, int) { return 0.0f; }), 1.0, 1); }, {"at least 2"});
    expectInputError([&] { buildTerrainMesh(grid(4, 4, [](int x, int) { return x == 2 ? NAN : 0.0f; }), 1.0, 100); },
                     {"(2, 0)", "not finite"});
}

TEST(Mesh, ProceduralTerrainSimplifiesWithinTwoPercentOfTheRelief) {
    const double cell = 4.0;
    const Heightmap t = generateTerrain(256, 256, 7, cell).terrain;
    const auto [lo, hi] = std::minmax_element(t.heights.begin(), t.heights.end());
    const double relief = double(*hi) - *lo;
    const std::size_t target = 20000;
    const TerrainMesh m = buildTerrainMesh(t, cell, target);
    const std::size_t tris = m.indices.size() / 3;
    EXPECT_LE(tris, target);
    EXPECT_GT(tris, target / 4);
    expectFacingUp(m, 0.02);
    double max_error = 0.0;
    long long uncovered = 0;
    verticalError(m, t, cell, max_error, uncovered);
    EXPECT_EQ(uncovered, 0) << "holes in the mesh";
    EXPECT_LT(max_error, 0.02 * relief) << "relief " << relief;
    std::printf("256^2 -> %zu triangles, %zu vertices: max vertical error %.3f m (%.3f%% of %.1f m relief)\n", tris,
                m.positions.size() / 3, max_error, 100.0 * max_error / relief, relief);

    // Extent: the border is kept, so x and z span the grid exactly; heights stay within the
    // terrain's and reach near its extremes.
    float mn[3] = {1e30f, 1e30f, 1e30f}, mx[3] = {-1e30f, -1e30f, -1e30f};
    for (std::size_t i = 0; i < m.positions.size(); ++i) {
        mn[i % 3] = std::min(mn[i % 3], m.positions[i]);
        mx[i % 3] = std::max(mx[i % 3], m.positions[i]);
    }
    EXPECT_EQ(mn[0], 0.0f);
    EXPECT_EQ(mn[2], 0.0f);
    EXPECT_EQ(mx[0], float(255 * cell));
    EXPECT_EQ(mx[2], float(255 * cell));
    EXPECT_GE(mn[1], *lo);
    EXPECT_LE(mx[1], *hi);
    EXPECT_LT(mn[1] - *lo, 0.02 * relief);
    EXPECT_LT(*hi - mx[1], 0.02 * relief);

    // Normals come from the full-resolution grid (central differences), not the triangles.
    for (std::size_t v = 0; v < m.positions.size() / 3; ++v) {
        const int x = int(std::lround(m.positions[3 * v] / cell)), y = int(std::lround(m.positions[3 * v + 2] / cell));
        if (x == 0 || y == 0 || x == 255 || y == 255) continue;
        const double dx = (double(t.at(x + 1, y)) - t.at(x - 1, y)) / (2 * cell);
        const double dz = (double(t.at(x, y + 1)) - t.at(x, y - 1)) / (2 * cell);
        const double len = std::sqrt(dx * dx + 1 + dz * dz);
        ASSERT_NEAR(m.normals[3 * v], -dx / len, 1e-5);
        ASSERT_NEAR(m.normals[3 * v + 1], 1 / len, 1e-5);
        ASSERT_NEAR(m.normals[3 * v + 2], -dz / len, 1e-5);
    }
}

TEST(Mesh, TinyTargetSimplifiesTheBorderToo) {
    const Heightmap t = generateTerrain(64, 48, 3, 10.0).terrain;
    const TerrainMesh m = buildTerrainMesh(t, 10.0, 50);
    EXPECT_LE(m.indices.size() / 3, 50u);
    EXPECT_GE(m.indices.size() / 3, 2u);
    expectFacingUp(m, 0.2);
}

// [SECTION] mesh: OBJ -------------------------------------------------------------------------

struct Obj {
    std::vector<std::array<double, 3>> v, vn;
    std::vector<std::array<double, 2>> vt;
    std::vector<std::array<long, 9>> f; // v/vt/vn x 3
};

Obj parseObj(const fs::path& path) {
    Obj o;
    std::istringstream in(readText(path));
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream s(line);
        std::string tag;
        s >> tag;
        if (tag == "v" || tag == "vn") {
            std::array<double, 3> a{};
            s >> a[0] >> a[1] >> a[2];
            EXPECT_FALSE(s.fail()) << line;
            (tag == "v" ? o.v : o.vn).push_back(a);
        } else if (tag == "vt") {
            std::array<double, 2> a{};
            s >> a[0] >> a[1];
            EXPECT_FALSE(s.fail()) << line;
            o.vt.push_back(a);
        } else if (tag == "f") {
            std::array<long, 9> a{};
            for (int k = 0; k < 3; ++k) {
                char slash1 = 0, slash2 = 0;
                s >> a[std::size_t(3 * k)] >> slash1 >> a[std::size_t(3 * k + 1)] >> slash2 >> a[std::size_t(3 * k + 2)];
                EXPECT_TRUE(slash1 == '/' && slash2 == '/') << line;
            }
            EXPECT_FALSE(s.fail()) << line;
            std::string rest;
            EXPECT_FALSE(s >> rest) << "a face with more than 3 vertices: " << line;
            o.f.push_back(a);
        } else {
            EXPECT_TRUE(tag.empty() || tag[0] == '#') << line;
        }
    }
    return o;
}

TEST(Mesh, ObjParsesWithIndicesInRange) {
    const fs::path dir = scratchDir();
    const double cell = 4.0;
    const Heightmap t = generateTerrain(96, 64, 5, cell).terrain;
    const std::size_t target = 2000;
    writeTerrainMesh(dir / "terrain.obj", t, cell, target);
    EXPECT_EQ(listDir(dir), std::set<std::string>{"terrain.obj"});
    const Obj o = parseObj(dir / "terrain.obj");
    ASSERT_GT(o.v.size(), 3u);
    EXPECT_EQ(o.vt.size(), o.v.size());
    EXPECT_EQ(o.vn.size(), o.v.size());
    EXPECT_LE(o.f.size(), target);
    EXPECT_GT(o.f.size(), target / 4);
    for (const auto& f : o.f)
        for (long i : f) ASSERT_TRUE(i >= 1 && i <= long(o.v.size())) << i;
    for (const auto& vt : o.vt) {
        ASSERT_GT(vt[0], 0.0);
        ASSERT_LT(vt[0], 1.0);
        ASSERT_GT(vt[1], 0.0);
        ASSERT_LT(vt[1], 1.0);
    }
    for (std::size_t i = 0; i < o.v.size(); ++i) {
        const auto& n = o.vn[i];
        ASSERT_NEAR(n[0] * n[0] + n[1] * n[1] + n[2] * n[2], 1.0, 1e-5);
        // The OBJ's v runs up: row 0 (z = 0) is at the top of the texture (v near 1).
        const double row = o.v[i][2] / cell;
        ASSERT_NEAR(o.vt[i][1], 1.0 - (row + 0.5) / 64.0, 1e-6);
        const double col = o.v[i][0] / cell;
        ASSERT_NEAR(o.v[i][1], t.at(int(std::lround(col)), int(std::lround(row))), 1e-3);
    }
}

TEST(Mesh, WriteErrorsLeaveNoFiles) {
    const fs::path dir = scratchDir();
    const Heightmap t = grid(4, 4, [](int x, int y) { return float(x * y); });
    expectInputError([&] { writeTerrainMesh(dir / "terrain.stl", t, 1.0, 100); }, {".stl", ".obj or .gltf"});
    std::ofstream(dir / "file") << "x";
    expectInputError([&] { writeTerrainMesh(dir / "file" / "terrain.obj", t, 1.0, 100); }, {"cannot write"});
    expectInputError([&] { writeTerrainMesh(dir / "thin.gltf", grid(1, 9, [](int, int) { return 0.0f; }), 1.0, 100); },
                     {"2x2"});
    EXPECT_EQ(listDir(dir), std::set<std::string>{"file"});
    writeTerrainMesh(dir / "sub" / "TERRAIN.OBJ", t, 1.0, 100); // creates the folder; any case
    EXPECT_TRUE(fs::is_regular_file(dir / "sub" / "TERRAIN.OBJ"));
}

// [SECTION] mesh: glTF ------------------------------------------------------------------------

std::vector<unsigned char> decodeBase64(const std::string& s) {
    std::vector<unsigned char> out;
    uint32_t acc = 0;
    int bits = 0;
    for (char c : s) {
        int v = -1;
        if (c >= 'A' && c <= 'Z') v = c - 'A';
        else if (c >= 'a' && c <= 'z') v = c - 'a' + 26;
        else if (c >= '0' && c <= '9') v = c - '0' + 52;
        else if (c == '+') v = 62;
        else if (c == '/') v = 63;
        else if (c == '=') break;
        else ADD_FAILURE() << "bad base64 character " << int(c);
        acc = (acc << 6) | uint32_t(v);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out.push_back(static_cast<unsigned char>((acc >> bits) & 0xffu));
        }
    }
    return out;
}

TEST(Mesh, GltfIsValidAndItsBufferMatchesTheAccessors) {
    const fs::path dir = scratchDir();
    const double cell = 3.0;
    const Heightmap t = generateTerrain(80, 120, 11, cell).terrain;
    const std::size_t target = 3000;
    writeTerrainMesh(dir / "terrain.gltf", t, cell, target);
    EXPECT_EQ(listDir(dir), std::set<std::string>{"terrain.gltf"});
    const nlohmann::json g = readJson(dir / "terrain.gltf");

    EXPECT_EQ(g["asset"]["version"], "2.0");
    ASSERT_EQ(g["scenes"].size(), 1u);
    EXPECT_EQ(g["scene"], 0);
    EXPECT_EQ(g["scenes"][0]["nodes"], nlohmann::json::array({0}));
    ASSERT_EQ(g["nodes"].size(), 1u);
    EXPECT_EQ(g["nodes"][0]["mesh"], 0);
    ASSERT_EQ(g["meshes"].size(), 1u);
    ASSERT_EQ(g["meshes"][0]["primitives"].size(), 1u);
    const auto& prim = g["meshes"][0]["primitives"][0];
    EXPECT_EQ(prim.value("mode", 4), 4);
    const auto& attr = prim["attributes"];
    ASSERT_TRUE(attr.contains("POSITION") && attr.contains("NORMAL") && attr.contains("TEXCOORD_0"));

    ASSERT_EQ(g["buffers"].size(), 1u);
    const std::string uri = g["buffers"][0]["uri"];
    const std::string prefix = "data:application/octet-stream;base64,";
    ASSERT_EQ(uri.rfind(prefix, 0), 0u);
    const std::vector<unsigned char> buf = decodeBase64(uri.substr(prefix.size()));
    ASSERT_EQ(buf.size(), g["buffers"][0]["byteLength"].get<std::size_t>());

    // Each accessor: its view lies in the buffer and holds exactly count elements.
    auto accessorData = [&](int index, int component_type, const std::string& type, std::size_t components) {
        const auto& a = g["accessors"][std::size_t(index)];
        EXPECT_EQ(a["componentType"], component_type);
        EXPECT_EQ(a["type"], type);
        const auto& view = g["bufferViews"][a["bufferView"].get<std::size_t>()];
        EXPECT_EQ(view["buffer"], 0);
        const std::size_t offset = view.value("byteOffset", std::size_t(0)) + a.value("byteOffset", std::size_t(0));
        const std::size_t length = view["byteLength"];
        EXPECT_EQ(offset % 4, 0u);
        EXPECT_LE(offset + length, buf.size());
        EXPECT_EQ(length, a["count"].get<std::size_t>() * components * 4);
        return std::pair{buf.data() + offset, a["count"].get<std::size_t>()};
    };
    const auto [pos_bytes, nv] = accessorData(attr["POSITION"], 5126, "VEC3", 3);
    const auto [nrm_bytes, nn] = accessorData(attr["NORMAL"], 5126, "VEC3", 3);
    const auto [uv_bytes, nuv] = accessorData(attr["TEXCOORD_0"], 5126, "VEC2", 2);
    const auto [idx_bytes, ni] = accessorData(prim["indices"], 5125, "SCALAR", 1);
    EXPECT_EQ(g["bufferViews"][g["accessors"][prim["indices"].get<std::size_t>()]["bufferView"].get<std::size_t>()]["target"],
              34963);
    EXPECT_EQ(nn, nv);
    EXPECT_EQ(nuv, nv);
    EXPECT_EQ(ni % 3, 0u);
    EXPECT_LE(ni / 3, target);
    EXPECT_GT(ni / 3, target / 4);

    std::vector<float> pos(nv * 3), nrm(nv * 3), uv(nv * 2);
    std::vector<uint32_t> idx(ni);
    std::memcpy(pos.data(), pos_bytes, pos.size() * 4);
    std::memcpy(nrm.data(), nrm_bytes, nrm.size() * 4);
    std::memcpy(uv.data(), uv_bytes, uv.size() * 4);
    std::memcpy(idx.data(), idx_bytes, idx.size() * 4);
    for (uint32_t i : idx) ASSERT_LT(i, nv);

    // POSITION min/max: required, and exactly the data's bounds; x and z span the grid.
    const auto& pa = g["accessors"][attr["POSITION"].get<std::size_t>()];
    for (std::size_t k = 0; k < 3; ++k) {
        float lo = 1e30f, hi = -1e30f;
        for (std::size_t v = 0; v < nv; ++v) {
            lo = std::min(lo, pos[3 * v + k]);
            hi = std::max(hi, pos[3 * v + k]);
        }
        EXPECT_EQ(pa["min"][k].get<float>(), lo);
        EXPECT_EQ(pa["max"][k].get<float>(), hi);
    }
    EXPECT_EQ(pa["min"][0].get<float>(), 0.0f);
    EXPECT_EQ(pa["max"][0].get<float>(), float(79 * cell));
    EXPECT_EQ(pa["min"][2].get<float>(), 0.0f);
    EXPECT_EQ(pa["max"][2].get<float>(), float(119 * cell));
    const auto [tlo, thi] = std::minmax_element(t.heights.begin(), t.heights.end());
    EXPECT_GE(pa["min"][1].get<float>(), *tlo);
    EXPECT_LE(pa["max"][1].get<float>(), *thi);

    for (std::size_t v = 0; v < nv; ++v) {
        const double len = std::sqrt(double(nrm[3 * v]) * nrm[3 * v] + double(nrm[3 * v + 1]) * nrm[3 * v + 1] +
                                     double(nrm[3 * v + 2]) * nrm[3 * v + 2]);
        ASSERT_NEAR(len, 1.0, 1e-5);
        ASSERT_GT(nrm[3 * v + 1], 0.0f);
        const int col = int(std::lround(pos[3 * v] / cell)), row = int(std::lround(pos[3 * v + 2] / cell));
        ASSERT_EQ(pos[3 * v + 1], t.at(col, row));
        ASSERT_FLOAT_EQ(uv[2 * v], float((col + 0.5) / 80));
        ASSERT_FLOAT_EQ(uv[2 * v + 1], float((row + 0.5) / 120)); // glTF: v = 0 at the top row
    }
}

TEST(Mesh, NoTriangleFoldsOverOnManyTerrains) {
    for (int seed : {1, 2, 3, 4}) {
        for (auto [w, h, target] : {std::tuple{128, 96, 1000}, std::tuple{200, 150, 8000}, std::tuple{64, 64, 300}}) {
            SCOPED_TRACE(std::to_string(seed) + ": " + std::to_string(w) + "x" + std::to_string(h) + " to " +
                         std::to_string(target));
            const Heightmap t = generateTerrain(w, h, uint64_t(seed), 5.0).terrain;
            const TerrainMesh m = buildTerrainMesh(t, 5.0, std::size_t(target));
            EXPECT_LE(m.indices.size() / 3, std::size_t(target));
            expectFacingUp(m, 0.03);
        }
    }
}

} // namespace
