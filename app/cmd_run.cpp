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
#include "progress.h"
#include "session.h"
#include "snapshot.h"

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
    if (fs::is_directory(path, ec))
        throw InputError(std::string(what) + " '" + displayPath(path) + "' is a directory");
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
    if (t.every <= 0) throw InputError("--every: a frame every N steps needs N >= 1 (got " + std::to_string(t.every) + ")");
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

} // namespace

int runCommand(const RunOptions& o, const DeviceOptions& device, const TimelapseFactory& make_timelapse) {
    // Everything a person can get wrong is checked before the GPU starts.
    if (!isHeightmapExtension(o.out))
        checkOutputPath(o.out, {".png", ".f32", ".r32", ".r16", ".raw", ".exr", ".tif", ".tiff", ".asc"}, "--out");
    if (!o.report.empty()) checkOutputPath(o.report, {".json"}, "--report");
    if (!o.model.empty() && gpu::modelFromName(o.model) < 0)
        throw InputError("--model: unknown model '" + o.model + "' (" + gpu::modelList() + ")");
    checkOutputLocation(o.out, "--out");
    if (writesSidecar(o.out))
        checkOutputLocation(o.out + ".json", "the sidecar of --out");
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
    const bool timelapse = !o.timelapse.dir.empty();
    if (timelapse) {
        checkTimelapse(o.timelapse);
        if (!make_timelapse) throw InputError("--timelapse: this build has no renderer");
    }
    // A resumed session replaces the starting terrain; --preset and --set apply on top of its
    // parameters, and the report's budgets continue from its first step.
    std::optional<Session> resumed;
    if (!o.load_session.empty()) resumed = loadSession(o.load_session);
    // The model: --model, else the session's, else the pipe model.
    const std::string model_name = !o.model.empty() ? o.model : resumed ? resumed->model : "pipe";
    const int model = gpu::modelFromName(model_name);
    Params params;
    InitialTerrain initial;
    if (resumed) {
        params = sessionParams(*resumed, o.preset, o.terrain.cell_size, o.sets);
        initial.terrain = {resumed->width, resumed->height, std::move(resumed->initial_terrain)};
    } else {
        initial = prepareTerrainAndParams(o.terrain, o.preset, o.sets, params);
    }
    // The wear and flow maps cost bandwidth every step: recorded when they will be written.
    if (!o.out_maps.empty() || !o.save_session.empty()) params[Param::record_maps] = 1;
    const double cell_size = params[Param::cell_size];
    const int w = initial.terrain.width, h = initial.terrain.height;
    if (!o.out_mesh.empty() && (w < 2 || h < 2))
        throw InputError("--out-mesh: a mesh needs at least 2x2 cells (the terrain is " + std::to_string(w) + "x" +
                         std::to_string(h) + ")");
    const long long steps_before = resumed ? resumed->steps : 0;
    if (steps_before + o.steps > kMaxSessionSteps)
        throw InputError("--steps " + std::to_string(o.steps) + ": the session is at step " + std::to_string(steps_before) +
                         "; a run may not go past step " + std::to_string(kMaxSessionSteps));
    if (timelapse) prepareTimelapseFolder(o.timelapse.dir);

    ScopedContext scoped(device);
    gpu::Simulation sim(scoped.ctx, w, h);
    if (resumed) {
        restoreSession(sim, *resumed);
        sim.setStepIndex(static_cast<int>(resumed->steps)); // rain events and droplet seeds continue
    }
    else loadInitialState(sim, initial, params);
    gpu::SimParams sim_params = toSimParams(params, w, h);
    sim_params.model = model;
    sim_params.particle_seed = static_cast<uint32_t>(o.terrain.seed); // droplets follow --seed
    sim.setParams(sim_params);
    const StateSums before = resumed ? resumed->initial_sums : sumState(sim, cell_size);
    resumed.reset(); // the fields are on the GPU now

    if (model == MODEL_FLUVIAL)
        std::fprintf(stderr, "alluvium: %dx%d cells of %g m, %d iterations of %g years\n", w, h, cell_size,
                     o.steps, params[Param::fluvial_time_step]);
    else
        std::fprintf(stderr, "alluvium: %dx%d cells of %g m, %d steps of %g s\n", w, h, cell_size,
                     o.steps, params[Param::time_step]);
    const auto start = std::chrono::steady_clock::now();
    Progress progress("eroding", o.steps);
    // With a timelapse, the steps run in stretches of --every with a frame after each (the same
    // steps as one stretch: the result is bit for bit that of a run without it).
    std::unique_ptr<TimelapseSink> frames = timelapse ? make_timelapse(scoped.ctx, sim, o.timelapse, params) : nullptr;
    if (frames) frames->frame(0);
    // Lakes that balance evaporation: run() solves them before each iteration (its progress
    // comes after every one): their count and area per iteration go to the report.
    nlohmann::json closed_lakes = nlohmann::json::array(), closed_area = nlohmann::json::array();
    for (int done = 0; done < o.steps;) {
        const int stretch = frames ? std::min(o.timelapse.every, o.steps - done) : o.steps;
        sim.run(stretch, [&](int d) {
            progress.update(done + d);
            if (sim.fluvialLakesOn()) {
                closed_lakes.push_back(sim.fluvial().lakes.closed_lakes);
                closed_area.push_back(sim.fluvial().lakes.closed_area_m2);
            }
        });
        done += stretch;
        if (frames && done % o.timelapse.every == 0) frames->frame(done);
    }
    const bool frames_ok = !frames || frames->finish();
    const nlohmann::json timelapse_summary = frames ? frames->summary() : nlohmann::json();
    frames.reset();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    const StateSums after = sumState(sim, cell_size);
    Heightmap result{w, h, sim.download(gpu::Field::Terrain)};
    nlohmann::json report = makeReport(sim, before, after, static_cast<int>(steps_before + o.steps), seconds, cell_size);
    // Of the state the steps left (before the fluvial analysis below rewrites its maps).
    report["state_digest"] = gpu::digestText(gpu::stateDigest(sim));
    // Net change of the ground since the start, any model: volume lowered and raised (m^3).
    double lowered = 0.0, raised = 0.0;
    for (size_t i = 0; i < result.heights.size() && i < initial.terrain.heights.size(); ++i) {
        const double dz = double(result.heights[i]) - double(initial.terrain.heights[i]);
        (dz < 0.0 ? lowered : raised) += std::abs(dz) * cell_size * cell_size;
    }
    report["soil"]["net_lowered"] = lowered;
    report["soil"]["net_raised"] = raised;
    if (steps_before > 0) report["resumed_at_step"] = steps_before;
    if (timelapse) report["timelapse"] = timelapse_summary;
    report["nodata_filled"] = initial.terrain.nodata_filled;
    // Lakes and drainage of the final terrain, once, for the fluvial report and --out-maps.
    const gpu::FluvialControl last = sim.fluvial().hostControl(); // the last iteration's fill, before that
    const gpu::FluvialControl analysis =
        model == MODEL_FLUVIAL || !o.out_maps.empty() ? sim.fluvialAnalyse() : gpu::FluvialControl{};
    if (model == MODEL_FLUVIAL) {
        report["fluvial"] = fluvialSummary(sim, cell_size, analysis);
        report["fluvial"]["last_iteration_rounds"] = fluvialRounds(last);
        report["fluvial"]["last_iteration_fill_converged"] = last.converged != 0;
        report["fluvial"]["years"] = params[Param::fluvial_time_step] * double(steps_before + o.steps);
        // Stream-power erosion and deposition since the start (the wear map), m^3; the rest of
        // the eroded sediment left through the outlets.
        const std::vector<float> wear = sim.download(gpu::Field::Wear);
        double eroded = 0.0, deposited = 0.0;
        for (size_t i = 0; i + 1 < wear.size(); i += 2) eroded += wear[i], deposited += wear[i + 1];
        eroded *= cell_size * cell_size;
        deposited *= cell_size * cell_size;
        report["fluvial"]["eroded_m3"] = eroded;
        report["fluvial"]["deposited_m3"] = deposited;
        report["fluvial"]["sediment_out_m3"] = eroded - deposited;
        if (sim.fluvialLakesOn()) {
            // Per iteration, and of the final terrain (the analysis above solved its lakes).
            report["fluvial"]["closed_lakes_per_iteration"] = closed_lakes;
            report["fluvial"]["closed_lake_area_m2_per_iteration"] = closed_area;
            report["fluvial"]["closed_lakes"] = sim.fluvial().lakes.closed_lakes;
            report["fluvial"]["closed_lake_area_m2"] = sim.fluvial().lakes.closed_area_m2;
        }
    }
    if (after.nan_cells > 0) {
        if (!o.report.empty()) writeTextAtomic(o.report, report.dump(2) + "\n");
        std::fprintf(stderr, "alluvium: the simulation produced %lld non-finite cells; no heightmap written\n",
                     after.nan_cells);
        return 1;
    }
    // The heightmap first, the largest file: if the disk fills up, the run fails with nothing of
    // it written (each file is atomic; the set of files cannot be).
    saveHeightmap(o.out, result, cell_size);
    if (!o.report.empty()) writeTextAtomic(o.report, report.dump(2) + "\n");
    if (!o.out_maps.empty()) {
        exportMaps(sim, o.out_maps);
        std::fprintf(stderr, "alluvium: wrote the maps to %s\n", o.out_maps.c_str());
    }
    if (!o.out_mesh.empty()) {
        writeTerrainMesh(o.out_mesh, result, cell_size, o.mesh_triangles);
        std::fprintf(stderr, "alluvium: wrote the mesh %s\n", o.out_mesh.c_str());
    }
    if (!o.save_session.empty())
        saveSession(o.save_session,
                    captureSession(sim, params, std::move(initial.terrain.heights), before, steps_before + o.steps));
    if (!o.save_session.empty()) std::fprintf(stderr, "alluvium: saved the session to %s\n", o.save_session.c_str());
    if (model == MODEL_FLUVIAL) {
        const nlohmann::json& f = report["fluvial"];
        std::fprintf(stderr, "alluvium: wrote %s%s%s%s (%.1f s, %g years, %.4g m^3 eroded, %.4g m^3 deposited, "
                     "%.4g m^3 of lakes)\n",
                     o.out.c_str(), writesSidecar(o.out) ? " (+ .json)" : "", o.report.empty() ? "" : " and ",
                     o.report.c_str(), seconds, f["years"].get<double>(), f["eroded_m3"].get<double>(),
                     f["deposited_m3"].get<double>(), f["lake_volume_m3"].get<double>());
        return frames_ok ? 0 : 1;
    }
    char budget[64] = "no water budget";
    if (report["water"]["budget_error_rel"].is_number())
        std::snprintf(budget, sizeof budget, "water budget error %.2e", report["water"]["budget_error_rel"].get<double>());
    std::fprintf(stderr, "alluvium: wrote %s%s%s%s (%.1f s, %s, soil drift %.2e)\n", o.out.c_str(),
                 writesSidecar(o.out) ? " (+ .json)" : "", o.report.empty() ? "" : " and ", o.report.c_str(),
                 seconds, budget,
                 report["soil"]["drift_rel"].is_number() ? report["soil"]["drift_rel"].get<double>() : NAN);
    return frames_ok ? 0 : 1;
}

} // namespace alluvium
