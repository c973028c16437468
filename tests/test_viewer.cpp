// The viewer (`alluvium view`): an offscreen frame, bad options, and real sessions under Xvfb
// driven by xdotool: a water stroke shows on screen and in the report, the window resizes, and
// validation stays clean (tests/viewer_e2e.sh); undo, redo and branches checked by the report's
// state digests (tests/history_e2e.sh); the history's memory budget in a long session; the brush
// at rates per second of real time, paused or running (tests/brush_e2e.sh).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
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
    const int code =
        runAlluvium("--validation view --size 64x64 --window 480x270 --exit-after-frames 3 --screenshot " +
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
        {"view --offscreen --history-every -1", "--history-every"},
        {"view --offscreen --mesh 1", "--mesh"},
        {"view --offscreen --mesh 20000", "--mesh"},
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
    EXPECT_NE(out.find("mesh 32x32"), std::string::npos) << out; // every cell a vertex on any device
    ASSERT_EQ(runAlluvium("view --offscreen --size 32x24 --window 320x180 --bench-frames 2 --mesh 10", dir), 0)
        << readText(dir / "stderr.txt");
    EXPECT_NE(readText(dir / "stdout.txt").find("mesh 10x10"), std::string::npos) << readText(dir / "stdout.txt");
}

TEST(Viewer, WaterStrokeUnderXvfb) {
    if (std::system("command -v xvfb-run >/dev/null 2>&1") != 0)
        GTEST_SKIP() << "xvfb-run is missing (scripts/deps installs it)";
    const fs::path dir = alluvium::test::scratchDir("viewer");
    const int status = runXvfbScript("viewer_e2e.sh", dir, 150);
    const std::string log = readText(dir / "e2e.log") + readText(dir / "viewer.log");
    ASSERT_EQ(status, 0) << log;

    const nlohmann::json report = nlohmann::json::parse(readText(dir / "viewer.json"));
    EXPECT_EQ(report["validation_errors"], 0) << log;
    EXPECT_GT(report["brush"]["water_added"].get<double>(), 0.0) << "key 1 then a drag should pour water\n" << log;
    EXPECT_EQ(report["brush"]["water_removed"].get<double>(), 0.0);
    EXPECT_LT(report["water"]["budget_error_rel"].get<double>(), 1e-3);
    // The poured water moves no faster than friction allows: the session's largest Froude number.
    EXPECT_LE(report["max_froude"].get<double>(), 5.0) << log;
    // The hand put back exactly what it took.
    const double picked = report["brush"]["hand_picked"].get<double>(),
                 dropped = report["brush"]["hand_dropped"].get<double>();
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

    // Ctrl+S saved a session, and --save-session another on exit: `run` resumes both, and the
    // water poured with the brush is in the budget it carries on (it still closes).
    for (const char* name : {"ctrl_s.alluvium", "session.alluvium"}) {
        SCOPED_TRACE(name);
        ASSERT_TRUE(fs::exists(dir / name)) << log;
        const fs::path resumed = dir / (std::string(name) + ".json");
        const std::string run = quote(ALLUVIUM_EXE) + " run --load-session " + quote((dir / name).string()) +
                                " --steps 10 --out " + quote((dir / (std::string(name) + ".f32")).string()) +
                                " --report " + quote(resumed.string()) + " >/dev/null 2>&1";
        ASSERT_EQ(exitStatus(std::system(run.c_str())), 0);
        const nlohmann::json r = nlohmann::json::parse(readText(resumed));
        EXPECT_LT(r["water"]["budget_error_rel"].get<double>(), 1e-3);
        EXPECT_GT(r["water"]["brush_added"].get<double>(), 0.0) << r["water"].dump();
    }
}

namespace {

const nlohmann::json* snapshotById(const nlohmann::json& history, int id) {
    for (const auto& snap : history["snapshots"])
        if (snap["id"] == id) return &snap;
    return nullptr;
}

// The held snapshot of `kind` whose parents lead back to no other of that kind first: the
// first one taken (ids grow with time).
const nlohmann::json* firstOfKind(const nlohmann::json& history, const std::string& kind) {
    for (const auto& snap : history["snapshots"])
        if (snap["kind"] == kind) return &snap;
    return nullptr;
}

} // namespace

// Strokes with the raise tool, then Ctrl+Z: the state's digest at exit equals the one stored
// when the stroke began; a stroke after the undo starts a new branch from there; Ctrl+Y and
// Ctrl+Shift+Z bring the stroke back (the digest stored when it ended).
TEST(Viewer, UndoRedoAndBranchesUnderXvfb) {
    if (std::system("command -v xvfb-run >/dev/null 2>&1") != 0)
        GTEST_SKIP() << "xvfb-run is missing (scripts/deps installs it)";
    const fs::path dir = alluvium::test::scratchDir("viewer-history");
    const int status = runXvfbScript("history_e2e.sh", dir, 200);
    const std::string log = readText(dir / "e2e.log") + readText(dir / "undo.log") + readText(dir / "redo.log");
    ASSERT_EQ(status, 0) << log;

    // Undo, and a branch.
    const nlohmann::json undo = nlohmann::json::parse(readText(dir / "undo.json"));
    EXPECT_EQ(undo["validation_errors"], 0) << log;
    const nlohmann::json& h = undo["history"];
    ASSERT_TRUE(h["enabled"].get<bool>()) << log;
    // The brush's tallies are state too: back at a stroke's start, nothing was raised.
    EXPECT_EQ(undo["brush"]["terrain_added"].get<double>(), 0.0) << log;
    EXPECT_EQ(h["undos"], 2) << log;
    const nlohmann::json* first = firstOfKind(h, "stroke");
    ASSERT_NE(first, nullptr) << h.dump(1);
    const int first_id = (*first)["id"].get<int>();
    // The second stroke's start: a "stroke" whose parent is the first stroke's start.
    const nlohmann::json* second = nullptr;
    const nlohmann::json* first_end = nullptr;
    for (const auto& snap : h["snapshots"]) {
        if (snap["kind"] == "stroke" && snap["parent"] == first_id) second = &snap;
        if (snap["kind"] == "stroke end" && !first_end) first_end = &snap;
    }
    ASSERT_NE(second, nullptr) << "a stroke after the undo starts from the first stroke's start\n" << h.dump(1);
    ASSERT_NE(first_end, nullptr) << h.dump(1);
    EXPECT_NE((*second)["branch"], (*first_end)["branch"]) << "a new branch; the old one is still held";
    EXPECT_NE((*first)["digest"], (*first_end)["digest"]) << "the stroke changed the state";
    // The last undo went back to the second stroke's start: the state at exit is that one, bit for bit.
    ASSERT_EQ(h["events"].size(), 2u) << h.dump(1);
    EXPECT_EQ(h["events"][0]["to"], first_id);
    EXPECT_EQ(h["events"][1]["to"], (*second)["id"]);
    EXPECT_EQ(undo["state_digest"], (*second)["digest"]) << h.dump(1);
    EXPECT_EQ(h["head"], (*second)["id"]);
    EXPECT_FALSE(h["moved_on"].get<bool>());

    // Redo: after Ctrl+Z, Ctrl+Y, Ctrl+Z, Ctrl+Shift+Z the state is the stroke's end.
    const nlohmann::json redo = nlohmann::json::parse(readText(dir / "redo.json"));
    EXPECT_EQ(redo["validation_errors"], 0) << log;
    const nlohmann::json& r = redo["history"];
    EXPECT_EQ(r["undos"], 2) << log;
    EXPECT_EQ(r["redos"], 2) << log;
    const nlohmann::json* start = firstOfKind(r, "stroke");
    const nlohmann::json* end = firstOfKind(r, "stroke end");
    ASSERT_TRUE(start && end) << r.dump(1);
    EXPECT_GT(r["snapshots_taken"].get<int>(), 4) << "timed snapshots every simulated second";
    const auto& events = r["events"];
    ASSERT_EQ(events.size(), 4u) << r.dump(1);
    for (int i = 0; i < 4; ++i) {
        EXPECT_EQ(events[size_t(i)]["action"], i % 2 ? "redo" : "undo");
        EXPECT_EQ(events[size_t(i)]["to"], i % 2 ? (*end)["id"] : (*start)["id"]);
    }
    EXPECT_GT(redo["brush"]["terrain_added"].get<double>(), 0.0) << "key 3 then a drag should raise the ground\n"
                                                                 << log;
    EXPECT_EQ(redo["state_digest"], (*end)["digest"]) << "redo brings the stroke back, bit for bit\n" << r.dump(1);
    EXPECT_NE((*start)["digest"], (*end)["digest"]);
    const nlohmann::json* head = snapshotById(r, r["head"].get<int>());
    ASSERT_NE(head, nullptr);
    EXPECT_EQ((*head)["kind"], "stroke end");

    // Dragging the timeline: the state went back through the snapshots to the first, then played
    // on from it as a new branch, which holds, a simulated second later, the very state the first
    // branch held then: the restore is exact and the steps are deterministic.
    const nlohmann::json scrub = nlohmann::json::parse(readText(dir / "scrub.json"));
    EXPECT_EQ(scrub["validation_errors"], 0) << log;
    const nlohmann::json& s = scrub["history"];
    const auto& drags = s["events"];
    ASSERT_GE(drags.size(), 2u) << "the drag passes several snapshots\n" << s.dump(1);
    EXPECT_TRUE(drags[0].contains("tip")) << "the state before the drag is kept";
    const int oldest = s["snapshots"][0]["id"].get<int>();
    EXPECT_EQ(oldest, 0) << "nothing was dropped";
    EXPECT_EQ(drags.back()["to"], oldest) << s.dump(1);
    for (const auto& e : drags) EXPECT_EQ(e["action"], "scrub");
    EXPECT_EQ(s["scrubs"].get<size_t>(), drags.size());
    std::map<double, std::vector<std::pair<int, std::string>>> by_time; // time -> (branch, digest)
    bool second_branch = false;
    for (const auto& snap : s["snapshots"]) {
        if (snap["kind"] != "timed") continue;
        by_time[snap["time"].get<double>()].emplace_back(snap["branch"].get<int>(), snap["digest"].get<std::string>());
        if (snap["branch"] != 1) {
            second_branch = true;
            EXPECT_NE(snap["parent"], nullptr);
        }
    }
    ASSERT_TRUE(second_branch) << "playing on after the drag starts a branch\n" << s.dump(1);
    int replayed = 0;
    for (const auto& [time, snaps] : by_time)
        if (time > 0 && snaps.size() == 2) {
            EXPECT_NE(snaps[0].first, snaps[1].first);
            EXPECT_EQ(snaps[0].second, snaps[1].second) << "t = " << time;
            ++replayed;
        }
    EXPECT_GE(replayed, 1) << s.dump(1);
}

// A budget the grid or the device cannot have is refused once the device is known: exit 2 and
// one line after the device's.
TEST(Viewer, HistoryBudgetOutOfRangeIsRefused) {
    const fs::path dir = alluvium::test::scratchDir("viewer-history-budget");
    for (const std::string budget : {"0.1", "100000000"}) {
        EXPECT_EQ(runAlluvium("view --offscreen --size 64x64 --history-budget-mb " + budget, dir), 2) << budget;
        const std::string err = readText(dir / "stderr.txt");
        const size_t last = err.rfind('\n', err.size() - 2);
        const std::string line = err.substr(last == std::string::npos ? 0 : last + 1);
        EXPECT_EQ(line.rfind("alluvium: --history-budget-mb: ", 0), 0u) << err;
        EXPECT_NE(line.find(budget == "0.1" ? "needs at least" : "more than the memory"), std::string::npos) << err;
        EXPECT_LE(std::count(err.begin(), err.end(), '\n'), 2) << err;
    }
    // 0: no history, said once on stderr and in the report.
    ASSERT_EQ(runAlluvium("view --offscreen --size 64x64 --window 320x180 --history-budget-mb 0 --report " +
                              quote((dir / "off.json").string()),
                          dir),
              0);
    const nlohmann::json report = nlohmann::json::parse(readText(dir / "off.json"));
    EXPECT_FALSE(report["history"]["enabled"].get<bool>());
    EXPECT_NE(readText(dir / "stderr.txt").find("history off"), std::string::npos);
}

// A long session with a small budget: a snapshot every simulated 0.2 s (every frame) for 150
// frames into 2 MB (four whole snapshots of the 64 x 64 state, the groundwater's and the sea's
// fields included, need 1.6 MB). What is held never exceeds the budget, the oldest go first (what is left
// is the newest, in a row), each drop is said on stderr.
TEST(Viewer, HistoryBudgetHoldsInALongSession) {
    const fs::path dir = alluvium::test::scratchDir("viewer-history-budget");
    const int code = runAlluvium("--validation view --offscreen --size 64x64 --window 320x180 --exit-after-frames 150 "
                                 "--history-every 0.2 --history-budget-mb 2 --report " +
                                     quote((dir / "report.json").string()),
                                 dir);
    const std::string err = readText(dir / "stderr.txt");
    ASSERT_EQ(code, 0) << err;
    const nlohmann::json report = nlohmann::json::parse(readText(dir / "report.json"));
    EXPECT_EQ(report["validation_errors"], 0);
    const nlohmann::json& h = report["history"];
    const double budget = 2.0 * 1024 * 1024;
    EXPECT_EQ(h["budget_bytes"].get<double>(), budget);
    EXPECT_LE(h["allocated_bytes"].get<double>(), budget);
    EXPECT_LE(h["bytes_held_peak"].get<double>(), budget);
    EXPECT_GT(h["bytes_held_peak"].get<double>(), 0.5 * budget) << "the budget was used";
    const int taken = h["snapshots_taken"].get<int>(), dropped = h["snapshots_dropped"].get<int>();
    EXPECT_GE(taken, 70) << "a snapshot every other frame or so";
    EXPECT_GT(dropped, 20);
    const auto& held = h["snapshots"];
    ASSERT_EQ(int(held.size()), taken - dropped);
    for (size_t i = 0; i < held.size(); ++i)
        EXPECT_EQ(held[i]["id"].get<int>(), dropped + int(i)) << "the newest are kept";
    EXPECT_NE(err.find("is full: dropped the oldest snapshot #0 "), std::string::npos) << err;
    EXPECT_NE(err.find("dropped the oldest snapshot #" + std::to_string(dropped - 1) + " "), std::string::npos) << err;
}

// The brush paints at rates per second of real time (tests/brush_e2e.sh): the same stroke, the
// raise tool held 2.5 s at one point, raises the same volume a second of stroke (within 1 %)
// paused, at 1 and at 10 steps per frame. The stroke's time is the press to the release as the
// input callbacks stamp them, which a frame polls: the report gives it (brush.seconds), so a
// loaded machine's long frames do not blur the rate; the script waits for the viewer to say each
// input was carried out (--log-actions). Paused strokes are history too: an undo
// returns to the digest stored before the stroke, a redo to the one stored after it.
TEST(Viewer, TheBrushPaintsInRealTimePausedOrRunningUnderXvfb) {
    if (std::system("command -v xvfb-run >/dev/null 2>&1") != 0)
        GTEST_SKIP() << "xvfb-run is missing (scripts/deps installs it)";
    const fs::path dir = alluvium::test::scratchDir("viewer-brush");
    const int status = runXvfbScript("brush_e2e.sh", dir, 240);
    std::string log = readText(dir / "e2e.log");
    for (const char* name : {"paused", "one", "ten", "undo", "redo"})
        log += readText(dir / (std::string(name) + ".log"));
    ASSERT_EQ(status, 0) << log;
    std::map<std::string, nlohmann::json> r;
    for (const char* name : {"paused", "one", "ten", "undo", "redo"}) {
        r[name] = nlohmann::json::parse(readText(dir / (std::string(name) + ".json")));
        EXPECT_EQ(r[name]["validation_errors"], 0) << name << "\n" << log;
        EXPECT_LE(r[name]["max_froude"].get<double>(), 5.0) << name << "\n" << log;
    }
    // The volume a second of stroke raises: the rate. Each session's stroke time is the one its
    // input callbacks stamped: the script holds the button 2.5 s from when the viewer said the
    // stroke began, so a little more; less only where a frame took over 0.5 s (a stall paints at
    // most 0.5 s; the rate is per second painted either way).
    std::map<std::string, double> rate;
    for (const char* name : {"paused", "one", "ten"}) {
        const double volume = r[name]["brush"]["terrain_added"].get<double>();
        const double seconds = r[name]["brush"]["seconds"].get<double>();
        std::printf("    %s: %.4g m^3 in %.3f s of stroke\n", name, volume, seconds);
        EXPECT_GE(seconds, 2.0) << name << "\n" << log;
        EXPECT_LE(seconds, 3.5) << name << "\n" << log;
        rate[name] = volume / std::max(seconds, 1e-9);
    }
    ASSERT_GT(rate["paused"], 0.0) << "a paused stroke raises the ground\n" << log;
    EXPECT_NEAR(rate["one"] / rate["paused"], 1.0, 0.01) << log;
    EXPECT_NEAR(rate["ten"] / rate["paused"], 1.0, 0.01) << log;

    // Paused: undo to before the stroke, redo to its end.
    const nlohmann::json& u = r["undo"]["history"];
    const nlohmann::json* start = firstOfKind(u, "stroke");
    ASSERT_NE(start, nullptr) << u.dump(1);
    EXPECT_EQ(u["undos"], 1) << log;
    EXPECT_EQ(r["undo"]["state_digest"], (*start)["digest"]) << u.dump(1);
    EXPECT_EQ(r["undo"]["brush"]["terrain_added"].get<double>(), 0.0);
    const nlohmann::json& d = r["redo"]["history"];
    const nlohmann::json* begin = firstOfKind(d, "stroke");
    const nlohmann::json* end = firstOfKind(d, "stroke end");
    ASSERT_TRUE(begin && end) << d.dump(1);
    EXPECT_NE((*begin)["digest"], (*end)["digest"]) << "the paused stroke changed the state";
    EXPECT_EQ(r["redo"]["state_digest"], (*end)["digest"]) << d.dump(1);
    EXPECT_GT(r["redo"]["brush"]["terrain_added"].get<double>(), 0.0);
}
