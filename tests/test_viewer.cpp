// The viewer (`alluvium view`): an offscreen frame, bad options, and a real session under Xvfb
// driven by xdotool (tests/viewer_e2e.sh): a water stroke shows on screen and in the report,
// the window resizes, and validation stays clean.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_run.h"
#include "test_util.h"

namespace fs = std::filesystem;

using namespace alluvium::test;

TEST(Viewer, OffscreenFrameIsALitLandscapeWithCleanValidation) {
    const fs::path dir = alluvium::test::scratchDir("viewer");
    // No DISPLAY and no --offscreen: the viewer says so and renders offscreen anyway.
    const int code = runAlluvium("--validation view --size 64x64 --window 480x270 --exit-after-frames 3 --screenshot " +
                                     quote((dir / "frame.png").string()) + " --report " + quote((dir / "report.json").string()),
                                 dir, "-u DISPLAY -u WAYLAND_DISPLAY");
    const std::string err = readText(dir / "stderr.txt");
    ASSERT_EQ(code, 0) << err;
    EXPECT_NE(err.find("no display; rendering offscreen"), std::string::npos) << err;
    EXPECT_NE(err.find("validation errors: 0"), std::string::npos) << err;
    const Rgba img = readPng(dir / "frame.png");
    ASSERT_EQ(img.width, 480u);
    ASSERT_EQ(img.height, 270u);
    // Non-trivial: many distinct colours, and the middle (the terrain) differs from the corner
    // (the sky) and is not flat.
    std::set<uint32_t> colours;
    double lum_sum = 0, lum_sq = 0;
    size_t n = 0;
    for (uint32_t y = 60; y < 210; ++y)
        for (uint32_t x = 300; x < 420; ++x, ++n) {
            const uint8_t* p = img.at(x, y);
            colours.insert(uint32_t(p[0]) << 16 | uint32_t(p[1]) << 8 | p[2]);
            const double l = 0.3 * p[0] + 0.59 * p[1] + 0.11 * p[2];
            lum_sum += l;
            lum_sq += l * l;
        }
    const double mean = lum_sum / double(n), stddev = std::sqrt(std::max(0.0, lum_sq / double(n) - mean * mean));
    EXPECT_GT(colours.size(), 200u);
    EXPECT_GT(stddev, 8.0) << "the terrain should be shaded, not flat";
    const nlohmann::json report = nlohmann::json::parse(readText(dir / "report.json"));
    EXPECT_EQ(report["validation_errors"], 0);
    EXPECT_EQ(report["steps"], 3);
    EXPECT_EQ(report["nan_cells"], 0);
    EXPECT_TRUE(report.contains("brush"));
    EXPECT_TRUE(report["water"].contains("budget_error_rel"));
}

TEST(Viewer, BadOptionsAreOneLineErrors) {
    const fs::path dir = alluvium::test::scratchDir("viewer");
    const struct {
        std::string args, needle;
    } cases[] = {
        {"view --offscreen --report r.txt", "--report"},
        {"view --offscreen --screenshot s.jpg", "--screenshot"},
        {"view --offscreen --window 10x10", "--window"},
        {"view --offscreen --window wide", "--window"},
        {"view --offscreen --model nope", "--model"},
        {"view --offscreen --in /nonexistent/terrain.png", "nonexistent"},
    };
    for (const auto& c : cases) {
        EXPECT_EQ(runAlluvium(c.args, dir), 2) << c.args;
        const std::string err = readText(dir / "stderr.txt");
        EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << c.args << ": " << err;
        EXPECT_NE(err.find(c.needle), std::string::npos) << c.args << ": " << err;
    }
}

TEST(Viewer, BenchFramesPrintsMeanAndP95) {
    const fs::path dir = alluvium::test::scratchDir("viewer");
    ASSERT_EQ(runAlluvium("view --offscreen --size 32x32 --window 320x180 --bench-frames 4", dir), 0)
        << readText(dir / "stderr.txt");
    const std::string out = readText(dir / "stdout.txt");
    EXPECT_NE(out.find("mean"), std::string::npos) << out;
    EXPECT_NE(out.find("p95"), std::string::npos) << out;
}

TEST(Viewer, WaterStrokeUnderXvfb) {
    if (std::system("command -v xvfb-run >/dev/null 2>&1") != 0) GTEST_SKIP() << "xvfb-run is missing (scripts/deps installs it)";
    const fs::path dir = alluvium::test::scratchDir("viewer");
    const std::string script = (fs::path(ALLUVIUM_SOURCE_DIR) / "tests" / "viewer_e2e.sh").string();
    const std::string cache = (fs::path(ALLUVIUM_TEST_TMP_DIR).parent_path() / "mesa-cache").string();
    const std::string cmd = "env MESA_SHADER_CACHE_DIR=" + quote(cache) +
                            " timeout 150 xvfb-run -a -s '-screen 0 1024x768x24' bash " + quote(script) + " " +
                            quote(ALLUVIUM_EXE) + " " + quote(dir.string()) + " >" +
                            quote((dir / "e2e.log").string()) + " 2>&1";
    const int status = exitStatus(std::system(cmd.c_str()));
    const std::string log = readText(dir / "e2e.log") + readText(dir / "viewer.log");
    ASSERT_EQ(status, 0) << log;

    const nlohmann::json report = nlohmann::json::parse(readText(dir / "report.json"));
    EXPECT_EQ(report["validation_errors"], 0) << log;
    EXPECT_GT(report["brush"]["water_added"].get<double>(), 0.0) << "key 1 then a drag should pour water\n" << log;
    EXPECT_EQ(report["brush"]["water_removed"].get<double>(), 0.0);
    EXPECT_LT(report["water"]["budget_error_rel"].get<double>(), 1e-3);
    // The hand put back exactly what it took.
    const double picked = report["brush"]["hand_picked"].get<double>(), dropped = report["brush"]["hand_dropped"].get<double>();
    EXPECT_GT(picked, 0.0) << log;
    EXPECT_NEAR(dropped, picked, 1e-5 * picked) << log;
    EXPECT_LT(report["soil"]["drift_rel"].get<double>(), 1e-5);

    const Rgba before = readPng(dir / "before.png"), after = readPng(dir / "after.png");
    const Rgba resized = readPng(dir / "resized.png"), last = readPng(dir / "last.png");
    ASSERT_EQ(before.width, 800u);
    ASSERT_EQ(before.height, 500u);
    ASSERT_EQ(after.width, 800u);
    EXPECT_EQ(resized.width, 640u) << "the swapchain should follow the window";
    EXPECT_EQ(resized.height, 400u);
    EXPECT_EQ(last.width, 640u);
    // The stroke ran along y = 250 from x = 430 to 690: that band changed, a sky corner did not.
    const double stroke = meanDiff(before, after, 450, 225, 670, 275);
    const double corner = meanDiff(before, after, 700, 10, 790, 60);
    EXPECT_GT(stroke, 4.0) << "the water stroke should show on screen";
    EXPECT_LT(corner, 1.0);
    EXPECT_GT(stroke, 4.0 * corner + 2.0);
}
