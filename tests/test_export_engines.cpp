// Heightmaps for game engines (io/engine_export.h): the engines' documented sizes, resampling that
// keeps the extent and the height range, files that re-imported give the heights back within one
// 16-bit step, and import settings that decode the samples to metres. No Vulkan.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/engine_export.h"
#include "io/errors.h"
#include "io/heightmap.h"

#include "test_util.h"

namespace fs = std::filesystem;
using namespace alluvium;
using namespace alluvium::test;

namespace {

// Smooth hills with a one-cell spike and pit away from every sample of the engines' grids.
Heightmap field(int w, int h, uint32_t seed) {
    Heightmap m;
    m.width = w;
    m.height = h;
    m.heights.resize(std::size_t(w) * std::size_t(h));
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> phase(0.0, 6.28);
    const double a = phase(rng), b = phase(rng);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            m.heights[std::size_t(y) * std::size_t(w) + std::size_t(x)] =
                float(800.0 + 120.0 * std::sin(0.21 * x + a) * std::cos(0.17 * y + b) + 0.3 * x);
    m.heights[std::size_t(h / 2) * std::size_t(w) + std::size_t(w / 3)] = 1400.0f;
    m.heights[std::size_t(h / 3) * std::size_t(w) + std::size_t(w / 2)] = 300.0f;
    return m;
}

nlohmann::json readJson(const fs::path& path) {
    std::ifstream in(path);
    return nlohmann::json::parse(in);
}

// The exported heights as the engine reads them, in the source's row order.
Heightmap reimport(Engine engine, const fs::path& out, int side) {
    LoadOptions opt;
    if (engine == Engine::Unity) {
        opt.width = side;
        opt.height = side;
    }
    Heightmap m = loadHeightmap(out, opt);
    if (engine == Engine::Unity) { // its first row is the terrain's z = 0 edge, the source's last
        Heightmap flipped = m;
        for (int y = 0; y < side; ++y)
            for (int x = 0; x < side; ++x)
                flipped.heights[std::size_t(y) * side + x] = m.heights[std::size_t(side - 1 - y) * side + x];
        m = flipped;
    }
    return m;
}

} // namespace

TEST(EngineExport, SidesAreTheEnginesDocumentedSizes) {
    EXPECT_EQ(engineSides(Engine::Unreal), (std::vector<int>{127, 253, 505, 1009, 2017, 4033, 8129}));
    for (Engine e : {Engine::Unity, Engine::Godot}) {
        const std::vector<int>& sides = engineSides(e);
        ASSERT_FALSE(sides.empty());
        EXPECT_EQ(sides.front(), 33);
        EXPECT_EQ(sides.back(), 4097);
        for (int s : sides) EXPECT_EQ((s - 1) & (s - 2), 0) << s << " is not 2^n + 1";
    }
    EXPECT_EQ(engineSide(Engine::Unreal, 240, 144, 0), 253);
    EXPECT_EQ(engineSide(Engine::Unreal, 127, 90, 0), 127);
    EXPECT_EQ(engineSide(Engine::Unity, 1024, 1024, 0), 1025);
    EXPECT_EQ(engineSide(Engine::Unity, 9000, 10, 0), 4097);
    EXPECT_EQ(engineSide(Engine::Godot, 10, 10, 513), 513);
    expectInputError([] { engineSide(Engine::Unreal, 10, 10, 1024); }, {"--side 1024", "unreal", "1009"});
    expectInputError([] { engineNamed("cryengine"); }, {"cryengine", "unreal", "unity", "godot"});
    EXPECT_EQ(engineNamed("Unreal"), Engine::Unreal);
}

TEST(EngineExport, ResamplingKeepsTheCornersAndTheRange) {
    const Heightmap m = field(97, 61, 3);
    const Heightmap same = resampleCorners(m, 97, 61);
    EXPECT_EQ(same.heights, m.heights); // the same grid: every sample exactly
    const Heightmap r = resampleCorners(m, 129, 129);
    EXPECT_EQ(r.at(0, 0), m.at(0, 0));
    EXPECT_EQ(r.at(128, 0), m.at(96, 0));
    EXPECT_EQ(r.at(0, 128), m.at(0, 60));
    EXPECT_EQ(r.at(128, 128), m.at(96, 60));
    const auto [lo, hi] = std::minmax_element(m.heights.begin(), m.heights.end());
    for (float v : r.heights) {
        EXPECT_GE(v, *lo);
        EXPECT_LE(v, *hi);
    }
}

// Each engine's file, read back as the engine reads it, holds the resampled heights within one
// 16-bit step of the source's range (float EXR: to float rounding), and the range is the source's
// exactly, though the spike and the pit fall between the samples.
TEST(EngineExport, ReimportedHeightsAreWithinOneStep) {
    const fs::path dir = scratchDir("engine_export");
    const Heightmap m = field(97, 61, 7);
    const auto [mn, mx] = std::minmax_element(m.heights.begin(), m.heights.end());
    const double step = (double(*mx) - *mn) / 65535.0;
    for (Engine engine : {Engine::Unreal, Engine::Unity, Engine::Godot}) {
        SCOPED_TRACE(engineName(engine));
        const fs::path out = dir / (std::string("terrain_") + engineName(engine) +
                                    (engine == Engine::Unreal  ? ".png"
                                     : engine == Engine::Unity ? ".raw"
                                                               : ".exr"));
        const EngineExport e = exportForEngine(engine, m, 10.0, out, 0);
        EXPECT_EQ(e.side, engine == Engine::Unreal ? 127 : 129);
        EXPECT_EQ(e.lo, *mn);
        EXPECT_EQ(e.hi, *mx);
        EXPECT_DOUBLE_EQ(e.spacing_x * (e.side - 1), 10.0 * 96); // the extent kept
        EXPECT_DOUBLE_EQ(e.spacing_y * (e.side - 1), 10.0 * 60);
        const Heightmap expected = resampleCorners(m, e.side, e.side);
        const Heightmap back = reimport(engine, out, e.side);
        ASSERT_EQ(back.width, e.side);
        ASSERT_EQ(back.height, e.side);
        double worst = 0.0;
        for (std::size_t i = 0; i < back.heights.size(); ++i)
            worst = std::max(worst, std::abs(double(back.heights[i]) - expected.heights[i]));
        // Rounding to the nearest step is half a step; the float of the decoded metres adds its own.
        EXPECT_LE(worst, engine == Engine::Godot ? 1e-4 : 0.5 * step + 1e-4) << "step " << step;
        const nlohmann::json settings = readJson(e.settings_file);
        EXPECT_EQ(settings["engine"], engineName(engine));
        EXPECT_EQ(settings["min_m"].get<double>(), *mn);
        EXPECT_EQ(settings["max_m"].get<double>(), *mx);
    }
}

// Unreal's reading of a sample, (v - 32768) / 128 * Scale Z cm above Location Z, gives the source's
// lowest height at 0 and its highest at 65535; Unity's terrain spans the range above its position.
TEST(EngineExport, ImportSettingsDecodeTheSamplesToMetres) {
    const fs::path dir = scratchDir("engine_export");
    const Heightmap m = field(61, 97, 11);
    const auto [mn, mx] = std::minmax_element(m.heights.begin(), m.heights.end());
    const EngineExport unreal = exportForEngine(Engine::Unreal, m, 4.0, dir / "u.r16", 253);
    const nlohmann::json s = readJson(unreal.settings_file);
    const double scale_z = s["scale_cm"][2], location_z = s["location_z_cm"];
    auto metres = [&](double v) { return ((v - 32768.0) / 128.0 * scale_z + location_z) / 100.0; };
    EXPECT_NEAR(metres(0.0), *mn, 1e-9 * std::abs(*mn) + 1e-9);
    EXPECT_NEAR(metres(65535.0), *mx, 1e-9 * std::abs(*mx) + 1e-9);
    // The file's own samples through those settings: the resampled heights, within half a step.
    const std::vector<unsigned char> bytes = readBytes(dir / "u.r16");
    const Heightmap expected = resampleCorners(m, 253, 253);
    ASSERT_EQ(bytes.size(), 2u * expected.heights.size());
    double worst = 0.0;
    for (std::size_t i = 0; i < expected.heights.size(); ++i) {
        const double v = bytes[2 * i] | (bytes[2 * i + 1] << 8);
        worst = std::max(worst, std::abs(metres(v) - expected.heights[i]));
    }
    EXPECT_LE(worst, 0.5 * (double(*mx) - *mn) / 65535.0 + 1e-4);
    EXPECT_DOUBLE_EQ(s["scale_cm"][0].get<double>(), 100.0 * 4.0 * 60 / 252);
    EXPECT_DOUBLE_EQ(s["scale_cm"][1].get<double>(), 100.0 * 4.0 * 96 / 252);

    const EngineExport unity = exportForEngine(Engine::Unity, m, 4.0, dir / "t.raw", 0);
    const nlohmann::json t = readJson(unity.settings_file);
    EXPECT_EQ(t["heightmap_resolution"], 129);
    EXPECT_DOUBLE_EQ(t["terrain_size_m"][1].get<double>(), double(*mx) - *mn);
    EXPECT_DOUBLE_EQ(t["position_y_m"].get<double>(), *mn);
    EXPECT_DOUBLE_EQ(t["terrain_size_m"][2].get<double>(), 4.0 * 96);
}

// A format the engine does not import, or a side it does not take, writes nothing.
TEST(EngineExport, RefusalsWriteNothing) {
    const fs::path dir = scratchDir("engine_export");
    const Heightmap m = field(40, 30, 5);
    expectInputError([&] { exportForEngine(Engine::Unity, m, 1.0, dir / "t.png", 0); }, {"t.png", "unity", ".raw"});
    expectInputError([&] { exportForEngine(Engine::Godot, m, 1.0, dir / "t.raw", 0); }, {"godot", ".exr"});
    expectInputError([&] { exportForEngine(Engine::Unreal, m, 1.0, dir / "t.png", 100); }, {"--side 100"});
    Heightmap bad = m;
    bad.heights[17] = std::nanf("");
    expectInputError([&] { exportForEngine(Engine::Unreal, bad, 1.0, dir / "t.png", 0); }, {"NaN"});
    expectInputError([&] { exportForEngine(Engine::Godot, bad, 1.0, dir / "t.exr", 0); },
                     {"t.exr", "cell (17, 0) is NaN"});
    EXPECT_TRUE(listDir(dir).empty());
}

// Tiles re-joined give the whole grid of samples back, and neighbours share their edge rows and
// columns (the same 16-bit values: one height range for all), for each engine's format.
TEST(EngineExport, TilesJoinIntoTheWholeAndShareTheirEdges) {
    const Heightmap map = field(301, 187, 7);
    const fs::path dir = scratchDir("engine_tiles");
    for (const Engine engine : {Engine::Unreal, Engine::Unity, Engine::Godot})
        for (const int overlap : {1, 2}) {
            const fs::path out = dir / (std::string(engineName(engine)) + std::to_string(overlap) +
                                        (engine == Engine::Unreal  ? ".png"
                                         : engine == Engine::Unity ? ".raw"
                                                                   : ".exr"));
            const TileLayout layout = parseTiles("3x2", overlap);
            const TiledExport t = exportTilesForEngine(engine, map, 2.0, out, 0, layout);
            const int side = t.whole.side, step = side - overlap;
            ASSERT_EQ(t.files.size(), 6u);
            EXPECT_EQ(t.samples_x, 3 * step + overlap);
            EXPECT_GE(t.samples_x, map.width); // the smallest side that drops no sample
            EXPECT_GE(t.samples_y, map.height);
            const Heightmap whole = resampleCorners(map, t.samples_x, t.samples_y);
            const double quantum = engine == Engine::Godot ? 0.0 : (t.whole.hi - t.whole.lo) / 65535.0;
            std::vector<Heightmap> tiles;
            for (const fs::path& f : t.files) tiles.push_back(reimport(engine, f, side));
            double worst = 0.0;
            for (int j = 0; j < 2; ++j)
                for (int i = 0; i < 3; ++i) {
                    const Heightmap& tile = tiles[size_t(j * 3 + i)];
                    EXPECT_EQ(t.files[size_t(j * 3 + i)], tilePath(out, i, j));
                    for (int y = 0; y < side; ++y)
                        for (int x = 0; x < side; ++x) {
                            const float v = tile.at(x, y);
                            worst = std::max(worst, std::abs(double(v) - whole.at(i * step + x, j * step + y)));
                            // The shared columns and rows: the same value in both tiles.
                            if (x < overlap && i > 0) {
                                ASSERT_EQ(v, tiles[size_t(j * 3 + i - 1)].at(step + x, y));
                            }
                            if (y < overlap && j > 0) {
                                ASSERT_EQ(v, tiles[size_t((j - 1) * 3 + i)].at(x, step + y));
                            }
                        }
                }
            EXPECT_LE(worst, quantum * 0.5 + 1e-4) << engineName(engine) << " overlap " << overlap;
            const nlohmann::json s = readJson(t.whole.settings_file);
            EXPECT_EQ(s["tiles"]["files"].size(), 6u);
            EXPECT_EQ(s["tiles"]["files"][4]["file"], tilePath(out, 1, 1).filename().string());
            EXPECT_DOUBLE_EQ(s["tiles"]["files"][4]["offset_m"][0].get<double>(), step * t.whole.spacing_x);
        }
}

TEST(EngineExport, TileLayoutsAreChecked) {
    EXPECT_THROW(parseTiles("0x2", 1), InputError);
    EXPECT_THROW(parseTiles("3", 1), InputError);
    EXPECT_THROW(parseTiles("2x2x2", 1), InputError);
    EXPECT_THROW(parseTiles("2x2", -1), InputError);
    EXPECT_THROW(parseTiles("2x2", 0), InputError); // a gap between the tiles
    const fs::path dir = scratchDir("engine_tiles_bad");
    const Heightmap map = field(50, 40, 3);
    // An overlap as wide as the tile: nothing would be new in a neighbour.
    expectInputError([&] { exportTilesForEngine(Engine::Godot, map, 1.0, dir / "t.exr", 33, parseTiles("2x2", 33)); },
                     {"--overlap 33"});
    EXPECT_FALSE(fs::exists(dir / "t_x0_y0.exr"));
}
