// Shared by the GPU tests: one Vulkan context for the test program (validation layer on when
// installed), a fixture that fails any test during which the layer reported an error, and
// conversions between the reference's double fields and the GPU's float images.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "context.h"
#include "io/terrain_gen.h"
#include "params.h"
#include "reference.h"
#include "simulation.h"
#include "vk_check.h"

namespace alluvium::test {

// Created once. No device is a failure, never a skip.
inline gpu::Context& context() {
    static std::unique_ptr<gpu::Context> ctx;
    static std::string failure;
    if (!ctx && failure.empty()) {
        auto c = std::make_unique<gpu::Context>();
        gpu::ContextOptions options;
        options.validation = true;
        options.verbose = false;
        try {
            gpu::createContext(*c, options);
            ctx = std::move(c);
        } catch (const std::exception& e) {
            failure = e.what();
        }
    }
    if (!ctx) {
        ADD_FAILURE() << "no Vulkan device: " << failure;
        throw std::runtime_error("no Vulkan device: " + failure);
    }
    return *ctx;
}

class GpuTest : public ::testing::Test {
protected:
    void SetUp() override {
        gpu::Context& ctx = context();
        errors_before_ = ctx.validation_errors ? ctx.validation_errors->load() : 0;
    }
    void TearDown() override {
        gpu::Context& ctx = context();
        const int errors = ctx.validation_errors ? ctx.validation_errors->load() : 0;
        EXPECT_EQ(errors - errors_before_, 0) << "Vulkan validation errors during the test";
    }
    gpu::Context& ctx() { return context(); }
    // A simulation on ground `z` (both terrain images) with parameters `p`.
    std::unique_ptr<gpu::Simulation> make(const std::vector<float>& z, int w, int h, const gpu::SimParams& p) {
        auto sim = std::make_unique<gpu::Simulation>(ctx(), w, h);
        sim->upload(gpu::Field::Terrain, z);
        sim->upload(gpu::Field::Terrain, z, true);
        sim->setParams(p);
        return sim;
    }

private:
    int errors_before_ = 0;
};

inline std::vector<float> toFloat(const std::vector<double>& v) {
    std::vector<float> out(v.size());
    for (size_t i = 0; i < v.size(); ++i) out[i] = static_cast<float>(v[i]);
    return out;
}

template <size_t N> std::vector<float> toFloat(const std::vector<std::array<double, N>>& v) {
    std::vector<float> out(v.size() * N);
    for (size_t i = 0; i < v.size(); ++i)
        for (size_t k = 0; k < N; ++k) out[i * N + k] = static_cast<float>(v[i][k]);
    return out;
}

inline std::vector<double> toDouble(const std::vector<float>& v) { return std::vector<double>(v.begin(), v.end()); }

template <size_t N> std::vector<std::array<double, N>> toDoubleN(const std::vector<float>& v) {
    std::vector<std::array<double, N>> out(v.size() / N);
    for (size_t i = 0; i < out.size(); ++i)
        for (size_t k = 0; k < N; ++k) out[i][k] = v[i * N + k];
    return out;
}

template <size_t N> std::vector<double> flatten(const std::vector<std::array<double, N>>& v) {
    std::vector<double> out;
    out.reserve(v.size() * N);
    for (const auto& a : v) out.insert(out.end(), a.begin(), a.end());
    return out;
}

// max |gpu - ref| / max |ref| (the field's scale); 0 when both are zero everywhere.
inline double relativeError(const std::vector<float>& gpu, const std::vector<double>& ref) {
    EXPECT_EQ(gpu.size(), ref.size());
    double scale = 0.0, err = 0.0;
    for (size_t i = 0; i < ref.size() && i < gpu.size(); ++i) {
        scale = std::max(scale, std::abs(ref[i]));
        if (!std::isfinite(gpu[i])) return INFINITY;
        err = std::max(err, std::abs(double(gpu[i]) - ref[i]));
    }
    if (scale == 0.0) return err == 0.0 ? 0.0 : INFINITY;
    return err / scale;
}

// The loose layer (layered ground) against its twin: it is a difference of ground heights, so
// its error is that of the ground, not of its own size: the largest difference over the largest
// ground height (compare with the ground's own tolerance).
inline double looseErrorOverGround(const std::vector<float>& gpu, const std::vector<double>& ref,
                                   const std::vector<double>& ground) {
    double top = 0.0, err = 0.0;
    for (double g : ground) top = std::max(top, std::abs(g));
    for (size_t i = 0; i < ref.size() && i < gpu.size(); ++i) {
        if (!std::isfinite(gpu[i])) return INFINITY;
        err = std::max(err, std::abs(double(gpu[i]) - ref[i]));
    }
    return top > 0.0 ? err / top : err;
}

inline double relativeError(double gpu, double ref) {
    if (ref == 0.0) return gpu == 0.0 ? 0.0 : std::abs(gpu);
    return std::abs(gpu - ref) / std::abs(ref);
}

// Puts a reference state into a GPU simulation (both halves of each ping-pong pair), with its
// parameters, and zeroes the run's totals.
inline void loadState(gpu::Simulation& sim, const ref::State& s, const gpu::SimParams& p) {
    using gpu::Field;
    for (bool next : {false, true}) {
        sim.upload(Field::Terrain, toFloat(s.terrain), next);
        sim.upload(Field::Water, toFloat(s.water), next);
        sim.upload(Field::Sediment, toFloat(s.sediment), next);
        sim.upload(Field::Outflow, toFloat(s.outflow), next);
        sim.upload(Field::Loose, toFloat(s.loose), next);
        sim.upload(Field::Snow, toFloat(s.snow), next);
        sim.upload(Field::Lava, toFloat(s.lava), next);
    }
    sim.upload(Field::Velocity, toFloat(s.velocity));
    sim.upload(Field::Hardness, toFloat(s.hardness));
    sim.upload(Field::RainMask, toFloat(s.rain_mask));
    sim.upload(Field::Vegetation, toFloat(s.vegetation));
    sim.setParams(p);
    sim.resetTotals();
}

// Water alone, for the flow's analytic tests: no rain or evaporation, no erosion, thermal
// erosion or transport, closed edges.
inline Params waterOnlyParams(double cell_size, double time_step) {
    Params params;
    params[Param::cell_size] = cell_size;
    params[Param::time_step] = time_step;
    params[Param::rain_rate] = 0.0;
    params[Param::evaporation_rate] = 0.0;
    params[Param::enable_erosion] = 0.0;
    params[Param::enable_thermal] = 0.0;
    params[Param::enable_transport] = 0.0;
    params[Param::edge_mode] = EDGE_CLOSED;
    return params;
}

// A GPU simulation holding a reference state (loadState).
inline std::unique_ptr<gpu::Simulation> simulationOf(const gpu::Context& ctx, const ref::State& s,
                                                     const gpu::SimParams& p) {
    auto sim = std::make_unique<gpu::Simulation>(ctx, s.w, s.h);
    loadState(*sim, s, p);
    return sim;
}

// Channel k of a two-channel field: as the GPU downloads it, and as the reference holds it.
inline std::vector<float> channel(const std::vector<float>& v, int k) {
    std::vector<float> out(v.size() / 2);
    for (size_t i = 0; i < out.size(); ++i) out[i] = v[2 * i + size_t(k)];
    return out;
}
inline std::vector<double> channel(const std::vector<ref::Vec2>& v, int k) {
    std::vector<double> out(v.size());
    for (size_t i = 0; i < out.size(); ++i) out[i] = v[i][size_t(k)];
    return out;
}

// Sum in double precision.
inline double sum(const std::vector<float>& v) {
    double t = 0.0;
    for (float x : v) t += x;
    return t;
}

// Rounds a reference state to float, as the GPU holds it, so both start from the same values.
inline void roundToFloat(ref::State& s) {
    auto r = [](std::vector<double>& v) {
        for (double& x : v) x = static_cast<float>(x);
    };
    r(s.terrain), r(s.water), r(s.sediment), r(s.hardness), r(s.rain_mask), r(s.loose), r(s.snow);
    for (auto& a : s.outflow)
        for (double& x : a) x = static_cast<float>(x);
    for (auto& a : s.velocity)
        for (double& x : a) x = static_cast<float>(x);
    for (auto& a : s.vegetation)
        for (double& x : a) x = static_cast<float>(x);
    for (auto& a : s.lava)
        for (double& x : a) x = static_cast<float>(x);
    for (auto& a : s.thermal_axis)
        for (double& x : a) x = static_cast<float>(x);
    for (auto& a : s.thermal_diag)
        for (double& x : a) x = static_cast<float>(x);
}

// Random but physically plausible fields: rough ground, water with dry patches, some sediment.
inline ref::State randomState(int w, int h, uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    ref::State s(w, h);
    for (size_t i = 0; i < s.terrain.size(); ++i) {
        s.terrain[i] = 5.0 + 3.0 * u(rng);
        s.water[i] = u(rng) < 0.2 ? 0.0 : 0.8 * u(rng);
        s.sediment[i] = 0.02 * u(rng);
        s.hardness[i] = u(rng);
        s.rain_mask[i] = u(rng);
        s.outflow[i] = {2.0 * u(rng), 2.0 * u(rng), 2.0 * u(rng), 2.0 * u(rng)};
        s.velocity[i] = {4.0 * u(rng) - 2.0, 4.0 * u(rng) - 2.0};
    }
    // A loose layer (read only on layered ground), patchy and thin enough that steps use it up,
    // from its own generator: the other fields stay those of earlier seeds.
    std::mt19937 loose_rng(seed ^ 0x5eed1005u);
    for (double& l : s.loose) l = u(loose_rng) < 0.3 ? 0.0 : 0.05 * u(loose_rng);
    // Vegetation (read only while it is on), also from its own generator.
    std::mt19937 plant_rng(seed ^ 0x9a55u);
    for (auto& v : s.vegetation) v = {u(plant_rng) < 0.3 ? 0.0 : u(plant_rng), 0.01 * u(plant_rng)};
    roundToFloat(s);
    return s;
}

// The procedural terrain (ground and hardness) of `run --size WxH --seed N` as a reference state
// (no water, sediment or flow).
inline ref::State generatedState(int w, int h, uint64_t seed, double cell_size) {
    GeneratedTerrain g = generateTerrain(w, h, seed, cell_size);
    ref::State s(w, h);
    for (size_t i = 0; i < s.terrain.size(); ++i) {
        s.terrain[i] = g.terrain.heights[i];
        s.hardness[i] = g.hardness[i];
    }
    return s;
}

// Default table values in SI, for a grid of w x h.
inline gpu::SimParams defaultParams(int w, int h) {
    Params params;
    params[Param::cell_size] = 1.0;
    return toSimParams(params, w, h);
}

struct GridCase {
    int w, h;
};
inline const std::vector<GridCase>& gridCases() {
    static const std::vector<GridCase> cases = {{64, 64}, {97, 61}, {1, 50}, {50, 1}};
    return cases;
}

// A pass against its twin: every grid case with random fields of seeds 1, 2 and 3.
struct PassCase {
    GridCase grid;
    uint32_t seed;
};

inline std::string passCaseName(const ::testing::TestParamInfo<PassCase>& info) {
    return std::to_string(info.param.grid.w) + "x" + std::to_string(info.param.grid.h) + "_seed" +
           std::to_string(info.param.seed);
}

inline std::vector<PassCase> passCases() {
    std::vector<PassCase> cases;
    for (const GridCase& g : gridCases())
        for (uint32_t seed : {1u, 2u, 3u}) cases.push_back({g, seed});
    return cases;
}

} // namespace alluvium::test
