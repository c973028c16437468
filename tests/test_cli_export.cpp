// `alluvium run --out-maps DIR --out-mesh FILE`, run as a real process (on the Vulkan driver
// present): the files the export writes, and the bad options refused before the GPU starts.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <OpenEXR/ImfChannelList.h>
#include <OpenEXR/ImfFrameBuffer.h>
#include <OpenEXR/ImfHeader.h>
#include <OpenEXR/ImfInputFile.h>

#include <nlohmann/json.hpp>

#include "io/heightmap.h"

#include "test_util.h"

namespace fs = std::filesystem;
using namespace alluvium;

namespace {

fs::path scratchDir() { return test::scratchDir("cli-export"); }
using test::readText;

struct Result {
    int code = -1;
    std::string err;
};

// Runs alluvium with args (no quoting needed: the test paths have no spaces) in dir.
Result run(const fs::path& dir, const std::string& args) {
    const std::string cmd =
        "cd '" + dir.string() + "' && '" + std::string(ALLUVIUM_EXE) + "' " + args + " 2> stderr.txt > /dev/null";
    const int status = std::system(cmd.c_str());
    Result r;
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.err = readText(dir / "stderr.txt");
    fs::remove(dir / "stderr.txt");
    return r;
}

std::set<std::string> listDir(const fs::path& dir) {
    std::set<std::string> names;
    for (const auto& e : fs::directory_iterator(dir)) names.insert(e.path().filename().string());
    return names;
}

TEST(CliExport, RunWritesTheMapsAndTheMesh) {
    const fs::path dir = scratchDir();
    const Result r = run(dir, "run --size 48x40 --steps 30 --out out/eroded.f32 --out-maps out/maps "
                              "--out-mesh out/terrain.obj --mesh-triangles 600");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.err.find("wrote the maps to out/maps"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("wrote the mesh out/terrain.obj"), std::string::npos) << r.err;

    Imf::InputFile file((dir / "out/maps/maps.exr").c_str());
    const Imath::Box2i dw = file.header().dataWindow();
    ASSERT_EQ(dw.max.x - dw.min.x + 1, 48);
    ASSERT_EQ(dw.max.y - dw.min.y + 1, 40);
    std::set<std::string> names;
    for (auto it = file.header().channels().begin(); it != file.header().channels().end(); ++it)
        names.insert(it.name());
    EXPECT_EQ(names, (std::set<std::string>{"water_depth", "sediment", "hardness", "flow", "erosion", "deposition",
                                            "velocity.u", "velocity.v", "height", "lake_depth", "drainage_area",
                                            "water_table", "groundwater_depth", "rain", "loose_thickness", "bedrock",
                                            "snow", "vegetation", "lava"}));
    std::vector<float> height(48 * 40), hardness(48 * 40), erosion(48 * 40), flow(48 * 40);
    Imf::FrameBuffer fb;
    for (auto [name, v] : {std::pair{"height", &height}, std::pair{"hardness", &hardness},
                           std::pair{"erosion", &erosion}, std::pair{"flow", &flow}})
        fb.insert(name, Imf::Slice(Imf::FLOAT, reinterpret_cast<char*>(v->data()), 4, 4 * 48));
    file.setFrameBuffer(fb);
    file.readPixels(dw.min.y, dw.max.y);

    // The height layer is the heightmap --out wrote; the others are physical and in range.
    LoadOptions opt;
    opt.width = 48;
    opt.height = 40;
    EXPECT_EQ(height, loadHeightmap(dir / "out/eroded.f32", opt).heights);
    for (float v : hardness) ASSERT_TRUE(v >= 0.0f && v <= 1.0f) << v;
    for (float v : erosion) ASSERT_GE(v, 0.0f);
    EXPECT_GT(*std::max_element(flow.begin(), flow.end()), 0.0f);
    for (const char* f : {"water_depth.png", "water_depth.png.json", "flow_log.png", "speed.png", "velocity.exr",
                          "height.exr", "erosion.png", "deposition.exr"})
        EXPECT_TRUE(fs::is_regular_file(dir / "out/maps" / f)) << f;

    std::istringstream obj(readText(dir / "out/terrain.obj"));
    std::size_t v = 0, f = 0;
    for (std::string line; std::getline(obj, line);) {
        if (line.rfind("v ", 0) == 0) ++v;
        if (line.rfind("f ", 0) == 0) ++f;
    }
    EXPECT_GT(v, 3u);
    EXPECT_LE(f, 600u);
    EXPECT_GT(f, 150u);
}

TEST(CliExport, BadExportOptionsFailBeforeTheGpuAndWriteNothing) {
    const fs::path dir = scratchDir();
    std::ofstream(dir / "afile") << "x";
    struct Case {
        std::string args, needle;
    };
    const std::vector<Case> cases = {
        {"--size 16x16 --out o.png --out-maps afile", "--out-maps 'afile' is not a directory"},
        {"--size 16x16 --out o.png --out-maps afile/maps", "'afile' is not a directory"},
        {"--size 16x16 --out o.png --out-mesh m.stl", "--out-mesh 'm.stl': unsupported extension"},
        {"--size 16x16 --out o.png --out-mesh afile/m.obj", "'afile' is not a directory"},
        {"--size 1x50 --out o.png --out-mesh m.gltf", "a mesh needs at least 2x2 cells"},
        {"--size 16x16 --out o.png --out-mesh m.obj --mesh-triangles 1", "--mesh-triangles"},
        {"--size 16x16 --out o.png --mesh-triangles 100", "--mesh-triangles requires --out-mesh"},
        // Two outputs on one path: the one written last would silently replace the other.
        {"--size 16x16 --out o.f32 --save-session o.f32", "--save-session 'o.f32' is also --out"},
        {"--size 16x16 --out o.png --report o.png.json", "--report 'o.png.json' is also the sidecar of --out"},
        {"--size 16x16 --out o.f32 --timelapse ./o.f32", "--timelapse './o.f32' is also --out"},
        {"--size 16x16 --out o.f32 --report m.json --out-maps sub/../m.json", "is also --report"},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.args);
        const Result r = run(dir, "run --steps 1 " + c.args);
        EXPECT_EQ(r.code, 2);
        EXPECT_NE(r.err.find(c.needle), std::string::npos) << r.err;
        EXPECT_EQ(r.err.find("device"), std::string::npos) << "the GPU started: " << r.err;
        EXPECT_EQ(listDir(dir), std::set<std::string>{"afile"});
    }
    for (const char* command : {"fill", "watertable"}) {
        SCOPED_TRACE(command);
        const Result r = run(dir, std::string(command) + " --size 16x16 --out o.f32 --report r.json --out-maps r.json");
        EXPECT_EQ(r.code, 2);
        EXPECT_NE(r.err.find("--out-maps 'r.json' is also --report"), std::string::npos) << r.err;
        EXPECT_EQ(listDir(dir), std::set<std::string>{"afile"});
    }
}

} // namespace

namespace {

TEST(CliExport, WatertableWritesTheTableTheRiversAndItsReport) {
    const fs::path dir = scratchDir();
    const Result r = run(dir, "watertable --size 48x40 --set table_iterations=300 --set fluvial_outlets=bottom "
                              "--river-cells 10 --out table.f32 --report report.json --out-maps maps");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(fs::file_size(dir / "table.f32"), 48u * 40u * 4u);
    const std::set<std::string> maps = listDir(dir / "maps");
    EXPECT_TRUE(maps.count("rivers.png") && maps.count("rivers.exr") && maps.count("water_table.png")) << r.err;
    const std::string report = readText(dir / "report.json");
    for (const char* key : {"\"rivers\"", "\"river_cells\"", "\"sustained_cells\"", "\"dry_cells\"",
                            "\"dry_end_points\"", "\"lake_cells\"", "\"cells_still_moving\""})
        EXPECT_NE(report.find(key), std::string::npos) << key << "\n" << report;
    // The threshold as an area: 160 m^2 is 10 cells of the table's 4 m, the same rivers.
    const Result by_area = run(dir, "watertable --size 48x40 --set table_iterations=300 --set fluvial_outlets=bottom "
                                    "--river-area 160 --out table2.f32 --report report2.json");
    ASSERT_EQ(by_area.code, 0) << by_area.err;
    const nlohmann::json cells = nlohmann::json::parse(report)["rivers"];
    const nlohmann::json area = nlohmann::json::parse(readText(dir / "report2.json"))["rivers"];
    EXPECT_EQ(area["river_cells"], cells["river_cells"]);
    EXPECT_DOUBLE_EQ(area["min_area_m2"].get<double>(), 160.0);
    EXPECT_DOUBLE_EQ(cells["min_area_m2"].get<double>(), 160.0);
    EXPECT_GT(cells["river_cells"].get<long>(), 0);
    // At 2 m cells the same 10 cells are 40 m^2.
    for (const char* threshold : {"--river-cells 10", "--river-area 40"}) {
        const Result r2 = run(dir, std::string("watertable --size 48x40 --cell-size 2 --set table_iterations=300 "
                                               "--set fluvial_outlets=bottom --out t3.f32 --report r3.json ") +
                                       threshold);
        ASSERT_EQ(r2.code, 0) << r2.err;
        const nlohmann::json fine = nlohmann::json::parse(readText(dir / "r3.json"))["rivers"];
        EXPECT_DOUBLE_EQ(fine["min_cells"].get<double>(), 10.0) << threshold;
        EXPECT_DOUBLE_EQ(fine["min_area_m2"].get<double>(), 40.0) << threshold;
    }
    // A bad threshold, or both, is one line before the GPU starts.
    for (const char* args : {"--river-cells 0", "--river-area 0", "--river-cells 10 --river-area 160"}) {
        const Result bad = run(dir, std::string("watertable --size 48x40 ") + args + " --out t2.f32");
        EXPECT_NE(bad.code, 0) << args;
        EXPECT_FALSE(fs::exists(dir / "t2.f32")) << args;
    }
}

// The viewer opens a session `run` saved and saves its own: loaded, the state is the run's (the
// same digest); 20 steps in the viewer equal 20 steps of `run` from the same session (digest and
// heights); what the viewer saves resumes in `run` bit for bit. A session file that is not there
// and a --save-session that is not a session are one line, exit 2, before the GPU starts.
TEST(CliExport, ViewerLoadsAndSavesSessions) {
    const fs::path dir = scratchDir();
    auto digest = [&](const char* report) {
        return nlohmann::json::parse(readText(dir / report))["state_digest"].get<std::string>();
    };
    ASSERT_EQ(run(dir, "run --size 48x40 --steps 30 --save-session a.alluvium --report ra.json --out a.f32").code, 0);
    Result r = run(dir, "view --offscreen --load-session a.alluvium --steps-per-frame 0 --exit-after-frames 2 "
                        "--window 320x200 --report rv.json --save-session b.alluvium");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(digest("rv.json"), digest("ra.json"));
    r = run(dir, "view --offscreen --load-session a.alluvium --steps-per-frame 5 --exit-after-frames 4 "
                 "--window 320x200 --report rv20.json --save-session c.alluvium");
    ASSERT_EQ(r.code, 0) << r.err;
    ASSERT_EQ(run(dir, "run --load-session a.alluvium --steps 20 --out r20.f32 --report r20.json").code, 0);
    EXPECT_EQ(digest("rv20.json"), digest("r20.json"));
    ASSERT_EQ(run(dir, "run --load-session c.alluvium --steps 0 --out c.f32").code, 0);
    EXPECT_EQ(readText(dir / "c.f32"), readText(dir / "r20.f32"));
    EXPECT_EQ(nlohmann::json::parse(readText(dir / "rv20.json"))["steps"], 20);
    ASSERT_EQ(run(dir, "run --load-session b.alluvium --steps 20 --out b20.f32").code, 0);
    EXPECT_EQ(readText(dir / "b20.f32"), readText(dir / "r20.f32"));

    for (const char* bad :
         {"view --offscreen --load-session missing.alluvium", "view --offscreen --save-session out.txt",
          "view --offscreen --load-session a.alluvium --size 10x10"}) {
        SCOPED_TRACE(bad);
        const Result b = run(dir, bad);
        EXPECT_EQ(b.code, 2);
        EXPECT_EQ(b.err.find("device"), std::string::npos) << "the GPU started: " << b.err;
    }
    EXPECT_FALSE(fs::exists(dir / "out.txt"));
}

// The equilibrium table settles: on the procedural 128^2 terrain, 2,500 rounds leave no cell
// moving by more than float rounding, and 3,000 rounds give the same table to 1e-4 m (a few ulps
// at the terrain's 70-120 m). Over-relaxed to the end, 1,034 cells kept circling their kinks, up
// to 0.022 m from the settled table; the last rounds are plain Gauss-Seidel now.
TEST(CliExport, WatertableSettlesOnAProceduralTerrain) {
    const fs::path dir = scratchDir();
    for (const char* rounds : {"2500", "3000"}) {
        const Result r = run(dir, std::string("watertable --size 128x128 --seed 1 --set table_iterations=") + rounds +
                                      " --out t" + rounds + ".f32 --report r" + rounds + ".json");
        ASSERT_EQ(r.code, 0) << r.err;
        const nlohmann::json report = nlohmann::json::parse(readText(dir / (std::string("r") + rounds + ".json")));
        EXPECT_EQ(report["cells_still_moving"].get<int>(), 0) << rounds;
        EXPECT_GT(report["lake_cells"].get<int>(), 0);
    }
    const std::string a = readText(dir / "t2500.f32"), b = readText(dir / "t3000.f32");
    ASSERT_EQ(a.size(), 128u * 128u * 4u);
    ASSERT_EQ(b.size(), a.size());
    double largest = 0.0;
    for (size_t i = 0; i < a.size(); i += 4) {
        float x = 0.0f, y = 0.0f;
        std::memcpy(&x, a.data() + i, 4);
        std::memcpy(&y, b.data() + i, 4);
        largest = std::max(largest, double(std::abs(x - y)));
    }
    std::printf("[ watertable 128^2 ] 2,500 against 3,000 rounds: largest difference %.3g m\n", largest);
    EXPECT_LE(largest, 1e-4);
}

} // namespace

namespace {

// Groundwater in the grid models with surface water (musgrave, simple): the rain soaks in, a table
// at the surface seeps out, and the budget (water on and in the ground) still closes.
TEST(CliExport, GroundwaterRunsInMusgraveAndSimple) {
    const fs::path dir = scratchDir();
    for (const char* model : {"musgrave", "simple"}) {
        SCOPED_TRACE(model);
        const std::string report = std::string(model) + ".json";
        const Result r = run(dir, std::string("run --model ") + model +
                                      " --size 41x37 --steps 300 --set enable_groundwater=1 "
                                      "--set initial_table_depth=0.2 --out " +
                                      model + ".f32 --report " + report);
        ASSERT_EQ(r.code, 0) << r.err;
        const nlohmann::json water = nlohmann::json::parse(readText(dir / report))["water"];
        EXPECT_GT(water["infiltrated"].get<double>(), 0.0);
        EXPECT_GT(water["seeped"].get<double>(), 0.0);
        EXPECT_NE(water["groundwater_stored"].get<double>(), water["groundwater_stored_initial"].get<double>());
        EXPECT_LE(water["budget_error_rel"].get<double>(), 1e-5);
    }
}

} // namespace

namespace {

// `export --for ENGINE`: the engine's file and its import settings from a real DEM, without the
// GPU; a bad engine, side or format is one line, exit 2, and nothing written.
TEST(CliExport, ExportForEnginesWritesTheFileAndItsSettings) {
    const fs::path dir = scratchDir();
    const std::string dem = std::string(ALLUVIUM_SHARED_DATA_DIR) + "/srtm_frontrange_240x144_240x144.f32";
    const std::string in = "--in " + dem + " --size 240x144 --cell-size 30";
    Result r = run(dir, "export --for unreal " + in + " --out fr.png");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.err.find("device"), std::string::npos) << "the GPU started: " << r.err;
    EXPECT_EQ(listDir(dir), (std::set<std::string>{"fr.png", "fr.png.json", "fr.png.import.json"}));
    const Heightmap back = loadHeightmap(dir / "fr.png", {});
    EXPECT_EQ(back.width, 253);
    EXPECT_EQ(back.height, 253);
    r = run(dir, "export --for unity " + in + " --out fr.raw --side 513");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(fs::file_size(dir / "fr.raw"), 2u * 513 * 513);
    for (const std::string& args :
         {"export --for cryengine " + in + " --out x.png", "export --for unreal " + in + " --out x.png --side 1024",
          "export --for godot " + in + " --out x.png",
          std::string("export --for unity --in nothere.png --out x.raw")}) {
        SCOPED_TRACE(args);
        r = run(dir, args);
        EXPECT_EQ(r.code, 2);
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        EXPECT_FALSE(fs::exists(dir / "x.png") || fs::exists(dir / "x.raw"));
    }
}

} // namespace
