// alluvium bench: GPU milliseconds per pass from timestamps, full steps per second, Mcells/s
// and effective GB/s (from the bytes each pass reads and writes per cell).
#include <cstdio>
#include <sstream>

#include "commands.h"
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
    std::vector<double> pass_ms; // per pass of the model, in order
    double step_ms = 0.0;
    gpu::FluvialControl fluvial{}; // the fluvial model: the last iteration's sweeps and rounds
};

SizeResult benchSize(const gpu::Context& ctx, const Params& params, int model, Size n, int steps) {
    const double cell_size = params[Param::cell_size];
    GeneratedTerrain g = generateTerrain(n.w, n.h, 1, cell_size);
    gpu::Simulation sim(ctx, n.w, n.h);
    loadInitialState(sim, {std::move(g.terrain), std::move(g.hardness)});
    gpu::SimParams sp = toSimParams(params, n.w, n.h);
    sp.model = model;
    sim.setParams(sp);
    sim.run(20); // warm up: pipelines compiled, water spread over the terrain

    const std::vector<gpu::Pass>& passes = gpu::modelPasses(model);
    const int count = static_cast<int>(passes.size());
    gpu::GpuTimer timer;
    gpu::createTimer(timer, ctx, static_cast<uint32_t>(steps * (count + 1)));
    VkCommandBuffer cmd = gpu::beginOneShot(ctx);
    sim.recordUpdates(cmd);
    gpu::resetTimer(timer, cmd);
    for (int i = 0; i < steps; ++i) sim.recordStep(cmd, &timer);
    gpu::endOneShot(ctx, cmd);
    const std::vector<double> t = gpu::readTimestampsMs(timer, ctx);
    gpu::destroyTimer(timer, ctx);

    SizeResult r;
    r.size = n;
    r.fluvial = sim.fluvialControl();
    r.pass_ms.assign(passes.size(), 0.0);
    const int stride = count + 1;
    for (int s = 0; s < steps; ++s)
        for (int p = 0; p < count; ++p)
            r.pass_ms[p] += (t[size_t(s * stride + p + 1)] - t[size_t(s * stride + p)]) / steps;
    r.step_ms = (t[size_t((steps - 1) * stride + count)] - t[0]) / steps;
    return r;
}

} // namespace

int benchCommand(const BenchOptions& o, const DeviceOptions& device) {
    const std::vector<Size> sizes = parseSizes(o.sizes);
    const Params params = buildParams(o.preset, 0.0, o.sets);
    const int model = gpu::modelFromName(o.model);
    if (model < 0)
        throw InputError("--model: unknown model '" + o.model + "' (" + modelList() + ")");
    ScopedContext scoped(device);
    nlohmann::json out;
    out["device"] = scoped.ctx.device_name;
    out["model"] = o.model;
    out["steps"] = o.steps;
    out["sizes"] = nlohmann::json::array();
    for (const Size n : sizes) {
        const SizeResult r = benchSize(scoped.ctx, params, model, n, o.steps);
        const std::vector<gpu::Pass>& passes = gpu::modelPasses(model);
        const double cells = double(n.w) * n.h;
        nlohmann::json js;
        js["size"] = std::to_string(n.w) + "x" + std::to_string(n.h);
        js["width"] = n.w;
        js["height"] = n.h;
        js["step_ms"] = r.step_ms;
        js["steps_per_s"] = 1000.0 / r.step_ms;
        js["mcells_per_s"] = cells * (1000.0 / r.step_ms) / 1e6;
        // The fluvial model's entries are its phases, their bytes estimated from the rounds that ran.
        const bool fluvial = model == MODEL_FLUVIAL;
        auto name = [&](size_t p) { return fluvial ? gpu::fluvialPhaseName(p) : gpu::passName(passes[p]); };
        double bytes = 0.0;
        for (size_t p = 0; p < passes.size(); ++p) {
            const double pass_bytes =
                fluvial ? gpu::fluvialPhaseBytes(p, r.fluvial, n.w, n.h, params[Param::fluvial_deposition] > 0.0)
                        : gpu::passBytesPerCell(passes[p]) * cells;
            bytes += pass_bytes;
            js["passes"][name(p)] = {
                {"ms", r.pass_ms[p]},
                {"gb_per_s", r.pass_ms[p] > 0 ? pass_bytes / (r.pass_ms[p] * 1e6) : 0.0}};
        }
        js["gb_per_s"] = bytes / (r.step_ms * 1e6);
        if (model == MODEL_FLUVIAL) js["fluvial_rounds"] = fluvialRounds(r.fluvial);
        out["sizes"].push_back(js);
        if (!o.json) {
            std::printf("%s model, %d x %d on %s: %.3f ms/step, %.1f steps/s, %.1f Mcells/s, %.2f GB/s effective\n",
                        o.model.c_str(), n.w, n.h, scoped.ctx.device_name.c_str(), r.step_ms, 1000.0 / r.step_ms,
                        js["mcells_per_s"].get<double>(), js["gb_per_s"].get<double>());
            if (model == MODEL_FLUVIAL)
                std::printf("  one iteration's rounds: %u basin labels, %u basin graph + %u hook jumps, %u flats (%s, "
                            "%u tiles), %u accumulate, %u erode, %u deposit\n",
                            r.fluvial.rounds_label, r.fluvial.rounds_boruvka, r.fluvial.rounds_hook,
                            r.fluvial.rounds_flats, r.fluvial.converged ? "converged" : "NOT converged",
                            r.fluvial.tiles_flats, r.fluvial.rounds_tree[TREE_ACCUMULATE],
                            r.fluvial.rounds_tree[TREE_ERODE], r.fluvial.rounds_tree[TREE_SEDIMENT]);
            for (size_t p = 0; p < passes.size(); ++p)
                std::printf("  %-20s %9.4f ms %8.2f GB/s\n", name(p), r.pass_ms[p],
                            js["passes"][name(p)]["gb_per_s"].get<double>());
            std::fflush(stdout);
        }
    }
    if (o.json) std::printf("%s\n", out.dump(2).c_str());
    return 0;
}

} // namespace alluvium
