// Rain you control, through the executable: --rain-mask FILE says where it rains (an image of the
// grid's size, black none .. white rain_rate), the water budget closes with it, the map `rain` of
// --out-maps is the mask in use, and a mask of the wrong size, out of 0..1 or not a regular file
// is refused with one line. (The brush paints the same mask: test_brush's RAIN tool.)
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <cmath>

#include "cli_process.h"

namespace {

// A 40 x 30 mask: no rain on the left 16 columns, full rain on the right, a ramp row between.
Heightmap mask40x30() {
    Heightmap m{40, 30, {}};
    for (int y = 0; y < 30; ++y)
        for (int x = 0; x < 40; ++x) m.heights.push_back(x < 16 ? 0.0f : x == 16 ? 0.5f : 1.0f);
    return m;
}

double meanOf(const Heightmap& m) {
    double sum = 0.0;
    for (float v : m.heights) sum += v;
    return sum / double(m.heights.size());
}

nlohmann::json runReport(const Scratch& s, const std::string& name, std::vector<std::string> extra) {
    std::vector<std::string> args = {"run",
                                     "--size",
                                     "40x30",
                                     "--steps",
                                     "60",
                                     "--set",
                                     "rain_rate=3",
                                     "--out",
                                     s.outPath(name + ".f32"),
                                     "--report",
                                     s.outPath(name + ".json")};
    args.insert(args.end(), extra.begin(), extra.end());
    const CliResult r = runCli(args, s.io);
    EXPECT_EQ(r.code, 0) << r;
    return nlohmann::json::parse(readText(s.out / (name + ".json")));
}

} // namespace

TEST(RainMask, AMaskRainsWhereItIsWhiteAndTheBudgetCloses) {
    Scratch s;
    const Heightmap mask = mask40x30();
    const double mean = meanOf(mask);
    saveHeightmap(s.in / "mask.png", mask, 4.0); // 16-bit grey: 0, 32768 and 65535
    fs::remove(s.in / "mask.png.json");          // black .. white is 0 .. 1 with or without a sidecar
    saveHeightmap(s.in / "mask.f32", mask, 4.0);
    const nlohmann::json uniform = runReport(s, "uniform", {});
    const double rained = uniform["water"]["rained"].get<double>();
    ASSERT_GT(rained, 0.0);
    for (const char* file : {"mask.png", "mask.f32"}) {
        SCOPED_TRACE(file);
        const nlohmann::json masked = runReport(s, std::string("masked-") + file,
                                                {"--rain-mask", s.inPath(file), "--out-maps", s.outPath("maps")});
        // The PNG's 0.5 is 32768/65535 (16 bits): 1.5e-5 of the ramp column's rain.
        EXPECT_NEAR(masked["water"]["rained"].get<double>() / rained, mean, 1e-5);
        EXPECT_LE(std::abs(masked["water"]["budget_error_rel"].get<double>()), 1e-6);
        const Heightmap out = loadHeightmap(s.out / "maps" / "rain.exr", LoadOptions{});
        ASSERT_EQ(out.heights.size(), mask.heights.size());
        for (size_t i = 0; i < out.heights.size(); ++i) ASSERT_NEAR(out.heights[i], mask.heights[i], 1e-4) << i;
        fs::remove_all(s.out / "maps");
    }
    // Without a mask the map is 1 everywhere.
    runReport(s, "plain", {"--out-maps", s.outPath("plain-maps")});
    for (float v : loadHeightmap(s.out / "plain-maps" / "rain.exr", LoadOptions{}).heights) ASSERT_EQ(v, 1.0f);
}

// Every model with rain follows the mask: musgrave's and simple's rain events and the droplets
// (which fall where it rains, with the mask's probability) rain the mask's share of what they
// rain without it, and the water budget still closes.
TEST(RainMask, MusgraveSimpleAndDropletsFollowTheMask) {
    Scratch s;
    const Heightmap mask = mask40x30();
    const double mean = meanOf(mask);
    saveHeightmap(s.in / "mask.f32", mask, 4.0);
    for (const char* model : {"musgrave", "simple", "particles"}) {
        SCOPED_TRACE(model);
        const std::string m = model;
        const nlohmann::json plain = runReport(s, m + "-plain", {"--model", model});
        const nlohmann::json masked =
            runReport(s, m + "-masked", {"--model", model, "--rain-mask", s.inPath("mask.f32")});
        const double ratio = masked["water"]["rained"].get<double>() / plain["water"]["rained"].get<double>();
        // Droplets: 60 steps of 2000 draws, each falling with its cell's mask: 4 standard deviations.
        const double tolerance = m == "particles" ? 4.0 * std::sqrt(mean * (1.0 - mean) / (60.0 * 2000.0)) : 1e-6;
        EXPECT_NEAR(ratio, mean, tolerance);
        EXPECT_LE(std::abs(masked["water"]["budget_error_rel"].get<double>()), 1e-6);
    }
}

// The weather (noise rain, storms, orographic rain, and all three on a painted mask) in the
// models that rain: each rains less than the uniform rain (its factor is 0..1, and varies), and
// the water budget closes to 1e-6.
TEST(Weather, EveryWeatherKeepsTheWaterBudget) {
    Scratch s;
    saveHeightmap(s.in / "mask.f32", mask40x30(), 4.0);
    const std::vector<std::string> noise = {"--set", "rain_noise=1", "--set", "rain_noise_scale=40"};
    const std::vector<std::string> storms = {"--set",           "storm_count=4", "--set",
                                             "storm_radius=30", "--set",         "storm_speed=2"};
    const std::vector<std::string> orographic = {"--set", "orographic=1", "--set", "orographic_height=30"};
    std::vector<std::string> all = noise;
    all.insert(all.end(), storms.begin(), storms.end());
    all.insert(all.end(), orographic.begin(), orographic.end());
    all.insert(all.end(), {"--rain-mask", s.inPath("mask.f32")});
    const std::vector<std::pair<std::string, std::vector<std::string>>> weathers = {
        {"noise", noise}, {"storms", storms}, {"orographic", orographic}, {"all", all}};
    for (const char* model : {"pipe", "musgrave", "simple", "particles"}) {
        const nlohmann::json plain = runReport(s, std::string(model) + "-uniform", {"--model", model});
        const double uniform = plain["water"]["rained"].get<double>();
        ASSERT_GT(uniform, 0.0);
        for (const auto& [name, options] : weathers) {
            SCOPED_TRACE(std::string(model) + " " + name);
            std::vector<std::string> args = {"--model", model};
            args.insert(args.end(), options.begin(), options.end());
            const nlohmann::json r = runReport(s, std::string(model) + "-" + name, args);
            const double rained = r["water"]["rained"].get<double>();
            std::printf("[ %s, %s ] rained %.4g m^3 of %.4g uniform, budget error %.3g\n", model, name.c_str(), rained,
                        uniform, r["water"]["budget_error_rel"].get<double>());
            EXPECT_GT(rained, 0.0);
            EXPECT_LT(rained, 0.95 * uniform);
            EXPECT_LE(std::abs(r["water"]["budget_error_rel"].get<double>()), 1e-6);
        }
    }
}

// --hardness-map: the bedrock's hardness from an image (the --out-maps map `hardness` is it), as
// strict as the rain mask about its size and range, and not with --hardness too.
TEST(HardnessMap, AnImportedMapIsTheRocksHardnessAndBadOnesAreRefused) {
    Scratch s;
    const Heightmap map = mask40x30();
    saveHeightmap(s.in / "hard.f32", map, 4.0);
    runReport(s, "hard", {"--hardness-map", s.inPath("hard.f32"), "--out-maps", s.outPath("maps")});
    const Heightmap out = loadHeightmap(s.out / "maps" / "hardness.exr", LoadOptions{});
    ASSERT_EQ(out.heights, map.heights);
    Heightmap high = map;
    high.heights[7] = 2.0f;
    saveHeightmap(s.in / "high.f32", high, 4.0);
    saveHeightmap(s.in / "small.png", smallTerrain(20, 10), 4.0);
    expectRejected(s, {"run", "--size", "40x30", "--hardness-map", s.inPath("high.f32")},
                   {"--hardness-map", "(7, 0)", "0 (soft) .. 1 (rock)"});
    expectRejected(s, {"run", "--size", "40x30", "--hardness-map", s.inPath("small.png")}, {"20x10", "40x30"});
    expectRejected(s, {"run", "--size", "40x30", "--hardness", "0.5", "--hardness-map", s.inPath("hard.f32")},
                   {"--hardness-map", "--hardness"});
}

TEST(RainMask, MasksOfTheWrongSizeOrRangeOrKindAreRefused) {
    Scratch s;
    saveHeightmap(s.in / "small.png", smallTerrain(20, 10), 4.0);
    Heightmap high = mask40x30();
    high.heights[45] = 1.5f;
    saveHeightmap(s.in / "high.f32", high, 4.0);
    Heightmap negative = mask40x30();
    negative.heights[3] = -0.25f;
    saveHeightmap(s.in / "negative.exr", negative, 4.0);
    ASSERT_EQ(::mkfifo((s.in / "fifo.png").c_str(), 0644), 0);
    fs::create_directories(s.in / "folder.png");
    const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
        {"small.png", {"small.png", "20x10", "40x30"}},
        {"high.f32", {"high.f32", "(5, 1)", "0 (no rain) .. 1"}},
        {"negative.exr", {"negative.exr", "(3, 0)"}},
        {"fifo.png", {"fifo.png", "regular file"}},
        {"folder.png", {"folder.png"}},
        {"missing.png", {"missing.png", "No such file"}},
    };
    for (const auto& [file, needles] : cases) {
        SCOPED_TRACE(file);
        expectRejected(s, {"run", "--size", "40x30", "--rain-mask", s.inPath(file)}, needles);
    }
}
