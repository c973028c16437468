// Tests of the `alluvium` command line, run as a real process, that succeed: runs of every
// kind and their reports, `alluvium params`, presets and --help (the failures: test_cli.cpp).
//
// [SECTION] successful runs and the report
// [SECTION] params, presets, --help
#include "cli_process.h"
#include "presets.h"

// [SECTION] successful runs and the report ----------------------------------------------------
namespace {

// Checks the report's keys and the invariants of a healthy run; returns it.
nlohmann::json checkReport(const fs::path& path, int steps, int w, int h, double cell_size) {
    nlohmann::json r;
    try {
        r = nlohmann::json::parse(readText(path));
    } catch (const nlohmann::json::exception& e) {
        ADD_FAILURE() << path << " is not JSON: " << e.what();
        return r;
    }
    for (const char* key : {"steps", "seconds", "width", "height", "cell_size", "nan_cells", "max_speed"}) {
        EXPECT_TRUE(r.contains(key) && r[key].is_number()) << "report key " << key << " in " << r.dump(1);
    }
    for (const char* key :
         {"rained", "sourced", "evaporated", "drained", "stored_initial", "stored_final", "budget_error_rel"}) {
        EXPECT_TRUE(r.contains("water") && r["water"].contains(key) && r["water"][key].is_number())
            << "report key water." << key << " in " << r.dump(1);
    }
    for (const char* key : {"initial", "final", "suspended_final", "eroded", "deposited", "drained", "drift_rel"}) {
        EXPECT_TRUE(r.contains("soil") && r["soil"].contains(key) && r["soil"][key].is_number())
            << "report key soil." << key << " in " << r.dump(1);
    }
    if (::testing::Test::HasFailure()) return r;
    // Every number in the report is finite.
    for (const auto& section : {r, r["water"], r["soil"]}) {
        for (const auto& [key, value] : section.items()) {
            if (value.is_number()) {
                EXPECT_TRUE(std::isfinite(value.get<double>())) << key << " = " << value;
            }
        }
    }
    EXPECT_EQ(r["steps"].get<int>(), steps);
    EXPECT_EQ(r["width"].get<int>(), w);
    EXPECT_EQ(r["height"].get<int>(), h);
    EXPECT_DOUBLE_EQ(r["cell_size"].get<double>(), cell_size);
    EXPECT_EQ(r["nan_cells"].get<long long>(), 0);
    EXPECT_GE(r["seconds"].get<double>(), 0.0);
    EXPECT_GE(r["max_speed"].get<double>(), 0.0);
    EXPECT_GT(r["water"]["rained"].get<double>(), 0.0) << "the default rain should fall";
    EXPECT_GE(r["water"]["budget_error_rel"].get<double>(), 0.0);
    EXPECT_LT(r["water"]["budget_error_rel"].get<double>(), 1e-5);
    EXPECT_GT(r["soil"]["initial"].get<double>(), 0.0);
    EXPECT_LT(r["soil"]["drift_rel"].get<double>(), 1e-4);
    return r;
}

// The run succeeded: exit 0, nothing on stdout, no error line, the last line says what it wrote.
void expectSuccess(const CliResult& r, const std::string& out) {
    EXPECT_EQ(r.code, 0) << r;
    EXPECT_TRUE(r.out.empty()) << r;
    ASSERT_FALSE(r.err_lines.empty()) << r;
    EXPECT_TRUE(startsWith(r.err_lines.back(), "alluvium: wrote ")) << r;
    EXPECT_TRUE(contains(r.err_lines.back(), out)) << r;
    for (const std::string& line : r.err_lines) {
        EXPECT_FALSE(contains(line, "error:")) << r; // "alluvium: validation error: ..."
    }
}

} // namespace

TEST(CliRun, SmallRunPngAndReport) {
    Scratch s;
    const std::string out = s.outPath("x.png"), report = s.outPath("r.json");
    const CliResult r = runCli({"run", "--size", "48x40", "--steps", "50", "--out", out, "--report", report}, s.io);
    expectSuccess(r, out);
    EXPECT_TRUE(holdsExactly(s.out, {"x.png", "x.png.json", "r.json"}));
    checkReport(report, 50, 48, 40, paramInfo(Param::cell_size).default_value);
    const Heightmap m = loadHeightmap(out, {});
    EXPECT_EQ(m.width, 48);
    EXPECT_EQ(m.height, 40);
    const nlohmann::json side = nlohmann::json::parse(readText(out + ".json"));
    EXPECT_EQ(side["width"].get<int>(), 48);
    EXPECT_EQ(side["height"].get<int>(), 40);
    EXPECT_DOUBLE_EQ(side["cell_size_m"].get<double>(), paramInfo(Param::cell_size).default_value);
    EXPECT_LT(side["min_m"].get<double>(), side["max_m"].get<double>()) << "a flat result from mountains?";

    // Run again over the same outputs: replaced atomically, no temporary file left.
    const CliResult again =
        runCli({"run", "--size", "48x40", "--steps", "5", "--seed", "2", "--out", out, "--report", report}, s.io);
    expectSuccess(again, out);
    EXPECT_TRUE(holdsExactly(s.out, {"x.png", "x.png.json", "r.json"}));
    checkReport(report, 5, 48, 40, paramInfo(Param::cell_size).default_value);
}

TEST(CliRun, SmallRunF32IntoNewFolder) {
    Scratch s;
    const std::string out = (s.out / "new" / "folder" / "x.f32").string();
    const std::string report = s.outPath("r.json");
    const CliResult r = runCli({"run", "--size", "48x40", "--steps", "50", "--set", "edge_mode=open", "--set",
                                "rain_rate=0.5", "--out", out, "--report", report},
                               s.io);
    expectSuccess(r, out);
    EXPECT_TRUE(holdsExactly(s.out, {"new", "new/folder", "new/folder/x.f32", "r.json"}));
    EXPECT_EQ(fs::file_size(out), 48u * 40u * 4u);
    const nlohmann::json rep = checkReport(report, 50, 48, 40, paramInfo(Param::cell_size).default_value);
    const Heightmap m = loadHeightmap(out, sized(48, 40));
    EXPECT_EQ(m.heights.size(), 48u * 40u);
    for (float v : m.heights) {
        ASSERT_TRUE(std::isfinite(v));
    }
}

TEST(CliRun, SharedDem) {
    Scratch s;
    const std::string dem = std::string(ALLUVIUM_SHARED_DATA_DIR) + "/olinda_111x111.f32";
    ASSERT_TRUE(fs::is_regular_file(dem)) << dem;
    const std::string out = s.outPath("olinda.png"), report = s.outPath("r.json");
    const CliResult r = runCli({"run", "--in", dem, "--size", "111x111", "--cell-size", "90", "--steps", "50", "--out",
                                out, "--report", report},
                               s.io);
    expectSuccess(r, out);
    EXPECT_TRUE(holdsExactly(s.out, {"olinda.png", "olinda.png.json", "r.json"}));
    checkReport(report, 50, 111, 111, 90.0);
    const nlohmann::json side = nlohmann::json::parse(readText(out + ".json"));
    EXPECT_DOUBLE_EQ(side["cell_size_m"].get<double>(), 90.0);
    // 50 steps of 0.05 s cannot move the relief much: the result spans about the DEM's range.
    const Heightmap in = loadHeightmap(dem, sized(111, 111));
    const auto [lo, hi] = std::minmax_element(in.heights.begin(), in.heights.end());
    const double relief = double(*hi) - double(*lo);
    EXPECT_NEAR(side["min_m"].get<double>(), *lo, 0.05 * relief);
    EXPECT_NEAR(side["max_m"].get<double>(), *hi, 0.05 * relief);
}

// alluvium fill: the filled DEM is >= the input everywhere, the report's volume is the sum of
// the differences, and filling the result again fills nothing.
TEST(CliRun, FillSharedDem) {
    Scratch s;
    const std::string dem = std::string(ALLUVIUM_SHARED_DATA_DIR) + "/srtm_frontrange_240x144_240x144.f32";
    const std::string out = s.outPath("filled.f32"), report = s.outPath("fill.json");
    const CliResult r =
        runCli({"fill", "--in", dem, "--size", "240x144", "--cell-size", "90", "--out", out, "--report", report}, s.io);
    expectSuccess(r, out);
    EXPECT_TRUE(holdsExactly(s.out, {"filled.f32", "fill.json"}));
    const Heightmap in = loadHeightmap(dem, sized(240, 144)), filled = loadHeightmap(out, sized(240, 144));
    double volume = 0.0;
    long long cells = 0;
    for (size_t i = 0; i < in.heights.size(); ++i) {
        ASSERT_GE(filled.heights[i], in.heights[i]) << i;
        volume += (double(filled.heights[i]) - in.heights[i]) * 90.0 * 90.0;
        cells += filled.heights[i] > in.heights[i];
    }
    const nlohmann::json rep = nlohmann::json::parse(readText(report));
    EXPECT_GT(cells, 0);
    EXPECT_EQ(rep["filled_cells"].get<long long>(), cells);
    EXPECT_NEAR(rep["fill_volume_m3"].get<double>(), volume, 1e-4 * volume);
    EXPECT_EQ(rep["unreached_cells"].get<long long>(), 0);

    const std::string again = s.outPath("again.f32"), report2 = s.outPath("again.json");
    expectSuccess(runCli({"fill", "--in", out, "--size", "240x144", "--out", again, "--report", report2}, s.io), again);
    EXPECT_EQ(readText(again), readText(out));
    EXPECT_EQ(nlohmann::json::parse(readText(report2))["fill_volume_m3"].get<double>(), 0.0);

    // Bad input: no --out, an unknown outlet side, a NaN cell.
    EXPECT_TRUE(isUsageError(runCli({"fill", "--in", dem, "--size", "240x144"}, s.io), {"--out"}));
    EXPECT_TRUE(isUsageError(
        runCli({"fill", "--in", dem, "--size", "240x144", "--set", "fluvial_outlets=up", "--out", s.outPath("x.f32")},
               s.io),
        {"fluvial_outlets"}));
    std::vector<float> nan_dem = in.heights;
    nan_dem[1000] = std::nanf("");
    writeFloats(s.in / "nan.f32", nan_dem);
    EXPECT_TRUE(isUsageError(
        runCli({"fill", "--in", s.inPath("nan.f32"), "--size", "240x144", "--out", s.outPath("x.f32")}, s.io),
        {"nan.f32"}));
    EXPECT_FALSE(fs::exists(s.outPath("x.f32")));
}

// run --model fluvial: iterations of geological time; the report has the fluvial section and
// --out-maps the lake depth and drainage area.
TEST(CliRun, FluvialModelWithMaps) {
    Scratch s;
    const std::string out = s.outPath("f.f32"), report = s.outPath("r.json"), maps = s.outPath("maps");
    const CliResult r = runCli({"run", "--model", "fluvial", "--size", "64x48", "--steps", "20", "--out", out,
                                "--report", report, "--out-maps", maps},
                               s.io);
    expectSuccess(r, out);
    const nlohmann::json rep = nlohmann::json::parse(readText(report));
    EXPECT_EQ(rep["model"], "fluvial");
    EXPECT_TRUE(rep["fluvial"]["last_iteration_fill_converged"].get<bool>());
    EXPECT_DOUBLE_EQ(rep["fluvial"]["years"].get<double>(), 20 * paramInfo(Param::fluvial_time_step).default_value);
    // The largest drainage area cannot exceed the grid.
    const double cell = paramInfo(Param::cell_size).default_value;
    EXPECT_GT(rep["fluvial"]["largest_drainage_area_m2"].get<double>(), 10 * cell * cell);
    EXPECT_LE(rep["fluvial"]["largest_drainage_area_m2"].get<double>(), 64 * 48 * cell * cell);
    for (const char* f : {"lake_depth.png", "lake_depth.exr", "drainage_area.exr", "drainage_area_log.png"})
        EXPECT_TRUE(fs::is_regular_file(fs::path(maps) / f)) << f;
    const Heightmap area = loadHeightmap((fs::path(maps) / "drainage_area.exr").string(), {});
    double at_outlets = 0.0;
    for (int y = 0; y < 48; ++y)
        for (int x = 0; x < 64; ++x)
            if (x == 0 || y == 0 || x == 63 || y == 47) at_outlets += area.at(x, y);
    // Every cell's rain leaves through an outlet edge: the outlets gather the whole grid.
    EXPECT_NEAR(at_outlets, 64 * 48 * cell * cell, 1e-3 * 64 * 48 * cell * cell);
}

// bench --model fluvial: a row per phase (basins .. deposit) with its bytes per cell, estimated
// from the rounds that ran, and its share of the copy bandwidth; the rounds of each loop.
TEST(CliRun, FluvialBenchPhasesAndRounds) {
    Scratch s;
    const CliResult r = runCli({"bench", "--model", "fluvial", "--sizes", "40x24", "--steps", "2", "--json"}, s.io);
    ASSERT_EQ(r.code, 0) << r;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    const nlohmann::json& size = j["sizes"].at(0);
    for (const char* phase :
         {"basins", "pass_points", "spill_solve", "flats", "route", "accumulate", "erode", "deposit"}) {
        ASSERT_TRUE(size["passes"].contains(phase)) << phase;
        EXPECT_GE(size["passes"][phase]["bytes_per_cell"].get<double>(), 0.0) << phase;
        EXPECT_TRUE(size["passes"][phase].contains("share_of_copy")) << phase;
    }
    EXPECT_GT(size["passes"]["route"]["bytes_per_cell"].get<double>(), 8.0);
    EXPECT_GT(size["bytes_per_cell"].get<double>(), 100.0);
    EXPECT_GT(size["share_of_copy"].get<double>(), 0.0);
    const nlohmann::json& rounds = size["fluvial_rounds"];
    EXPECT_GE(rounds["basin_labels"].get<int>(), 1);
    EXPECT_GE(rounds["accumulate"].get<int>(), 1);
    EXPECT_TRUE(rounds["flats_converged"].get<bool>());
}

// bench --workgroup all: each size once per workgroup shape the device runs (all four on
// lavapipe and on GPUs with 32 KiB of shared memory or more), each entry naming its shape and
// how many partials of the step's sums each workgroup leaves, and the shape the device would
// choose.
TEST(CliRun, BenchComparesWorkgroupShapes) {
    Scratch s;
    const CliResult r = runCli({"bench", "--sizes", "33x17", "--steps", "2", "--workgroup", "all", "--json"}, s.io);
    ASSERT_EQ(r.code, 0) << r;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    std::vector<std::string> shapes;
    for (const nlohmann::json& size : j["sizes"]) {
        EXPECT_EQ(size["size"], "33x17");
        EXPECT_GT(size["step_ms"].get<double>(), 0.0);
        shapes.push_back(size["workgroup"].get<std::string>());
        // the step's sums per workgroup: 1, or (CPU drivers) its subgroups, 256 / subgroup size
        const uint32_t per_group = size["partials_per_group"].get<uint32_t>();
        EXPECT_TRUE(per_group == 1 || per_group == WG_SIZE / j["subgroup_size"].get<uint32_t>()) << per_group;
    }
    EXPECT_EQ(shapes, (std::vector<std::string>{"8x32", "16x16", "32x8", "64x4"}));
    EXPECT_NE(std::find(shapes.begin(), shapes.end(), j["workgroup_auto"].get<std::string>()), shapes.end())
        << j["workgroup_auto"]; // 64x4 on lavapipe (WorkgroupTest checks the choice)
    const CliResult one = runCli({"bench", "--sizes", "20", "--steps", "1", "--workgroup", "32x8"}, s.io);
    ASSERT_EQ(one.code, 0) << one;
    EXPECT_NE(one.out.find("32x8 workgroups"), std::string::npos) << one;
}

// The fluvial model is deterministic (every round reads one buffer and writes another, so the
// order in which the GPU runs workgroups does not matter; its sums are integer atomics), and a
// session resumed half way ends bit for bit where a straight run does.
TEST(CliRun, FluvialIsDeterministicAndResumesExactly) {
    Scratch s;
    const std::vector<std::string> common = {"run", "--model", "fluvial", "--size", "80x56", "--seed", "4"};
    auto with = [&](std::vector<std::string> extra) {
        std::vector<std::string> a = common;
        a.insert(a.end(), extra.begin(), extra.end());
        return a;
    };
    expectSuccess(runCli(with({"--steps", "8", "--out", s.outPath("a.f32")}), s.io), s.outPath("a.f32"));
    expectSuccess(runCli(with({"--steps", "8", "--out", s.outPath("b.f32")}), s.io), s.outPath("b.f32"));
    EXPECT_EQ(readText(s.outPath("a.f32")), readText(s.outPath("b.f32")));
    expectSuccess(
        runCli(with({"--steps", "5", "--out", s.outPath("half.f32"), "--save-session", s.outPath("s.alluvium")}), s.io),
        s.outPath("half.f32"));
    expectSuccess(
        runCli({"run", "--load-session", s.outPath("s.alluvium"), "--steps", "3", "--out", s.outPath("c.f32")}, s.io),
        s.outPath("c.f32"));
    EXPECT_EQ(readText(s.outPath("c.f32")), readText(s.outPath("a.f32")));
}

// [SECTION] params, presets, --help -----------------------------------------------------------

TEST(CliInfo, ParamsListsEveryParameter) {
    Scratch s;
    const CliResult r = runCli({"params"}, s.io);
    ASSERT_EQ(r.code, 0) << r;
    EXPECT_TRUE(r.err.empty()) << r;
    std::set<std::string> first_words;
    for (const std::string& line : splitLines(r.out)) {
        std::istringstream words(line);
        std::string w;
        words >> w;
        first_words.insert(w);
    }
    for (const ParamInfo& p : paramTable()) {
        EXPECT_TRUE(first_words.count(p.name)) << p.name << "\n" << r.out;
    }
    EXPECT_EQ(splitLines(r.out).size(), size_t(kParamCount) + 1) << "a header and one line per parameter";
}

TEST(CliInfo, ParamsJson) {
    Scratch s;
    const CliResult r = runCli({"params", "--json"}, s.io);
    ASSERT_EQ(r.code, 0) << r;
    EXPECT_TRUE(r.err.empty()) << r;
    nlohmann::json table;
    ASSERT_NO_THROW(table = nlohmann::json::parse(r.out)) << r.out;
    ASSERT_TRUE(table.is_array());
    ASSERT_EQ(table.size(), size_t(kParamCount));
    for (size_t i = 0; i < table.size(); ++i) {
        const nlohmann::json& e = table[i];
        const ParamInfo& p = paramTable()[i];
        SCOPED_TRACE(p.name);
        ASSERT_TRUE(e.is_object());
        for (const char* key : {"name", "unit", "meaning"}) {
            ASSERT_TRUE(e.contains(key) && e[key].is_string()) << key;
        }
        for (const char* key : {"default", "min", "max"}) {
            ASSERT_TRUE(e.contains(key) && e[key].is_number()) << key;
        }
        EXPECT_EQ(e["name"].get<std::string>(), p.name);
        EXPECT_EQ(e["unit"].get<std::string>(), p.unit);
        EXPECT_EQ(e["meaning"].get<std::string>(), p.meaning);
        EXPECT_FALSE(e["meaning"].get<std::string>().empty());
        EXPECT_DOUBLE_EQ(e["default"].get<double>(), p.default_value);
        EXPECT_DOUBLE_EQ(e["min"].get<double>(), p.min);
        EXPECT_DOUBLE_EQ(e["max"].get<double>(), p.max);
        EXPECT_LE(e["min"].get<double>(), e["default"].get<double>());
        EXPECT_LE(e["default"].get<double>(), e["max"].get<double>());
    }
}

// A preset made for a model names it: the run uses it unless --model says otherwise (the model
// table's names).
TEST(CliRun, APresetNamesItsModelAndModelOverridesIt) {
    Scratch s;
    writeFile(s.in / "rivers.json", R"({"description": "for the fluvial model", "model": "fluvial",
                                        "params": {"fluvial_outlets": "bottom"}})");
    const std::vector<std::string> base = {
        "run", "--size", "24x20", "--steps", "2", "--preset", s.inPath("rivers.json")};
    for (const auto& [extra, model] : std::vector<std::pair<std::vector<std::string>, std::string>>{
             {{}, "fluvial"}, {{"--model", "thermal"}, "thermal"}}) {
        std::vector<std::string> args = base;
        args.insert(args.end(), extra.begin(), extra.end());
        args.insert(args.end(), {"--out", s.outPath("h.f32"), "--report", s.outPath("r.json")});
        const CliResult r = runCli(args, s.io);
        ASSERT_EQ(r.code, 0) << r;
        EXPECT_EQ(nlohmann::json::parse(readText(s.out / "r.json"))["model"], model);
    }
}

TEST(CliInfo, PresetsListsDefault) {
    Scratch s;
    const CliResult r = runCli({"presets"}, s.io);
    ASSERT_EQ(r.code, 0) << r;
    EXPECT_TRUE(r.err.empty()) << r;
    const std::vector<std::string> names = splitLines(r.out);
    EXPECT_NE(std::find(names.begin(), names.end(), "default"), names.end()) << r.out;
}

// Every shipped preset applies: its parameters within the table, its terrain and model known.
TEST(CliInfo, EveryShippedPresetApplies) {
    const std::vector<std::string> names = presetNames();
    EXPECT_GE(names.size(), 12u);
    for (const std::string& name : names) {
        SCOPED_TRACE(name);
        Params params;
        std::string terrain;
        EXPECT_NO_THROW(applyPreset(params, name, &terrain));
        EXPECT_NO_THROW(presetModel(name));
    }
}

TEST(CliInfo, HelpOnEverySubcommand) {
    Scratch s;
    const std::vector<std::pair<std::vector<std::string>, std::vector<std::string>>> cases = {
        {{"--help"}, {"run", "params", "presets", "bench"}},
        {{"-h"}, {"run"}},
        {{"run", "--help"}, {"--in", "--size", "--out", "--report", "--set", "--preset", "--steps"}},
        {{"params", "--help"}, {"--json"}},
        {{"presets", "--help"}, {"presets"}},
        {{"bench", "--help"}, {"--sizes", "--steps"}},
    };
    for (const auto& [args, needles] : cases) {
        const CliResult r = runCli(args, s.io);
        EXPECT_EQ(r.code, 0) << r;
        EXPECT_TRUE(r.err.empty()) << r;
        for (const std::string& n : needles) {
            EXPECT_TRUE(contains(r.out, n)) << n << " missing in:\n" << r.out;
        }
    }
    EXPECT_TRUE(holdsExactly(s.out, {}));
}
