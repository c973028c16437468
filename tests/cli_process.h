// Helpers of the tests that run `alluvium` as a real process and check what it says and leaves
// (test_cli.cpp: bad input and usage, outputs that cannot be written, no Vulkan driver;
// test_cli_run.cpp: successful runs, reports, params, presets, --help): scratch folders, running
// the binary, checking errors and leftovers.
#pragma once
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
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

namespace cli_test {

inline fs::path scratchDir() { return test::scratchDir("cli"); }

using test::readText;

inline void writeFile(const fs::path& path, const std::string& bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    ASSERT_TRUE(out.good()) << path;
}

inline void writeFloats(const fs::path& path, const std::vector<float>& values) {
    std::string bytes(values.size() * 4, '\0');
    std::memcpy(bytes.data(), values.data(), bytes.size()); // little-endian host (x86, ARM)
    writeFile(path, bytes);
}

inline std::vector<std::string> splitLines(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

inline bool startsWith(const std::string& s, const std::string& prefix) {
    return s.compare(0, prefix.size(), prefix) == 0;
}

inline bool contains(const std::string& s, const std::string& needle) { return s.find(needle) != std::string::npos; }

// What one run of the binary did.
struct CliResult {
    int code = -1; // exit status; 128 + signal if it was killed
    std::string out;
    std::string err;
    std::vector<std::string> err_lines;
    std::string command; // for failure messages
    double peak_mib = 0; // the child's largest resident memory
    double seconds = 0;  // wall-clock time of the child
};

inline ::testing::AssertionResult describe(const CliResult& r) {
    return ::testing::AssertionFailure() << "\n  command: " << r.command << "\n  exit " << r.code << "\n  stderr:\n"
                                         << r.err << "  stdout (" << r.out.size() << " bytes)";
}

inline std::ostream& operator<<(std::ostream& os, const CliResult& r) { return os << describe(r).message(); }

// Environment changes for the child: a value sets the variable, nullopt removes it.
using EnvChanges = std::vector<std::pair<std::string, std::optional<std::string>>>;

// Runs `alluvium args...` with stdout and stderr captured to files in capture_dir (which the
// checks for leftovers must not look at), MESA_SHADER_CACHE_DIR in the build tree, and a 120 s
// alarm so a hang fails the test instead of blocking it.
inline CliResult runCli(const std::vector<std::string>& args, const fs::path& capture_dir,
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
    rusage usage{};
    const auto started = std::chrono::steady_clock::now();
    while (::wait4(pid, &status, 0, &usage) < 0) {
        if (errno != EINTR) {
            ADD_FAILURE() << "waitpid failed: " << std::strerror(errno);
            return r;
        }
    }
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    r.peak_mib = double(usage.ru_maxrss) / 1024.0;
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    r.out = readText(out_path);
    r.err = readText(err_path);
    r.err_lines = splitLines(r.err);
    return r;
}

// Exit 2, nothing on stdout, exactly one stderr line "alluvium: ..." containing every needle:
// an error found before the GPU starts (so no "alluvium: device ..." line either).
inline ::testing::AssertionResult isOneLineError(const CliResult& r, int code,
                                                 const std::vector<std::string>& needles) {
    if (r.code != code) return describe(r) << "\n  expected exit " << code;
    if (r.err_lines.size() != 1) return describe(r) << "\n  expected exactly one stderr line";
    if (r.err.back() != '\n') return describe(r) << "\n  the error line does not end in a newline";
    if (!startsWith(r.err_lines[0], "alluvium: "))
        return describe(r) << "\n  the error line does not start with 'alluvium: '";
    for (const std::string& n : needles)
        if (!contains(r.err_lines[0], n)) return describe(r) << "\n  the error does not mention '" << n << "'";
    if (!r.out.empty()) return describe(r) << "\n  expected nothing on stdout, got: " << r.out;
    // A refusal is cheap: it never allocates what the input merely claims, and never waits.
    if (r.peak_mib >= 512.0) return describe(r) << "\n  the refusal took " << r.peak_mib << " MiB (limit 512)";
    if (r.seconds >= 10.0) return describe(r) << "\n  the refusal took " << r.seconds << " s (limit 10)";
    return ::testing::AssertionSuccess();
}

inline ::testing::AssertionResult isUsageError(const CliResult& r, const std::vector<std::string>& needles) {
    return isOneLineError(r, 2, needles);
}

// Every file below dir (relative paths), sorted.
inline std::vector<std::string> filesBelow(const fs::path& dir) {
    std::vector<std::string> names;
    for (const auto& e : fs::recursive_directory_iterator(dir)) names.push_back(fs::relative(e.path(), dir).string());
    std::sort(names.begin(), names.end());
    return names;
}

// dir holds exactly `expected` (relative paths; folders included), so nothing was written and no
// temporary "*.tmp-*" file was left.
inline ::testing::AssertionResult holdsExactly(const fs::path& dir, std::vector<std::string> expected) {
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
inline ::testing::AssertionResult noTempFiles(const fs::path& dir) {
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
inline void expectRejected(const Scratch& s, const std::vector<std::string>& args,
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
    EXPECT_EQ(readText(s.out / "old.png"), old_png);
    EXPECT_EQ(readText(s.out / "old.png.json"), old_side);
    EXPECT_EQ(readText(s.out / "old.json"), old_report);
    EXPECT_EQ(fs::last_write_time(s.out / "old.png"), mtime);
    EXPECT_EQ(filesBelow(s.in), inputs) << "the run changed its inputs";
}

inline LoadOptions sized(int w, int h) {
    LoadOptions o;
    o.width = w;
    o.height = h;
    return o;
}

// A small, valid heightmap (a tilted bumpy plane) for input files.
inline Heightmap smallTerrain(int w, int h) {
    Heightmap m{w, h, {}};
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            m.heights.push_back(
                static_cast<float>(10.0 + 0.5 * x + 0.25 * y + 3.0 * std::sin(0.7 * x) * std::cos(0.4 * y)));
    return m;
}

} // namespace cli_test

using namespace cli_test;
