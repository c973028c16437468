// A command's outputs are all written or none: when a later output cannot be written (a sidecar,
// the report, a map, the mesh, the session) the earlier ones are not left behind, for convert,
// run, fill, watertable and the viewer's exit outputs; the viewer's exit path releases in order
// under the validation layer when its outputs fail. And no parameter is ignored silently: a --set
// whose part is off or that belongs to another model says so.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <optional>

#include "cli_process.h"
#include "models/model.h"

namespace {

// `args` with the outputs below out/ fails with exit 2 and one line mentioning `needle`, after
// the work; out/ then holds exactly `blockers` (what the test put there to make a write fail).
void expectNothingWritten(const Scratch& s, const std::vector<std::string>& args, const std::string& needle,
                          const std::vector<std::string>& blockers) {
    const CliResult r = runCli(args, s.io);
    EXPECT_EQ(r.code, 2) << r;
    ASSERT_FALSE(r.err_lines.empty()) << r;
    EXPECT_NE(r.err_lines.back().find(needle), std::string::npos) << r;
    EXPECT_TRUE(holdsExactly(s.out, blockers));
}

// Makes out/<path> a folder, so that writing a file there fails late, at the write.
void block(const Scratch& s, const std::string& path) {
    fs::remove_all(s.out);
    fs::create_directories(s.out / path);
}

} // namespace

TEST(AllOrNothing, ConvertLeavesNoImageWhenItsSidecarCannotBeWritten) {
    Scratch s;
    saveHeightmap(s.in / "in.f32", smallTerrain(20, 12), 4.0);
    for (const char* out : {"h.png", "h.r16", "h.raw"}) {
        SCOPED_TRACE(out);
        block(s, std::string(out) + ".json");
        expectNothingWritten(s, {"convert", "--in", s.inPath("in.f32"), "--size", "20x12", "--out", s.outPath(out)},
                             ".json", {std::string(out) + ".json"});
    }
}

TEST(AllOrNothing, RunLeavesNothingWhenALaterOutputCannotBeWritten) {
    Scratch s;
    const std::vector<std::string> outputs = {"--size",         "24x20",
                                              "--steps",        "3",
                                              "--out",          s.outPath("h.png"),
                                              "--report",       s.outPath("r.json"),
                                              "--out-maps",     s.outPath("maps"),
                                              "--out-mesh",     s.outPath("m.obj"),
                                              "--save-session", s.outPath("s.alluvium")};
    // Each late output blocked in turn: a map, the combined maps, the sidecar of the heightmap.
    for (const char* blocked :
         {"maps/water_depth.png", "maps/maps.exr", "maps/height.exr", "maps/flow_log.png.json", "h.png.json"}) {
        SCOPED_TRACE(blocked);
        block(s, blocked);
        std::vector<std::string> args = {"run"};
        args.insert(args.end(), outputs.begin(), outputs.end());
        std::vector<std::string> left = {blocked};
        for (fs::path p = fs::path(blocked).parent_path(); !p.empty(); p = p.parent_path()) left.push_back(p.string());
        expectNothingWritten(s, args, fs::path(blocked).filename().string(), left);
    }
}

TEST(AllOrNothing, FillAndWatertableLeaveNothingWhenAMapCannotBeWritten) {
    Scratch s;
    for (const char* command : {"fill", "watertable"})
        for (const char* blocked : {"maps/maps.exr", "maps/height.png"}) {
            SCOPED_TRACE(std::string(command) + ": " + blocked);
            block(s, blocked);
            std::vector<std::string> args = {
                command,      "--size",         "24x20", "--out", s.outPath("o.png"), "--report", s.outPath("r.json"),
                "--out-maps", s.outPath("maps")};
            if (std::string(command) == "watertable") args.insert(args.end(), {"--set", "table_iterations=20"});
            expectNothingWritten(s, args, fs::path(blocked).filename().string(), {"maps", blocked});
        }
}

// The viewer's exit outputs (session and report) when the disk fills up as they are written:
// exit 2, one line and nothing else on stderr (the validation layer on: the teardown after the
// failure releases the swapchain, ImGui and the device in order), nothing left.
TEST(AllOrNothing, TheViewersExitOutputsFailTogetherAndTearDownCleanly) {
    Scratch s;
    const std::string cache = (fs::path(ALLUVIUM_TEST_TMP_DIR).parent_path() / "mesa-cache").string();
    const std::string cmd = "trap '' XFSZ; ulimit -f 64; MESA_SHADER_CACHE_DIR='" + cache + "' timeout 120 '" +
                            ALLUVIUM_EXE + "' --validation view --offscreen --size 96x80 --exit-after-frames 2 " +
                            "--no-panel --save-session '" + s.outPath("v.alluvium") + "' --report '" +
                            s.outPath("v.json") + "' >'" + (s.io / "o.txt").string() + "' 2>'" +
                            (s.io / "e.txt").string() + "'";
    fs::create_directories(s.io);
    const int status = std::system(("sh -c \"" + cmd + "\"").c_str());
    const std::string err = readText(s.io / "e.txt");
    ASSERT_TRUE(WIFEXITED(status)) << err;
    EXPECT_EQ(WEXITSTATUS(status), 2) << err;
    const std::vector<std::string> lines = splitLines(err);
    ASSERT_FALSE(lines.empty());
    EXPECT_NE(lines.back().find("cannot write"), std::string::npos) << err;
    for (const std::string& l : lines)
        EXPECT_TRUE(l.find("Validation") == std::string::npos && l.find("VUID") == std::string::npos) << err;
    EXPECT_TRUE(holdsExactly(s.out, {}));
}

// [SECTION] silent parameters ---------------------------------------------------------------------

// Rows a level turns on rather than a switch: the strata's and the weather's shapes, inactive
// exactly while their level is 0 (the wind while there are neither storms nor orographic rain).
struct Gate {
    const char* prefix;
    std::vector<Param> levels;
};
const std::vector<Gate>& gates() {
    static const std::vector<Gate> g = {{"strata_", {Param::strata_contrast}},
                                        {"rain_noise_", {Param::rain_noise}},
                                        {"storm_", {Param::storm_count}},
                                        {"orographic_", {Param::orographic}},
                                        {"wind_direction", {Param::storm_count, Param::orographic}},
                                        {"season_period", {Param::season_amplitude}},
                                        {"sun_", {Param::sun_melt}},
                                        {"vegetation_root_depth", {Param::enable_groundwater}}};
    return g;
}
// The on/off switch (enable_*) of a row's group, if it has one.
std::optional<Param> switchOf(Param p) {
    for (int k = 0; k < kParamCount; ++k) {
        const ParamInfo& other = paramTable()[size_t(k)];
        if (Param(k) != p && std::string(other.group) == paramInfo(p).group && other.kind == 'b' &&
            std::string(other.name).rfind("enable_", 0) == 0)
            return Param(k);
    }
    return std::nullopt;
}

// Groups that run in one model only (and are not named "<model> model"): snow, vegetation and
// lava live on the pipe model's water.
const char* groupModel(const std::string& group) {
    return group == "snow" || group == "vegetation" || group == "lava" ? "pipe" : nullptr;
}

const Gate* gateOf(Param p) {
    const std::string name = paramInfo(p).name;
    for (const Gate& g : gates())
        if (name.rfind(g.prefix, 0) == 0 && std::find(g.levels.begin(), g.levels.end(), p) == g.levels.end()) return &g;
    return nullptr;
}

TEST(SilentParameters, ALevelsRowsAreInactiveExactlyWhileItIsZero) {
    int gated = 0;
    for (int i = 0; i < kParamCount; ++i) {
        const Gate* gate = gateOf(Param(i));
        if (!gate) continue;
        ++gated;
        for (Param level : gate->levels) {
            Params on, off;
            if (const std::optional<Param> enable = switchOf(Param(i))) on[*enable] = off[*enable] = 1;
            on[level] = paramInfo(level).max;
            for (Param other : gate->levels) off[other] = 0.0;
            EXPECT_TRUE(whyInactive(on, Param(i), "pipe").empty()) << paramInfo(Param(i)).name;
            EXPECT_FALSE(whyInactive(off, Param(i), "pipe").empty()) << paramInfo(Param(i)).name;
        }
    }
    EXPECT_GE(gated, 14);
}

// Across the table: every row of a group with an on/off switch (enable_*) is inactive exactly
// while the switch is off; every row of a model's group exactly under the other models.
TEST(SilentParameters, AGroupsRowsAreInactiveExactlyWhileItsPartIsOffOrAnotherModelRuns) {
    int switched = 0, model_rows = 0;
    for (int i = 0; i < kParamCount; ++i) {
        const ParamInfo& info = paramTable()[size_t(i)];
        const std::string group = info.group;
        if (gateOf(Param(i))) continue; // ALevelsRowsAreInactiveExactlyWhileItIsZero
        const std::optional<Param> switch_row = switchOf(Param(i));
        const bool has_switch = switch_row.has_value();
        const Param enable = switch_row.value_or(Param{});
        // A model's rows name the models that read them first: "thermal/olsen models: ...".
        const bool model_row = group.size() > 6 && group.ends_with(" model");
        const std::string owners = std::string(info.meaning).substr(0, std::string(info.meaning).find(':'));
        for (int model = 0; model < int(gpu::models().size()); ++model) {
            const std::string name = gpu::modelName(model);
            Params on, off;
            if (has_switch) {
                on[enable] = 1;
                off[enable] = 0;
            }
            const bool foreign = (model_row && owners.find(name) == std::string::npos) ||
                                 (groupModel(group) && name != groupModel(group));
            EXPECT_EQ(whyInactive(on, Param(i), name).empty(), !foreign) << info.name << " under " << name;
            EXPECT_EQ(whyInactive(off, Param(i), name).empty(), !foreign && !has_switch)
                << info.name << " under " << name;
            if (model_row && name == group.substr(0, group.find(' '))) {
                EXPECT_TRUE(whyInactive(on, Param(i), name).empty()) << info.name << ": its own model";
            }
        }
        switched += has_switch;
        model_rows += model_row;
    }
    EXPECT_GE(switched, 15);
    EXPECT_GE(model_rows, 20);
}

TEST(SilentParameters, ASetWhosePartIsOffSaysSoInOneLine) {
    Scratch s;
    struct Case {
        std::vector<std::string> args;
        std::string note; // "" when the set acts
    };
    const std::vector<Case> cases = {
        {{"--set", "sea_level=5"}, "--set sea_level has no effect: enable_sea is off"},
        {{"--set", "tide_amplitude=1"}, "--set tide_amplitude has no effect: enable_sea is off"},
        {{"--set", "enable_sea=on", "--set", "sea_level=5"}, ""},
        {{"--set", "porosity=0.2"}, "--set porosity has no effect: enable_groundwater is off"},
        {{"--set", "enable_groundwater=on", "--set", "porosity=0.2"}, ""},
        {{"--set", "thermal_rate=0.2", "--set", "enable_thermal=off"}, "enable_thermal is off"},
        {{"--set", "fluvial_rainfall=1"},
         "--set fluvial_rainfall has no effect: it belongs to the fluvial model, and the model is pipe"},
        {{"--model", "fluvial", "--set", "fluvial_rainfall=1"}, ""},
        {{"--model", "olsen", "--set", "talus_fraction=0.3"}, ""},
        {{"--model", "simple", "--set", "talus_fraction=0.3"}, "belongs to the thermal/olsen models"},
    };
    for (const Case& c : cases) {
        std::vector<std::string> args = {"run", "--size", "16x16", "--steps", "1", "--out", s.outPath("o.f32")};
        args.insert(args.end(), c.args.begin(), c.args.end());
        const CliResult r = runCli(args, s.io);
        EXPECT_EQ(r.code, 0) << r;
        const auto notes = std::count_if(r.err_lines.begin(), r.err_lines.end(),
                                         [](const std::string& l) { return contains(l, "has no effect"); });
        if (c.note.empty()) {
            EXPECT_EQ(notes, 0) << r;
        } else {
            EXPECT_EQ(notes, 1) << r;
            EXPECT_TRUE(contains(r.err, c.note)) << r;
        }
    }
}
