// Every command's JSON report is built here: the water and soil budgets of a run (`run`, the
// viewer, tests), what `run`, `view`, `fill` and `watertable` report besides, and the fluvial
// model's summaries (also the bench's rounds). Reports are written atomically (writeReport).
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "brush.h"
#include "copy_bench.h"
#include "setup.h"
#include "simulation.h"
#include "snapshot.h"

namespace alluvium {

// The budgets from the GPU's totals: every model but the fluvial one keeps a water budget
// (water.budget_error_rel); the water section's note says what its terms mean for the model in
// sim.params().model (waterBudgetNote).
nlohmann::json makeReport(const gpu::Simulation& sim, const StateSums& initial, const StateSums& final_sums,
                          long long steps, double seconds, double cell_size);
const char* waterBudgetNote(int model); // nullptr for the pipe model

// From the last fluvial analysis (sim.fluvialAnalyse(), which returned `fill`): lake volume,
// cells and deepest lake, largest drainage area, the fill's rounds per phase.
nlohmann::json fluvialSummary(const gpu::Simulation& sim, double cell_size, const gpu::FluvialControl& fill);
// The lakes' volume, cells and deepest depth from the lake depth of every cell (m).
nlohmann::json lakeSums(const std::vector<float>& lake, double cell_size);
// The rounds of a fluvial iteration's loops, by phase (bench, reports); of the fill's only.
nlohmann::json fluvialRounds(const gpu::FluvialControl& c);
nlohmann::json fluvialFillRounds(const gpu::FluvialControl& c);

// `alluvium run`'s report: the budgets, the state digest, the ground lowered and raised since the
// start, and for the fluvial model its summary.
struct RunFacts {
    StateSums before, after;
    std::string state_digest;              // of the state the steps left (before an analysis rewrites its maps)
    long long steps = 0, steps_before = 0; // all the steps, those of a resumed session
    double seconds = 0.0, cell_size = 0.0;
    const std::vector<float>* initial_heights = nullptr;
    const std::vector<float>* final_heights = nullptr;
    long long nodata_filled = 0;
    nlohmann::json timelapse; // null: none
    // The fluvial model: the last iteration's fill, the final terrain's analysis, and the lakes
    // that balance evaporation per iteration.
    gpu::FluvialControl last_fill{}, analysis{};
    double years = 0.0;
    nlohmann::json closed_lakes, closed_area;
    nlohmann::json processes; // a run split over processes: the blocks and their exchanges (null: one)
};
nlohmann::json runReport(const gpu::Simulation& sim, const RunFacts& facts);

// The viewer's report on exit: `run`'s budgets with the brush's volumes, and what the session did.
struct ViewFacts {
    StateSums initial_sums, after;
    long long steps = 0;
    double seconds = 0.0, cell_size = 0.0;
    gpu::BrushTotals brush, brush_carry; // since the last reset; before it
    double brush_seconds = 0.0;          // the strokes' painted time on the wall clock
    size_t springs = 0;
    uint64_t frames = 0;
    nlohmann::json recordings = nlohmann::json::array();
    nlohmann::json history;
    int validation_errors = 0;
    std::string state_digest;
};
// Adds the brush's volumes into the simulation's totals (the budgets' terms) on the way.
nlohmann::json viewReport(gpu::Simulation& sim, const ViewFacts& facts);

// `alluvium fill`: the fill of a terrain.
struct FillFacts {
    int width = 0, height = 0;
    double cell_size = 0.0, seconds = 0.0;
    std::string outlets, device;
    nlohmann::json summary; // fluvialSummary of the fill
    long long unreached = 0;
};
nlohmann::json fillReport(const FillFacts& facts);

// `alluvium watertable`: the equilibrium table of a terrain, its water bodies and rivers.
struct WaterTableFacts {
    int width = 0, height = 0, iterations = 0;
    double cell_size = 0.0, seconds = 0.0, river_min_cells = 0.0, river_min_area = 0.0;
    std::string outlets, device;
    uint32_t moving = 0;
    long long lake_cells = 0, ocean_cells = 0, wet_land = 0, nan_cells = 0;
    double lake_volume = 0.0, mean_depth_below = 0.0;
    long long river_cells = 0, sustained_cells = 0, dry_cells = 0, dry_end_points = 0;
};
nlohmann::json watertableReport(const WaterTableFacts& facts);

// `alluvium bench`: one grid size and workgroup shape's timings, per timed pass (or phase).
struct BenchSize {
    int width = 0, height = 0;
    gpu::WorkgroupShape shape{};
    uint32_t partials_per_group = 1; // the step's sums per workgroup (> 1: per subgroup, CPU drivers)
    bool phases = false;             // the rows are the model's phases (the fluvial model's)
    std::vector<std::string> names;  // of one step's rows, in order
    std::vector<double> pass_ms;     // per row
    std::vector<double> pass_bytes;  // per cell, per row
    double step_ms = 0.0;
    int substeps = 1;              // the pipe model's CFL sub-steps per step
    gpu::FluvialControl fluvial{}; // the fluvial model: the last iteration's sweeps and rounds
    bool lakes = false;            // lake_evaporation > 0: each iteration solved on the host first
    double lakes_host_ms = 0.0;    // per iteration: the basins' readback, the solve, the upload
    gpu::FluvialState::LakeStats lake_stats{};
    // The pipe model: sub-steps whose sediment correction the next step's erosion applied (all
    // timed steps are recorded back to back; the last corrects in its own pass).
    long long corrections_carried = 0;
    long long pipe_steps = 0; // sub-steps timed
    gpu::CopyBandwidth copy;  // the device's copy bandwidth, measured in the same run
    nlohmann::json processes; // under mpirun: the blocks and the exchanges per step (null: one)
};
nlohmann::json benchSizeReport(const BenchSize& b);

// Writes `report` to `path` (pretty-printed), atomically.
void writeReport(const std::string& path, const nlohmann::json& report);

// The report's "processes" of a command split over processes: the blocks, what their exchanges
// moved and took (the longest process's host time, and its share of `run_seconds`), and the
// validation errors of them all. Every process calls it at once.
nlohmann::json splitFacts(const gpu::BlockExchange& b, const gpu::Context& ctx, double run_seconds);
// The validation layer's errors of every process (each calls it at once).
double validationErrorsOfProcesses(const gpu::Context& ctx);

} // namespace alluvium
