// Tests of the heightmap files (app/io/heightmap) that load and save: round trips in PNG and
// f32, and the real DEMs from shared/data. Load and save errors, atomic writes:
// test_io_errors.cpp; the terrain generator: test_io_terrain_gen.cpp; the helpers: io_files.h.
//
// [SECTION] helpers: directory listings, bytes, the sidecar's JSON, shared/data
// [SECTION] round trips
// [SECTION] real DEMs from shared/data
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>
#include <png.h>

#include "io/heightmap.h"

#include "io_files.h"
#include "test_util.h"

namespace fs = std::filesystem;
using namespace alluvium;

// [SECTION] helpers ---------------------------------------------------------------------------
namespace {

using test::listDir;

using test::readBytes;

nlohmann::json readJson(const fs::path& p) {
    std::ifstream in(p);
    return nlohmann::json::parse(in);
}

const fs::path kData = ALLUVIUM_SHARED_DATA_DIR;

} // namespace

// [SECTION] round trips -----------------------------------------------------------------------

TEST(HeightmapIo, Png16RoundTripWithinOneStepAndSidecar) {
    const fs::path dir = scratchDir();
    const Heightmap m = makeMap(64, 48, -50.25f, 1234.5f);
    const fs::path out = dir / "sub" / "eroded.png"; // parent is created
    saveHeightmap(out, m, 2.5);

    EXPECT_EQ(listDir(dir / "sub"), (std::vector<std::string>{"eroded.png", "eroded.png.json"}));
    const nlohmann::json side = readJson(dir / "sub" / "eroded.png.json");
    EXPECT_EQ(side.at("width").get<int>(), 64);
    EXPECT_EQ(side.at("height").get<int>(), 48);
    EXPECT_DOUBLE_EQ(side.at("cell_size_m").get<double>(), 2.5);
    EXPECT_DOUBLE_EQ(side.at("min_m").get<double>(), -50.25);
    EXPECT_DOUBLE_EQ(side.at("max_m").get<double>(), 1234.5);
    EXPECT_EQ(side.at("png16_decode").get<std::string>(), "h = min_m + v/65535*(max_m-min_m)");

    const Heightmap back = loadHeightmap(out, LoadOptions{}); // range from the sidecar
    ASSERT_EQ(back.width, 64);
    ASSERT_EQ(back.height, 48);
    ASSERT_EQ(back.heights.size(), m.heights.size());
    const double step = (1234.5 + 50.25) / 65535.0;
    double worst = 0.0;
    for (std::size_t i = 0; i < m.heights.size(); ++i)
        worst = std::max(worst, std::fabs(static_cast<double>(back.heights[i]) - m.heights[i]));
    EXPECT_LE(worst, step);
    EXPECT_GT(worst, 0.0); // it really was quantised, not read from somewhere else
    EXPECT_FLOAT_EQ(back.heights[0], -50.25f);
    EXPECT_FLOAT_EQ(back.heights.back(), 1234.5f);
}

TEST(HeightmapIo, Png16RoundTripNonSquareAndThin) {
    const fs::path dir = scratchDir();
    for (const auto& [w, h] : std::vector<std::pair<int, int>>{{97, 61}, {1, 50}, {50, 1}}) {
        SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
        const Heightmap m = makeMap(w, h, 10.0f, 500.0f);
        const fs::path out = dir / ("m" + std::to_string(w) + "x" + std::to_string(h) + ".png");
        saveHeightmap(out, m, 1.0);
        const Heightmap back = loadHeightmap(out, LoadOptions{});
        ASSERT_EQ(back.width, w);
        ASSERT_EQ(back.height, h);
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x)
                ASSERT_NEAR(back.at(x, y), m.at(x, y), 490.0 / 65535.0 + 1e-4) << "at (" << x << ", " << y << ")";
    }
}

TEST(HeightmapIo, FlatMapSavesAsZerosAndLoadsBack) {
    const fs::path dir = scratchDir();
    Heightmap m;
    m.width = 4;
    m.height = 3;
    m.heights.assign(12, 42.0f);
    saveHeightmap(dir / "flat.png", m, 1.0);
    const nlohmann::json side = readJson(dir / "flat.png.json");
    EXPECT_DOUBLE_EQ(side.at("min_m").get<double>(), 42.0);
    EXPECT_DOUBLE_EQ(side.at("max_m").get<double>(), 42.0);
    const Heightmap back = loadHeightmap(dir / "flat.png", LoadOptions{});
    for (float v : back.heights) EXPECT_EQ(v, 42.0f);
}

TEST(HeightmapIo, Png8WithHeightRange) {
    const fs::path dir = scratchDir();
    std::vector<uint16_t> v(5 * 3);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<uint16_t>(i * 17); // 0..238
    v.back() = 255;
    writeTestPng(dir / "grey8.png", 5, 3, 8, PNG_COLOR_TYPE_GRAY, v);

    LoadOptions opt;
    opt.has_height_range = true;
    opt.range_lo = 100.0;
    opt.range_hi = 355.0; // 1 m per grey level
    const Heightmap m = loadHeightmap(dir / "grey8.png", opt);
    ASSERT_EQ(m.width, 5);
    ASSERT_EQ(m.height, 3);
    for (std::size_t i = 0; i < v.size(); ++i) EXPECT_FLOAT_EQ(m.heights[i], 100.0f + v[i]);

    // No range and no sidecar: the documented default 0..1000 m.
    const Heightmap d = loadHeightmap(dir / "grey8.png", LoadOptions{});
    EXPECT_FLOAT_EQ(d.heights.back(), 1000.0f);
    EXPECT_FLOAT_EQ(d.heights[1], static_cast<float>(17.0 / 255.0 * 1000.0));
}

TEST(HeightmapIo, PngGreyAlphaIgnoresAlphaAndRangeOverridesSidecar) {
    const fs::path dir = scratchDir();
    // 16-bit grey + alpha, 2x2: grey 0, 65535, 32768, 1000; alpha varies and must not matter.
    writeTestPng(dir / "ga.png", 2, 2, 16, PNG_COLOR_TYPE_GRAY_ALPHA, {0, 65535, 65535, 0, 32768, 12345, 1000, 7});
    LoadOptions opt;
    opt.has_height_range = true;
    opt.range_lo = 0.0;
    opt.range_hi = 65535.0;
    // A sidecar saying something else is ignored when --height-range is given.
    std::ofstream(dir / "ga.png.json") << R"({"min_m": -5, "max_m": 5})";
    const Heightmap m = loadHeightmap(dir / "ga.png", opt);
    EXPECT_FLOAT_EQ(m.at(0, 0), 0.0f);
    EXPECT_FLOAT_EQ(m.at(1, 0), 65535.0f);
    EXPECT_FLOAT_EQ(m.at(0, 1), 32768.0f);
    EXPECT_FLOAT_EQ(m.at(1, 1), 1000.0f);
    // Without the option the sidecar applies.
    const Heightmap s = loadHeightmap(dir / "ga.png", LoadOptions{});
    EXPECT_FLOAT_EQ(s.at(0, 0), -5.0f);
    EXPECT_FLOAT_EQ(s.at(1, 0), 5.0f);
}

TEST(HeightmapIo, F32RoundTripIsBitExactAndLittleEndian) {
    const fs::path dir = scratchDir();
    Heightmap m = makeMap(97, 61, -11000.0f, 8848.86f);
    m.heights[1] = -0.0f;
    m.heights[2] = std::numeric_limits<float>::denorm_min();
    m.heights[3] = -1e7f; // the lowest height accepted
    m.heights[4] = 1.0f;
    saveHeightmap(dir / "m.f32", m, 1.0);
    EXPECT_EQ(listDir(dir), std::vector<std::string>{"m.f32"}); // no sidecar, no temp files

    const auto bytes = readBytes(dir / "m.f32");
    ASSERT_EQ(bytes.size(), 97u * 61u * 4u);
    EXPECT_EQ(bytes[16], 0x00); // 1.0f = 0x3F800000, little-endian
    EXPECT_EQ(bytes[17], 0x00);
    EXPECT_EQ(bytes[18], 0x80);
    EXPECT_EQ(bytes[19], 0x3F);

    LoadOptions opt;
    opt.width = 97;
    opt.height = 61;
    const Heightmap back = loadHeightmap(dir / "m.f32", opt);
    ASSERT_EQ(back.heights.size(), m.heights.size());
    EXPECT_EQ(std::memcmp(back.heights.data(), m.heights.data(), m.heights.size() * 4), 0);
}

TEST(HeightmapIo, F32ThinGrids) {
    const fs::path dir = scratchDir();
    for (const auto& [w, h] : std::vector<std::pair<int, int>>{{1, 50}, {50, 1}, {1, 1}}) {
        const Heightmap m = makeMap(w, h, 0.0f, 3.0f);
        const fs::path p = dir / ("t" + std::to_string(w) + "x" + std::to_string(h) + ".f32");
        saveHeightmap(p, m, 1.0);
        LoadOptions opt;
        opt.width = w;
        opt.height = h;
        const Heightmap back = loadHeightmap(p, opt);
        EXPECT_EQ(back.width, w);
        EXPECT_EQ(back.height, h);
        EXPECT_EQ(back.heights, m.heights);
    }
}

TEST(HeightmapIo, UppercaseExtensionWorks) {
    const fs::path dir = scratchDir();
    const Heightmap m = makeMap(8, 8, 0.0f, 1.0f);
    saveHeightmap(dir / "A.PNG", m, 1.0);
    EXPECT_TRUE(fs::exists(dir / "A.PNG.json"));
    EXPECT_EQ(loadHeightmap(dir / "A.PNG", LoadOptions{}).width, 8);
}

// [SECTION] real DEMs from shared/data --------------------------------------------------------

TEST(RealDems, OlindaF32MatchesItsJson) {
    const nlohmann::json meta = readJson(kData / "olinda.json");
    LoadOptions opt;
    opt.width = meta.at("cols").get<int>();
    opt.height = meta.at("rows").get<int>();
    ASSERT_EQ(opt.width, 111);
    const Heightmap m = loadHeightmap(kData / "olinda_111x111.f32", opt);
    const auto [lo, hi] = std::minmax_element(m.heights.begin(), m.heights.end());
    EXPECT_FLOAT_EQ(*lo, meta.at("min_m").get<float>());
    EXPECT_FLOAT_EQ(*hi, meta.at("max_m").get<float>());
    double sum = 0.0;
    for (float v : m.heights) sum += v;
    EXPECT_NEAR(sum / static_cast<double>(m.heights.size()), meta.at("mean_m").get<double>(), 1e-3);
}

// For each DEM: the f32 and the 16-bit PNG (with --height-range from the JSON) load to the same
// size and min/max, and agree cell by cell to within one PNG step.
TEST(RealDems, PngWithHeightRangeMatchesF32AndJson) {
    struct Dem {
        const char* json;
        const char* f32;
        const char* png;
    };
    for (const Dem& d :
         {Dem{"srtm_frontrange_240x144.json", "srtm_frontrange_240x144_240x144.f32", "srtm_frontrange_240x144_u16.png"},
          Dem{"west_bijou_escarpment.json", "west_bijou_escarpment_129x67.f32", "west_bijou_escarpment_u16.png"},
          Dem{"olinda.json", "olinda_111x111.f32", "olinda_u16.png"}}) {
        SCOPED_TRACE(d.png);
        const nlohmann::json meta = readJson(kData / d.json);
        const double lo = meta.at("min_m").get<double>(), hi = meta.at("max_m").get<double>();
        LoadOptions popt;
        popt.has_height_range = true;
        popt.range_lo = lo;
        popt.range_hi = hi;
        const Heightmap p = loadHeightmap(kData / d.png, popt);
        EXPECT_EQ(p.width, meta.at("cols").get<int>());
        EXPECT_EQ(p.height, meta.at("rows").get<int>());
        const auto [pl, ph] = std::minmax_element(p.heights.begin(), p.heights.end());
        EXPECT_NEAR(*pl, lo, 1e-3 * (hi - lo));
        EXPECT_NEAR(*ph, hi, 1e-3 * (hi - lo));

        LoadOptions fopt;
        fopt.width = p.width;
        fopt.height = p.height;
        const Heightmap f = loadHeightmap(kData / d.f32, fopt);
        const auto [fl, fh] = std::minmax_element(f.heights.begin(), f.heights.end());
        EXPECT_FLOAT_EQ(*fl, static_cast<float>(lo));
        EXPECT_FLOAT_EQ(*fh, static_cast<float>(hi));
        ASSERT_EQ(f.heights.size(), p.heights.size());
        double worst = 0.0;
        for (std::size_t i = 0; i < f.heights.size(); ++i)
            worst = std::max(worst, std::fabs(static_cast<double>(f.heights[i]) - p.heights[i]));
        EXPECT_LE(worst, (hi - lo) / 65535.0 + 1e-3);
    }
}

TEST(RealDems, SaveAndReloadRealDemAsPng) {
    const fs::path dir = scratchDir();
    LoadOptions opt;
    opt.width = 240;
    opt.height = 144;
    const Heightmap m = loadHeightmap(kData / "srtm_frontrange_240x144_240x144.f32", opt);
    saveHeightmap(dir / "front.png", m, 90.0);
    const nlohmann::json side = readJson(dir / "front.png.json");
    EXPECT_DOUBLE_EQ(side.at("min_m").get<double>(), 1943.0);
    EXPECT_DOUBLE_EQ(side.at("max_m").get<double>(), 3286.0);
    const Heightmap back = loadHeightmap(dir / "front.png", LoadOptions{});
    for (std::size_t i = 0; i < m.heights.size(); ++i)
        ASSERT_NEAR(back.heights[i], m.heights[i], (3286.0 - 1943.0) / 65535.0 + 1e-3);
}
