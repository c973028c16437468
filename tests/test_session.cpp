// Sessions and presets.
//
// [SECTION] the app sources under test and helpers
// [SECTION] round trip and resume == straight through, bit for bit (library and CLI)
// [SECTION] damaged files: checksum, truncation, magic, version, sizes, parameter names
// [SECTION] atomic save: a save killed partway never damages the previous file
// [SECTION] presets: every preset runs 300 steps with closed budgets; unknown keys; user presets
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <thread>
#include <tuple>

#include "gpu_fixture.h"
#include "report.h"
#include "test_util.h"

// [SECTION] helpers -------------------------------------------------------------------------------
#include "io/atomic_file.h"
#include "io/errors.h"
#include "presets.h"
#include "session.h"
#include "setup.h"

namespace alluvium::test {
namespace {

namespace fsys = std::filesystem;
using namespace session_bytes;

fsys::path scratch(const std::string& name) {
    const fsys::path dir = fsys::path(ALLUVIUM_TEST_TMP_DIR) / "session" / name;
    fsys::remove_all(dir);
    fsys::create_directories(dir);
    return dir;
}

std::vector<std::byte> readBytes(const fsys::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::vector<char> data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::vector<std::byte> out(data.size());
    std::memcpy(out.data(), data.data(), data.size());
    return out;
}

void writeBytes(const fsys::path& path, std::span<const std::byte> bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

bool bitEqual(const std::vector<float>& a, const std::vector<float>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// A procedural terrain with rain, open edges and two springs: every accumulator moves.
struct Scenario {
    int w = 64, h = 48;
    Params params;
    std::vector<gpu::Spring> springs = {{20.5f, 14.0f, 3.0f, 0.02f}, {45.0f, 30.5f, 2.0f, 0.05f}};
    InitialTerrain initial;
    Scenario() {
        params.set("rain_rate", "0.05");
        params.set("edge_mode", "open");
        TerrainOptions t;
        t.size = std::to_string(w) + "x" + std::to_string(h);
        t.seed = 7;
        initial = prepareTerrain(t, params[Param::cell_size]);
    }
    std::unique_ptr<gpu::Simulation> start(const gpu::Context& ctx) const {
        auto sim = std::make_unique<gpu::Simulation>(ctx, w, h);
        loadInitialState(*sim, initial);
        sim->setParams(toSimParams(params, w, h));
        sim->setSprings(springs);
        return sim;
    }
};

// Every field a session stores, plus the totals, of `sim` now.
struct Snapshot {
    std::vector<std::vector<float>> fields;
    gpu::Totals totals{};
};
Snapshot snapshot(const gpu::Simulation& sim) {
    Snapshot s;
    for (gpu::Field f : sessionFields()) s.fields.push_back(sim.download(f));
    s.totals = sim.totals();
    return s;
}

void expectBitEqual(const Snapshot& a, const Snapshot& b) {
    const std::vector<gpu::Field> fields = sessionFields();
    ASSERT_EQ(a.fields.size(), b.fields.size());
    for (size_t i = 0; i < fields.size(); ++i)
        EXPECT_TRUE(bitEqual(a.fields[i], b.fields[i])) << "field " << gpu::fieldName(fields[i]) << " differs";
    EXPECT_EQ(std::memcmp(&a.totals, &b.totals, sizeof(gpu::Totals)), 0) << "totals differ";
}

// [SECTION] round trip and resume == straight through, bit for bit ----------------------------

class SessionTest : public GpuTest {};

TEST_F(SessionTest, SaveLoadRoundTripIsBitExact) {
    const Scenario sc;
    auto sim = sc.start(ctx());
    sim->run(30);
    const StateSums sums{1.25, 2.5e6, 0.125, 0};
    const Session saved = captureSession(*sim, sc.params, sc.initial.terrain.heights, sums, 30);
    const fsys::path file = scratch("roundtrip") / "s.alluvium";
    saveSession(file, saved);
    const Session loaded = loadSession(file);

    EXPECT_EQ(loaded.model, "pipe");
    EXPECT_EQ(loaded.width, sc.w);
    EXPECT_EQ(loaded.height, sc.h);
    EXPECT_EQ(loaded.steps, 30);
    for (int i = 0; i < kParamCount; ++i)
        EXPECT_EQ(loaded.params.values[size_t(i)], saved.params.values[size_t(i)]) << paramTable()[size_t(i)].name;
    ASSERT_EQ(loaded.springs.size(), sc.springs.size());
    EXPECT_EQ(std::memcmp(loaded.springs.data(), sc.springs.data(), sc.springs.size() * sizeof(gpu::Spring)), 0);
    EXPECT_EQ(std::memcmp(&loaded.totals, &saved.totals, sizeof(gpu::Totals)), 0);
    EXPECT_GT(loaded.totals.acc[SLOT_RAIN], 0.0);
    EXPECT_GT(loaded.totals.acc[SLOT_SPRING], 0.0);
    EXPECT_EQ(loaded.initial_sums.water, sums.water);
    EXPECT_EQ(loaded.initial_sums.terrain, sums.terrain);
    EXPECT_EQ(loaded.initial_sums.sediment, sums.sediment);
    EXPECT_TRUE(bitEqual(loaded.initial_terrain, sc.initial.terrain.heights));
    ASSERT_EQ(loaded.fields.size(), saved.fields.size());
    for (size_t i = 0; i < saved.fields.size(); ++i) {
        EXPECT_EQ(loaded.fields[i].first, saved.fields[i].first);
        EXPECT_TRUE(bitEqual(loaded.fields[i].second, saved.fields[i].second)) << gpu::fieldName(saved.fields[i].first);
    }

    // Into a new simulation: every field and the totals as they were.
    gpu::Simulation other(ctx(), sc.w, sc.h);
    restoreSession(other, loaded);
    expectBitEqual(snapshot(*sim), snapshot(other));
    ASSERT_EQ(other.springs().size(), sc.springs.size());
    EXPECT_EQ(std::memcmp(&other.params(), &sim->params(), sizeof(gpu::SimParams)), 0);

    // An empty spring list is kept as one.
    Session no_springs = saved;
    no_springs.springs.clear();
    EXPECT_TRUE(decodeSession(encodeSession(no_springs), "mem").springs.empty());
}

// 200 steps straight through against k steps, save, load into a NEW simulation whose "next"
// halves and scratch images hold NaN, then 200 - k steps. k odd and even: the new simulation
// starts at parity 0 whatever the parity of the saved one was.
TEST_F(SessionTest, ResumeEqualsStraightThroughBitForBit) {
    const Scenario sc;
    constexpr int kSteps = 200;
    auto straight = sc.start(ctx());
    straight->run(kSteps);
    const Snapshot expected = snapshot(*straight);
    straight.reset();

    const fsys::path dir = scratch("resume");
    for (int split : {100, 77}) {
        SCOPED_TRACE("split at " + std::to_string(split));
        {
            auto first = sc.start(ctx());
            first->run(split);
            saveSession(dir / "s.alluvium", captureSession(*first, sc.params, sc.initial.terrain.heights, {}, split));
        }
        const Session session = loadSession(dir / "s.alluvium");
        EXPECT_EQ(session.steps, split);
        gpu::Simulation resumed(ctx(), session.width, session.height);
        const size_t n = size_t(sc.w) * size_t(sc.h);
        const float nan = std::numeric_limits<float>::quiet_NaN();
        for (gpu::Field f : {gpu::Field::Terrain, gpu::Field::Water, gpu::Field::Sediment, gpu::Field::Outflow})
            resumed.upload(f, std::vector<float>(n * size_t(gpu::fieldChannels(f)), nan), true);
        for (gpu::Field f : {gpu::Field::ThermalAxis, gpu::Field::ThermalDiag})
            resumed.upload(f, std::vector<float>(n * size_t(gpu::fieldChannels(f)), nan));
        restoreSession(resumed, session);
        resumed.run(kSteps - split);
        expectBitEqual(expected, snapshot(resumed));
    }
}

// The same through the command line: 40 steps straight against 15, --save-session, then
// --load-session and 25 more: the same heightmap, the same budgets, steps counted from the start.
TEST(SessionCli, ResumedRunEqualsStraightRunAndContinuesTheReport) {
    const fsys::path dir = scratch("cli");
    auto run = [&](const std::string& args) {
        const std::string cmd = std::string("MESA_SHADER_CACHE_DIR=") + ALLUVIUM_TEST_TMP_DIR + "/../mesa-cache " +
                                ALLUVIUM_EXE + " run " + args + " 2>" + (dir / "stderr.txt").string();
        return std::system(cmd.c_str());
    };
    const std::string d = dir.string() + "/";
    // record_maps as --save-session turns it on: the wear and flow maps are state too.
    ASSERT_EQ(run("--size 64x48 --steps 40 --set edge_mode=open --set record_maps=on --out " + d +
                  "straight.f32 --report " + d + "straight.json"),
              0);
    ASSERT_EQ(
        run("--size 64x48 --steps 15 --set edge_mode=open --out " + d + "a.f32 --save-session " + d + "s.alluvium"), 0);
    ASSERT_EQ(run("--load-session " + d + "s.alluvium --steps 25 --out " + d + "b.f32 --report " + d + "b.json"), 0);
    EXPECT_TRUE(readBytes(dir / "straight.f32") == readBytes(dir / "b.f32"));
    const nlohmann::json a = nlohmann::json::parse(std::ifstream(dir / "straight.json"));
    const nlohmann::json b = nlohmann::json::parse(std::ifstream(dir / "b.json"));
    EXPECT_EQ(a["water"], b["water"]);
    EXPECT_EQ(a["soil"], b["soil"]);
    // The whole state, fields, totals, step index and parameters (gpu/snapshot.h's digest).
    EXPECT_EQ(a["state_digest"].get<std::string>().size(), 16u);
    EXPECT_EQ(a["state_digest"], b["state_digest"]);
    EXPECT_EQ(b["steps"], 40);
    EXPECT_EQ(b["resumed_at_step"], 15);
    // --in and the other terrain options do not mix with a session; a damaged one is exit 2.
    EXPECT_NE(run("--load-session " + d + "s.alluvium --size 8x8 --out " + d + "c.f32"), 0);
    std::vector<std::byte> bytes = readBytes(dir / "s.alluvium");
    bytes[bytes.size() / 2] ^= std::byte{4};
    writeBytes(dir / "bad.alluvium", bytes);
    const int code = run("--load-session " + d + "bad.alluvium --out " + d + "c.f32");
    EXPECT_TRUE(WIFEXITED(code) && WEXITSTATUS(code) == 2) << code;
    EXPECT_FALSE(fsys::exists(dir / "c.f32"));
}

// With groundwater, a sea and a tide (the coastal preset) a resumed run equals the
// straight one too: the session keeps the tide's clock and where the sea's relaxation stands.
TEST(SessionCli, ResumedCoastalRunEqualsStraightRun) {
    const fsys::path dir = scratch("cli-coastal");
    auto run = [&](const std::string& args) {
        const std::string cmd = std::string("MESA_SHADER_CACHE_DIR=") + ALLUVIUM_TEST_TMP_DIR + "/../mesa-cache " +
                                ALLUVIUM_EXE + " run --preset coastal " + args + " 2>" + (dir / "stderr.txt").string();
        return std::system(cmd.c_str());
    };
    const std::string d = dir.string() + "/";
    ASSERT_EQ(
        run("--size 48x40 --steps 30 --set record_maps=on --out " + d + "straight.f32 --report " + d + "straight.json"),
        0);
    ASSERT_EQ(run("--size 48x40 --steps 13 --out " + d + "a.f32 --save-session " + d + "s.alluvium"), 0);
    ASSERT_EQ(run("--load-session " + d + "s.alluvium --steps 17 --out " + d + "b.f32 --report " + d + "b.json"), 0);
    EXPECT_TRUE(readBytes(dir / "straight.f32") == readBytes(dir / "b.f32"));
    const nlohmann::json a = nlohmann::json::parse(std::ifstream(dir / "straight.json"));
    const nlohmann::json b = nlohmann::json::parse(std::ifstream(dir / "b.json"));
    EXPECT_EQ(a["water"], b["water"]);
    EXPECT_GT(a["water"]["from_sea"].get<double>(), 0.0);
    EXPECT_EQ(a["state_digest"], b["state_digest"]);
}

// [SECTION] damaged files: checksum, truncation, magic, version, sizes, parameter names --------

Session smallSession(int w = 5, int h = 3, float seed = 1.0f) {
    Session s;
    s.width = w;
    s.height = h;
    s.steps = 12;
    s.springs = {{1.0f, 2.0f, 1.5f, 0.25f}};
    const size_t n = size_t(w) * size_t(h);
    s.initial_terrain.resize(n);
    for (size_t i = 0; i < n; ++i) s.initial_terrain[i] = seed + float(i);
    for (gpu::Field f : sessionFields()) {
        std::vector<float> v(n * size_t(gpu::fieldChannels(f)));
        for (size_t i = 0; i < v.size(); ++i) v[i] = seed * 0.5f + float(i) * 0.25f;
        s.fields.emplace_back(f, std::move(v));
    }
    return s;
}

// Re-assembles a file around an edited JSON header, with a valid checksum.
std::vector<std::byte> withHeader(const std::vector<std::byte>& file,
                                  const std::function<void(nlohmann::json&)>& edit) {
    const size_t header_len = size_t(getLE(file.data() + 20, 4));
    nlohmann::json h = nlohmann::json::parse(reinterpret_cast<const char*>(file.data() + 24),
                                             reinterpret_cast<const char*>(file.data() + 24 + header_len));
    edit(h);
    const std::string text = h.dump();
    std::vector<std::byte> out(file.begin(), file.begin() + 20);
    putU32(out, static_cast<uint32_t>(text.size()));
    for (char c : text) out.push_back(static_cast<std::byte>(c));
    out.insert(out.end(), file.begin() + std::ptrdiff_t(24 + header_len), file.end() - 8);
    putU64(out, fnv1a64(out.data() + 24, out.size() - 24));
    return out;
}

void expectInputError(std::span<const std::byte> bytes, const std::string& needle) {
    try {
        decodeSession(bytes, "test.alluvium");
        ADD_FAILURE() << "accepted; expected an error mentioning '" << needle << "'";
    } catch (const InputError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find(needle), std::string::npos) << what;
        EXPECT_EQ(what.find('\n'), std::string::npos) << what;
        EXPECT_NE(what.find("test.alluvium"), std::string::npos) << what;
    }
}

TEST(SessionFile, FlippedByteInTheBodyFailsTheChecksum) {
    const std::vector<std::byte> good = encodeSession(smallSession());
    EXPECT_NO_THROW(decodeSession(good, "test.alluvium"));
    const size_t header_len = size_t(getLE(good.data() + 20, 4));
    for (size_t at : {24 + header_len, 24 + header_len + 37, good.size() - 9, good.size() - 1}) {
        std::vector<std::byte> bad = good;
        bad[at] ^= std::byte{0x10};
        expectInputError(bad, "checksum");
    }
    // Through a file, as the CLI reads it.
    const fsys::path file = scratch("checksum") / "s.alluvium";
    std::vector<std::byte> bad = good;
    bad[good.size() / 2] ^= std::byte{0x01};
    writeBytes(file, bad);
    EXPECT_THROW(loadSession(file), InputError);
}

TEST(SessionFile, TheHeaderAloneCarriesAllButTheArrays) {
    // What rank 0 sends the other processes of a split run: the same session without its values,
    // every field in the file's order (an older file's missing fields at the end, as decoded).
    Session s = decodeSession(withHeader(encodeSession(smallSession()),
                                         [](nlohmann::json& h) {
                                             h["params"]["rain_rate"] = 7.25;
                                             h["sim_time"] = 3.5;
                                             h["totals"]["acc"][3] = nullptr; // a NaN sum
                                             h["sea"]["half"] = 1;
                                             nlohmann::json& arrays = h["arrays"];
                                             std::swap(arrays[1], arrays[2]);
                                         }),
                              "x");
    const Session back = sessionFromHeader(nlohmann::json::parse(sessionHeader(s).dump()));
    EXPECT_EQ(back.width, s.width);
    EXPECT_EQ(back.height, s.height);
    EXPECT_EQ(back.steps, s.steps);
    EXPECT_EQ(back.model, s.model);
    EXPECT_EQ(back.params.values, s.params.values);
    EXPECT_EQ(back.params[Param::rain_rate], 7.25);
    ASSERT_EQ(back.springs.size(), 1u);
    EXPECT_EQ(back.springs[0].radius, 1.5f);
    EXPECT_EQ(std::memcmp(&back.totals.acc[4], &s.totals.acc[4], sizeof(double) * (TOTAL_SLOTS - 4)), 0);
    EXPECT_TRUE(std::isnan(back.totals.acc[3]));
    EXPECT_EQ(back.sim_time, 3.5);
    EXPECT_EQ(back.sea_half, 1);
    EXPECT_EQ(back.substeps, s.substeps);
    EXPECT_EQ(back.initial_sums.terrain, s.initial_sums.terrain);
    EXPECT_TRUE(back.initial_terrain.empty());
    ASSERT_EQ(back.fields.size(), s.fields.size());
    for (size_t k = 0; k < s.fields.size(); ++k) {
        EXPECT_EQ(back.fields[k].first, s.fields[k].first) << k;
        EXPECT_TRUE(back.fields[k].second.empty());
    }
    EXPECT_NE(s.fields[0].first, sessionFields()[0]); // the swap above took effect
}

TEST(SessionFile, TruncatedFilesAreRejected) {
    const std::vector<std::byte> good = encodeSession(smallSession());
    const size_t header_len = size_t(getLE(good.data() + 20, 4));
    for (size_t len : {size_t(8), size_t(16), size_t(23), size_t(30), 24 + header_len / 2, 24 + header_len,
                       good.size() / 2, good.size() - 8, good.size() - 1}) {
        SCOPED_TRACE("length " + std::to_string(len));
        expectInputError(std::span(good).first(len), "truncated");
    }
    const fsys::path file = scratch("truncated") / "s.alluvium";
    writeBytes(file, std::span(good).first(good.size() - 100));
    EXPECT_THROW(loadSession(file), InputError);
    EXPECT_THROW(loadSession(file.parent_path() / "missing.alluvium"), InputError);
}

// A version 1 file held the thermal rate per second on its cells: it is read as the diffusivity
// that slumps alike (rate x cell_size^2), at most the table's maximum.
TEST(SessionFile, AVersionOneThermalRateIsReadAsItsDiffusivity) {
    for (const auto& [rate, cell, expected] : {std::tuple{0.5, 4.0, 8.0}, {2.0, 0.5, 0.5}, {10.0, 30.0, 1000.0}}) {
        std::vector<std::byte> v1 = withHeader(encodeSession(smallSession()), [&](nlohmann::json& h) {
            h["params"]["thermal_rate"] = rate;
            h["params"]["cell_size"] = cell;
        });
        v1[16] = std::byte{1};
        EXPECT_DOUBLE_EQ(decodeSession(v1, "v1.alluvium").params[Param::thermal_rate], expected) << rate << " " << cell;
    }
}

TEST(SessionFile, BadMagicVersionSizesAndNamesAreRejected) {
    const std::vector<std::byte> good = encodeSession(smallSession());
    expectInputError({}, "magic");
    std::vector<std::byte> bad = good;
    bad[3] = std::byte{'X'};
    expectInputError(bad, "magic");

    bad = good;
    bad[16] = std::byte{3}; // version 3
    expectInputError(bad, "newer");

    std::vector<std::byte> extra = good;
    extra.insert(extra.end() - 8, std::byte{0});
    expectInputError(extra, "sizes");

    expectInputError(withHeader(good, [](nlohmann::json& h) { h["width"] = 6; }), "truncated");
    expectInputError(withHeader(good, [](nlohmann::json& h) { h["height"] = 2; }), "sizes");
    expectInputError(withHeader(good, [](nlohmann::json& h) { h["width"] = 0; }), "out of range");
    expectInputError(withHeader(good, [](nlohmann::json& h) { h["params"]["rain_rat"] = 1.0; }),
                     "unknown parameter 'rain_rat'");
    expectInputError(withHeader(good, [](nlohmann::json& h) { h["params"]["rain_rate"] = 1e9; }), "out of range");
    expectInputError(withHeader(good, [](nlohmann::json& h) { h["model"] = "rivers"; }), "unknown model");
    expectInputError(withHeader(good, [](nlohmann::json& h) { h["arrays"][1]["name"] = "magma"; }),
                     "unknown field 'magma'");
    expectInputError(withHeader(good, [](nlohmann::json& h) { h["arrays"][1]["name"] = "flux"; }), "unknown field");
    expectInputError(withHeader(good, [](nlohmann::json& h) { h.erase("totals"); }), "bad header");
    // One sum short is an older file's layout (before the Froude number); two short is none.
    expectInputError(withHeader(good,
                                [](nlohmann::json& h) {
                                    h["totals"]["acc"].erase(0);
                                    h["totals"]["acc"].erase(0);
                                }),
                     "totals");
    // A parameter the file lacks (an older table) keeps its default.
    const Session older = decodeSession(withHeader(good, [](nlohmann::json& h) { h["params"].erase("gravity"); }), "x");
    EXPECT_EQ(older.params[Param::gravity], paramInfo(Param::gravity).default_value);
}

// [SECTION] atomic save: a save killed partway never damages the previous file -----------------

// Forks a child that saves `session` over `file` (no Vulkan in the child: the session is already
// on the host) and is killed partway: by SIGXFSZ when the file-size limit stops its write
// halfway, or by SIGKILL from us after `kill_after`.
int saveInChild(const fsys::path& file, const Session& session, rlim_t size_limit, std::chrono::milliseconds kill_after,
                bool loop) {
    const std::vector<std::byte> bytes = encodeSession(session);
    const pid_t pid = ::fork();
    if (pid == 0) {
        if (size_limit > 0) {
            rlimit limit{size_limit, size_limit};
            ::setrlimit(RLIMIT_FSIZE, &limit);
        }
        do {
            try {
                writeFileAtomic(file, bytes);
            } catch (...) {
                ::_exit(3);
            }
        } while (loop);
        ::_exit(0);
    }
    if (pid < 0) return -1;
    if (kill_after.count() > 0) {
        std::this_thread::sleep_for(kill_after);
        ::kill(pid, SIGKILL);
    }
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return WIFSIGNALED(status) ? WTERMSIG(status) : -WEXITSTATUS(status);
}

TEST(SessionFile, AKilledSaveLeavesThePreviousFileIntact) {
    const fsys::path dir = scratch("atomic");
    const fsys::path file = dir / "s.alluvium";
    const Session old_session = smallSession(256, 256, 1.0f);
    const Session new_session = smallSession(256, 256, 2.0f);
    saveSession(file, old_session);
    const std::vector<std::byte> old_bytes = readBytes(file);
    const std::vector<std::byte> new_bytes = encodeSession(new_session);

    // Killed in the middle of write(): the file-size limit is half the session.
    const int sig = saveInChild(file, new_session, rlim_t(new_bytes.size() / 2), {}, false);
    EXPECT_EQ(sig, SIGXFSZ) << "the child was not stopped partway";
    EXPECT_TRUE(readBytes(file) == old_bytes) << "the previous session was damaged";
    EXPECT_NO_THROW(loadSession(file));

    // kill -9 at arbitrary moments of repeated saves: always a whole session, old or new.
    for (int ms : {1, 3, 7, 15, 30}) {
        const int killed = saveInChild(file, new_session, 0, std::chrono::milliseconds(ms), true);
        EXPECT_EQ(killed, SIGKILL);
        const std::vector<std::byte> now = readBytes(file);
        EXPECT_TRUE(now == old_bytes || now == new_bytes) << "a partial session after kill -9 at " << ms << " ms";
        EXPECT_NO_THROW(loadSession(file));
    }
    // What a killed save leaves is a temporary file beside it, never a damaged target.
    for (const auto& e : fsys::directory_iterator(dir))
        if (e.path() != file) {
            EXPECT_NE(e.path().filename().string().find(".tmp-"), std::string::npos) << e.path();
        }
}

// [SECTION] presets: every preset runs 300 steps with closed budgets; unknown keys; user presets

TEST(Presets, TheBuiltInPresetsExistWithOneLineDescriptions) {
    const ScopedEnv no_user_presets("XDG_CONFIG_HOME", scratch("no-user-presets").string());
    const std::vector<std::string> names = presetNames();
    for (const char* expected : {"default", "gentle-rain", "flash-flood", "badlands", "alpine", "desert-wadi",
                                 "river-delta", "coastal", "dry-basin"})
        EXPECT_NE(std::find(names.begin(), names.end(), expected), names.end()) << expected;
    for (const PresetInfo& p : listPresets()) {
        EXPECT_FALSE(p.user);
        EXPECT_FALSE(p.description.empty()) << p.name;
        EXPECT_EQ(p.description.find('\n'), std::string::npos) << p.name;
    }
}

// One test per built-in preset (ctest runs them in parallel): 300 steps on the 48 x 48
// procedural terrain, as `alluvium run` does them, without NaN, with closed budgets and a
// Froude number of at most 5.
std::vector<std::string> builtInPresets() {
    std::vector<std::string> names;
    for (const PresetInfo& p : listPresets())
        if (!p.user) names.push_back(p.name);
    return names;
}

class PresetRun : public GpuTest, public ::testing::WithParamInterface<std::string> {};

TEST_P(PresetRun, Runs300StepsWithoutNanAndWithClosedBudgets) {
    constexpr int kSize = 48, kSteps = 300;
    const Params params = buildParams((assetDirectory() / "presets" / (GetParam() + ".json")).string(), 0.0, {});
    const double cell = params[Param::cell_size];
    TerrainOptions t;
    t.size = std::to_string(kSize) + "x" + std::to_string(kSize);
    const InitialTerrain initial = prepareTerrain(t, cell);
    gpu::Simulation sim(ctx(), kSize, kSize);
    loadInitialState(sim, initial, params);
    sim.setParams(toSimParams(params, kSize, kSize));
    const StateSums before = sumState(sim, cell);
    sim.run(kSteps);
    const StateSums after = sumState(sim, cell);
    const nlohmann::json report = makeReport(sim, before, after, kSteps, 0.0, cell);
    EXPECT_EQ(after.nan_cells, 0);
    EXPECT_LT(report["water"]["budget_error_rel"].get<double>(), 1e-5) << report.dump();
    EXPECT_LT(report["soil"]["drift_rel"].get<double>(), 1e-5) << report.dump();
    EXPECT_GT(report["water"]["rained"].get<double>(), 0.0);
    // Water moves no faster than friction allows: the largest Froude number of the run.
    EXPECT_LE(report["max_froude"].get<double>(), 5.0) << report.dump();
}

INSTANTIATE_TEST_SUITE_P(BuiltIn, PresetRun, ::testing::ValuesIn(builtInPresets()),
                         [](const ::testing::TestParamInfo<std::string>& param) {
                             std::string name = param.param;
                             for (char& c : name)
                                 if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                             return name;
                         });

TEST(Presets, UnknownKeysAreAnErrorNamingThem) {
    const fsys::path dir = scratch("preset-keys");
    auto expectRejected = [&](const std::string& file, const std::string& text, const std::string& needle) {
        std::ofstream(dir / file) << text;
        Params params;
        try {
            applyPreset(params, (dir / file).string());
            ADD_FAILURE() << file << " accepted";
        } catch (const InputError& e) {
            EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
        }
    };
    expectRejected("key.json", R"({"description": "x", "params": {}, "colour": "red"})", "unknown key 'colour'");
    expectRejected("param.json", R"({"params": {"rain_rat": 1}})", "unknown parameter 'rain_rat'");
    // Every built-in preset names only known keys and parameters.
    for (const std::string& name : presetNames()) {
        Params params;
        EXPECT_NO_THROW(applyPreset(params, name)) << name;
    }
}

TEST(Presets, UserPresetsComeFirstAndAreListed) {
    const fsys::path config = scratch("xdg");
    const ScopedEnv xdg("XDG_CONFIG_HOME", config.string());
    EXPECT_EQ(userPresetDirectory(), config / "alluvium" / "presets");
    fsys::create_directories(config / "alluvium" / "presets");
    std::ofstream(config / "alluvium" / "presets" / "default.json")
        << R"({"description": "my default", "params": {"rain_rate": 1.5}})";
    std::ofstream(config / "alluvium" / "presets" / "mine.json") << R"({"description": "mine", "params": {}})";

    Params params;
    applyPreset(params, "default");
    EXPECT_EQ(params[Param::rain_rate], 1.5);
    Params builtin;
    applyPreset(builtin, "gentle-rain"); // not shadowed: from assets
    EXPECT_EQ(builtin[Param::rain_rate], 0.005);

    int user_default = 0, builtin_default = 0, mine = 0;
    for (const PresetInfo& p : listPresets()) {
        if (p.name == "default" && p.user) user_default += p.description == "my default" ? 1 : 100;
        if (p.name == "default" && !p.user) builtin_default += p.shadowed ? 1 : 100;
        if (p.name == "mine") mine += p.user ? 1 : 100;
    }
    EXPECT_EQ(user_default, 1);
    EXPECT_EQ(builtin_default, 1);
    EXPECT_EQ(mine, 1);

    const ScopedEnv home("HOME", config.string());
    const ScopedEnv relative("XDG_CONFIG_HOME", "relative/dir"); // invalid per XDG: ignored
    EXPECT_EQ(userPresetDirectory(), config / ".config" / "alluvium" / "presets");
}

} // namespace
} // namespace alluvium::test
