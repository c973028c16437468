// Every command's report (app/report.h).
#include "report.h"

#include <algorithm>
#include <cmath>

#include "io/atomic_file.h"
#include "processes.h"

namespace alluvium {

namespace {

// The elements' part of the report: the vegetation's cover, the lava's ledger.
void addElements(nlohmann::json& r, const gpu::Simulation& sim, const StateSums& initial, const StateSums& final_sums) {
    const gpu::Totals t = sim.totals();
    auto acc = [&](int slot) { return t.acc[slot]; };
    if (sim.params().enable_vegetation != 0 && sim.params().model == MODEL_PIPE) {
        // The cover: its mean density and the cells at least half covered.
        const std::vector<float> v = sim.download(gpu::Field::Vegetation);
        double total = 0.0;
        long long dense = 0;
        for (std::size_t i = 0; i < v.size(); i += 2) {
            total += v[i];
            dense += v[i] >= 0.5f;
        }
        const double cells = double(v.size() / 2);
        r["vegetation"] = {{"mean_density", total / std::max(cells, 1.0)}, {"cells_half_covered", dense}};
    }
    if (sim.params().enable_lava != 0 && sim.params().model == MODEL_PIPE) {
        // The ledger: every cubic metre the vent erupted flows on or is rock (the brush's lava is
        // the viewer's report's).
        const double flowing = final_sums.lava - initial.lava, erupted = acc(SLOT_LAVA_ERUPTED);
        const double solid = acc(SLOT_LAVA_SOLIDIFIED);
        r["lava"] = {{"erupted", erupted},
                     {"flowing", final_sums.lava},
                     {"solidified", solid},
                     {"water_boiled", acc(SLOT_BOILED)},
                     {"ledger_error_rel", std::abs(flowing + solid - erupted) / std::max(erupted, 1e-30)}};
    }
}

} // namespace

nlohmann::json makeReport(const gpu::Simulation& sim, const StateSums& initial, const StateSums& final_sums,
                          long long steps, double seconds, double cell_size) {
    const gpu::Totals t = sim.totals();
    auto acc = [&](int slot) { return t.acc[slot]; };
    // Water: on the ground, in it (groundwater) and frozen (snow), with what the sea added and
    // took. The snow brush's water is the brush's.
    const double added =
        acc(SLOT_RAIN) + acc(SLOT_SNOWFALL) + acc(SLOT_SPRING) + acc(SLOT_BRUSH_WATER_ADD) + acc(SLOT_SEA_IN);
    const double stored_initial = initial.water + initial.groundwater + initial.snow;
    const double expected_water = stored_initial + added - acc(SLOT_BRUSH_WATER_REMOVE) - acc(SLOT_EVAPORATED) -
                                  acc(SLOT_DRAINED_WATER) - acc(TOTAL_WATER_ABSORBED) - acc(SLOT_SEA_OUT) -
                                  acc(SLOT_BOILED);
    const double stored_final = final_sums.water + final_sums.groundwater + final_sums.snow;
    const double water_scale = std::max(stored_initial + added, 1e-30);
    const double soil_initial = initial.terrain + initial.sediment;
    const double soil_final = final_sums.terrain + final_sums.sediment;
    const double expected_soil =
        soil_initial + acc(SLOT_BRUSH_SOIL_ADD) - acc(SLOT_BRUSH_SOIL_REMOVE) - acc(SLOT_SED_DRAINED);
    // Heights have an arbitrary datum: relative to the signed total alone, a terrain around 0 m
    // (or one dug below it) would divide the drift by almost nothing. The drift is relative to
    // the soil involved: the larger of the initial total and the final sum of |ground| +
    // |sediment| (the same for the usual terrain above its datum).
    const double soil_scale = std::max({std::abs(soil_initial), final_sums.soil_magnitude, 1e-30});

    nlohmann::json r;
    r["steps"] = steps;
    r["seconds"] = seconds;
    r["width"] = sim.width();
    r["height"] = sim.height();
    r["cell_size"] = cell_size;
    r["units"] = "volumes in m^3, speeds in m/s";
    r["water"] = {
        {"rained", acc(SLOT_RAIN)},
        {"sourced", acc(SLOT_SPRING)},
        {"brush_added", acc(SLOT_BRUSH_WATER_ADD)},
        {"brush_removed", acc(SLOT_BRUSH_WATER_REMOVE)},
        {"evaporated", acc(SLOT_EVAPORATED)},
        {"drained", acc(SLOT_DRAINED_WATER)},
        {"absorbed", acc(TOTAL_WATER_ABSORBED)},
        {"stored_initial", initial.water},
        {"stored_final", final_sums.water},
        {"infiltrated", acc(SLOT_INFILTRATED)},
        {"seeped", acc(SLOT_SEEPED)},
        {"groundwater_stored_initial", initial.groundwater},
        {"groundwater_stored", final_sums.groundwater},
        {"from_sea", acc(SLOT_SEA_IN)},
        {"into_sea", acc(SLOT_SEA_OUT)},
        {"snowfall", acc(SLOT_SNOWFALL)},
        {"melted", acc(SLOT_MELT)},
        {"snow_stored_initial", initial.snow},
        {"snow_stored", final_sums.snow},
        {"boiled_by_lava", acc(SLOT_BOILED)},
        {"budget_error_rel", std::abs(stored_final - expected_water) / water_scale},
    };
    r["soil"] = {
        {"initial", soil_initial},
        {"final", soil_final},
        {"suspended_final", final_sums.sediment},
        // Layered ground: the ground is bedrock and a loose layer, counted apart (their sum is
        // the ground above; the balance closes on it). Deposits are loose, so the bedrock only
        // loses, to erosion, by the brush, or gains by uplift (the fluvial model).
        {"loose_initial", initial.loose},
        {"loose_final", final_sums.loose},
        {"bedrock_initial", initial.terrain - initial.loose},
        {"bedrock_final", final_sums.terrain - final_sums.loose},
        {"eroded", acc(SLOT_ERODED)},
        {"deposited", acc(SLOT_DEPOSITED)},
        {"drained", acc(SLOT_SED_DRAINED)},
        {"brush_added", acc(SLOT_BRUSH_SOIL_ADD)},
        {"brush_removed", acc(SLOT_BRUSH_SOIL_REMOVE)},
        {"drift_rel", std::abs(soil_final - expected_soil) / soil_scale},
        {"transport_correction", acc(TOTAL_CORRECTION_ABS)},
        // Mean relative size of the per-step correction of the semi-Lagrangian transport.
        {"transport_correction_rel", acc(TOTAL_CORRECTION_ABS) / std::max(acc(SLOT_SED_AFTER), 1e-30)},
    };
    addElements(r, sim, initial, final_sums);
    r["nan_cells"] = final_sums.nan_cells;
    r["max_speed"] = t.max_speed;
    r["max_froude"] = t.max_froude; // over the cells deeper than FROUDE_MIN_DEPTH
    if (sim.params().model == MODEL_PIPE)
        r["cfl"] = {{"target", CFL_TARGET},
                    {"max", t.max_cfl},
                    {"substeps_taken", sim.substepsTaken()},
                    {"most_substeps_in_a_step", sim.maxSubsteps()},
                    {"substeps_now", sim.substeps()}};
    const int model = sim.params().model;
    r["model"] = gpu::modelName(model);
    if (const char* note = waterBudgetNote(model)) r["water"]["note"] = note;
    if (model == MODEL_FLUVIAL) {
        r["water"]["budget_error_rel"] = nullptr;
        // Uplift adds rock: the soil is not conserved, by design.
        r["soil"]["drift_rel"] = nullptr;
        r["soil"]["note"] = "the fluvial model adds rock by uplift and removes it through the outlets";
    }
    if (model != MODEL_PIPE) {
        // Only the pipe model tallies each exchange between ground and water: see
        // soil.net_lowered / net_raised for the others.
        r["soil"]["eroded"] = nullptr;
        r["soil"]["deposited"] = nullptr;
    }
    return r;
}

const char* waterBudgetNote(int model) { return gpu::model(model).water_note; }

nlohmann::json fluvialFillRounds(const gpu::FluvialControl& c) {
    return {{"basin_labels", c.rounds_label},
            {"basin_graph", c.rounds_boruvka},
            {"hook_jumps", c.rounds_hook},
            {"flats", c.rounds_flats},
            {"flats_converged", c.converged != 0}};
}

nlohmann::json fluvialRounds(const gpu::FluvialControl& c) {
    nlohmann::json j = fluvialFillRounds(c);
    j["accumulate"] = c.rounds_tree[TREE_ACCUMULATE];
    j["erode"] = c.rounds_tree[TREE_ERODE];
    j["deposit"] = c.rounds_tree[TREE_SEDIMENT];
    return j;
}

nlohmann::json lakeSums(const std::vector<float>& lake, double cell_size) {
    double volume = 0.0, deepest = 0.0;
    long long cells = 0;
    for (float depth : lake) {
        if (depth > 0.0f) ++cells;
        volume += double(depth) * cell_size * cell_size;
        deepest = std::max(deepest, double(depth));
    }
    return {{"lake_volume_m3", volume}, {"lake_cells", cells}, {"deepest_lake_m", deepest}};
}

nlohmann::json fluvialSummary(const gpu::Simulation& sim, double cell_size, const gpu::FluvialControl& fill) {
    nlohmann::json summary = lakeSums(sim.download(gpu::Field::Lake), cell_size);
    double largest = 0.0;
    for (float area : sim.download(gpu::Field::Drainage)) largest = std::max(largest, double(area));
    summary["largest_drainage_area_m2"] = largest;
    summary["fill_rounds"] = fluvialFillRounds(fill);
    return summary;
}

nlohmann::json runReport(const gpu::Simulation& sim, const RunFacts& f) {
    nlohmann::json report = makeReport(sim, f.before, f.after, f.steps, f.seconds, f.cell_size);
    report["state_digest"] = f.state_digest;
    // Net change of the ground since the start, any model: volume lowered and raised (m^3).
    double lowered = 0.0, raised = 0.0;
    const std::vector<float>& before = *f.initial_heights;
    const std::vector<float>& after = *f.final_heights;
    for (size_t i = 0; i < after.size() && i < before.size(); ++i) {
        const double dz = double(after[i]) - double(before[i]);
        (dz < 0.0 ? lowered : raised) += std::abs(dz) * f.cell_size * f.cell_size;
    }
    report["soil"]["net_lowered"] = lowered;
    report["soil"]["net_raised"] = raised;
    if (f.steps_before > 0) report["resumed_at_step"] = f.steps_before;
    if (!f.timelapse.is_null()) report["timelapse"] = f.timelapse;
    report["nodata_filled"] = f.nodata_filled;
    if (!f.processes.is_null()) report["processes"] = f.processes;
    if (sim.params().model != MODEL_FLUVIAL) return report;
    nlohmann::json& fluvial = report["fluvial"];
    fluvial = fluvialSummary(sim, f.cell_size, f.analysis);
    fluvial["last_iteration_rounds"] = fluvialRounds(f.last_fill);
    fluvial["last_iteration_fill_converged"] = f.last_fill.converged != 0;
    fluvial["years"] = f.years;
    // Stream-power erosion and deposition since the start (the wear map), m^3; the rest of the
    // eroded sediment left through the outlets.
    const std::vector<float> wear = sim.download(gpu::Field::Wear);
    double eroded = 0.0, deposited = 0.0;
    for (size_t i = 0; i + 1 < wear.size(); i += 2) eroded += wear[i], deposited += wear[i + 1];
    eroded *= f.cell_size * f.cell_size;
    deposited *= f.cell_size * f.cell_size;
    fluvial["eroded_m3"] = eroded;
    fluvial["deposited_m3"] = deposited;
    fluvial["sediment_out_m3"] = eroded - deposited;
    if (sim.fluvialLakesOn()) {
        // Per iteration, and of the final terrain (the analysis solved its lakes).
        fluvial["closed_lakes_per_iteration"] = f.closed_lakes;
        fluvial["closed_lake_area_m2_per_iteration"] = f.closed_area;
        fluvial["closed_lakes"] = sim.fluvial().lakes.closed_lakes;
        fluvial["closed_lake_area_m2"] = sim.fluvial().lakes.closed_area_m2;
    }
    return report;
}

nlohmann::json viewReport(gpu::Simulation& sim, const ViewFacts& f) {
    // The brush's volumes since the last reset join the budgets of `run`'s report.
    const gpu::BrushTotals& bt = f.brush;
    gpu::Totals t = sim.totals();
    t.acc[SLOT_BRUSH_WATER_ADD] += bt.water_added;
    t.acc[SLOT_BRUSH_WATER_REMOVE] += bt.water_removed;
    t.acc[SLOT_BRUSH_SOIL_ADD] += bt.terrain_added;
    t.acc[SLOT_BRUSH_SOIL_REMOVE] += bt.terrain_removed;
    sim.setTotals(t);
    nlohmann::json report = makeReport(sim, f.initial_sums, f.after, f.steps, f.seconds, f.cell_size);
    const gpu::BrushTotals& c = f.brush_carry;
    report["brush"] = {
        {"water_added", c.water_added + bt.water_added},
        {"water_removed", c.water_removed + bt.water_removed},
        {"terrain_added", c.terrain_added + bt.terrain_added},
        {"terrain_removed", c.terrain_removed + bt.terrain_removed},
        {"hand_picked", c.hand_picked + bt.hand_picked},
        {"hand_dropped", c.hand_dropped + bt.hand_dropped},
        {"hand_held", bt.hand_picked - bt.hand_dropped},
        {"lava_poured", c.lava_poured + bt.lava_poured},
        {"seconds", f.brush_seconds},
    };
    report["springs"] = f.springs;
    report["frames"] = f.frames;
    report["recordings"] = f.recordings;
    report["validation_errors"] = f.validation_errors;
    report["history"] = f.history;
    report["state_digest"] = f.state_digest;
    return report;
}

nlohmann::json fillReport(const FillFacts& f) {
    nlohmann::json report = {{"width", f.width},
                             {"height", f.height},
                             {"cell_size_m", f.cell_size},
                             {"outlets", f.outlets},
                             {"fill_volume_m3", f.summary["lake_volume_m3"]},
                             {"filled_cells", f.summary["lake_cells"]},
                             {"deepest_fill_m", f.summary["deepest_lake_m"]},
                             {"unreached_cells", f.unreached},
                             {"seconds", f.seconds},
                             {"device", f.device}};
    // One device's analysis only: the drainage, and the rounds of its fill's loops.
    for (const char* key : {"largest_drainage_area_m2", "fill_rounds"})
        if (f.summary.contains(key)) report[key] = f.summary[key];
    return report;
}

nlohmann::json watertableReport(const WaterTableFacts& f) {
    return {{"width", f.width},
            {"height", f.height},
            {"cell_size_m", f.cell_size},
            {"outlets", f.outlets},
            {"iterations", f.iterations},
            {"cells_still_moving", f.moving},
            {"lake_cells", f.lake_cells},
            {"lake_volume_m3", f.lake_volume},
            {"ocean_cells", f.ocean_cells},
            {"wet_land_cells", f.wet_land},
            {"mean_depth_below_ground_m", f.mean_depth_below},
            {"rivers",
             {{"min_area_m2", f.river_min_area},
              {"min_cells", f.river_min_cells},
              {"river_cells", f.river_cells},
              {"sustained_cells", f.sustained_cells},
              {"dry_cells", f.dry_cells},
              {"dry_end_points", f.dry_end_points}}},
            {"nan_cells", f.nan_cells},
            {"seconds", f.seconds},
            {"device", f.device}};
}

nlohmann::json benchSizeReport(const BenchSize& r) {
    const double cells = double(r.width) * r.height;
    nlohmann::json js;
    js["size"] = std::to_string(r.width) + "x" + std::to_string(r.height);
    js["workgroup"] = gpu::workgroupShapeName(r.shape);
    js["partials_per_group"] = r.partials_per_group;
    js["width"] = r.width;
    js["height"] = r.height;
    js["step_ms"] = r.step_ms;
    js["steps_per_s"] = 1000.0 / r.step_ms;
    js["mcells_per_s"] = cells * (1000.0 / r.step_ms) / 1e6;
    js["copy"] = {
        {"bytes", r.copy.bytes}, {"buffer_gb_per_s", r.copy.buffer_gb_s}, {"image_gb_per_s", r.copy.image_gb_s}};
    auto share = [&](double gb_per_s) { return r.copy.best() > 0.0 ? gb_per_s / r.copy.best() : 0.0; };
    double bytes = 0.0;
    for (size_t p = 0; p < r.names.size(); ++p) {
        const double gbs = r.pass_ms[p] > 0 ? r.pass_bytes[p] * cells / (r.pass_ms[p] * 1e6) : 0.0;
        bytes += r.pass_bytes[p];
        js["passes"][r.names[p]] = {{"ms", r.pass_ms[p]},
                                    {"bytes_per_cell", r.pass_bytes[p]},
                                    {"gb_per_s", gbs},
                                    {"share_of_copy", share(gbs)}};
    }
    const double step_gbs = bytes * cells / (r.step_ms * 1e6);
    js["bytes_per_cell"] = bytes;
    js["substeps"] = r.substeps;
    if (r.pipe_steps > 0) js["corrections_carried"] = r.corrections_carried;
    js["gb_per_s"] = step_gbs;
    js["share_of_copy"] = share(step_gbs);
    if (r.phases) js["fluvial_rounds"] = fluvialRounds(r.fluvial);
    if (!r.processes.is_null()) js["processes"] = r.processes;
    if (r.lakes)
        js["lakes"] = {{"host_ms", r.lakes_host_ms},
                       {"closed_lakes", r.lake_stats.closed_lakes},
                       {"closed_lake_area_m2", r.lake_stats.closed_area_m2}};
    return js;
}

void writeReport(const std::string& path, const nlohmann::json& report) {
    writeTextAtomic(path, report.dump(2) + "\n");
}

// A run split over processes (and the water table): its blocks, what their exchanges moved and took (each process's
// own time on the host; the longest of them), and the validation errors of them all.
nlohmann::json splitFacts(const gpu::BlockExchange& b, const gpu::Context& ctx, double run_seconds) {
    const gpu::ExchangeCounters& c = b.counters();
    const double most_seconds = mostOfProcesses(c.seconds), all_errors = validationErrorsOfProcesses(ctx);
    const gpu::BlockGrid& g = b.grid();
    return {{"count", g.count()},
            {"blocks", {g.cols, g.rows}},
            {"band_cells", {g.halo_x, g.halo_y}},
            {"band_swaps", c.swaps}, // one every ALLUVIUM_BAND_STEPS (sub-)steps
            {"sum_gathers", c.gathers},
            {"band_bytes_rank0", c.band_bytes},
            {"sum_bytes_rank0", c.sum_bytes},
            {"droplet_rounds", c.droplet_rounds}, // the particles' hand-overs
            {"droplet_bytes_rank0", c.droplet_bytes},
            {"exchange_seconds_most", most_seconds},
            {"exchange_share", run_seconds > 0.0 ? most_seconds / run_seconds : 0.0},
            {"validation_errors", all_errors}};
}

double validationErrorsOfProcesses(const gpu::Context& ctx) {
    return sumOfProcesses(ctx.validation_errors ? double(ctx.validation_errors->load()) : 0.0);
}

} // namespace alluvium
