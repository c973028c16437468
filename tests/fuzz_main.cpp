// alluvium_fuzz: the long-run parameter fuzz behind scripts/fuzz. Draws cases as the fuzz ctest
// does (fuzz_cases.h; without its limits on droplets and fill sweeps), runs each as its own
// `alluvium run` process (so a crash is a crash, not the end of the fuzz) and reads its report:
//   alluvium_fuzz N [--model M[,M...]] [--size WxH] [--steps S] [--seed K] [--timeout SECONDS] --exe PATH
// Prints every failure's command line as it happens, then the counts: runs, passed, NaN, soil
// drift, water budget, crashes (killed by a signal, or an exit status `run` never gives), errors
// (the run refused the case: exit 2, 3 or 4) and timeouts. Exit status 0 only if every run passed.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "fuzz_cases.h"

extern char** environ;

namespace {

namespace fs = std::filesystem;
using namespace alluvium;

struct Options {
    long long runs = 0;
    std::vector<int> models; // in turn; empty: every model
    int width = 0, height = 0;
    int steps = 0; // 0: 200 (fluvial: 50 iterations)
    uint64_t seed = 1;
    double timeout = 1800.0;
    std::string exe;
};

[[noreturn]] void usage(const char* why) {
    std::fprintf(
        stderr,
        "alluvium_fuzz: %s\nusage: alluvium_fuzz N [--model pipe|thermal|olsen|particles|musgrave|simple|fluvial] "
        "[--size WxH] [--steps S] [--seed K] [--timeout SECONDS] --exe PATH/alluvium\n",
        why);
    std::exit(2);
}

Options parse(int argc, char** argv) {
    Options o;
    if (argc < 2) usage("how many runs?");
    o.runs = std::atoll(argv[1]);
    if (o.runs <= 0) usage("N must be a positive number");
    for (int i = 2; i < argc; ++i) {
        const std::string a = argv[i];
        if (i + 1 >= argc) usage(("missing value after " + a).c_str());
        const std::string v = argv[++i];
        if (a == "--model") {
            for (size_t at = 0; at <= v.size();) {
                const size_t comma = std::min(v.find(',', at), v.size());
                const int m = gpu::modelFromName(v.substr(at, comma - at));
                if (m < 0) usage(("unknown model " + v.substr(at, comma - at)).c_str());
                o.models.push_back(m);
                at = comma + 1;
            }
        } else if (a == "--size") {
            if (std::sscanf(v.c_str(), "%dx%d", &o.width, &o.height) != 2 || o.width < 1 || o.height < 1)
                usage("--size takes WxH");
        } else if (a == "--steps") {
            o.steps = std::atoi(v.c_str());
            if (o.steps < 1) usage("--steps takes a positive number");
        } else if (a == "--seed") {
            o.seed = std::strtoull(v.c_str(), nullptr, 10);
        } else if (a == "--timeout") {
            o.timeout = std::atof(v.c_str());
        } else if (a == "--exe") {
            o.exe = v;
        } else {
            usage(("unknown option " + a).c_str());
        }
    }
    if (o.exe.empty()) usage("--exe PATH is required");
    return o;
}

// Runs `args` with stdout and stderr into `log`; returns the wait status, or -1 on a timeout
// (the process is killed).
int runProcess(const std::vector<std::string>& args, const fs::path& log, double timeout) {
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    std::vector<char*> argv;
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    pid_t pid = 0;
    const int err = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (err != 0) {
        std::fprintf(stderr, "alluvium_fuzz: cannot start %s: %s\n", argv[0], std::strerror(err));
        std::exit(2);
    }
    const auto start = std::chrono::steady_clock::now();
    for (;;) {
        int status = 0;
        const pid_t done = waitpid(pid, &status, WNOHANG);
        if (done == pid) return status;
        if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > timeout) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            return -1;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
}

std::vector<std::string> splitCommand(const std::string& cmd) {
    std::vector<std::string> words;
    size_t at = 0;
    while (at < cmd.size()) {
        const size_t space = cmd.find(' ', at);
        words.push_back(cmd.substr(at, space - at));
        if (space == std::string::npos) break;
        at = space + 1;
    }
    return words;
}

} // namespace

int main(int argc, char** argv) {
    const Options o = parse(argc, argv);
    const fs::path dir = fs::temp_directory_path() / ("alluvium-fuzz-" + std::to_string(getpid()));
    fs::create_directories(dir);
    const fs::path out = dir / "out.f32", report_path = dir / "report.json", log = dir / "run.log";
    long long passed = 0, nan = 0, drift = 0, budget = 0, crashes = 0, errors = 0, timeouts = 0;
    std::vector<std::string> failures;
    const auto start = std::chrono::steady_clock::now();
    for (long long i = 0; i < o.runs; ++i) {
        const int model = o.models.empty() ? int(i % MODEL_COUNT) : o.models[size_t(i) % o.models.size()];
        std::mt19937_64 rng(o.seed * 1000003ull + uint64_t(i));
        const int steps = o.steps > 0 ? o.steps : model == MODEL_FLUVIAL ? 50 : 200;
        const fuzz::Case c = fuzz::drawCase(rng, model, o.width, o.height, steps, false);
        const std::string cmd = fuzz::commandLine(c, o.exe, out.string(), report_path.string());
        fs::remove(report_path);
        const int status = runProcess(splitCommand(cmd), log, o.timeout);
        std::string kind;
        if (status < 0) {
            kind = "timeout", ++timeouts;
        } else if (WIFSIGNALED(status)) {
            kind = std::string("crash (") + strsignal(WTERMSIG(status)) + ")", ++crashes;
        } else if (const int code = WEXITSTATUS(status); code >= 2 && code <= 4) {
            std::ifstream in(log);
            std::string line, last;
            while (std::getline(in, line)) last = line;
            kind = "error (exit " + std::to_string(code) + ": " + last + ")", ++errors;
        } else if (code != 0 && code != 1) {
            kind = "crash (exit " + std::to_string(code) + ")", ++crashes;
        } else {
            nlohmann::json r;
            try {
                std::ifstream in(report_path);
                r = nlohmann::json::parse(in);
            } catch (const std::exception&) {
                kind = "crash (exit " + std::to_string(code) + ", no readable report)", ++crashes;
            }
            if (kind.empty()) {
                const fuzz::Verdict v = fuzz::judge(r, model);
                char text[160];
                if (v.nan_cells > 0)
                    std::snprintf(text, sizeof text, "NaN (%lld cells)", v.nan_cells), kind = text, ++nan;
                else if (v.drift_bad)
                    std::snprintf(text, sizeof text, "soil drift %.3g", v.drift), kind = text, ++drift;
                else if (v.budget_bad)
                    std::snprintf(text, sizeof text, "water budget %.3g", v.budget), kind = text, ++budget;
                else if (code != 0)
                    kind = "crash (exit 1 without NaN)", ++crashes;
            }
        }
        if (kind.empty()) {
            ++passed;
        } else {
            failures.push_back(kind + ": " + cmd);
            std::printf("FAIL %s\n  %s\n", kind.c_str(), cmd.c_str());
        }
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::printf("run %lld/%lld %s %dx%d: %s (%.0f s so far)\n", i + 1, o.runs, gpu::modelName(model), c.width,
                    c.height, kind.empty() ? "ok" : kind.c_str(), seconds);
        std::fflush(stdout);
    }
    fs::remove_all(dir);
    std::printf("\nalluvium_fuzz: %lld runs: %lld passed, %lld NaN, %lld soil drift, %lld water budget, %lld crashes, "
                "%lld errors, %lld timeouts\n",
                o.runs, passed, nan, drift, budget, crashes, errors, timeouts);
    for (const std::string& f : failures) std::printf("  %s\n", f.c_str());
    return passed == o.runs ? 0 : 1;
}
