// alluvium: the command line. Only wiring: each subcommand lives in its own file.
#include <CLI/CLI.hpp>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>

#include "commands.h"
#include "io/errors.h"
#include "io/terrain_gen.h"
#include "pipeline.h"
#include "processes.h"
#include "timelapse.h"
#include "view.h"
#include "vk_check.h"

using namespace alluvium;

namespace {

// A finite number in [lo, hi] ((lo, hi] if lo_open). CLI11's own Range/PositiveNumber let "nan"
// through, and --cell-size/--hardness take an out-of-range value to mean "not given", so a bad
// value would otherwise run silently with the default.
CLI::Validator finiteIn(double lo, double hi, bool lo_open, const std::string& what) {
    return CLI::Validator(
        [=](std::string& text) -> std::string {
            double v = 0.0;
            const bool ok =
                CLI::detail::lexical_cast(text, v) && std::isfinite(v) && (lo_open ? v > lo : v >= lo) && v <= hi;
            return ok ? std::string() : "'" + text + "' is not a number " + what;
        },
        what);
}

void addTerrainOptions(CLI::App* cmd, TerrainOptions& t) {
    cmd->add_option("--in", t.in,
                    "input heightmap: .png .r16/.raw (16-bit) .f32/.r32 (float32; raw needs --size) .exr .tif .asc");
    cmd->add_option("--size", t.size, "grid WxH: the procedural terrain's size, or the size of a .f32 input");
    cmd->add_option("--cell-size", t.cell_size, "metres per cell (default from the parameter table)")
        ->check(finiteIn(0.0, HUGE_VAL, true, "> 0"));
    cmd->add_option("--height-range", t.height_range, "LO:HI metres that a PNG's black and white map to");
    cmd->add_option("--rain-mask", t.rain_mask,
                    "where it rains: an image of the grid's size, black no rain .. white rain_rate (float formats: "
                    "0..1); the --out-maps map 'rain' is the mask in use");
    cmd->add_option("--hardness-map", t.hardness_map,
                    "the bedrock's hardness: an image of the grid's size, black soft .. white rock (float formats: "
                    "0..1); strata_contrast mixes bands by elevation into it");
    cmd->add_option("--channel", t.channel, "EXR channel to load (default: the first)");
    cmd->add_option("--seed", t.seed, "seed of the procedural terrain");
    cmd->add_option("--terrain", t.terrain,
                    "the procedural terrain: " + terrainShapeList() +
                        " (default: the preset's, else carved; all but carved are raw, un-eroded relief)");
    cmd->add_option("--hardness", t.hardness,
                    "uniform rock hardness 0..1 (default: strata for procedural terrain, 0.25 for files)")
        ->check(finiteIn(0.0, 1.0, false, "in [0, 1]"));
}

// Whether `text` is a whole number in decimal that `type` ("UINT" or "INT", CLI11's names) holds
// in 64 bits: CLI11 itself reads "010" as octal, wraps "-1" into an unsigned and lets a value past
// 64 bits saturate silently.
bool isWholeNumber(const std::string& text, const std::string& type) {
    const char* first = text.data();
    const char* last = text.data() + text.size();
    std::from_chars_result r{};
    if (type == "UINT") {
        uint64_t v = 0;
        r = std::from_chars(first, last, v);
    } else {
        int64_t v = 0;
        r = std::from_chars(first, last, v);
    }
    const bool octal_look = text.size() > 1 && (text[0] == '0' || (text[0] == '-' && text[1] == '0'));
    return r.ec == std::errc() && r.ptr == last && !octal_look;
}

// A finite number, all of `text` (CLI11's Range lets "nan" through: it compares false).
bool isFiniteNumber(const std::string& text) {
    double v = 0.0;
    const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
    return r.ec == std::errc() && r.ptr == text.data() + text.size() && std::isfinite(v);
}

// Every value given to `cmd` (and its parsed subcommands): never empty (an empty --in or --size
// would fall back to the procedural terrain), and whole numbers as isWholeNumber says. Throws
// InputError naming the option.
void checkGivenValues(const CLI::App* cmd) {
    for (const CLI::Option* option : cmd->get_options()) {
        if (option->count() == 0 || option->get_type_size() == 0) continue; // not given, or a flag
        const std::string full_type = option->get_type_name(); // "INT:INT in [0 - 100]": the validator's too
        const std::string type = full_type.substr(0, full_type.find(':'));
        for (const std::string& value : option->results()) {
            if (value.empty()) throw InputError(option->get_name() + " needs a value, and it was given an empty one");
            if (type == "FLOAT" && !isFiniteNumber(value))
                throw InputError(option->get_name() + " '" + value + "' is not a finite number");
            if ((type == "UINT" || type == "INT") && !isWholeNumber(value, type))
                throw InputError(option->get_name() + " '" + value + "' is not a whole number within " +
                                 (type == "UINT" ? "0.." + std::to_string(UINT64_MAX)
                                                 : std::to_string(INT64_MIN) + ".." + std::to_string(INT64_MAX)));
        }
    }
    for (const CLI::App* sub : cmd->get_subcommands()) checkGivenValues(sub);
}

// The subcommands' options (their help is what `alluvium CMD --help` prints).
struct Commands {
    DeviceOptions device;
    RunOptions run;
    bool timelapse_no_water = false;
    ViewOptions view;
    bool params_json = false;
    ConvertOptions convert;
    ExportOptions export_;
    FillOptions fill;
    WatertableOptions watertable;
    BenchOptions bench;
    CLI::App *run_cmd = nullptr, *view_cmd = nullptr, *params_cmd = nullptr, *presets_cmd = nullptr,
             *convert_cmd = nullptr, *export_cmd = nullptr, *fill_cmd = nullptr, *watertable_cmd = nullptr,
             *bench_cmd = nullptr;
};

// The models' names, from the model table.
std::string modelHelp(const char* default_text) {
    return "erosion model: " + gpu::modelList() + " (default: " + default_text + ")";
}

CLI::App* addRun(CLI::App& app, RunOptions& o, bool& timelapse_no_water) {
    CLI::App* run_cmd = app.add_subcommand("run", "erode a terrain headless and write the result");
    addTerrainOptions(run_cmd, o.terrain);
    run_cmd->add_option("--steps", o.steps, "simulation steps")->check(CLI::Range(0, 100000000));
    run_cmd->add_option("--set", o.sets, "override a parameter: name=value (repeatable; see `alluvium params`)");
    run_cmd->add_option("--preset", o.preset, "preset NAME (assets/presets) or FILE.json");
    run_cmd
        ->add_option("--out", o.out,
                     "output heightmap: .png/.r16/.raw (16-bit + .json sidecar), .f32/.r32, .exr, .tif, .asc")
        ->required();
    run_cmd->add_option("--report", o.report, "write a JSON report of the water and soil budgets");
    run_cmd->add_option("--model", o.model, modelHelp("pipe, or the session's"));
    run_cmd->add_option("--save-session", o.save_session,
                        "after the run, save the whole state to FILE (resume with --load-session)");
    CLI::Option* load_session =
        run_cmd->add_option("--load-session", o.load_session,
                            "resume a saved session (instead of --in / procedural); --preset and --set apply on top");
    for (const char* name : {"--in", "--size", "--seed", "--terrain", "--height-range", "--channel", "--hardness",
                             "--rain-mask", "--hardness-map"})
        if (CLI::Option* terrain_option = run_cmd->get_option_no_throw(name)) terrain_option->excludes(load_session);
    run_cmd->add_option(
        "--out-maps", o.out_maps,
        "after the run, write the maps (water, sediment, hardness, flow, erosion, deposition, velocity, height, "
        "lake_depth, drainage_area) "
        "to DIR: 16-bit PNG masks (+ .json ranges), float EXRs and DIR/maps.exr with every layer");
    CLI::Option* out_mesh = run_cmd->add_option(
        "--out-mesh", o.out_mesh, "after the run, write the terrain as a simplified mesh: FILE.obj or FILE.gltf");
    run_cmd->add_option("--mesh-triangles", o.mesh_triangles, "target triangle count of --out-mesh (default 200000)")
        ->check(CLI::Range(std::size_t(2), std::size_t(1) << 31))
        ->needs(out_mesh);
    CLI::Option* timelapse =
        run_cmd->add_option("--timelapse", o.timelapse.dir,
                            "draw the terrain offscreen every --every steps into DIR/frame-000000.png, ... (and "
                            "DIR/timelapse.mp4 if ffmpeg is on PATH)");
    run_cmd->add_option("--every", o.timelapse.every, "--timelapse: a frame every N steps (default 100), from step 0")
        ->needs(timelapse);
    run_cmd
        ->add_option("--timelapse-size", o.timelapse.size, "--timelapse: the frames' size WxH, even (default 1280x720)")
        ->needs(timelapse);
    run_cmd->add_flag("--timelapse-no-water", timelapse_no_water, "--timelapse: draw the ground alone, without water")
        ->needs(timelapse);
    run_cmd->add_option("--timelapse-fps", o.timelapse.fps, "--timelapse: the video's frame rate (default 30)")
        ->needs(timelapse);

    return run_cmd;
}

CLI::App* addView(CLI::App& app, ViewOptions& o) {
    CLI::App* view_cmd =
        app.add_subcommand("view", "the interactive viewer: a window if a display is present, else offscreen");
    addTerrainOptions(view_cmd, o.terrain);
    view_cmd->add_option("--set", o.sets, "override a parameter: name=value (repeatable)");
    view_cmd->add_option("--preset", o.preset, "preset NAME (assets/presets) or FILE.json");
    view_cmd->add_option("--model", o.model, modelHelp("pipe, or the session's"));
    view_cmd->add_option("--report", o.report, "on exit, write the JSON report of `run` plus the brush totals");
    view_cmd->add_option("--screenshot", o.screenshot,
                         "on exit, write the last frame to FILE.png (F12 writes FILE-N.png)");
    view_cmd->add_option("--window", o.window, "window or offscreen image size WxH (default 1600x900)");
    view_cmd->add_option("--exit-after-frames", o.exit_after_frames, "exit after N frames")
        ->check(CLI::Range(0, 100000000));
    view_cmd
        ->add_option("--bench-frames", o.bench_frames,
                     "time N frames, print the mean and 95th-percentile frame time, exit")
        ->check(CLI::Range(0, 1000000));
    view_cmd->add_option("--steps-per-frame", o.steps_per_frame, "simulation steps per frame (0: start paused)")
        ->check(CLI::Range(0, 1000));
    view_cmd
        ->add_option("--mesh", o.mesh,
                     "the drawn grid's vertices a side at most (default 0: by device, 2048 on a discrete GPU, 512 "
                     "on an integrated one, 128 on a CPU driver; never more than the grid's cells)")
        ->check(CLI::Range(0, 16384));
    view_cmd->add_flag("--offscreen", o.offscreen, "render into an image even if a display is present");
    view_cmd->add_flag("--paused", o.paused, "start paused");
    view_cmd->add_flag("--no-panel", o.no_panel, "start with the panel hidden (Tab shows it)");
    view_cmd->add_option(
        "--overlay", o.overlay,
        "start with an overlay: depth, speed, sediment, hardness, flux, erosion, drainage, watertable, waterlevel, "
        "loose, snow, vegetation, lava");
    view_cmd->add_flag("--log-actions", o.log_actions,
                       "print each action carried out (pause, tool, stroke, undo, redo, scrub) with its frame on "
                       "stderr: a script that drives the window waits for one before its next input");
    view_cmd->add_flag("--probe-display", o.probe_display,
                       "exit 0 if a window can be opened here, else 1 (scripts/run)");
    view_cmd->add_option(
        "--record", o.record,
        "record every frame to FILE.mp4 (.mkv, .mov) through the ffmpeg program (F9 starts and stops others)");
    view_cmd->add_option("--record-fps", o.record_fps,
                         "the video's frame rate (default 30): each frame drawn is one frame of it");
    view_cmd->add_option("--record-size", o.record_size, "the video's size WxH, even (default: the window's)");
    view_cmd->add_flag("--record-no-panel", o.record_no_panel, "recordings and screenshots without the panel");
    view_cmd->add_option(
        "--history-budget-mb", o.history_budget_mb,
        "device memory for undo and time scrubbing, in MB (default: an eighth of a CPU driver's memory, "
        "a quarter of a GPU's; 0: no history)");
    view_cmd->add_option("--save-session", o.save_session,
                         "save the whole state to FILE on exit and on Ctrl+S (resume with run or view --load-session)");
    CLI::Option* view_load_session = view_cmd->add_option("--load-session", o.load_session,
                                                          "start from a saved session (run's or the viewer's) instead "
                                                          "of --in / procedural; --preset and --set apply on top");
    for (const char* name : {"--in", "--size", "--seed", "--terrain", "--height-range", "--channel", "--hardness",
                             "--rain-mask", "--hardness-map"})
        if (CLI::Option* terrain_option = view_cmd->get_option_no_throw(name))
            terrain_option->excludes(view_load_session);
    view_cmd->add_option(
        "--history-every", o.history_every,
        "a snapshot every S simulated seconds (fluvial: years) for the timeline (default 10; 0: only strokes)");

    return view_cmd;
}

CLI::App* addExport(CLI::App& app, ExportOptions& o) {
    CLI::App* cmd = app.add_subcommand(
        "export", "a heightmap for a game engine's terrain: its sizes, format and import settings (no GPU)");
    cmd->add_option("--for", o.engine, "unreal (16-bit .png/.r16), unity (16-bit .raw) or godot (.exr)")->required();
    cmd->add_option("--in", o.terrain.in, "input heightmap: .png .r16/.raw .f32/.r32 (raw needs --size) .exr .tif .asc")
        ->required();
    cmd->add_option("--out", o.out, "output heightmap; the import settings go to OUT.import.json")->required();
    cmd->add_option("--side", o.side,
                    "samples a side, one of the engine's (unreal 127 .. 8129, unity and godot 2^n+1 33 .. 4097); "
                    "default: the smallest that holds the grid");
    cmd->add_option("--tiles", o.tiles,
                    "CxR: tiles of the side that join without seams (World Partition, terrain neighbours), "
                    "written as OUT's name + _x<column>_y<row>");
    cmd->add_option("--overlap", o.overlap, "samples neighbouring tiles share (default 1: one edge row)");
    cmd->add_option("--size", o.terrain.size, "grid WxH of a raw input");
    cmd->add_option("--height-range", o.terrain.height_range, "LO:HI metres of an integer input's black and white");
    cmd->add_option("--channel", o.terrain.channel, "EXR channel to load (default: the first)");
    cmd->add_option("--cell-size", o.terrain.cell_size,
                    "metres per cell of the input; default: the input's, else the table's")
        ->check(finiteIn(0.0, HUGE_VAL, true, "> 0"));
    return cmd;
}

CLI::App* addConvert(CLI::App& app, ConvertOptions& o) {
    CLI::App* convert_cmd = app.add_subcommand("convert", "convert a heightmap between file formats (no GPU)");
    convert_cmd
        ->add_option("--in", o.terrain.in,
                     "input heightmap: .png .r16/.raw .f32/.r32 (raw needs --size) .exr .tif .asc")
        ->required();
    convert_cmd
        ->add_option("--out", o.out,
                     "output heightmap: .png/.r16/.raw (16-bit + .json sidecar), .f32/.r32, .exr, .tif, .asc")
        ->required();
    convert_cmd->add_option("--size", o.terrain.size, "grid WxH of a raw input");
    convert_cmd->add_option("--height-range", o.terrain.height_range,
                            "LO:HI metres of an integer input's black and white");
    convert_cmd->add_option("--channel", o.terrain.channel, "EXR channel to load (default: the first)");
    convert_cmd
        ->add_option("--cell-size", o.terrain.cell_size,
                     "metres per cell written (.asc, sidecars); default: the input's, else the table's")
        ->check(finiteIn(0.0, HUGE_VAL, true, "> 0"));

    return convert_cmd;
}

CLI::App* addFill(CLI::App& app, FillOptions& o) {
    CLI::App* fill_cmd =
        app.add_subcommand("fill", "fill every depression of a terrain to its spill height (lakes), on the GPU");
    addTerrainOptions(fill_cmd, o.terrain);
    fill_cmd
        ->add_option("--out", o.out,
                     "the filled heightmap: .png/.r16/.raw (16-bit + .json sidecar), .f32/.r32, .exr, .tif, .asc")
        ->required();
    fill_cmd->add_option("--report", o.report, "write a JSON report: fill volume, filled cells, deepest fill");
    fill_cmd->add_option("--set", o.sets, "override a parameter, e.g. fluvial_outlets=bottom (the edges that drain)");
    fill_cmd->add_option("--preset", o.preset, "preset NAME or FILE.json");
    fill_cmd->add_option("--out-maps", o.out_maps,
                         "also write the maps of the terrain (lake_depth, drainage_area, ...) to DIR");

    return fill_cmd;
}

CLI::App* addWatertable(CLI::App& app, WatertableOptions& o) {
    CLI::App* watertable_cmd = app.add_subcommand(
        "watertable",
        "seed 003's equilibrium water table of a terrain (lakes flat, capillary rise beside them), on the GPU");
    addTerrainOptions(watertable_cmd, o.terrain);
    watertable_cmd
        ->add_option(
            "--out", o.out,
            "the water table as a heightmap (m): .png/.r16/.raw (16-bit + .json sidecar), .f32/.r32, .exr, .tif, .asc")
        ->required();
    watertable_cmd->add_option("--report", o.report,
                               "write a JSON report: lakes, ocean, wet land, depth below the ground, convergence");
    watertable_cmd->add_option("--set", o.sets,
                               "override a parameter, e.g. table_capillarity=5, enable_sea=on, sea_level=20");
    watertable_cmd->add_option("--preset", o.preset, "preset NAME or FILE.json");
    CLI::Option* river_area =
        watertable_cmd
            ->add_option("--river-area", o.river_area,
                         "a cell draining at least M2 square metres is a river: sustained if it ends at or comes from "
                         "a water body, dry otherwise (default 1600, and at least 4 cells)")
            ->check(CLI::Range(1e-6, 1e15));
    watertable_cmd
        ->add_option("--river-cells", o.river_cells, "the same threshold in cells of the grid: at least N cells")
        ->check(CLI::Range(1.0, 1e12))
        ->excludes(river_area);
    watertable_cmd->add_option("--out-maps", o.out_maps,
                               "also write the maps (water_table, groundwater_depth, ...) to DIR");

    return watertable_cmd;
}

CLI::App* addBench(CLI::App& app, BenchOptions& o) {
    CLI::App* bench_cmd = app.add_subcommand("bench", "GPU time per pass (timestamps) on procedural terrains");
    bench_cmd->add_option("--sizes", o.sizes, "comma-separated grid sizes: N (square) or WxH");
    bench_cmd->add_option("--steps", o.steps, "timed steps per size")->check(CLI::Range(1, 100000));
    bench_cmd->add_option("--set", o.sets, "override a parameter: name=value");
    bench_cmd->add_option("--preset", o.preset, "preset NAME or FILE.json");
    bench_cmd->add_flag("--json", o.json, "print JSON");
    bench_cmd->add_option("--model", o.model, modelHelp("pipe"));
    bench_cmd
        ->add_option("--workgroup", o.workgroup,
                     "grid passes' workgroup shape: auto (the device's), 8x32, 16x16, 32x8, 64x4, or all (compare)")
        ->check(CLI::IsMember({"auto", "all", "8x32", "16x16", "32x8", "64x4"}));

    return bench_cmd;
}

// Runs the subcommand that was parsed; each kind of failure is one line and its exit status.
int runCommandLine(Commands& c) {
    try {
        if (*c.run_cmd) {
            c.run.timelapse.water = !c.timelapse_no_water;
            return runCommand(c.run, c.device, viewer::makeTimelapse);
        }
        if (*c.bench_cmd) return benchCommand(c.bench, c.device);
        if (*c.fill_cmd) return fillCommand(c.fill, c.device);
        if (*c.watertable_cmd) return watertableCommand(c.watertable, c.device);
        // The others are one process's: under mpirun each would write the same files at once.
        if (processes().size > 1)
            throw InputError("this command runs in one process (only run, bench, fill and watertable split over "
                             "processes): start it without mpirun");
        if (*c.view_cmd) return viewCommand(c.view, c.device);
        if (*c.params_cmd) return paramsCommand(c.params_json);
        if (*c.presets_cmd) return presetsCommand();
        if (*c.convert_cmd) return convertCommand(c.convert);
        if (*c.export_cmd) return exportCommand(c.export_);
    } catch (const AgreedFailure& e) {
        return e.status; // said once already
    } catch (const InputError& e) {
        return refuse(2, oneLine(e.what()));
    } catch (const ParamError& e) {
        return refuse(2, oneLine(e.what()));
    } catch (const gpu::SplitError& e) {
        return refuse(3, oneLine(e.what()));
    } catch (const gpu::DeviceError& e) {
        return fail(3, oneLine(e.what()));
    } catch (const gpu::InstallError& e) {
        return fail(4, oneLine(e.what()));
    }
    return 0;
}

// Under mpirun every process must run the same command: one started with other arguments (an
// `A : B` line) would wait in another command's exchanges. Every process compares its own with
// rank 0's, and all refuse together.
bool sameCommandLines(int argc, char** argv) {
    if (processes().size <= 1) return true;
    std::string mine;
    for (int i = 1; i < argc; ++i) (mine += argv[i]) += '\0';
    const bool same = fromRoot(mine) == mine;
    double differing = 0.0;
    for (double d : everyProcess(same ? 0.0 : 1.0)) differing += d;
    if (differing == 0.0) return true;
    refuse(2, "the processes were started with different arguments (" + std::to_string(int(differing)) + " of " +
                  std::to_string(processes().size) + " differ from rank 0's): start every process with the same ones");
    return false;
}

// Everything main does; main only makes sure no exception escapes.
int runMain(int argc, char** argv) {
    if (!sameCommandLines(argc, argv)) return 2;
    CLI::App app{"Alluvium: real-time terrain erosion on Vulkan compute"};
    app.require_subcommand(1);
    Commands c;
    app.add_option("--device", c.device.device, "Vulkan device index (default: discrete, else integrated, else CPU)");
    app.add_flag("--validation", c.device.validation, "enable the Khronos validation layer");
    c.run_cmd = addRun(app, c.run, c.timelapse_no_water);
    c.view_cmd = addView(app, c.view);
    c.params_cmd = app.add_subcommand("params", "print the parameter table");
    c.params_cmd->add_flag("--json", c.params_json, "as JSON");

    c.presets_cmd = app.add_subcommand("presets", "list the presets");

    c.convert_cmd = addConvert(app, c.convert);
    c.export_cmd = addExport(app, c.export_);
    c.fill_cmd = addFill(app, c.fill);
    c.watertable_cmd = addWatertable(app, c.watertable);
    c.bench_cmd = addBench(app, c.bench);
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        // A misspelt command is left over, not taken for one: name it and the commands there are.
        const std::vector<std::string> rest = app.remaining();
        if (app.get_subcommands().empty() && !rest.empty() && !rest.front().empty() && rest.front()[0] != '-') {
            std::string names;
            for (const CLI::App* sub : app.get_subcommands({})) names += (names.empty() ? "" : ", ") + sub->get_name();
            std::fprintf(stderr, "alluvium: unknown command '%s' (commands: %s; try --help)\n", rest.front().c_str(),
                         names.c_str());
            return 2;
        }
        std::fprintf(stderr, "alluvium: %s (try --help)\n", e.what());
        return 2;
    }
    try {
        checkGivenValues(&app);
    } catch (const InputError& e) {
        std::fprintf(stderr, "alluvium: %s\n", oneLine(e.what()).c_str());
        return 2;
    }
    return runCommandLine(c);
}

} // namespace

// No exception leaves main: each kind is one line on stderr and the README's exit status.
// Under mpirun, a failure of one process names it and ends them all (app/processes.h).
int main(int argc, char** argv) {
    startProcesses(&argc, &argv);
    int status = 0;
    try {
        status = runMain(argc, argv);
    } catch (const std::bad_alloc&) {
        status = fail(3, "out of memory (host): the grid or file is too large for this machine");
    } catch (const std::exception& e) {
        status = fail(1, "internal error: " + oneLine(e.what()));
    } catch (...) {
        status = fail(1, "internal error (an unknown exception)");
    }
    endProcesses();
    return status;
}
