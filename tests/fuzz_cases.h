// The parameter fuzz shared by the fuzz ctest (test_fuzz.cpp, in process) and the long-run tool
// (fuzz_main.cpp behind scripts/fuzz, one `alluvium run` process per case): random parameter
// sets within the table's ranges, 30 % of the values exactly at an end of their range, and the
// command line that reproduces a case.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "params.h"
#include "simulation.h"

namespace alluvium::fuzz {

// The table's groups that act in a model (the "grid" group acts in all of them).
inline bool groupActsIn(const std::string& group, int model) {
    if (group == "grid") return true;
    switch (model) {
    case MODEL_PIPE:
        return group == "sources" || group == "flow" || group == "erosion" || group == "transport" ||
               group == "thermal" || group == "evaporation" || group == "groundwater" || group == "sea";
    case MODEL_THERMAL: return group == "thermal model";
    case MODEL_OLSEN: return group == "olsen model" || group == "thermal model"; // talus_fraction, neighbourhood
    case MODEL_PARTICLES: return group == "particles model";
    case MODEL_MUSGRAVE: return group == "musgrave model" || group == "groundwater";
    case MODEL_SIMPLE: return group == "simple model" || group == "groundwater";
    case MODEL_FLUVIAL: return group == "fluvial model" || group == "sea"; // the sea: its base level
    default: return false;
    }
}

struct Case {
    int model = MODEL_PIPE;
    int width = 0, height = 0;
    uint64_t seed = 1; // the procedural terrain and the droplets
    int steps = 200;
    std::vector<std::string> sets; // name=value, exact (%.17g)
};

// What the ctest leaves out to stay within its time on a CPU driver (the long runs of
// scripts/fuzz keep the whole ranges): droplets x lifetime per step at most this many droplet
// iterations (particle_count is lowered to fit). The fluvial model needs no limit: its rounds
// are bounded by the grid (fluvial_flat_rounds is a safety bound of at most 256).
inline constexpr double kCtestDropletIterations = 1e5;

// A value of `info`'s range: 15 % its minimum, 15 % its maximum, else uniform (log-uniform over
// half the draws when the range spans more than two decades above a positive minimum); whole
// numbers for choices and switches.
inline double drawValue(const ParamInfo& info, std::mt19937_64& rng) {
    std::uniform_real_distribution<double> u(0.0, 1.0);
    const double r = u(rng);
    double v;
    if (r < 0.15)
        v = info.min;
    else if (r < 0.30)
        v = info.max;
    else if (info.min > 0.0 && info.max / info.min > 100.0 && u(rng) < 0.5)
        v = std::exp(std::log(info.min) + u(rng) * (std::log(info.max) - std::log(info.min)));
    else
        v = info.min + u(rng) * (info.max - info.min);
    if (info.kind != 'f' || std::string(info.unit) == "steps" || std::string(info.unit) == "droplets" ||
        std::string(info.unit) == "iterations" || std::string(info.unit) == "sweeps")
        v = std::round(v);
    return std::min(std::max(v, info.min), info.max);
}

inline std::string formatExact(double v) {
    char text[40];
    std::snprintf(text, sizeof text, "%.17g", v);
    return text;
}

// A case of `model` on a w x h grid (0: odd sizes drawn from 5..65 a side).
inline Case drawCase(std::mt19937_64& rng, int model, int w, int h, int steps, bool ctest_limits) {
    Case c;
    c.model = model;
    c.steps = steps;
    std::uniform_int_distribution<int> side(2, 32);
    c.width = w > 0 ? w : 2 * side(rng) + 1;
    c.height = h > 0 ? h : 2 * side(rng) + 1;
    c.seed = std::uniform_int_distribution<uint64_t>(1, 999999)(rng);
    double count = -1.0, lifetime = -1.0;
    for (const ParamInfo& info : paramTable()) {
        if (!groupActsIn(info.group, model)) continue;
        const double v = drawValue(info, rng);
        if (std::string(info.name) == "particle_count") count = v;
        if (std::string(info.name) == "particle_lifetime") lifetime = v;
        c.sets.push_back(std::string(info.name) + "=" + formatExact(v));
    }
    if (ctest_limits)
        for (std::string& s : c.sets) {
            if (s.rfind("particle_count=", 0) == 0 && count * lifetime > kCtestDropletIterations)
                s = "particle_count=" + formatExact(std::floor(kCtestDropletIterations / lifetime));
        }
    return c;
}

// The `alluvium run` command line that reproduces a case.
inline std::string commandLine(const Case& c, const std::string& exe, const std::string& out,
                               const std::string& report) {
    std::string cmd = exe + " run --model " + gpu::modelName(c.model) + " --size " + std::to_string(c.width) + "x" +
                      std::to_string(c.height) + " --seed " + std::to_string(c.seed) + " --steps " +
                      std::to_string(c.steps);
    for (const std::string& s : c.sets) cmd += " --set " + s;
    return cmd + " --out " + out + " --report " + report;
}

// What a run's report says, against the fuzz's tolerances: non-finite cells, soil drift and
// the water budget above 1e-5 where the model keeps them (every model but fluvial, whose uplift
// adds rock and whose water is its lakes). A report written to a file has null for NaN, so a
// null where a number belongs is a failure too.
struct Verdict {
    long long nan_cells = 0;
    double drift = 0.0, budget = 0.0; // NaN where the report has none
    bool drift_bad = false, budget_bad = false;
    bool ok() const { return nan_cells == 0 && !drift_bad && !budget_bad; }
};
inline constexpr double kTolerance = 1e-5;

inline Verdict judge(const nlohmann::json& report, int model) {
    Verdict v;
    v.nan_cells = report.value("nan_cells", 0LL);
    const auto& drift = report["soil"]["drift_rel"];
    const auto& budget = report["water"]["budget_error_rel"];
    v.drift = drift.is_number() ? drift.get<double>() : NAN;
    v.budget = budget.is_number() ? budget.get<double>() : NAN;
    const bool keeps = model != MODEL_FLUVIAL;
    v.drift_bad = keeps && !(v.drift <= kTolerance);
    v.budget_bad = keeps && !(v.budget <= kTolerance);
    return v;
}

} // namespace alluvium::fuzz
