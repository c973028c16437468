// alluvium bench: GPU milliseconds per pass from timestamps, full steps per second, Mcells/s
// and effective GB/s (from the bytes each pass reads and writes per cell).
#include <cstdio>
#include <sstream>

#include "commands.h"
#include "io/errors.h"
#include "io/terrain_gen.h"
#include "resources.h"

namespace alluvium {

namespace {

std::vector<int> parseSizes(const std::string& text) {
    std::vector<int> sizes;
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, ',')) {
        int w = 0, h = 0;
        parseSize(item.find('x') == std::string::npos ? item + "x" + item : item, w, h);
        if (w != h) throw InputError("--sizes: give square sizes, e.g. 256,512,1024");
        sizes.push_back(w);
    }
    if (sizes.empty()) throw InputError("--sizes: no size given");
    return sizes;
}

struct SizeResult {
    int size = 0;
    std::array<double, gpu::kPassCount> pass_ms{};
    double step_ms = 0.0;
};

SizeResult benchSize(const gpu::Context& ctx, const Params& params, int n, int steps) {
    const double cell_size = params[Param::cell_size];
    GeneratedTerrain g = generateTerrain(n, n, 1, cell_size);
    gpu::Simulation sim(ctx, n, n);
    loadInitialState(sim, {std::move(g.terrain), std::move(g.hardness)});
    sim.setParams(toSimParams(params, n, n));
    sim.run(20); // warm up: pipelines compiled, water spread over the terrain

    gpu::GpuTimer timer;
    gpu::createTimer(timer, ctx, static_cast<uint32_t>(steps * (gpu::kPassCount + 1)));
    VkCommandBuffer cmd = gpu::beginOneShot(ctx);
    sim.recordUpdates(cmd);
    gpu::resetTimer(timer, cmd);
    for (int i = 0; i < steps; ++i) sim.recordStep(cmd, &timer);
    gpu::endOneShot(ctx, cmd);
    const std::vector<double> t = gpu::readTimestampsMs(timer, ctx);
    gpu::destroyTimer(timer, ctx);

    SizeResult r;
    r.size = n;
    const int stride = gpu::kPassCount + 1;
    for (int s = 0; s < steps; ++s)
        for (int p = 0; p < gpu::kPassCount; ++p)
            r.pass_ms[size_t(p)] += (t[size_t(s * stride + p + 1)] - t[size_t(s * stride + p)]) / steps;
    r.step_ms = (t[size_t((steps - 1) * stride + gpu::kPassCount)] - t[0]) / steps;
    return r;
}

} // namespace

int benchCommand(const BenchOptions& o, const DeviceOptions& device) {
    const std::vector<int> sizes = parseSizes(o.sizes);
    const Params params = buildParams(o.preset, 0.0, o.sets);
    ScopedContext scoped(device);
    nlohmann::json out;
    out["device"] = scoped.ctx.device_name;
    out["steps"] = o.steps;
    out["sizes"] = nlohmann::json::array();
    for (int n : sizes) {
        const SizeResult r = benchSize(scoped.ctx, params, n, o.steps);
        const double cells = double(n) * n;
        nlohmann::json js;
        js["size"] = n;
        js["step_ms"] = r.step_ms;
        js["steps_per_s"] = 1000.0 / r.step_ms;
        js["mcells_per_s"] = cells * (1000.0 / r.step_ms) / 1e6;
        double bytes = 0.0;
        for (int p = 0; p < gpu::kPassCount; ++p) {
            const auto pass = static_cast<gpu::Pass>(p);
            const double pass_bytes = gpu::passBytesPerCell(pass) * cells;
            bytes += pass_bytes;
            js["passes"][gpu::passName(pass)] = {
                {"ms", r.pass_ms[size_t(p)]},
                {"gb_per_s", r.pass_ms[size_t(p)] > 0 ? pass_bytes / (r.pass_ms[size_t(p)] * 1e6) : 0.0}};
        }
        js["gb_per_s"] = bytes / (r.step_ms * 1e6);
        out["sizes"].push_back(js);
        if (!o.json) {
            std::printf("%d x %d on %s: %.3f ms/step, %.1f steps/s, %.1f Mcells/s, %.2f GB/s effective\n",
                        n, n, scoped.ctx.device_name.c_str(), r.step_ms, 1000.0 / r.step_ms,
                        js["mcells_per_s"].get<double>(), js["gb_per_s"].get<double>());
            for (int p = 0; p < gpu::kPassCount; ++p) {
                const auto pass = static_cast<gpu::Pass>(p);
                std::printf("  %-20s %9.4f ms %8.2f GB/s\n", gpu::passName(pass), r.pass_ms[size_t(p)],
                            js["passes"][gpu::passName(pass)]["gb_per_s"].get<double>());
            }
            std::fflush(stdout);
        }
    }
    if (o.json) std::printf("%s\n", out.dump(2).c_str());
    return 0;
}

} // namespace alluvium
