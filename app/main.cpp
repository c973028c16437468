// alluvium: the command line. Only wiring: each subcommand lives in its own file.
#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <string>

#include "commands.h"
#include "io/errors.h"
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
            const bool ok = CLI::detail::lexical_cast(text, v) && std::isfinite(v) &&
                            (lo_open ? v > lo : v >= lo) && v <= hi;
            return ok ? std::string() : "'" + text + "' is not a number " + what;
        },
        what);
}

void addTerrainOptions(CLI::App* cmd, TerrainOptions& t) {
    cmd->add_option("--in", t.in, "input heightmap: .png (8/16-bit grey) or .f32 (raw float32 metres, needs --size)");
    cmd->add_option("--size", t.size, "grid WxH: the procedural terrain's size, or the size of a .f32 input");
    cmd->add_option("--cell-size", t.cell_size, "metres per cell (default from the parameter table)")
        ->check(finiteIn(0.0, HUGE_VAL, true, "> 0"));
    cmd->add_option("--height-range", t.height_range, "LO:HI metres that a PNG's black and white map to");
    cmd->add_option("--seed", t.seed, "seed of the procedural terrain");
    cmd->add_option("--hardness", t.hardness, "uniform rock hardness 0..1 (default: strata for procedural terrain, 0.25 for files)")
        ->check(finiteIn(0.0, 1.0, false, "in [0, 1]"));
}

} // namespace

int main(int argc, char** argv) {
    CLI::App app{"Alluvium: real-time terrain erosion on Vulkan compute"};
    app.require_subcommand(1);
    DeviceOptions device;
    app.add_option("--device", device.device, "Vulkan device index (default: discrete, else integrated, else CPU)");
    app.add_flag("--validation", device.validation, "enable the Khronos validation layer");

    RunOptions run;
    CLI::App* run_cmd = app.add_subcommand("run", "erode a terrain headless and write the result");
    addTerrainOptions(run_cmd, run.terrain);
    run_cmd->add_option("--steps", run.steps, "simulation steps")->check(CLI::Range(0, 100000000));
    run_cmd->add_option("--set", run.sets, "override a parameter: name=value (repeatable; see `alluvium params`)");
    run_cmd->add_option("--preset", run.preset, "preset NAME (assets/presets) or FILE.json");
    run_cmd->add_option("--out", run.out, "output heightmap: .png (16-bit + .json sidecar) or .f32")->required();
    run_cmd->add_option("--report", run.report, "write a JSON report of the water and soil budgets");

    bool params_json = false;
    CLI::App* params_cmd = app.add_subcommand("params", "print the parameter table");
    params_cmd->add_flag("--json", params_json, "as JSON");

    CLI::App* presets_cmd = app.add_subcommand("presets", "list the presets");

    BenchOptions bench;
    CLI::App* bench_cmd = app.add_subcommand("bench", "GPU time per pass (timestamps) on procedural terrains");
    bench_cmd->add_option("--sizes", bench.sizes, "comma-separated grid sizes (square)");
    bench_cmd->add_option("--steps", bench.steps, "timed steps per size")->check(CLI::Range(1, 100000));
    bench_cmd->add_option("--set", bench.sets, "override a parameter: name=value");
    bench_cmd->add_option("--preset", bench.preset, "preset NAME or FILE.json");
    bench_cmd->add_flag("--json", bench.json, "print JSON");

    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        std::fprintf(stderr, "alluvium: %s (try --help)\n", e.what());
        return 2;
    }

    try {
        if (*run_cmd) return runCommand(run, device);
        if (*params_cmd) return paramsCommand(params_json);
        if (*presets_cmd) return presetsCommand();
        if (*bench_cmd) return benchCommand(bench, device);
    } catch (const InputError& e) {
        std::fprintf(stderr, "alluvium: %s\n", e.what());
        return 2;
    } catch (const ParamError& e) {
        std::fprintf(stderr, "alluvium: %s\n", e.what());
        return 2;
    } catch (const gpu::DeviceError& e) {
        std::fprintf(stderr, "alluvium: %s\n", e.what());
        return 3;
    }
    return 0;
}
