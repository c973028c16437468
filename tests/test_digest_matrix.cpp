// The regression matrix: every command's outputs, to the bit, against the digests recorded on the
// same device before the engine was reshaped (tests/digests/matrix.json). A refactor proves itself
// here: the state digests of `run` and `view`, the hashes of every file the commands write (height
// maps, maps, meshes, sessions, screenshots) and of their reports (timings left out) must not
// change. Results depend on the device (a GPU fuses multiply-adds, lavapipe's vector width shapes
// its subgroups), so the digests are kept per device; on a device without a record the test says
// so and is skipped. ALLUVIUM_RECORD_DIGESTS=FILE writes this device's record into FILE (merged
// with the records of other devices already there).
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli_process.h"
#include "context.h"
#include "snapshot.h"

namespace {

using Json = nlohmann::json;

// One command of the matrix: its arguments ({out} is its output folder), and environment.
struct MatrixCase {
    std::string name;
    std::vector<std::string> args;
    EnvChanges env = {};
};

std::string hashBytes(const std::string& bytes) {
    alluvium::gpu::StateHasher h;
    h.add(bytes.data(), bytes.size());
    return alluvium::gpu::digestText(h.value());
}

// Keys whose values are wall-clock times or depend on them; left out of a report's hash.
bool isTiming(const std::string& key) {
    for (const char* k : {"seconds", "host_ms", "ms", "fps"})
        if (key == k || (key.size() > std::strlen(k) && key.ends_with(std::string("_") + k))) return true;
    return false;
}

Json withoutTimings(const Json& j) {
    if (j.is_object()) {
        Json out = Json::object();
        for (const auto& [key, value] : j.items())
            if (!isTiming(key)) out[key] = withoutTimings(value);
        return out;
    }
    if (j.is_array()) {
        Json out = Json::array();
        for (const Json& v : j) out.push_back(withoutTimings(v));
        return out;
    }
    return j;
}

// The device the commands run on (the same choice as theirs: no --device), and its driver.
std::string deviceKey() {
    alluvium::gpu::Context ctx;
    alluvium::gpu::ContextOptions options;
    options.verbose = false;
    alluvium::gpu::createContext(ctx, options);
    VkPhysicalDeviceDriverProperties driver{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
    VkPhysicalDeviceProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
    props.pNext = &driver;
    vkGetPhysicalDeviceProperties2(ctx.physical, &props);
    const std::string key = ctx.device_name + " / " + driver.driverName + " " + driver.driverInfo;
    alluvium::gpu::destroyContext(ctx);
    return key;
}

// A command line split at its spaces (no argument here holds one).
std::vector<std::string> words(const std::string& line) {
    std::vector<std::string> out;
    std::istringstream in(line);
    for (std::string w; in >> w;) out.push_back(w);
    return out;
}

std::vector<MatrixCase> matrixCases() {
    const std::vector<std::string> small = {"--size", "64x64", "--seed", "5"};
    const std::vector<std::string> odd = {"--size", "61x47", "--seed", "9"};
    std::vector<MatrixCase> cases;
    auto run = [&](const std::string& name, const std::vector<std::string>& grid, std::vector<std::string> extra,
                   EnvChanges env = {}) {
        std::vector<std::string> args = {"run"};
        args.insert(args.end(), grid.begin(), grid.end());
        args.insert(args.end(), {"--out", "{out}/height.f32", "--report", "{out}/report.json"});
        args.insert(args.end(), extra.begin(), extra.end());
        cases.push_back({name, args, env});
    };
    // Every model on an even and an odd grid.
    for (const char* model : {"pipe", "thermal", "olsen", "particles", "musgrave", "simple", "fluvial"}) {
        const std::string steps = std::string(model) == "fluvial" ? "6" : "24";
        run(std::string("run-") + model + "-64x64", small, {"--model", model, "--steps", steps});
        run(std::string("run-") + model + "-61x47", odd, {"--model", model, "--steps", steps});
    }
    // The pipe model's parts and forms: groundwater, the sea and its tide; the fused pass, per
    // workgroup partials and another tile shape (what GPUs run); maps, mesh and the 16-bit PNG.
    run("run-pipe-groundwater-sea-tide", odd,
        {"--steps", "40", "--set", "enable_groundwater=on", "--set", "enable_sea=on", "--set", "sea_level=12", "--set",
         "tide_amplitude=1.5", "--set", "tide_period=2", "--set", "rain_rate=4"});
    run("run-pipe-fused-workgroup-16x16", odd, {"--steps", "24"},
        {{"ALLUVIUM_PIPE_PASSES", "fused"}, {"ALLUVIUM_PARTIALS", "workgroup"}, {"ALLUVIUM_WORKGROUP", "16x16"}});
    run("run-pipe-outputs", small,
        {"--steps", "24", "--out-maps", "{out}/maps", "--out-mesh", "{out}/mesh.obj", "--mesh-triangles", "2000"});
    cases.push_back(
        {"run-pipe-png", {"run", "--size", "61x47", "--seed", "9", "--steps", "8", "--out", "{out}/h.png"}});
    run("run-fluvial-lakes", odd,
        {"--model", "fluvial", "--steps", "5", "--set", "lake_evaporation=2", "--set", "fluvial_outlets=bottom"});
    run("run-musgrave-groundwater", small, {"--model", "musgrave", "--steps", "20", "--set", "enable_groundwater=on"});
    // A session round trip: saved after 16 steps, resumed for 16 more (and into another model).
    run("session-save", odd, {"--steps", "16", "--save-session", "{out}/state.alluvium"});
    cases.push_back({"session-resume",
                     {"run", "--load-session", "{out:session-save}/state.alluvium", "--steps", "16", "--out",
                      "{out}/height.f32", "--report", "{out}/report.json"}});
    cases.push_back({"session-resume-simple",
                     {"run", "--load-session", "{out:session-save}/state.alluvium", "--model", "simple", "--steps", "8",
                      "--out", "{out}/height.f32", "--report", "{out}/report.json"}});
    cases.push_back({"fill",
                     {"fill", "--size", "61x47", "--seed", "3", "--out", "{out}/filled.f32", "--report",
                      "{out}/report.json", "--out-maps", "{out}/maps"}});
    cases.push_back({"watertable",
                     {"watertable", "--size", "61x47", "--seed", "3", "--set", "table_iterations=300", "--out",
                      "{out}/table.f32", "--report", "{out}/report.json"}});
    cases.push_back({"view-offscreen", words("view --offscreen --size 64x64 --seed 5 --window 320x200 "
                                             "--exit-after-frames 4 --steps-per-frame 3 --history-budget-mb 0 "
                                             "--no-panel --screenshot {out}/shot.png --report {out}/report.json "
                                             "--save-session {out}/view.alluvium")});
    cases.push_back({"view-offscreen-overlay", words("view --offscreen --size 61x47 --seed 9 --window 480x300 "
                                                     "--model fluvial --overlay drainage --exit-after-frames 2 "
                                                     "--history-budget-mb 0 --no-panel --screenshot {out}/shot.png "
                                                     "--report {out}/report.json")});
    return cases;
}

std::string substitute(std::string arg, const fs::path& root, const std::string& name) {
    const size_t open = arg.find("{out");
    if (open == std::string::npos) return arg;
    const size_t close = arg.find('}', open);
    const std::string inside = arg.substr(open + 1, close - open - 1);
    const std::string folder = inside == "out" ? name : inside.substr(4);
    return arg.substr(0, open) + (root / folder).string() + arg.substr(close + 1);
}

// What a case left: the state digest of its report, and a hash of every file it wrote (a report
// without its timings).
Json caseRecord(const fs::path& dir) {
    Json record = Json::object();
    Json files = Json::object();
    for (const std::string& rel : filesBelow(dir)) {
        const fs::path path = dir / rel;
        if (fs::is_directory(path)) continue;
        const std::string bytes = readText(path);
        if (path.extension() == ".json" && fs::path(rel).filename() == "report.json") {
            const Json report = Json::parse(bytes);
            if (report.contains("state_digest")) record["state_digest"] = report["state_digest"];
            files[rel] = hashBytes(withoutTimings(report).dump());
        } else {
            files[rel] = hashBytes(bytes);
        }
    }
    record["files"] = files;
    return record;
}

TEST(DigestMatrix, EveryOutputIsTheSameToTheBit) {
    const fs::path golden_path = fs::path(ALLUVIUM_SOURCE_DIR) / "tests" / "digests" / "matrix.json";
    const char* record_to = std::getenv("ALLUVIUM_RECORD_DIGESTS");
    const std::string device = deviceKey();
    Json golden = Json::object();
    if (fs::exists(golden_path)) golden = Json::parse(readText(golden_path));
    if (!record_to && !golden.contains(device))
        GTEST_SKIP() << "no digests recorded for '" << device << "' in " << golden_path
                     << " (record them with ALLUVIUM_RECORD_DIGESTS=FILE on the commit before a change)";

    const fs::path root = test::scratchDir("digest-matrix");
    Json computed = Json::object();
    for (const MatrixCase& c : matrixCases()) {
        std::vector<std::string> args;
        for (const std::string& a : c.args) args.push_back(substitute(a, root, c.name));
        fs::create_directories(root / c.name);
        const CliResult r = runCli(args, root / "io" / c.name, c.env);
        ASSERT_EQ(r.code, 0) << c.name << r;
        computed[c.name] = caseRecord(root / c.name);
    }
    if (record_to) {
        Json all = fs::exists(record_to) ? Json::parse(readText(record_to)) : Json::object();
        all[device] = computed;
        std::ofstream(record_to) << all.dump(2) << "\n";
        std::printf("recorded %zu cases for '%s' into %s\n", computed.size(), device.c_str(), record_to);
        if (!golden.contains(device)) return;
    }
    const Json& expected = golden[device];
    for (const auto& [name, record] : expected.items()) {
        ASSERT_TRUE(computed.contains(name)) << "the matrix lost its case " << name;
        EXPECT_EQ(computed[name], record)
            << "case " << name << " changed:\n  now    " << computed[name].dump() << "\n  before " << record.dump();
    }
    for (const auto& [name, record] : computed.items())
        EXPECT_TRUE(expected.contains(name)) << "case " << name << " has no record yet: record it";
}

} // namespace
