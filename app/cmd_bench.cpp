// alluvium bench: GPU milliseconds per pass from timestamps, full steps per second, Mcells/s,
// the bytes each pass reads and writes per cell (from the formats of the images it binds), and
// the share of the device's own copy bandwidth, measured in the same run by a plain copy kernel
// over the same number of bytes (gpu/copy_bench.h).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <sstream>

#include "commands.h"
#include "copy_bench.h"
#include "io/errors.h"
#include "io/terrain_gen.h"
#include "processes.h"
#include "report.h"
#include "resources.h"
#include "setup.h"

namespace alluvium {

namespace {

struct Size {
    int w, h;
};

// "256,512" (squares) or "403x344,1024".
std::vector<Size> parseSizes(const std::string& text) {
    std::vector<Size> sizes;
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, ',')) {
        int w = 0, h = 0;
        try {
            parseSize(item.find('x') == std::string::npos ? item + "x" + item : item, w, h);
        } catch (const InputError& e) {
            throw InputError("--sizes: '" + item + "' is not N or WxH (" + e.what() + ")");
        }
        sizes.push_back({w, h});
    }
    if (sizes.empty()) throw InputError("--sizes: no size given");
    return sizes;
}

// Bytes per cell of each pass of a step with these parameters.
std::vector<double> stepBytes(const std::vector<gpu::Pass>& passes, const gpu::SimParams& sp, Size n) {
    std::vector<double> bytes;
    for (const gpu::Pass pass : passes) bytes.push_back(gpu::passBytesPerCell(pass, sp, n.w, n.h));
    return bytes;
}

// The shapes --workgroup asks for: the device's (auto), one, or every one the device runs.
std::vector<gpu::WorkgroupShape> benchShapes(const gpu::Context& ctx, const std::string& text) {
    if (text == "auto") return {gpu::resolveWorkgroupShape(ctx)};
    if (text == "all") {
        std::vector<gpu::WorkgroupShape> shapes;
        for (const gpu::WorkgroupShape& s : gpu::workgroupShapes())
            if (gpu::deviceRunsShape(ctx, s)) shapes.push_back(s);
        return shapes;
    }
    const std::optional<gpu::WorkgroupShape> s = gpu::parseWorkgroupShape(text);
    if (!s) throw InputError("--workgroup: '" + text + "' is not auto, all, 8x32, 16x16, 32x8 or 64x4");
    return {gpu::resolveWorkgroupShape(ctx, *s)}; // DeviceError if this device cannot run it
}

// Under mpirun, what the timed steps' exchanges took per step: the longest of the processes' host
// time, its share of the step (the step's wall time: the GPU's and the exchanges'), and rank 0's
// bytes.
nlohmann::json splitBench(const gpu::BlockExchange& b, const gpu::ExchangeCounters& before, double wall_s, int steps) {
    const gpu::ExchangeCounters& c = b.counters();
    double most = 0.0;
    for (double s : everyProcess(c.seconds - before.seconds)) most = std::max(most, s);
    for (double s : everyProcess(wall_s)) wall_s = std::max(wall_s, s);
    const gpu::BlockGrid& g = b.grid();
    return {{"count", g.count()},
            {"blocks", {g.cols, g.rows}},
            {"whole", {g.width, g.height}},
            {"band_cells", {g.halo_x, g.halo_y}},
            {"wall_ms_per_step", 1e3 * wall_s / steps},
            {"exchange_ms_per_step", 1e3 * most / steps},
            {"exchange_share", wall_s > 0.0 ? most / wall_s : 0.0},
            {"band_bytes_per_step", (c.band_bytes - before.band_bytes) / steps},
            {"sum_bytes_per_step", (c.sum_bytes - before.sum_bytes) / steps},
            {"band_swaps_per_step", double(c.swaps - before.swaps) / steps},
            {"droplet_rounds_per_step", double(c.droplet_rounds - before.droplet_rounds) / steps},
            {"droplet_bytes_per_step", (c.droplet_bytes - before.droplet_bytes) / steps}};
}

BenchSize benchSize(const gpu::Context& ctx, const Params& params, int model, Size n, int steps,
                    gpu::WorkgroupShape shape) {
    const double cell_size = params[Param::cell_size];
    // Under mpirun each process holds an n.w x n.h block of a grid as many blocks high (weak
    // scaling: the same cells per device).
    const Processes& procs = processes();
    const Size whole{n.w, n.h * procs.size};
    InitialTerrain initial{{whole.w, whole.h, {}}, {}}; // rank 0 alone holds the whole grid: uploads scatter it
    if (procs.root()) {
        GeneratedTerrain g = generateTerrain(whole.w, whole.h, 1, cell_size);
        initial = {std::move(g.terrain), std::move(g.hardness)};
    }
    gpu::SimParams sp = toSimParams(params, whole.w, whole.h);
    sp.model = model;
    gpu::Simulation sim(ctx, whole.w, whole.h, gpu::PipePasses::Auto, shape,
                        gpu::SplitOver{procs.transport, gpu::stepReach(sp)});
    loadInitialState(sim, initial, params);
    sim.setParams(sp);
    sim.run(20); // warm up: pipelines compiled, water spread over the terrain

    const std::vector<gpu::Pass>& passes = sim.stepPasses();
    const int count = static_cast<int>(passes.size());
    // The pipe model's CFL sub-steps (fixed over the timed steps: they adapt between batches)
    // repeat its passes; each pass's time and bytes are summed over them.
    const int substeps = model == MODEL_PIPE ? sim.substeps() : 1;
    const int stride = substeps * count + 1;
    gpu::GpuTimer timer;
    gpu::createTimer(timer, ctx, static_cast<uint32_t>(steps * stride));
    BenchSize r;
    const long long carried_before = sim.correctionsCarried(); // the warm-up's
    if (sim.fluvialLakesOn()) { // each iteration its own submission, its lakes solved before it
        r.lakes = true;
        VkCommandBuffer cmd = gpu::beginOneShot(ctx);
        gpu::resetTimer(timer, cmd);
        gpu::endOneShot(ctx, cmd);
        for (int i = 0; i < steps; ++i) {
            sim.prepareFluvialLakes();
            r.lakes_host_ms += sim.fluvial().lakes.host_ms / steps;
            cmd = gpu::beginOneShot(ctx);
            sim.recordUpdates(cmd);
            sim.recordStep(cmd, &timer);
            gpu::endOneShot(ctx, cmd);
        }
        r.lake_stats = sim.fluvial().lakes;
    } else {
        const gpu::ExchangeCounters before = sim.blocks() ? sim.blocks()->counters() : gpu::ExchangeCounters{};
        everyProcess(0.0); // the processes start together
        const auto start = std::chrono::steady_clock::now();
        VkCommandBuffer cmd = gpu::beginOneShot(ctx);
        sim.recordUpdates(cmd);
        gpu::resetTimer(timer, cmd);
        for (int i = 0; i < steps; ++i) sim.recordStep(cmd, &timer, i + 1 < steps);
        gpu::endOneShot(ctx, cmd);
        const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (sim.blocks()) r.processes = splitBench(*sim.blocks(), before, wall, steps);
    }
    const std::vector<double> t = gpu::readTimestampsMs(timer, ctx);
    gpu::destroyTimer(timer, ctx);

    r.width = n.w;
    r.height = n.h;
    r.shape = sim.workgroupShape();
    r.partials_per_group = sim.partialsPerGroup();
    r.fluvial = sim.fluvial().hostControl();
    const gpu::Model& m = gpu::model(model);
    r.phases = !m.phases.empty();
    for (size_t p = 0; p < passes.size(); ++p) r.names.push_back(r.phases ? m.phases[p] : gpu::passName(passes[p]));
    r.substeps = substeps;
    r.pass_bytes = stepBytes(passes, sim.params(), n);
    for (double& b : r.pass_bytes) b *= substeps;
    r.corrections_carried = sim.correctionsCarried() - carried_before;
    r.pipe_steps = model == MODEL_PIPE ? static_cast<long long>(steps) * substeps : 0;
    for (size_t p = 0; p < passes.size(); ++p) // its bytes are moved only by the sub-steps that ran it
        if (passes[p] == gpu::Pass::SedimentCorrect && r.pipe_steps > 0)
            r.pass_bytes[p] *= 1.0 - double(r.corrections_carried) / double(r.pipe_steps);
    if (r.phases) // the fluvial model's phases: the rounds that ran and the lists' lengths
        for (size_t p = 0; p < passes.size(); ++p)
            r.pass_bytes[p] =
                gpu::fluvialPhaseBytes(p, r.fluvial, n.w, n.h, sp.fluvial_deposition > 0.0f) / (double(n.w) * n.h);
    r.pass_ms.assign(passes.size(), 0.0);
    for (int s = 0; s < steps; ++s)
        for (int k = 0; k < substeps; ++k)
            for (int p = 0; p < count; ++p) {
                const size_t at = size_t(s * stride + k * count + p);
                r.pass_ms[size_t(p)] += (t[at + 1] - t[at]) / steps;
            }
    r.step_ms = (t[size_t((steps - 1) * stride + stride - 1)] - t[0]) / steps;
    if (r.lakes) { // the GPU's part of each iteration (between submissions the host solves)
        r.step_ms = 0.0;
        for (int s = 0; s < steps; ++s)
            r.step_ms += (t[size_t(s * stride + stride - 1)] - t[size_t(s * stride)]) / steps;
    }
    return r;
}

// One size's lines: its step, its share of the copy bandwidth, and a row per timed pass (phase).
void printBenchSize(const BenchOptions& o, const BenchSize& r, const nlohmann::json& js, const std::string& device) {
    const bool fluvial = r.phases;
    // (The fluvial model's passes run on their own 16x16 tiles whatever the shape.)
    const std::string layout = fluvial ? "16x16 tiles" : gpu::workgroupShapeName(r.shape) + " workgroups";
    std::printf("%s model, %d x %d, %s on %s: %.3f ms/step, %.1f steps/s, %.1f Mcells/s\n", o.model.c_str(), r.width,
                r.height, layout.c_str(), device.c_str(), r.step_ms, 1000.0 / r.step_ms,
                js["mcells_per_s"].get<double>());
    std::printf(
        "  %.1f bytes/cell per step, %.2f GB/s = %.0f%% of the copy bandwidth (buffer %.2f, image %.2f GB/s over "
        "%.0f MB)\n",
        js["bytes_per_cell"].get<double>(), js["gb_per_s"].get<double>(), 100.0 * js["share_of_copy"].get<double>(),
        r.copy.buffer_gb_s, r.copy.image_gb_s, double(r.copy.bytes) / 1e6);
    if (r.substeps > 1) std::printf("  %d CFL sub-steps per step (each pass's row sums them)\n", r.substeps);
    if (!r.processes.is_null()) {
        const nlohmann::json& p = r.processes;
        std::printf("  split over %d processes (%dx%d blocks of this size, bands %dx%d cells): %.3f ms/step on the "
                    "wall clock, exchanges %.3f ms/step = %.0f%% of it, %.0f bytes of bands and %.0f of sums per "
                    "step\n",
                    p["count"].get<int>(), p["blocks"][0].get<int>(), p["blocks"][1].get<int>(),
                    p["band_cells"][0].get<int>(), p["band_cells"][1].get<int>(), p["wall_ms_per_step"].get<double>(),
                    p["exchange_ms_per_step"].get<double>(), 100.0 * p["exchange_share"].get<double>(),
                    p["band_bytes_per_step"].get<double>(), p["sum_bytes_per_step"].get<double>());
        if (p["droplet_rounds_per_step"].get<double>() > 0.0)
            std::printf("  droplets handed between blocks in %.1f rounds a step, %.0f bytes a step\n",
                        p["droplet_rounds_per_step"].get<double>(), p["droplet_bytes_per_step"].get<double>());
    }
    if (r.corrections_carried > 0)
        std::printf(
            "  sediment correction: %lld of %lld sub-steps left it to the next one's erosion (sediment_correct: "
            "the last one's pass, averaged over the steps)\n",
            r.corrections_carried, r.pipe_steps);
    if (fluvial)
        std::printf(
            "  one iteration's rounds: %u basin labels, %u basin graph + %u hook jumps, %u flats (%s, %u tiles), "
            "%u accumulate, %u erode, %u deposit\n",
            r.fluvial.rounds_label, r.fluvial.rounds_boruvka, r.fluvial.rounds_hook, r.fluvial.rounds_flats,
            r.fluvial.converged ? "converged" : "NOT converged", r.fluvial.tiles_flats,
            r.fluvial.rounds_tree[TREE_ACCUMULATE], r.fluvial.rounds_tree[TREE_ERODE],
            r.fluvial.rounds_tree[TREE_SEDIMENT]);
    if (r.lakes)
        std::printf("  lakes (lake_evaporation): %.3f ms per iteration on the host (basins read back, solved, levels "
                    "uploaded) besides the GPU's %.3f ms; %d closed lakes, %.4g m^2\n",
                    r.lakes_host_ms, r.step_ms, r.lake_stats.closed_lakes, r.lake_stats.closed_area_m2);
    std::printf("  %-38s %9s %8s %9s %7s\n", "pass", "ms", "B/cell", "GB/s", "% copy");
    for (size_t p = 0; p < r.names.size(); ++p) {
        const nlohmann::json& jp = js["passes"][r.names[p]];
        std::printf("  %-38s %9.4f %8.1f %9.2f %6.0f%%\n", r.names[p].c_str(), r.pass_ms[p], r.pass_bytes[p],
                    jp["gb_per_s"].get<double>(), 100.0 * jp["share_of_copy"].get<double>());
    }
    std::fflush(stdout);
}

// Each shape's ms per step at one size, against the fastest and the device's choice.
void printShapes(Size n, const std::vector<std::pair<gpu::WorkgroupShape, double>>& compared,
                 gpu::WorkgroupShape device_shape) {
    const auto fastest = std::min_element(compared.begin(), compared.end(),
                                          [](const auto& a, const auto& b) { return a.second < b.second; });
    std::printf("workgroup shapes at %d x %d:", n.w, n.h);
    for (const auto& [shape, ms] : compared)
        std::printf(" %s %.3f ms (%+.1f%%)", gpu::workgroupShapeName(shape).c_str(), ms,
                    100.0 * (ms / fastest->second - 1.0));
    std::printf("; fastest %s, this device's choice %s\n", gpu::workgroupShapeName(fastest->first).c_str(),
                gpu::workgroupShapeName(device_shape).c_str());
    std::fflush(stdout);
}

// The yardstick (before the simulation is allocated): a copy of as many bytes as one step moves.
gpu::CopyBandwidth copyYardstick(const gpu::Context& ctx, const Params& params, int model, Size n) {
    gpu::SimParams estimate = toSimParams(params, n.w, n.h);
    estimate.model = model;
    double bytes = 0.0;
    const gpu::PipePasses pipe = gpu::resolvePipePasses(gpu::PipePasses::Auto);
    for (double b : stepBytes(gpu::modelPasses(model, pipe), estimate, n)) bytes += b;
    return gpu::measureCopyBandwidth(ctx, static_cast<uint64_t>(std::max(bytes, 16.0) * double(n.w) * n.h));
}

} // namespace

int benchCommand(const BenchOptions& o, const DeviceOptions& device) {
    const std::vector<Size> sizes = parseSizes(o.sizes);
    const int model = gpu::modelFromName(o.model);
    if (model < 0) throw InputError("--model: unknown model '" + o.model + "' (" + gpu::modelList() + ")");
    // Rank 0 reads the preset (a file another machine's processes may not see, or see otherwise)
    // and the others take its parameters: every process runs the same blocks.
    Params params;
    agree([&] {
        if (!processes().root()) return;
        params = buildParams(o.preset, 0.0, o.sets);
        noteInactiveSets(params, o.sets, model);
    });
    if (processes().size > 1) {
        agree([&] {
            InitialTerrain none;
            nlohmann::json extra;
            shareInput(params, none, extra);
        });
        gpu::SimParams sp = toSimParams(params, 1, 1);
        sp.model = model;
        if (const std::string refusal = gpu::splitRefusal(sp); !refusal.empty()) throw InputError(refusal);
    }
    ScopedContext scoped(device);
    const std::vector<gpu::WorkgroupShape> shapes = benchShapes(scoped.ctx, o.workgroup);
    const gpu::WorkgroupShape device_shape = gpu::resolveWorkgroupShape(scoped.ctx);
    nlohmann::json out;
    out["device"] = scoped.ctx.device_name;
    out["model"] = o.model;
    out["pipe_passes"] = gpu::pipePassesName(gpu::resolvePipePasses(gpu::PipePasses::Auto));
    out["steps"] = o.steps;
    out["workgroup_auto"] = gpu::workgroupShapeName(device_shape);
    out["subgroup_size"] = gpu::subgroupSize(scoped.ctx);
    out["sizes"] = nlohmann::json::array();
    for (const Size n : sizes) {
        const gpu::CopyBandwidth copy = copyYardstick(scoped.ctx, params, model, n);
        std::vector<std::pair<gpu::WorkgroupShape, double>> compared; // ms per step of each shape run
        for (const gpu::WorkgroupShape shape : shapes) {
            BenchSize r = benchSize(scoped.ctx, params, model, n, o.steps, shape);
            r.copy = copy;
            compared.emplace_back(r.shape, r.step_ms);
            const nlohmann::json js = benchSizeReport(r);
            out["sizes"].push_back(js);
            if (!o.json && processes().root()) printBenchSize(o, r, js, scoped.ctx.device_name);
        }
        if (compared.size() > 1 && !o.json && processes().root()) printShapes(n, compared, device_shape);
    }
    if (o.json && processes().root()) std::printf("%s\n", out.dump(2).c_str());
    return 0;
}

} // namespace alluvium
