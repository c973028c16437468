// The procedural starts (--terrain), through the executable: the raw shapes carry no drainage
// carved in (a priority-flood fill finds the pits of raw relief in them: a mean depression depth
// at least 100 times the carved terrain's, about 1e-4 m at 256^2), erosion then cuts valleys into
// them (more cells drain at least 20 cells by steepest descent after a few thousand steps), and
// every shape is deterministic, finite and named; presets may name one. The mountain front (a
// designed drainage, not raw relief) builds the alluvial-fan preset's cone, the river mouth the delta
// preset's delta.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "cli_process.h"
#include "io/terrain_gen.h"
#include "setup.h"

namespace {

const char* const kRawShapes[] = {"fractal", "ridged", "faults", "volcano", "island"};

// The fill's mean depth over the whole grid: the volume of the depressions it filled over the area.
double meanDepressionDepth(const Scratch& s, const std::string& shape) {
    const CliResult r = runCli({"fill", "--size", "256x256", "--terrain", shape, "--out", s.outPath(shape + ".f32"),
                                "--report", s.outPath(shape + ".json")},
                               s.io);
    EXPECT_EQ(r.code, 0) << r;
    const nlohmann::json report = nlohmann::json::parse(readText(s.out / (shape + ".json")));
    const double cell = report["cell_size_m"].get<double>();
    return report["fill_volume_m3"].get<double>() / (256.0 * 256.0 * cell * cell);
}

// Cells through which at least `k` cells drain by steepest descent (D8, no filling: a pit stops
// the flow), and the pits.
std::pair<int, int> drainingCells(const std::vector<float>& z, int w, int h, int k) {
    std::vector<int> receiver(z.size(), -1);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const size_t i = size_t(y) * size_t(w) + size_t(x);
            double best = 0.0;
            for (int dy = -1; dy <= 1; ++dy)
                for (int dx = -1; dx <= 1; ++dx) {
                    const int nx = x + dx, ny = y + dy;
                    if ((dx == 0 && dy == 0) || nx < 0 || ny < 0 || nx >= w || ny >= h) continue;
                    const size_t j = size_t(ny) * size_t(w) + size_t(nx);
                    const double slope = (double(z[i]) - double(z[j])) / std::sqrt(double(dx * dx + dy * dy));
                    if (slope > best) best = slope, receiver[i] = int(j);
                }
        }
    std::vector<size_t> order(z.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return z[a] > z[b]; });
    std::vector<int> upstream(z.size(), 1);
    for (size_t i : order)
        if (receiver[i] >= 0) upstream[size_t(receiver[i])] += upstream[i];
    int draining = 0, pits = 0;
    for (size_t i = 0; i < z.size(); ++i) draining += upstream[i] >= k, pits += receiver[i] < 0;
    return {draining, pits};
}

} // namespace

TEST(Terrains, RawShapesHoldThePitsOfRawRelief) {
    Scratch s;
    const double carved = meanDepressionDepth(s, "carved");
    std::printf("    mean depression depth at 256^2: carved %.3g m\n", carved);
    EXPECT_GT(carved, 0.0);
    EXPECT_LT(carved, 1e-3) << "the carved terrain drains: its rivers are cut in";
    for (const char* shape : kRawShapes) {
        const double depth = meanDepressionDepth(s, shape);
        std::printf("    %s %.3g m (%.0f times)\n", shape, depth, depth / carved);
        EXPECT_GE(depth, 100.0 * carved) << shape;
    }
}

TEST(Terrains, ErosionCutsValleysIntoRawRelief) {
    Scratch s;
    const int n = 72;
    const std::vector<std::string> common = {"--size", "72x72", "--terrain", "ridged", "--set", "rain_rate=2"};
    std::vector<std::string> before = {"run", "--steps", "0", "--out", s.outPath("before.f32")};
    std::vector<std::string> after = {
        "run", "--steps", "2500", "--out", s.outPath("after.f32"), "--report", s.outPath("after.json")};
    before.insert(before.end(), common.begin(), common.end());
    after.insert(after.end(), common.begin(), common.end());
    ASSERT_EQ(runCli(before, s.io).code, 0);
    const CliResult r = runCli(after, s.io);
    ASSERT_EQ(r.code, 0) << r;
    const auto [draining0, pits0] = drainingCells(loadHeightmap(s.out / "before.f32", sized(n, n)).heights, n, n, 20);
    const auto [draining1, pits1] = drainingCells(loadHeightmap(s.out / "after.f32", sized(n, n)).heights, n, n, 20);
    std::printf("    cells draining >= 20 cells: %d before, %d after 2500 steps (pits %d, %d)\n", draining0, draining1,
                pits0, pits1);
    EXPECT_GT(draining1, draining0 + draining0 / 20) << "erosion joins the raw relief's pits into valleys";
    const nlohmann::json report = nlohmann::json::parse(readText(s.out / "after.json"));
    EXPECT_LT(std::abs(report["soil"]["drift_rel"].get<double>()), 1e-5);
}

TEST(Terrains, EveryShapeIsDeterministicFiniteAndNamed) {
    EXPECT_EQ(terrainShapeList(), "carved, fractal, ridged, faults, volcano, island, mountain-front, river-mouth");
    for (const char* name :
         {"carved", "fractal", "ridged", "faults", "volcano", "island", "mountain-front", "river-mouth"}) {
        SCOPED_TRACE(name);
        const std::optional<TerrainShape> shape = terrainShapeFromName(name);
        ASSERT_TRUE(shape.has_value());
        EXPECT_STREQ(terrainShapeName(*shape), name);
        const GeneratedTerrain a = generateTerrain(61, 47, 9, 4.0, *shape);
        const GeneratedTerrain b = generateTerrain(61, 47, 9, 4.0, *shape);
        const GeneratedTerrain c = generateTerrain(61, 47, 10, 4.0, *shape);
        EXPECT_EQ(std::memcmp(a.terrain.heights.data(), b.terrain.heights.data(), a.terrain.heights.size() * 4), 0);
        EXPECT_NE(a.terrain.heights, c.terrain.heights) << "another seed, another terrain";
        const auto [lo, hi] = std::minmax_element(a.terrain.heights.begin(), a.terrain.heights.end());
        EXPECT_TRUE(std::isfinite(*lo) && std::isfinite(*hi));
        const double relief = 0.25 * 47 * 4.0;
        EXPECT_GT(*hi - *lo, 0.3 * relief);
        EXPECT_LT(*hi - *lo, 1.5 * relief);
        for (float v : a.hardness) ASSERT_TRUE(v >= 0.0f && v <= 1.0f);
        // Only the river mouth brings its own rain: its catchment's, none on the coast.
        EXPECT_EQ(a.rain.empty(), *shape != TerrainShape::RiverMouth);
        for (float v : a.rain) ASSERT_TRUE(v >= 0.0f && v <= 1.0f);
        if (!a.rain.empty()) {
            EXPECT_EQ(a.rain.front(), 1.0f);
            EXPECT_EQ(a.rain.back(), 0.0f);
        }
    }
    // The island has a sea floor below 0 m around land above it; the volcano's crater is below its rim.
    const GeneratedTerrain island = generateTerrain(128, 128, 3, 4.0, TerrainShape::Island);
    EXPECT_LT(island.terrain.at(0, 0), 0.0f);
    EXPECT_GT(*std::max_element(island.terrain.heights.begin(), island.terrain.heights.end()), 20.0f);
    const GeneratedTerrain volcano = generateTerrain(128, 128, 3, 4.0, TerrainShape::Volcano);
    const float centre = volcano.terrain.at(64, 64);
    EXPECT_LT(centre, *std::max_element(volcano.terrain.heights.begin(), volcano.terrain.heights.end()) - 10.0f);
}

TEST(Terrains, TheTerrainOptionAndPresetsChooseTheShape) {
    Scratch s;
    writeFile(s.in / "volcano.json", R"({"description": "a volcano", "terrain": "volcano", "params": {}})");
    const CliResult by_preset = runCli(
        {"run", "--size", "40x40", "--steps", "0", "--preset", s.inPath("volcano.json"), "--out", s.outPath("p.f32")},
        s.io);
    ASSERT_EQ(by_preset.code, 0) << by_preset;
    const CliResult by_option =
        runCli({"run", "--size", "40x40", "--steps", "0", "--terrain", "volcano", "--out", s.outPath("o.f32")}, s.io);
    ASSERT_EQ(by_option.code, 0) << by_option;
    EXPECT_EQ(readText(s.out / "p.f32"), readText(s.out / "o.f32"));
    // --terrain over the preset's.
    const CliResult both = runCli({"run", "--size", "40x40", "--steps", "0", "--preset", s.inPath("volcano.json"),
                                   "--terrain", "faults", "--out", s.outPath("b.f32")},
                                  s.io);
    ASSERT_EQ(both.code, 0) << both;
    EXPECT_NE(readText(s.out / "b.f32"), readText(s.out / "o.f32"));
    fs::remove_all(s.out);
    fs::create_directories(s.out);
    EXPECT_TRUE(isUsageError(runCli({"run", "--terrain", "mesa", "--out", s.outPath("x.f32")}, s.io),
                             {"--terrain", "mesa", "fractal"}));
    saveHeightmap(s.in / "in.f32", smallTerrain(8, 8), 4.0);
    EXPECT_TRUE(isUsageError(
        runCli({"run", "--in", s.inPath("in.f32"), "--size", "8x8", "--terrain", "ridged", "--out", s.outPath("x.f32")},
               s.io),
        {"--terrain", "--in"}));
    writeFile(s.in / "bad.json", R"({"terrain": "mesa"})");
    EXPECT_TRUE(isUsageError(runCli({"run", "--preset", s.inPath("bad.json"), "--out", s.outPath("x.f32")}, s.io),
                             {"terrain", "ridged"}));
    EXPECT_TRUE(holdsExactly(s.out, {}));
}

// The alluvial-fan preset: the range's streams leave through the notch in its front ridge and
// spread their load over the plain. The deposition map is a cone: in each 30-degree sector from
// -75 to +75 degrees about straight down the plain, below the apex (the notch's mouth, 0.4 of the way down) the mean
// thickness deposited falls with the distance from the apex, ring after ring of 4 cells out to 22 cells.
TEST(Terrains, TheAlluvialFanPresetBuildsAConeBelowTheNotch) {
    Scratch s;
    constexpr int n = 64;
    const CliResult r = runCli({"run", "--preset", "alluvial-fan", "--size", "64x64", "--steps", "2000", "--out",
                                s.outPath("fan.f32"), "--out-maps", s.outPath("maps")},
                               s.io);
    ASSERT_EQ(r.code, 0) << r;
    const std::vector<float> deposited = loadHeightmap(s.out / "maps" / "deposition.exr", {}).heights;
    ASSERT_EQ(deposited.size(), size_t(n * n));
    const double apex_x = 0.5 * n, apex_y = 0.4 * n;
    for (int sector = -75; sector < 75; sector += 30) {
        std::vector<double> ring(5, 0.0), cells(5, 0.0);
        for (int y = 0; y < n; ++y)
            for (int x = 0; x < n; ++x) {
                const double dx = x + 0.5 - apex_x, dy = y + 0.5 - apex_y;
                const double angle = std::atan2(dx, dy) * 180.0 / 3.14159265358979;
                const int k = int(std::floor((std::hypot(dx, dy) - 2.0) / 4.0));
                if (dy <= 0.0 || angle < sector || angle >= sector + 30 || k < 0 || k >= 5) continue;
                ring[size_t(k)] += deposited[size_t(y * n + x)];
                cells[size_t(k)] += 1.0;
            }
        std::printf("[ fan ] sector %+d..%+d deg: mean deposit", sector, sector + 30);
        for (size_t k = 0; k < ring.size(); ++k) {
            ASSERT_GT(cells[k], 0.0);
            ring[k] /= cells[k];
            std::printf(" %.3f", ring[k]);
        }
        std::printf(" m (rings of 4 cells from 2 cells out)\n");
        EXPECT_GT(ring[0], 0.1) << "the fan's apex holds a deposit; sector " << sector;
        for (size_t k = 1; k < ring.size(); ++k)
            EXPECT_LT(ring[k], ring[k - 1]) << "sector " << sector << ", ring " << k;
    }
}

// The river mouth's rain reaches the simulation's start (prepareTerrain: the run, the viewer, the
// Python module), and a --rain-mask replaces it.
TEST(Terrains, TheRiverMouthBringsItsRainUnlessAMaskIsGiven) {
    Scratch s;
    TerrainOptions o;
    o.terrain = "river-mouth";
    o.size = "40x30";
    const InitialTerrain own = prepareTerrain(o, 4.0);
    EXPECT_EQ(own.rain_mask, generateTerrain(40, 30, 1, 4.0, TerrainShape::RiverMouth).rain);
    ASSERT_EQ(own.rain_mask.size(), size_t(40 * 30));
    EXPECT_EQ(own.rain_mask.front(), 1.0f);
    EXPECT_EQ(own.rain_mask.back(), 0.0f);
    writeFloats(s.in / "mask.f32", std::vector<float>(40 * 30, 0.5f));
    o.rain_mask = s.inPath("mask.f32");
    EXPECT_EQ(prepareTerrain(o, 4.0).rain_mask, std::vector<float>(40 * 30, 0.5f));
    o.rain_mask.clear();
    o.terrain = "volcano";
    EXPECT_TRUE(prepareTerrain(o, 4.0).rain_mask.empty());
}

// The delta preset (terrain river-mouth: a valley whose catchment alone gets rain, opening into a
// bay of a shallow sea), 80 x 80 cells over 5000 steps of 0.2 s. Its shoreline at the mouth (the
// seaward-most land in the 8 columns around the valley's axis) moves at least 10 cells seaward;
// the new land (former sea now at or above sea level) holds at least half the sediment the river
// delivered (what the former sea cells gained, what their water still carries, and what left over
// the open edges); and a row across the new land, halfway, crosses at least two channels (runs of
// water deeper than 1 cm between dry new land).
TEST(Terrains, TheDeltaPresetBuildsLandSeawardOfTheMouth) {
    Scratch s;
    constexpr int n = 80;
    constexpr double kCellArea = 16.0;
    for (const char* steps : {"0", "5000"}) {
        const std::string name = std::string("delta-") + steps;
        const CliResult r =
            runCli({"run", "--preset", "delta", "--size", "80x80", "--steps", steps, "--out", s.outPath(name + ".f32"),
                    "--report", s.outPath(name + ".json"), "--out-maps", s.outPath(name)},
                   s.io);
        ASSERT_EQ(r.code, 0) << r;
    }
    const std::vector<float> before = loadHeightmap(s.out / "delta-0.f32", sized(n, n)).heights;
    const std::vector<float> after = loadHeightmap(s.out / "delta-5000.f32", sized(n, n)).heights;
    const std::vector<float> water = loadHeightmap(s.out / "delta-5000" / "water_depth.exr", {}).heights;
    const std::vector<float> load = loadHeightmap(s.out / "delta-5000" / "sediment.exr", {}).heights;
    ASSERT_EQ(water.size(), size_t(n * n));
    ASSERT_EQ(load.size(), size_t(n * n));
    auto shoreline = [&](const std::vector<float>& z) {
        int last = -1;
        for (int x = n / 2 - 4; x < n / 2 + 4; ++x)
            for (int y = 0; y < n; ++y)
                if (z[size_t(y * n + x)] >= 0.0f) last = std::max(last, y);
        return last;
    };
    const int from = shoreline(before), to = shoreline(after);
    double delivered = nlohmann::json::parse(readText(s.out / "delta-5000.json"))["soil"]["drained"].get<double>();
    double new_land = 0.0;
    for (size_t i = 0; i < before.size(); ++i) {
        if (before[i] >= 0.0f) continue;
        delivered += (double(after[i]) - before[i] + load[i]) * kCellArea;
        if (after[i] >= 0.0f) new_land += (double(after[i]) - before[i]) * kCellArea;
    }
    // Along the row: new land (former sea, now at or above sea level) that is dry, and water;
    // a channel is a run of water with dry new land on both sides.
    const int row = (from + to) / 2;
    int channels = 0, last_dry = -1;
    bool wet_since = false;
    for (int x = 0; x < n; ++x) {
        const size_t i = size_t(row * n + x);
        if (water[i] > 0.01f) {
            wet_since = true;
        } else if (before[i] < 0.0f && after[i] >= 0.0f) {
            channels += wet_since && last_dry >= 0;
            last_dry = x;
            wet_since = false;
        }
    }
    std::printf("[ delta ] shoreline at the mouth: row %d -> %d; the river delivered %.0f m^3, the new land holds "
                "%.0f m^3 (%.2f); %d channels cross row %d\n",
                from, to, delivered, new_land, new_land / delivered, channels, row);
    EXPECT_GE(to - from, 10);
    EXPECT_GE(new_land, 0.5 * delivered);
    EXPECT_GE(channels, 2);
}
