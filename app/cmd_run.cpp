// alluvium run: erode a terrain headless, write the heightmap and the report.
#include <chrono>
#include <cstdio>
#include <filesystem>

#include "commands.h"
#include "io/atomic_file.h"
#include "io/errors.h"
#include "progress.h"

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
// or a folder that cannot be created because a file stands in its path. Found only at the end,
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
}

} // namespace

int runCommand(const RunOptions& o, const DeviceOptions& device) {
    // Everything a person can get wrong is checked before the GPU starts.
    checkOutputPath(o.out, {".png", ".f32"}, "--out");
    if (!o.report.empty()) checkOutputPath(o.report, {".json"}, "--report");
    checkOutputLocation(o.out, "--out");
    if (std::filesystem::path(o.out).extension() == ".png")
        checkOutputLocation(o.out + ".json", "the sidecar of --out");
    if (!o.report.empty()) checkOutputLocation(o.report, "--report");
    const Params params = buildParams(o.preset, o.terrain.cell_size, o.sets);
    const double cell_size = params[Param::cell_size];
    const InitialTerrain initial = prepareTerrain(o.terrain, cell_size);
    const int w = initial.terrain.width, h = initial.terrain.height;

    ScopedContext scoped(device);
    gpu::Simulation sim(scoped.ctx, w, h);
    loadInitialState(sim, initial);
    sim.setParams(toSimParams(params, w, h));
    const StateSums before = sumState(sim, cell_size);

    std::fprintf(stderr, "alluvium: %dx%d cells of %g m, %d steps of %g s\n", w, h, cell_size,
                 o.steps, params[Param::time_step]);
    const auto start = std::chrono::steady_clock::now();
    Progress progress("eroding", o.steps);
    sim.run(o.steps, [&](int done) { progress.update(done); });
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    const StateSums after = sumState(sim, cell_size);
    const nlohmann::json report = makeReport(sim, before, after, o.steps, seconds, cell_size);
    if (!o.report.empty()) writeTextAtomic(o.report, report.dump(2) + "\n");
    if (after.nan_cells > 0) {
        std::fprintf(stderr, "alluvium: the simulation produced %lld non-finite cells; no heightmap written\n",
                     after.nan_cells);
        return 1;
    }
    Heightmap result{w, h, sim.download(gpu::Field::Terrain)};
    saveHeightmap(o.out, result, cell_size);
    std::fprintf(stderr, "alluvium: wrote %s%s%s%s (%.1f s, water budget error %.2e, soil drift %.2e)\n",
                 o.out.c_str(), std::filesystem::path(o.out).extension() == ".png" ? " (+ .json)" : "",
                 o.report.empty() ? "" : " and ", o.report.c_str(), seconds,
                 report["water"]["budget_error_rel"].get<double>(), report["soil"]["drift_rel"].get<double>());
    return 0;
}

} // namespace alluvium
