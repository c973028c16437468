// alluvium fill: the lake-filled surface of a terrain (every depression raised to its spill
// height, so every cell drains to an outlet edge), computed on the GPU by the fluvial model's
// fill; the report gives the fill volume.
#include <chrono>
#include <cstdio>
#include <cstring>

#include "commands.h"
#include "export.h"
#include "io/atomic_file.h"
#include "io/errors.h"
#include "report.h"

namespace alluvium {

int fillCommand(const FillOptions& o, const DeviceOptions& device) {
    Params params;
    const InitialTerrain initial = prepareAnalysis(o.out, o.report, o.terrain, o.preset, o.sets, params);
    const double cell_size = params[Param::cell_size];
    const int w = initial.terrain.width, h = initial.terrain.height;

    ScopedContext scoped(device);
    gpu::Simulation sim(scoped.ctx, w, h);
    loadInitialState(sim, initial);
    gpu::SimParams sp = toSimParams(params, w, h);
    sp.model = MODEL_FLUVIAL;
    sim.setParams(sp);
    const auto start = std::chrono::steady_clock::now();
    const gpu::FluvialControl fill = sim.fluvialAnalyse();
    nlohmann::json summary = fluvialSummary(sim, cell_size, fill);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    // The filled surface exactly as the fill computed it (not ground + depth re-rounded).
    const std::vector<uint64_t> keys = sim.fluvial().keys();
    Heightmap filled{w, h, std::vector<float>(keys.size())};
    filled.cell_size = cell_size;
    long long unreached = 0;
    for (size_t i = 0; i < keys.size(); ++i) {
        if (keys[i] == ~0ull) { // no outlet reaches it (every side closed): left as it is
            filled.heights[i] = initial.terrain.heights[i];
            ++unreached;
            continue;
        }
        uint32_t bits = uint32_t(keys[i] >> 32);
        bits = (bits & 0x80000000u) ? (bits & 0x7FFFFFFFu) : ~bits;
        std::memcpy(&filled.heights[i], &bits, 4);
    }
    const nlohmann::json report = fillReport({.width = w,
                                              .height = h,
                                              .cell_size = cell_size,
                                              .seconds = seconds,
                                              .outlets = params.format(Param::fluvial_outlets),
                                              .device = scoped.ctx.device_name,
                                              .summary = summary,
                                              .unreached = unreached});
    OutputBatch outputs; // every output, or none if one cannot be written
    saveHeightmap(o.out, filled, cell_size);
    if (!o.report.empty()) writeReport(o.report, report);
    if (!o.out_maps.empty()) exportMaps(sim, o.out_maps);
    outputs.commit();
    std::fprintf(stderr,
                 "alluvium: wrote %s%s: %lld cells filled, %.6g m^3, deepest %.4g m (rounds: %u basin labels, "
                 "%u basin graph + %u hook jumps, %u flats)\n",
                 displayPath(o.out).c_str(), writesSidecar(o.out) ? " (+ .json)" : "",
                 summary["lake_cells"].get<long long>(), summary["lake_volume_m3"].get<double>(),
                 summary["deepest_lake_m"].get<double>(), fill.rounds_label, fill.rounds_boruvka, fill.rounds_hook,
                 fill.rounds_flats);
    return 0;
}

} // namespace alluvium
