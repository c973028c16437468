// Tests of the `alluvium` command line, run as a real process: exit codes (0 ok, 2 bad usage or
// input, 3 no usable Vulkan device), the one-line "alluvium: ..." error on stderr, and that a
// failing run leaves no output (nor a temporary file) behind and never touches an existing one.
// Successful runs, reports, params, presets and --help: test_cli_run.cpp; the helpers:
// cli_process.h.
//
// [SECTION] bad input detected before the GPU starts
// [SECTION] bad usage (CLI11 parse errors)
// [SECTION] outputs that cannot be written
// [SECTION] no Vulkan driver
#include "cli_process.h"

// [SECTION] bad input detected before the GPU starts ------------------------------------------

TEST(CliBadInput, MissingInputFile) {
    Scratch s;
    expectRejected(s, {"run", "--in", s.inPath("no_such_file.png")}, {"no_such_file.png", "No such file"});
}

TEST(CliBadInput, TruncatedPng) {
    Scratch s;
    const fs::path full = s.in / "full.png";
    saveHeightmap(full, smallTerrain(40, 30), 4.0);
    const std::string bytes = readText(full);
    ASSERT_GT(bytes.size(), 200u);
    // Cut in the IHDR chunk, in the image data, and just before the IEND chunk.
    for (size_t keep : {size_t(20), bytes.size() / 2, bytes.size() - 12}) {
        SCOPED_TRACE("kept " + std::to_string(keep) + " of " + std::to_string(bytes.size()) + " bytes");
        const fs::path cut = s.in / ("cut" + std::to_string(keep) + ".png");
        writeFile(cut, bytes.substr(0, keep));
        expectRejected(s, {"run", "--in", cut.string()}, {cut.filename().string(), "truncated"});
    }
}

TEST(CliBadInput, NotAPng) {
    Scratch s;
    writeFile(s.in / "text.png", "hello, I am a text file and no PNG at all\n");
    expectRejected(s, {"run", "--in", s.inPath("text.png")}, {"text.png", "not a PNG"});
}

TEST(CliBadInput, F32WrongSize) {
    Scratch s;
    writeFloats(s.in / "ten.f32", std::vector<float>(100, 5.0f));
    expectRejected(s, {"run", "--in", s.inPath("ten.f32"), "--size", "11x10"},
                   {"ten.f32", "400 bytes", "11x10", "440"});
}

TEST(CliBadInput, F32WithoutSize) {
    Scratch s;
    writeFloats(s.in / "ten.f32", std::vector<float>(100, 5.0f));
    expectRejected(s, {"run", "--in", s.inPath("ten.f32")}, {"ten.f32", "--size"});
}

TEST(CliBadInput, F32WithNaN) {
    Scratch s;
    std::vector<float> v(100, 5.0f);
    v[37] = std::numeric_limits<float>::quiet_NaN();
    writeFloats(s.in / "nan.f32", v);
    expectRejected(s, {"run", "--in", s.inPath("nan.f32"), "--size", "10x10"}, {"nan.f32", "NaN", "(7, 3)"});
    v[37] = -std::numeric_limits<float>::infinity();
    writeFloats(s.in / "inf.f32", v);
    expectRejected(s, {"run", "--in", s.inPath("inf.f32"), "--size", "10x10"}, {"inf.f32", "-Inf"});
}

TEST(CliBadInput, BadSizeText) {
    Scratch s;
    expectRejected(s, {"run", "--size", "48"}, {"--size", "48"});
    expectRejected(s, {"run", "--size", "0x10"}, {"--size", "0x10"});
    expectRejected(s, {"run", "--size", "20000x10"}, {"--size", "20000x10"});
}

TEST(CliBadInput, UnknownParameter) {
    Scratch s;
    expectRejected(s, {"run", "--set", "nosuch=1"}, {"unknown parameter", "nosuch"});
    expectRejected(s, {"run", "--set", "rain_rate"}, {"name=value", "rain_rate"});
}

TEST(CliBadInput, OutOfRangeParameter) {
    Scratch s;
    expectRejected(s, {"run", "--set", "rain_rate=1e9"}, {"rain_rate", "out of range", "1e9"});
    expectRejected(s, {"run", "--set", "edge_mode=sideways"}, {"edge_mode", "sideways"});
}

TEST(CliBadInput, UnparsableParameter) {
    Scratch s;
    expectRejected(s, {"run", "--set", "rain_rate=abc"}, {"rain_rate", "abc", "not a number"});
    expectRejected(s, {"run", "--set", "rain_rate=nan"}, {"rain_rate", "nan", "not a number"});
    expectRejected(s, {"run", "--set", "rain_rate=0.5mm"}, {"rain_rate", "0.5mm"});
}

TEST(CliBadInput, UnknownPreset) {
    Scratch s;
    expectRejected(s, {"run", "--preset", "no_such_preset"}, {"unknown preset", "no_such_preset", "default"});
}

TEST(CliBadInput, PresetFileWithUnknownKey) {
    Scratch s;
    writeFile(s.in / "key.json", R"({"description": "x", "params": {}, "parms": {"rain_rate": 1}})");
    expectRejected(s, {"run", "--preset", s.inPath("key.json")}, {"key.json", "unknown key", "parms"});
    writeFile(s.in / "param.json", R"({"params": {"rain_rate": 1, "no_such_param": 2}})");
    expectRejected(s, {"run", "--preset", s.inPath("param.json")}, {"param.json", "no_such_param"});
    writeFile(s.in / "range.json", R"({"params": {"rain_rate": 1e9}})");
    expectRejected(s, {"run", "--preset", s.inPath("range.json")}, {"rain_rate", "out of range"});
    writeFile(s.in / "model.json", R"({"model": "rivers", "params": {}})");
    expectRejected(s, {"run", "--preset", s.inPath("model.json")}, {"model.json", "model", "fluvial"});
    writeFile(s.in / "broken.json", "{\"params\": {\"rain_rate\": 1,\n");
    expectRejected(s, {"run", "--preset", s.inPath("broken.json")}, {"broken.json", "not valid JSON"});
}

// Values that mean "not given" inside the program (cell size 0, hardness -1) must not let a bad
// value through silently: the run would quietly use the default.
TEST(CliBadInput, BadCellSizeAndHardness) {
    Scratch s;
    for (const char* v : {"-1", "0", "nan", "inf", "5000"}) {
        SCOPED_TRACE(std::string("--cell-size ") + v);
        expectRejected(s, {"run", "--size", "8x8", "--steps", "1", "--cell-size", v}, {"cell"});
    }
    for (const char* v : {"-0.5", "-1", "nan", "1.5"}) {
        SCOPED_TRACE(std::string("--hardness ") + v);
        expectRejected(s, {"run", "--size", "8x8", "--steps", "1", "--hardness", v}, {"hardness"});
    }
}

TEST(CliBadInput, UnsupportedOutputExtension) {
    Scratch s;
    for (const char* name : {"x.bmp", "x", "x.PNG.bak", "x.json"}) {
        const CliResult r = runCli({"run", "--size", "8x8", "--steps", "1", "--out", s.outPath(name)}, s.io);
        EXPECT_TRUE(isUsageError(r, {"--out", name, "extension"}));
    }
    const CliResult r = runCli(
        {"run", "--size", "8x8", "--steps", "1", "--out", s.outPath("x.png"), "--report", s.outPath("r.txt")}, s.io);
    EXPECT_TRUE(isUsageError(r, {"--report", "r.txt", "extension"}));
    EXPECT_TRUE(holdsExactly(s.out, {}));
}

// [SECTION] bad usage (CLI11 parse errors) ----------------------------------------------------

TEST(CliUsage, MissingOut) {
    Scratch s;
    EXPECT_TRUE(isUsageError(runCli({"run", "--size", "8x8", "--steps", "1"}, s.io), {"--out", "required"}));
    EXPECT_TRUE(holdsExactly(s.out, {}));
}

TEST(CliUsage, UnknownSubcommandOrOption) {
    Scratch s;
    const std::string out = s.outPath("x.png");
    EXPECT_TRUE(isUsageError(runCli({}, s.io), {"subcommand"}));
    EXPECT_TRUE(isUsageError(runCli({"frobnicate"}, s.io), {}));
    EXPECT_TRUE(isUsageError(runCli({"frobnicate", "--out", out}, s.io), {}));
    EXPECT_TRUE(isUsageError(runCli({"run", "--frob", "--out", out}, s.io), {"--frob"}));
    EXPECT_TRUE(isUsageError(runCli({"run", "--size", "8x8", "--out", out, "extra"}, s.io), {"extra"}));
    EXPECT_TRUE(isUsageError(runCli({"params", "--frob"}, s.io), {"--frob"}));
    EXPECT_TRUE(isUsageError(runCli({"presets", "--json"}, s.io), {"--json"}));
    EXPECT_TRUE(isUsageError(runCli({"run", "--steps", "-1", "--out", out}, s.io), {"--steps"}));
    EXPECT_TRUE(isUsageError(runCli({"run", "--steps", "many", "--out", out}, s.io), {"--steps"}));
    EXPECT_TRUE(isUsageError(runCli({"run", "--steps", "--out", out}, s.io), {}));
    EXPECT_TRUE(isUsageError(runCli({"run", "--size", "8x8", "--seed", "x", "--out", out}, s.io), {"--seed"}));
    EXPECT_TRUE(isUsageError(runCli({"bench", "--sizes", "abc"}, s.io), {"abc"}));
    EXPECT_TRUE(isUsageError(runCli({"bench", "--sizes", "64x"}, s.io), {"64x"}));
    EXPECT_TRUE(isUsageError(runCli({"bench", "--steps", "0"}, s.io), {"--steps"}));
    EXPECT_TRUE(isUsageError(runCli({"bench", "--workgroup", "12x12"}, s.io), {"--workgroup"}));
    EXPECT_TRUE(holdsExactly(s.out, {}));
}

// [SECTION] outputs that cannot be written ----------------------------------------------------

// The folder of --out cannot be created because a regular file stands in its path. The run may
// notice only at the end (then the device and progress lines come first): exit 2, the LAST
// line is the error, and neither the heightmap nor the report (nor a temporary file) is left.
TEST(CliOutput, OutputFolderCannotBeCreated) {
    Scratch s;
    const std::string bad_out = (s.out / "blocker" / "sub" / "x.png").string();
    for (const auto& [out, report] : {std::pair{bad_out, s.outPath("report.json")},
                                      std::pair{s.outPath("x.f32"), (s.out / "blocker" / "r.json").string()},
                                      std::pair{(s.out / "blocker" / "x.f32").string(), std::string()}}) {
        fs::remove_all(s.out);
        fs::create_directories(s.out);
        writeFile(s.out / "blocker", "a regular file, not a folder\n");
        std::vector<std::string> args = {"run", "--size", "16x12", "--steps", "2", "--out", out};
        if (!report.empty()) args.insert(args.end(), {"--report", report});
        const CliResult r = runCli(args, s.io);
        EXPECT_EQ(r.code, 2) << r;
        ASSERT_FALSE(r.err_lines.empty()) << r;
        EXPECT_TRUE(startsWith(r.err_lines.back(), "alluvium: ")) << r;
        EXPECT_TRUE(contains(r.err_lines.back(), "blocker")) << r;
        EXPECT_TRUE(contains(r.err_lines.back(), "not a directory") || contains(r.err_lines.back(), "Not a directory"))
            << r;
        EXPECT_TRUE(holdsExactly(s.out, {"blocker"})) << r;
        EXPECT_EQ(readText(s.out / "blocker"), "a regular file, not a folder\n");
    }
}

// --out (or the PNG's sidecar) names an existing folder: it must not be replaced, and nothing
// else (the report, the heightmap without its sidecar) may be left.
TEST(CliOutput, OutputIsAFolder) {
    Scratch s;
    for (const char* folder : {"x.png", "x.png.json"}) {
        SCOPED_TRACE(std::string("folder ") + folder);
        fs::remove_all(s.out);
        fs::create_directories(s.out / folder);
        const CliResult r = runCli({"run", "--size", "16x12", "--steps", "2", "--out", s.outPath("x.png"), "--report",
                                    s.outPath("report.json")},
                                   s.io);
        EXPECT_EQ(r.code, 2) << r;
        ASSERT_FALSE(r.err_lines.empty()) << r;
        EXPECT_TRUE(startsWith(r.err_lines.back(), "alluvium: ")) << r;
        EXPECT_TRUE(contains(r.err_lines.back(), folder)) << r;
        EXPECT_TRUE(holdsExactly(s.out, {folder})) << r;
    }
}

// [SECTION] no Vulkan driver ------------------------------------------------------------------

TEST(CliDevice, NoVulkanDriver) {
    Scratch s;
    const EnvChanges no_driver = {{"VK_DRIVER_FILES", "/nonexistent.json"},
                                  {"VK_ICD_FILENAMES", "/nonexistent.json"},
                                  {"VK_ADD_DRIVER_FILES", std::nullopt}};
    const std::string out = s.outPath("x.png"), report = s.outPath("r.json");
    const CliResult r =
        runCli({"run", "--size", "16x12", "--steps", "2", "--out", out, "--report", report}, s.io, no_driver);
    EXPECT_EQ(r.code, 3) << r;
    ASSERT_FALSE(r.err_lines.empty()) << r;
    EXPECT_TRUE(startsWith(r.err_lines.back(), "alluvium: ")) << r;
    EXPECT_TRUE(contains(r.err_lines.back(), "Vulkan")) << r;
    EXPECT_TRUE(r.out.empty()) << r;
    EXPECT_TRUE(holdsExactly(s.out, {}));

    const CliResult bench = runCli({"bench", "--sizes", "16", "--steps", "1"}, s.io, no_driver);
    EXPECT_EQ(bench.code, 3) << bench;
    ASSERT_FALSE(bench.err_lines.empty()) << bench;
    EXPECT_TRUE(contains(bench.err_lines.back(), "Vulkan")) << bench;

    // Bad input is still reported as such (exit 2) without a driver: it is checked first.
    EXPECT_TRUE(isUsageError(runCli({"run", "--set", "nosuch=1", "--out", out}, s.io, no_driver), {"nosuch"}));
    EXPECT_TRUE(noTempFiles(s.root));
}

// A grid larger than the device's memory: exit 3, the last line says how much it needs and
// how much there is, nothing is written. (8192 x 2048 needs about 2.3 GiB; lavapipe has 2.)
TEST(CliDevice, GridLargerThanGpuMemory) {
    Scratch s;
    const std::string out = s.outPath("x.f32"), report = s.outPath("r.json");
    const CliResult r = runCli({"run", "--size", "8192x2048", "--steps", "1", "--out", out, "--report", report}, s.io);
    if (r.code == 0) GTEST_SKIP() << "this device has room for the grid: nothing to check";
    EXPECT_EQ(r.code, 3) << r;
    ASSERT_FALSE(r.err_lines.empty()) << r;
    EXPECT_TRUE(contains(r.err_lines.back(), "needs")) << r;
    EXPECT_TRUE(contains(r.err_lines.back(), "MiB of GPU memory")) << r;
    EXPECT_TRUE(holdsExactly(s.out, {}));
    EXPECT_TRUE(noTempFiles(s.root));
}
