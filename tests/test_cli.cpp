// Tests of the `alluvium` command line, run as a real process: exit codes (0 ok, 2 bad usage or
// input, 3 no usable Vulkan device), the one-line "alluvium: ..." error on stderr, and that a
// failing run leaves no output (nor a temporary file) behind and never touches an existing one.
//
// [SECTION] helpers: scratch folders, running the binary, checking errors and leftovers
// [SECTION] bad input detected before the GPU starts
// [SECTION] bad usage (CLI11 parse errors)
// [SECTION] outputs that cannot be written
// [SECTION] successful runs and the report
// [SECTION] params, presets, --help
// [SECTION] no Vulkan driver
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/heightmap.h"
#include "params.h"

extern char** environ;

#include "test_util.h"

namespace fs = std::filesystem;
using namespace alluvium;

// [SECTION] helpers ---------------------------------------------------------------------------
namespace {

fs::path scratchDir() { return test::scratchDir("cli"); }

std::string readFile(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void writeFile(const fs::path& path, const std::string& bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    ASSERT_TRUE(out.good()) << path;
}

void writeFloats(const fs::path& path, const std::vector<float>& values) {
    std::string bytes(values.size() * 4, '\0');
    std::memcpy(bytes.data(), values.data(), bytes.size()); // little-endian host (x86, ARM)
    writeFile(path, bytes);
}

std::vector<std::string> splitLines(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

bool startsWith(const std::string& s, const std::string& prefix) {
    return s.compare(0, prefix.size(), prefix) == 0;
}

bool contains(const std::string& s, const std::string& needle) {
    return s.find(needle) != std::string::npos;
}

// What one run of the binary did.
struct CliResult {
    int code = -1; // exit status; 128 + signal if it was killed
    std::string out;
    std::string err;
    std::vector<std::string> err_lines;
    std::string command; // for failure messages
};

::testing::AssertionResult describe(const CliResult& r) {
    return ::testing::AssertionFailure() << "\n  command: " << r.command << "\n  exit " << r.code
                                         << "\n  stderr:\n"
                                         << r.err << "  stdout (" << r.out.size() << " bytes)";
}

std::ostream& operator<<(std::ostream& os, const CliResult& r) {
    return os << describe(r).message();
}

// Environment changes for the child: a value sets the variable, nullopt removes it.
using EnvChanges = std::vector<std::pair<std::string, std::optional<std::string>>>;

// Runs `alluvium args...` with stdout and stderr captured to files in capture_dir (which the
// checks for leftovers must not look at), MESA_SHADER_CACHE_DIR in the build tree, and a 120 s
// alarm so a hang fails the test instead of blocking it.
CliResult runCli(const std::vector<std::string>& args, const fs::path& capture_dir,
                 const EnvChanges& env_changes = {}) {
    EnvChanges changes = {
        {"MESA_SHADER_CACHE_DIR", (fs::path(ALLUVIUM_TEST_TMP_DIR).parent_path() / "mesa-cache").string()}};
    changes.insert(changes.end(), env_changes.begin(), env_changes.end());
    std::vector<std::string> env_strings;
    for (char** e = environ; *e; ++e) {
        const std::string entry = *e;
        const std::string key = entry.substr(0, entry.find('='));
        if (std::none_of(changes.begin(), changes.end(), [&](const auto& c) { return c.first == key; }))
            env_strings.push_back(entry);
    }
    for (const auto& [key, value] : changes)
        if (value) env_strings.push_back(key + "=" + *value);

    std::vector<std::string> argv_strings = {ALLUVIUM_EXE};
    argv_strings.insert(argv_strings.end(), args.begin(), args.end());
    std::vector<char*> argv, envp;
    for (std::string& s : argv_strings) argv.push_back(s.data());
    argv.push_back(nullptr);
    for (std::string& s : env_strings) envp.push_back(s.data());
    envp.push_back(nullptr);

    fs::create_directories(capture_dir);
    const std::string out_path = (capture_dir / "stdout.txt").string();
    const std::string err_path = (capture_dir / "stderr.txt").string();

    CliResult r;
    for (const std::string& a : argv_strings) r.command += (r.command.empty() ? "" : " ") + a;
    const pid_t pid = ::fork();
    if (pid < 0) {
        ADD_FAILURE() << "fork failed: " << std::strerror(errno);
        return r;
    }
    if (pid == 0) {
        const int out_fd = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        const int err_fd = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        const int null_fd = ::open("/dev/null", O_RDONLY);
        if (out_fd < 0 || err_fd < 0 || null_fd < 0) ::_exit(126);
        ::dup2(null_fd, 0);
        ::dup2(out_fd, 1);
        ::dup2(err_fd, 2);
        ::alarm(120); // survives exec; SIGALRM ends a hung child
        ::execve(argv[0], argv.data(), envp.data());
        ::_exit(127);
    }
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            ADD_FAILURE() << "waitpid failed: " << std::strerror(errno);
            return r;
        }
    }
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    r.out = readFile(out_path);
    r.err = readFile(err_path);
    r.err_lines = splitLines(r.err);
    return r;
}

// Exit 2, nothing on stdout, exactly one stderr line "alluvium: ..." containing every needle:
// an error found before the GPU starts (so no "alluvium: device ..." line either).
::testing::AssertionResult isOneLineError(const CliResult& r, int code,
                                          const std::vector<std::string>& needles) {
    if (r.code != code) return describe(r) << "\n  expected exit " << code;
    if (r.err_lines.size() != 1) return describe(r) << "\n  expected exactly one stderr line";
    if (r.err.back() != '\n') return describe(r) << "\n  the error line does not end in a newline";
    if (!startsWith(r.err_lines[0], "alluvium: "))
        return describe(r) << "\n  the error line does not start with 'alluvium: '";
    for (const std::string& n : needles)
        if (!contains(r.err_lines[0], n)) return describe(r) << "\n  the error does not mention '" << n << "'";
    if (!r.out.empty()) return describe(r) << "\n  expected nothing on stdout, got: " << r.out;
    return ::testing::AssertionSuccess();
}

::testing::AssertionResult isUsageError(const CliResult& r, const std::vector<std::string>& needles) {
    return isOneLineError(r, 2, needles);
}

// Every file below dir (relative paths), sorted.
std::vector<std::string> filesBelow(const fs::path& dir) {
    std::vector<std::string> names;
    for (const auto& e : fs::recursive_directory_iterator(dir))
        names.push_back(fs::relative(e.path(), dir).string());
    std::sort(names.begin(), names.end());
    return names;
}

// dir holds exactly `expected` (relative paths; folders included), so nothing was written and no
// temporary "*.tmp-*" file was left.
::testing::AssertionResult holdsExactly(const fs::path& dir, std::vector<std::string> expected) {
    std::sort(expected.begin(), expected.end());
    const std::vector<std::string> actual = filesBelow(dir);
    if (actual == expected) return ::testing::AssertionSuccess();
    auto failure = ::testing::AssertionFailure() << dir << " holds:";
    for (const std::string& a : actual) failure << " " << a;
    failure << "\n  expected:";
    for (const std::string& e : expected) failure << " " << e;
    return failure;
}

// No file named "*.tmp-*" anywhere below dir.
::testing::AssertionResult noTempFiles(const fs::path& dir) {
    for (const std::string& f : filesBelow(dir))
        if (contains(fs::path(f).filename().string(), ".tmp-"))
            return ::testing::AssertionFailure() << "temporary file left behind: " << (dir / f);
    return ::testing::AssertionSuccess();
}

// A test's layout: inputs in in/, outputs in out/, captured stdout/stderr in io/.
struct Scratch {
    fs::path root = scratchDir();
    fs::path in = root / "in";
    fs::path out = root / "out";
    fs::path io = root / "io";
    Scratch() {
        fs::create_directories(in);
        fs::create_directories(out);
    }
    std::string inPath(const std::string& name) const { return (in / name).string(); }
    std::string outPath(const std::string& name) const { return (out / name).string(); }
};

// The bad input `args` (a `run` without --out) is rejected before the GPU starts: exit 2 and one
// line that mentions every needle; a fresh --out is not created (neither is its sidecar or a
// report), and an existing output, sidecar and report are left byte for byte as they were.
void expectRejected(const Scratch& s, const std::vector<std::string>& args,
                    const std::vector<std::string>& needles) {
    fs::remove_all(s.out);
    fs::create_directories(s.out);
    const std::vector<std::string> inputs = filesBelow(s.in);
    for (const char* out_name : {"fresh.png", "fresh.f32"}) {
        std::vector<std::string> a = args;
        a.insert(a.end(), {"--out", s.outPath(out_name), "--report", s.outPath("report.json")});
        const CliResult r = runCli(a, s.io);
        EXPECT_TRUE(isUsageError(r, needles));
        EXPECT_TRUE(holdsExactly(s.out, {}));
    }
    const std::string old_png = "not really a png, but a file the run must not touch";
    const std::string old_side = "{\"old\": true}\n";
    const std::string old_report = "{\"old report\": true}\n";
    writeFile(s.out / "old.png", old_png);
    writeFile(s.out / "old.png.json", old_side);
    writeFile(s.out / "old.json", old_report);
    const auto mtime = fs::last_write_time(s.out / "old.png");
    std::vector<std::string> a = args;
    a.insert(a.end(), {"--out", s.outPath("old.png"), "--report", s.outPath("old.json")});
    const CliResult r = runCli(a, s.io);
    EXPECT_TRUE(isUsageError(r, needles));
    EXPECT_TRUE(holdsExactly(s.out, {"old.png", "old.png.json", "old.json"}));
    EXPECT_EQ(readFile(s.out / "old.png"), old_png);
    EXPECT_EQ(readFile(s.out / "old.png.json"), old_side);
    EXPECT_EQ(readFile(s.out / "old.json"), old_report);
    EXPECT_EQ(fs::last_write_time(s.out / "old.png"), mtime);
    EXPECT_EQ(filesBelow(s.in), inputs) << "the run changed its inputs";
}

LoadOptions sized(int w, int h) {
    LoadOptions o;
    o.width = w;
    o.height = h;
    return o;
}

// A small, valid heightmap (a tilted bumpy plane) for input files.
Heightmap smallTerrain(int w, int h) {
    Heightmap m{w, h, {}};
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            m.heights.push_back(static_cast<float>(10.0 + 0.5 * x + 0.25 * y +
                                                   3.0 * std::sin(0.7 * x) * std::cos(0.4 * y)));
    return m;
}

} // namespace

// [SECTION] bad input detected before the GPU starts ------------------------------------------

TEST(CliBadInput, MissingInputFile) {
    Scratch s;
    expectRejected(s, {"run", "--in", s.inPath("no_such_file.png")},
                   {"no_such_file.png", "No such file"});
}

TEST(CliBadInput, TruncatedPng) {
    Scratch s;
    const fs::path full = s.in / "full.png";
    saveHeightmap(full, smallTerrain(40, 30), 4.0);
    const std::string bytes = readFile(full);
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
        EXPECT_TRUE(contains(r.err_lines.back(), "not a directory") ||
                    contains(r.err_lines.back(), "Not a directory")) << r;
        EXPECT_TRUE(holdsExactly(s.out, {"blocker"})) << r;
        EXPECT_EQ(readFile(s.out / "blocker"), "a regular file, not a folder\n");
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
        const CliResult r = runCli({"run", "--size", "16x12", "--steps", "2", "--out", s.outPath("x.png"),
                                    "--report", s.outPath("report.json")},
                                   s.io);
        EXPECT_EQ(r.code, 2) << r;
        ASSERT_FALSE(r.err_lines.empty()) << r;
        EXPECT_TRUE(startsWith(r.err_lines.back(), "alluvium: ")) << r;
        EXPECT_TRUE(contains(r.err_lines.back(), folder)) << r;
        EXPECT_TRUE(holdsExactly(s.out, {folder})) << r;
    }
}

// [SECTION] successful runs and the report ----------------------------------------------------
namespace {

// Checks the report's keys and the invariants of a healthy run; returns it.
nlohmann::json checkReport(const fs::path& path, int steps, int w, int h, double cell_size) {
    nlohmann::json r;
    try {
        r = nlohmann::json::parse(readFile(path));
    } catch (const nlohmann::json::exception& e) {
        ADD_FAILURE() << path << " is not JSON: " << e.what();
        return r;
    }
    for (const char* key : {"steps", "seconds", "width", "height", "cell_size", "nan_cells", "max_speed"}) {
        EXPECT_TRUE(r.contains(key) && r[key].is_number()) << "report key " << key << " in " << r.dump(1);
    }
    for (const char* key : {"rained", "sourced", "evaporated", "drained", "stored_initial", "stored_final",
                            "budget_error_rel"}) {
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
    const nlohmann::json side = nlohmann::json::parse(readFile(out + ".json"));
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
    const CliResult r = runCli({"run", "--in", dem, "--size", "111x111", "--cell-size", "90", "--steps", "50",
                                "--out", out, "--report", report},
                               s.io);
    expectSuccess(r, out);
    EXPECT_TRUE(holdsExactly(s.out, {"olinda.png", "olinda.png.json", "r.json"}));
    checkReport(report, 50, 111, 111, 90.0);
    const nlohmann::json side = nlohmann::json::parse(readFile(out + ".json"));
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
    const CliResult r = runCli({"fill", "--in", dem, "--size", "240x144", "--cell-size", "90", "--out", out,
                                "--report", report},
                               s.io);
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
    const nlohmann::json rep = nlohmann::json::parse(readFile(report));
    EXPECT_GT(cells, 0);
    EXPECT_EQ(rep["filled_cells"].get<long long>(), cells);
    EXPECT_NEAR(rep["fill_volume_m3"].get<double>(), volume, 1e-4 * volume);
    EXPECT_EQ(rep["unreached_cells"].get<long long>(), 0);

    const std::string again = s.outPath("again.f32"), report2 = s.outPath("again.json");
    expectSuccess(runCli({"fill", "--in", out, "--size", "240x144", "--out", again, "--report", report2}, s.io), again);
    EXPECT_EQ(readFile(again), readFile(out));
    EXPECT_EQ(nlohmann::json::parse(readFile(report2))["fill_volume_m3"].get<double>(), 0.0);

    // Bad input: no --out, an unknown outlet side, a NaN cell.
    EXPECT_TRUE(isUsageError(runCli({"fill", "--in", dem, "--size", "240x144"}, s.io), {"--out"}));
    EXPECT_TRUE(isUsageError(runCli({"fill", "--in", dem, "--size", "240x144", "--set", "fluvial_outlets=up",
                                     "--out", s.outPath("x.f32")},
                                    s.io),
                             {"fluvial_outlets"}));
    std::vector<float> nan_dem = in.heights;
    nan_dem[1000] = std::nanf("");
    writeFloats(s.in / "nan.f32", nan_dem);
    EXPECT_TRUE(isUsageError(runCli({"fill", "--in", s.inPath("nan.f32"), "--size", "240x144", "--out",
                                     s.outPath("x.f32")},
                                    s.io),
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
    const nlohmann::json rep = nlohmann::json::parse(readFile(report));
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
    for (const char* phase : {"basins", "pass_points", "spill_solve", "flats", "route", "accumulate", "erode", "deposit"}) {
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
    EXPECT_EQ(readFile(s.outPath("a.f32")), readFile(s.outPath("b.f32")));
    expectSuccess(runCli(with({"--steps", "5", "--out", s.outPath("half.f32"), "--save-session", s.outPath("s.alluvium")}), s.io),
                  s.outPath("half.f32"));
    expectSuccess(runCli({"run", "--load-session", s.outPath("s.alluvium"), "--steps", "3", "--out", s.outPath("c.f32")}, s.io),
                  s.outPath("c.f32"));
    EXPECT_EQ(readFile(s.outPath("c.f32")), readFile(s.outPath("a.f32")));
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

TEST(CliInfo, PresetsListsDefault) {
    Scratch s;
    const CliResult r = runCli({"presets"}, s.io);
    ASSERT_EQ(r.code, 0) << r;
    EXPECT_TRUE(r.err.empty()) << r;
    const std::vector<std::string> names = splitLines(r.out);
    EXPECT_NE(std::find(names.begin(), names.end(), "default"), names.end()) << r.out;
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
