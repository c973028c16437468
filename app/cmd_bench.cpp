// alluvium bench: GPU milliseconds per pass from timestamps, full steps per second, Mcells/s,
// the bytes each pass reads and writes per cell (from the formats of the images it binds), and
// the share of the device's own copy bandwidth, measured in the same run by a plain copy kernel
// over the same number of bytes (gpu/copy_bench.h).
#include <algorithm>
#include <cstdio>
#include <sstream>

#include "report.h"
#include "commands.h"
#include "copy_bench.h"
#include "export.h"
#include "io/errors.h"
#include "io/terrain_gen.h"
#include "resources.h"

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

struct SizeResult {
    Size size{};
    gpu::WorkgroupShape shape{};
    uint32_t partials_per_group = 1; // the step's sums per workgroup (> 1: per subgroup, CPU drivers)
    std::vector<gpu::Pass> passes;  // of one step, in order
    std::vector<double> pass_ms;    // per pass, in order
    std::vector<double> pass_bytes; // per cell, per pass
    double step_ms = 0.0;
    int substeps = 1;               // the pipe model's CFL sub-steps per step
    gpu::FluvialControl fluvial{}; // the fluvial model: the last iteration's sweeps and rounds
    bool lakes = false;             // lake_evaporation > 0: each iteration solved on the host first
    double lakes_host_ms = 0.0;     // per iteration: the basins' readback, the solve, the upload
    gpu::FluvialState::LakeStats lake_stats{};
    // The pipe model: sub-steps whose sediment correction the next step's erosion applied (all
    // timed steps are recorded back to back; the last corrects in its own pass).
    long long corrections_carried = 0;
    long long pipe_steps = 0; // sub-steps timed
};

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

SizeResult benchSize(const gpu::Context& ctx, const Params& params, int model, Size n, int steps,
                     gpu::WorkgroupShape shape) {
    const double cell_size = params[Param::cell_size];
    GeneratedTerrain g = generateTerrain(n.w, n.h, 1, cell_size);
    gpu::Simulation sim(ctx, n.w, n.h, gpu::PipePasses::Auto, shape);
    loadInitialState(sim, {std::move(g.terrain), std::move(g.hardness)}, params);
    gpu::SimParams sp = toSimParams(params, n.w, n.h);
    sp.model = model;
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
    SizeResult r;
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
        VkCommandBuffer cmd = gpu::beginOneShot(ctx);
        sim.recordUpdates(cmd);
        gpu::resetTimer(timer, cmd);
        for (int i = 0; i < steps; ++i) sim.recordStep(cmd, &timer, i + 1 < steps);
        gpu::endOneShot(ctx, cmd);
    }
    const std::vector<double> t = gpu::readTimestampsMs(timer, ctx);
    gpu::destroyTimer(timer, ctx);

    r.size = n;
    r.shape = sim.workgroupShape();
    r.partials_per_group = sim.partialsPerGroup();
    r.fluvial = sim.fluvial().hostControl();
    r.passes = passes;
    r.substeps = substeps;
    r.pass_bytes = stepBytes(passes, sim.params(), n);
    for (double& b : r.pass_bytes) b *= substeps;
    r.corrections_carried = sim.correctionsCarried() - carried_before;
    r.pipe_steps = model == MODEL_PIPE ? static_cast<long long>(steps) * substeps : 0;
    for (size_t p = 0; p < passes.size(); ++p) // its bytes are moved only by the sub-steps that ran it
        if (passes[p] == gpu::Pass::SedimentCorrect && r.pipe_steps > 0)
            r.pass_bytes[p] *= 1.0 - double(r.corrections_carried) / double(r.pipe_steps);
    if (model == MODEL_FLUVIAL) // its phases: the rounds that ran and the lists' lengths
        for (size_t p = 0; p < passes.size(); ++p)
            r.pass_bytes[p] = gpu::fluvialPhaseBytes(p, r.fluvial, n.w, n.h, sp.fluvial_deposition > 0.0f) /
                              (double(n.w) * n.h);
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
        for (int s = 0; s < steps; ++s) r.step_ms += (t[size_t(s * stride + stride - 1)] - t[size_t(s * stride)]) / steps;
    }
    return r;
}

} // namespace

int benchCommand(const BenchOptions& o, const DeviceOptions& device) {
    const std::vector<Size> sizes = parseSizes(o.sizes);
    const Params params = buildParams(o.preset, 0.0, o.sets);
    const int model = gpu::modelFromName(o.model);
    if (model < 0)
        throw InputError("--model: unknown model '" + o.model + "' (" + gpu::modelList() + ")");
    ScopedContext scoped(device);
    const std::vector<gpu::WorkgroupShape> shapes = benchShapes(scoped.ctx, o.workgroup);
    const gpu::WorkgroupShape device_shape = gpu::resolveWorkgroupShape(scoped.ctx);
    nlohmann::json out;
    out["device"] = scoped.ctx.device_name;
    out["model"] = o.model;
    out["pipe_passes"] = gpu::pipePassesName(gpu::resolvePipePasses(scoped.ctx, gpu::PipePasses::Auto));
    out["steps"] = o.steps;
    out["workgroup_auto"] = gpu::workgroupShapeName(device_shape);
    out["subgroup_size"] = gpu::subgroupSize(scoped.ctx);
    out["sizes"] = nlohmann::json::array();
    for (const Size n : sizes) {
        const double cells = double(n.w) * n.h;
        // The yardstick first (the simulation is not allocated yet): a copy of as many bytes as
        // one step moves.
        gpu::SimParams estimate = toSimParams(params, n.w, n.h);
        estimate.model = model;
        double estimate_bytes = 0.0;
        const gpu::PipePasses pipe = gpu::resolvePipePasses(scoped.ctx, gpu::PipePasses::Auto);
        for (double b : stepBytes(gpu::modelPasses(model, pipe), estimate, n)) estimate_bytes += b;
        const gpu::CopyBandwidth copy =
            gpu::measureCopyBandwidth(scoped.ctx, static_cast<uint64_t>(std::max(estimate_bytes, 16.0) * cells));
        std::vector<std::pair<gpu::WorkgroupShape, double>> compared; // ms per step of each shape run
        for (const gpu::WorkgroupShape shape : shapes) {
            const SizeResult r = benchSize(scoped.ctx, params, model, n, o.steps, shape);
            compared.emplace_back(r.shape, r.step_ms);
            const std::vector<gpu::Pass>& passes = r.passes;
            nlohmann::json js;
            js["size"] = std::to_string(n.w) + "x" + std::to_string(n.h);
            js["workgroup"] = gpu::workgroupShapeName(r.shape);
            js["partials_per_group"] = r.partials_per_group;
            js["width"] = n.w;
            js["height"] = n.h;
            js["step_ms"] = r.step_ms;
            js["steps_per_s"] = 1000.0 / r.step_ms;
            js["mcells_per_s"] = cells * (1000.0 / r.step_ms) / 1e6;
            js["copy"] = {{"bytes", copy.bytes}, {"buffer_gb_per_s", copy.buffer_gb_s}, {"image_gb_per_s", copy.image_gb_s}};
            auto share = [&](double gb_per_s) { return copy.best() > 0.0 ? gb_per_s / copy.best() : 0.0; };
            // The fluvial model's entries are its phases, their bytes estimated from the rounds that ran.
            const bool fluvial = model == MODEL_FLUVIAL;
            auto name = [&](size_t p) { return fluvial ? gpu::fluvialPhaseName(p) : gpu::passName(passes[p]); };
            double bytes = 0.0;
            for (size_t p = 0; p < passes.size(); ++p) {
                const double gbs = r.pass_ms[p] > 0 ? r.pass_bytes[p] * cells / (r.pass_ms[p] * 1e6) : 0.0;
                bytes += r.pass_bytes[p];
                js["passes"][name(p)] = {
                    {"ms", r.pass_ms[p]}, {"bytes_per_cell", r.pass_bytes[p]}, {"gb_per_s", gbs}, {"share_of_copy", share(gbs)}};
            }
            const double step_gbs = bytes * cells / (r.step_ms * 1e6);
            js["bytes_per_cell"] = bytes;
            js["substeps"] = r.substeps;
            if (model == MODEL_PIPE) js["corrections_carried"] = r.corrections_carried;
            js["gb_per_s"] = step_gbs;
            js["share_of_copy"] = share(step_gbs);
            if (fluvial) js["fluvial_rounds"] = fluvialRounds(r.fluvial);
            if (r.lakes)
                js["lakes"] = {{"host_ms", r.lakes_host_ms},
                               {"closed_lakes", r.lake_stats.closed_lakes},
                               {"closed_lake_area_m2", r.lake_stats.closed_area_m2}};
            out["sizes"].push_back(js);
            if (!o.json) {
                // (The fluvial model's passes run on their own 16x16 tiles whatever the shape.)
                const std::string layout = model == MODEL_FLUVIAL ? "16x16 tiles" : gpu::workgroupShapeName(r.shape) + " workgroups";
                std::printf("%s model, %d x %d, %s on %s: %.3f ms/step, %.1f steps/s, %.1f Mcells/s\n", o.model.c_str(),
                            n.w, n.h, layout.c_str(), scoped.ctx.device_name.c_str(),
                            r.step_ms, 1000.0 / r.step_ms, js["mcells_per_s"].get<double>());
                std::printf("  %.1f bytes/cell per step, %.2f GB/s = %.0f%% of the copy bandwidth (buffer %.2f, image %.2f GB/s "
                            "over %.0f MB)\n",
                            bytes, step_gbs, 100.0 * share(step_gbs), copy.buffer_gb_s, copy.image_gb_s, double(copy.bytes) / 1e6);
                if (r.substeps > 1) std::printf("  %d CFL sub-steps per step (each pass's row sums them)\n", r.substeps);
                if (r.corrections_carried > 0)
                    std::printf("  sediment correction: %lld of %lld sub-steps left it to the next one's erosion (sediment_correct: "
                                "the last one's pass, averaged over the steps)\n",
                                r.corrections_carried, r.pipe_steps);
                if (model == MODEL_FLUVIAL)
                    std::printf("  one iteration's rounds: %u basin labels, %u basin graph + %u hook jumps, %u flats (%s, "
                                "%u tiles), %u accumulate, %u erode, %u deposit\n",
                                r.fluvial.rounds_label, r.fluvial.rounds_boruvka, r.fluvial.rounds_hook,
                                r.fluvial.rounds_flats, r.fluvial.converged ? "converged" : "NOT converged",
                                r.fluvial.tiles_flats, r.fluvial.rounds_tree[TREE_ACCUMULATE],
                                r.fluvial.rounds_tree[TREE_ERODE], r.fluvial.rounds_tree[TREE_SEDIMENT]);
                if (r.lakes)
                    std::printf("  lakes (lake_evaporation): %.3f ms per iteration on the host (basins read back, solved, "
                                "levels uploaded) besides the GPU's %.3f ms; %d closed lakes, %.4g m^2\n",
                                r.lakes_host_ms, r.step_ms, r.lake_stats.closed_lakes, r.lake_stats.closed_area_m2);
                std::printf("  %-38s %9s %8s %9s %7s\n", "pass", "ms", "B/cell", "GB/s", "% copy");
                for (size_t p = 0; p < passes.size(); ++p) {
                    const nlohmann::json& jp = js["passes"][name(p)];
                    std::printf("  %-38s %9.4f %8.1f %9.2f %6.0f%%\n", name(p), r.pass_ms[p], r.pass_bytes[p],
                                jp["gb_per_s"].get<double>(), 100.0 * jp["share_of_copy"].get<double>());
                }
                std::fflush(stdout);
            }
        }
        if (compared.size() > 1 && !o.json) {
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
    }
    if (o.json) std::printf("%s\n", out.dump(2).c_str());
    return 0;
}

} // namespace alluvium
