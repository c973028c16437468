// alluvium run: erode a terrain headless, write the heightmap and the report.
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>

#include <fcntl.h>
#include <unistd.h>

#include "commands.h"
#include "export.h"
#include "io/atomic_file.h"
#include "io/errors.h"
#include "io/maps.h"
#include "io/mesh.h"
#include "presets.h"
#include "processes.h"
#include "progress.h"
#include "report.h"
#include "session.h"
#include "snapshot.h"
#include "split_analysis.h"
#include "split_timelapse.h"

namespace alluvium {

namespace {

void checkOutputPath(const std::string& path, std::initializer_list<const char*> extensions, const char* what) {
    const std::string ext = std::filesystem::path(path).extension().string();
    for (const char* e : extensions)
        if (ext == e) return;
    std::string list;
    for (const char* e : extensions) list += (list.empty() ? "" : ", ") + std::string(e);
    throw InputError(std::string(what) + " '" + path + "': unsupported extension (use " + list + ")");
}

// Refuses, before the GPU runs, an output path that can never be written: an existing folder,
// a folder that cannot be created because a file stands in its path, or a read-only folder. Found only at the end,
// these would fail after the report (or the PNG before its sidecar) had already been written.
void checkOutputLocation(const std::filesystem::path& path, const char* what) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (fs::is_directory(path, ec)) throw InputError(std::string(what) + " '" + displayPath(path) + "' is a directory");
    fs::path dir = path.parent_path();
    while (!dir.empty() && !fs::exists(dir, ec) && dir.has_relative_path()) dir = dir.parent_path();
    if (!dir.empty() && fs::exists(dir, ec) && !fs::is_directory(dir, ec))
        throw InputError(std::string(what) + " '" + displayPath(path) + "': '" + displayPath(dir) +
                         "' is not a directory");
    checkWritableLocation(path, what); // a read-only folder, found before the run, not after it
}

// --timelapse: the numbers, and a folder that is (or can become) an empty home for the frames.
// Frames of an earlier timelapse are never mixed with new ones, nor deleted: the run refuses.
void checkTimelapse(const TimelapseOptions& t) {
    namespace fs = std::filesystem;
    if (t.every <= 0)
        throw InputError("--every: a frame every N steps needs N >= 1 (got " + std::to_string(t.every) + ")");
    int w = 0, h = 0;
    parseSize(t.size, w, h, "--timelapse-size");
    if (w < 16 || h < 16) throw InputError("--timelapse-size: at least 16x16 pixels");
    if (w % 2 || h % 2) throw InputError("--timelapse-size: width and height must be even (the video's 4:2:0 chroma)");
    if (t.fps < 1 || t.fps > 240) throw InputError("--timelapse-fps: 1..240 frames per second");
    const std::string shown = displayPath(t.dir);
    std::error_code ec;
    if (fs::exists(t.dir, ec)) {
        if (!fs::is_directory(t.dir, ec)) throw InputError("--timelapse '" + shown + "' is not a directory");
        for (const auto& entry : fs::directory_iterator(t.dir, ec)) {
            const std::string name = entry.path().filename().string();
            if ((name.rfind("frame-", 0) == 0 && entry.path().extension() == ".png") || name == "timelapse.mp4")
                throw InputError("--timelapse '" + shown + "' already holds a timelapse (" + name +
                                 "): choose a new or empty folder");
        }
    }
    fs::path up = fs::path(t.dir).parent_path();
    while (!up.empty() && !fs::exists(up, ec) && up.has_relative_path()) up = up.parent_path();
    if (!up.empty() && fs::exists(up, ec) && !fs::is_directory(up, ec))
        throw InputError("--timelapse '" + shown + "': '" + displayPath(up) + "' is not a directory");
}

// Creates the timelapse's folder and proves it writable (permissions alone do not tell, as root
// or on a read-only file system), before the GPU starts.
void prepareTimelapseFolder(const std::string& dir) {
    namespace fs = std::filesystem;
    const std::string shown = displayPath(dir);
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) throw InputError("--timelapse '" + shown + "': cannot create it: " + ec.message());
    const std::string probe = (fs::path(dir) / (".alluvium-probe-" + std::to_string(getpid()))).string();
    const int fd = open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) throw InputError("--timelapse '" + shown + "': cannot write in it: " + std::strerror(errno));
    close(fd);
    unlink(probe.c_str());
}

// Everything a person can get wrong is checked before the GPU starts.
void checkRunOptions(const RunOptions& o, bool can_timelapse) {
    if (!isHeightmapExtension(o.out))
        checkOutputPath(o.out, {".png", ".f32", ".r32", ".r16", ".raw", ".exr", ".tif", ".tiff", ".asc"}, "--out");
    if (!o.report.empty()) checkOutputPath(o.report, {".json"}, "--report");
    if (!o.model.empty() && gpu::modelFromName(o.model) < 0)
        throw InputError("--model: unknown model '" + o.model + "' (" + gpu::modelList() + ")");
    checkOutputLocation(o.out, "--out");
    if (writesSidecar(o.out)) checkOutputLocation(o.out + ".json", "the sidecar of --out");
    if (!o.report.empty()) checkOutputLocation(o.report, "--report");
    if (!o.save_session.empty()) checkOutputLocation(o.save_session, "--save-session");
    if (!o.out_maps.empty()) {
        std::error_code ec;
        if (std::filesystem::exists(o.out_maps, ec) && !std::filesystem::is_directory(o.out_maps, ec))
            throw InputError("--out-maps '" + displayPath(o.out_maps) + "' is not a directory");
        checkOutputLocation(std::filesystem::path(o.out_maps) / kMultiLayerMapsFile, "--out-maps");
    }
    if (!o.out_mesh.empty()) {
        checkOutputPath(o.out_mesh, {".obj", ".gltf"}, "--out-mesh");
        checkOutputLocation(o.out_mesh, "--out-mesh");
    }
    if (!o.timelapse.dir.empty()) {
        checkTimelapse(o.timelapse);
        if (!can_timelapse) throw InputError("--timelapse: this build has no renderer");
    }
    checkDistinctOutputs({{"--out", o.out},
                          {"the sidecar of --out", writesSidecar(o.out) ? o.out + ".json" : ""},
                          {"--report", o.report},
                          {"--save-session", o.save_session},
                          {"--out-maps", o.out_maps},
                          {"--out-mesh", o.out_mesh},
                          {"--timelapse", o.timelapse.dir}});
}

// What a run starts from: a resumed session (its parameters with --preset and --set on top, and
// its budgets from its first step) or the terrain of --in / the generator.
struct RunStart {
    std::optional<Session> resumed;
    int model = MODEL_PIPE;
    Params params;
    InitialTerrain initial;
    long long steps_before = 0;
};

RunStart prepareRun(const RunOptions& o) {
    RunStart r;
    if (!o.load_session.empty()) r.resumed = loadSession(o.load_session);
    // The model: --model, else the preset's, else the session's, else the pipe model.
    const std::string preset_model = presetModel(o.preset);
    r.model = gpu::modelFromName(!o.model.empty()        ? o.model
                                 : !preset_model.empty() ? preset_model
                                 : r.resumed             ? r.resumed->model
                                                         : "pipe");
    if (r.resumed) {
        r.params = sessionParams(*r.resumed, o.preset, o.terrain.cell_size, o.sets);
        r.initial.terrain = {r.resumed->width, r.resumed->height, std::move(r.resumed->initial_terrain)};
        r.steps_before = r.resumed->steps;
    } else {
        r.initial = prepareTerrainAndParams(o.terrain, o.preset, o.sets, r.params);
    }
    noteInactiveSets(r.params, o.sets, r.model);
    // The wear and flow maps cost bandwidth every step: recorded when they will be written.
    if (!o.out_maps.empty() || !o.save_session.empty()) r.params[Param::record_maps] = 1;
    const int w = r.initial.terrain.width, h = r.initial.terrain.height;
    if (!o.out_mesh.empty() && (w < 2 || h < 2))
        throw InputError("--out-mesh: a mesh needs at least 2x2 cells (the terrain is " + std::to_string(w) + "x" +
                         std::to_string(h) + ")");
    if (r.steps_before + o.steps > kMaxSessionSteps)
        throw InputError("--steps " + std::to_string(o.steps) + ": the session is at step " +
                         std::to_string(r.steps_before) + "; a run may not go past step " +
                         std::to_string(kMaxSessionSteps));
    return r;
}

// The steps, in stretches of --every with a timelapse frame after each (the same steps as one
// stretch: the result is bit for bit that of a run without it). Lakes that balance evaporation:
// run() solves them before each iteration; their count and area per iteration go to the report.
void runSteps(gpu::Simulation& sim, const RunOptions& o, TimelapseSink* frames, RunFacts& facts) {
    Progress progress("eroding", o.steps);
    facts.closed_lakes = nlohmann::json::array();
    facts.closed_area = nlohmann::json::array();
    if (frames) frames->frame(0);
    for (int done = 0; done < o.steps;) {
        const int stretch = frames ? std::min(o.timelapse.every, o.steps - done) : o.steps;
        sim.run(stretch, [&](int d) {
            progress.update(done + d);
            if (sim.fluvialLakesOn()) {
                facts.closed_lakes.push_back(sim.fluvial().lakes.closed_lakes);
                facts.closed_area.push_back(sim.fluvial().lakes.closed_area_m2);
            }
        });
        done += stretch;
        if (frames && done % o.timelapse.every == 0) frames->frame(done);
    }
}

void printRunSummary(const RunOptions& o, const nlohmann::json& report, double seconds) {
    const std::string written =
        o.out + (writesSidecar(o.out) ? " (+ .json)" : "") + (o.report.empty() ? "" : " and " + o.report);
    if (report.contains("fluvial")) {
        const nlohmann::json& f = report["fluvial"];
        std::fprintf(stderr,
                     "alluvium: wrote %s (%.1f s, %g years, %.4g m^3 eroded, %.4g m^3 deposited, %.4g m^3 of lakes)\n",
                     written.c_str(), seconds, f["years"].get<double>(), f["eroded_m3"].get<double>(),
                     f["deposited_m3"].get<double>(), f["lake_volume_m3"].get<double>());
        return;
    }
    char budget[64] = "no water budget";
    if (report["water"]["budget_error_rel"].is_number())
        std::snprintf(budget, sizeof budget, "water budget error %.2e",
                      report["water"]["budget_error_rel"].get<double>());
    std::fprintf(stderr, "alluvium: wrote %s (%.1f s, %s, soil drift %.2e)\n", written.c_str(), seconds, budget,
                 report["soil"]["drift_rel"].is_number() ? report["soil"]["drift_rel"].get<double>() : NAN);
}

// Rank 0 read the input: the other processes take all of it but the fields, which they never
// hold whole (each upload sends every process its block).
void shareStart(RunStart& r) {
    nlohmann::json extra;
    if (processes().root()) {
        extra = {{"model", r.model}, {"steps_before", r.steps_before}};
        if (r.resumed) extra["session"] = sessionHeader(*r.resumed);
    }
    shareInput(r.params, r.initial, extra);
    if (processes().root()) return;
    try {
        r.model = extra.at("model").get<int>();
        r.steps_before = extra.at("steps_before").get<long long>();
        if (extra.contains("session")) r.resumed = sessionFromHeader(extra.at("session"));
    } catch (const nlohmann::json::exception& e) {
        throw InputError(std::string("the session's header from rank 0 arrived damaged: ") + e.what());
    }
}

// A run split over processes (mpirun): what it cannot do yet, said before the GPU starts.
void checkSplitRun(const RunOptions& o, const gpu::SimParams& p) {
    const std::string refusal = gpu::splitRefusal(p);
    if (!refusal.empty()) throw InputError(refusal);
    if (!o.out_maps.empty()) (void)analysisBlocks(p.width, p.height); // the maps' lakes and drainage split too
}

// What rank 0 of a split run holds of the whole grid at its peak, bytes a cell: the input it
// read for the whole run (heights, hardness, a rain mask; a session's every field until they are
// uploaded), then the final heights and a field of four channels gathered (as it arrives and in
// place), and a session to save.
void checkRootMemory(const RunOptions& o, const RunStart& r) {
    double session = 4.0; // its initial heights
    for (gpu::Field f : sessionFields()) session += 4.0 * gpu::fieldChannels(f);
    const double input = r.resumed ? session : 4.0 + 4.0 + (r.initial.hasRainMask() ? 4.0 : 0.0);
    const double held = r.resumed ? 4.0 : input; // the resumed fields are freed once uploaded
    // The maps: their fields gathered (20 floats a cell), the lakes and drainage (about 20 bytes a
    // cell), the layers written (about 100).
    const double maps = o.out_maps.empty() ? 0.0 : 80.0 + 20.0 + 100.0;
    const double end = held + 4.0 + 2.0 * 16.0 + (o.save_session.empty() ? 0.0 : session) + maps;
    std::string what = "the input, the final heights";
    if (!o.out_maps.empty()) what += ", the maps";
    what += o.save_session.empty() ? " and a field gathered" : ", a field gathered and the session";
    checkRootHostMemory(r.initial.terrain.width, r.initial.terrain.height, std::max(input, end), what);
}

} // namespace

int runCommand(const RunOptions& o, const DeviceOptions& device, const TimelapseFactory& make_timelapse) {
    RunStart start;
    agree([&] { // rank 0 reads the input and alone writes: a file it cannot read or write stops them all
        if (!processes().root()) return;
        checkRunOptions(o, bool(make_timelapse));
        if (processes().size > 1 && o.load_session.empty()) { // a generated grid's need, before it is made
            RunStart sized;                                   // (no rain mask yet: the least it needs)
            if (generatedSize(o.terrain, sized.initial.terrain.width, sized.initial.terrain.height))
                checkRootMemory(o, sized);
        }
        start = prepareRun(o);
        if (processes().size > 1) checkRootMemory(o, start);
        if (!o.timelapse.dir.empty()) prepareTimelapseFolder(o.timelapse.dir); // rank 0 alone writes it
    });
    if (processes().size > 1) agree([&] { shareStart(start); });
    const Params& params = start.params;
    const double cell_size = params[Param::cell_size];
    const int w = start.initial.terrain.width, h = start.initial.terrain.height;

    gpu::SimParams sim_params = toSimParams(params, w, h);
    sim_params.model = start.model;
    sim_params.particle_seed = static_cast<uint32_t>(o.terrain.seed); // droplets follow --seed
    const Processes& procs = processes();
    if (procs.size > 1) checkSplitRun(o, sim_params);

    // A resumed session's parameters are set first, as it is restored: the band holds both steps.
    int reach = gpu::stepReach(sim_params);
    if (start.resumed) reach = std::max(reach, gpu::stepReach(sessionSimParams(*start.resumed)));
    ScopedContext scoped(device);
    gpu::Simulation sim(scoped.ctx, w, h, gpu::PipePasses::Auto, {}, gpu::SplitOver{procs.transport, reach});
    if (sim.blocks() && !o.out_maps.empty())
        checkAnalysisFits(scoped.ctx, gpu::simulationBytes(sim.blocks()->local().w, sim.blocks()->local().h), w, h);
    if (start.resumed) {
        restoreSession(sim, *start.resumed);
        sim.setStepIndex(static_cast<int>(start.resumed->steps)); // rain events and droplet seeds continue
    } else {
        loadInitialState(sim, start.initial, params);
    }
    sim.setParams(sim_params);
    RunFacts facts;
    facts.before = start.resumed ? start.resumed->initial_sums : sumState(sim, cell_size);
    start.resumed.reset(); // the fields are on the GPU now

    if (const gpu::BlockExchange* b = sim.blocks())
        std::fprintf(stderr, "alluvium: split over %d processes: %dx%d blocks, bands of %dx%d cells\n", b->ranks(),
                     b->grid().cols, b->grid().rows, b->grid().halo_x, b->grid().halo_y);
    const bool fluvial = start.model == MODEL_FLUVIAL;
    std::fprintf(stderr, "alluvium: %dx%d cells of %g m, %d %s of %g %s\n", w, h, cell_size, o.steps,
                 fluvial ? "iterations" : "steps",
                 fluvial ? params[Param::fluvial_time_step] : params[Param::time_step], fluvial ? "years" : "s");
    const auto clock = std::chrono::steady_clock::now();
    std::unique_ptr<TimelapseSink> frames;
    if (!o.timelapse.dir.empty())
        frames = sim.blocks() ? splitTimelapse(scoped.ctx, sim, sim_params, o.timelapse, params, make_timelapse)
                              : make_timelapse(scoped.ctx, sim, o.timelapse, params);
    runSteps(sim, o, frames.get(), facts);
    const bool frames_ok = !frames || frames->finish();
    if (frames) facts.timelapse = frames->summary();
    frames.reset();
    facts.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - clock).count();

    if (sim.blocks()) facts.processes = splitFacts(*sim.blocks(), scoped.ctx, facts.seconds);
    facts.after = sumState(sim, cell_size);
    Heightmap result{w, h, sim.download(gpu::Field::Terrain)};
    facts.state_digest = gpu::digestText(gpu::stateDigest(sim));
    facts.steps_before = start.steps_before;
    facts.steps = start.steps_before + o.steps;
    facts.cell_size = cell_size;
    facts.initial_heights = &start.initial.terrain.heights;
    facts.final_heights = &result.heights;
    facts.nodata_filled = start.initial.terrain.nodata_filled;
    facts.years = params[Param::fluvial_time_step] * double(facts.steps);
    // Lakes and drainage of the final terrain, once, for the fluvial report and --out-maps.
    facts.last_fill = sim.fluvial().hostControl(); // the last iteration's fill, before that
    std::optional<SplitMaps> split_maps;           // a split run's maps: gathered, and the lakes and drainage split
    if (sim.blocks() && !o.out_maps.empty()) {
        split_maps = gatherSplitMaps(sim, scoped.ctx, params, w, h, true, &result.heights);
        facts.processes["maps_analysis"] = split_maps->analysis.report;
    } else if (fluvial || !o.out_maps.empty()) {
        facts.analysis = sim.fluvialAnalyse();
    }
    const nlohmann::json report = runReport(sim, facts);
    // Every process takes part in what reads the state; rank 0 alone writes, and alone keeps a
    // session's fields (every state field of the whole grid at once).
    std::optional<Session> session;
    if (!o.save_session.empty() && procs.root())
        session = captureSession(sim, params, std::move(start.initial.terrain.heights), facts.before, facts.steps);
    else if (!o.save_session.empty())
        for (gpu::Field f : sessionFields()) (void)sim.download(f, false);
    // Rank 0 has the whole fields: its status says how the run ended.
    if (!procs.root()) return 0;
    OutputBatch outputs; // every output, or none if one cannot be written
    if (facts.after.nan_cells > 0) {
        if (!o.report.empty()) writeReport(o.report, report);
        outputs.commit(); // the report says what went wrong
        std::fprintf(stderr, "alluvium: the simulation produced %lld non-finite cells; no heightmap written\n",
                     facts.after.nan_cells);
        return 1;
    }
    saveHeightmap(o.out, result, cell_size);
    if (!o.report.empty()) writeReport(o.report, report);
    if (split_maps)
        exportMaps(split_maps->source(toSimParams(params, w, h)), o.out_maps);
    else if (!o.out_maps.empty())
        exportMaps(sim, o.out_maps);
    if (!o.out_mesh.empty()) writeTerrainMesh(o.out_mesh, result, cell_size, o.mesh_triangles);
    if (session) saveSession(o.save_session, *session);
    outputs.commit();
    if (!o.out_maps.empty()) std::fprintf(stderr, "alluvium: wrote the maps to %s\n", o.out_maps.c_str());
    if (!o.out_mesh.empty()) std::fprintf(stderr, "alluvium: wrote the mesh %s\n", o.out_mesh.c_str());
    if (!o.save_session.empty()) std::fprintf(stderr, "alluvium: saved the session to %s\n", o.save_session.c_str());
    printRunSummary(o, report, facts.seconds);
    return frames_ok ? 0 : 1;
}

} // namespace alluvium
