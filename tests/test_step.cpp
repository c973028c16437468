// Whole steps: the GPU step against the reference step, and the invariants the design promises
// (water budget, soil conservation, a lake at rest stays at rest, no NaN for any parameters).
#include <cstdio>

#include "gpu_fixture.h"
#include "io/terrain_gen.h"

namespace alluvium::test {
namespace {

using gpu::Field;
using gpu::Pass;

std::unique_ptr<gpu::Simulation> makeSim(const gpu::Context& ctx, const ref::State& s, const gpu::SimParams& p,
                                         gpu::PipePasses passes = gpu::PipePasses::Auto) {
    auto sim = std::make_unique<gpu::Simulation>(ctx, s.w, s.h, passes);
    loadState(*sim, s, p);
    return sim;
}

// The steps the bit-for-bit comparisons run: rain enough to flow and erode within 100 steps, open
// edges (the drained sums), the maps recorded when asked.
gpu::SimParams rainOnOpenEdges(const ref::State& s, bool record_maps) {
    Params params;
    params[Param::rain_rate] = 0.5;
    params[Param::edge_mode] = EDGE_OPEN;
    params[Param::record_maps] = record_maps ? 1 : 0;
    return toSimParams(params, s.w, s.h);
}

long long nonFinite(const std::vector<float>& v) {
    long long n = 0;
    for (float x : v) n += std::isfinite(x) ? 0 : 1;
    return n;
}

class StepTest : public GpuTest {};

// 100 whole steps on the GPU against 100 reference steps from the same start. Float rounding
// (~6e-8 per operation) accumulates over the ~40 dependent operations of a step and 100 steps,
// and is amplified where the flow changes branch (dry/wet thresholds, upwind choice, capacity
// vs sediment). Measured: <= 1.4e-5 of each field's scale (terrain: of its relief). Tolerance
// 1e-4, a factor 7 above that: tight enough that any real difference in a pass fails it.
TEST_F(StepTest, HundredStepsMatchReference) {
    for (auto [w, h] : {std::pair{64, 64}, std::pair{97, 61}})
        for (gpu::PipePasses passes : {gpu::PipePasses::Fused, gpu::PipePasses::Direct}) {
            SCOPED_TRACE(gpu::pipePassesName(passes));
            ref::State s = generatedState(w, h, 7, 4.0);
            Params params;
            params[Param::rain_rate] = 0.5; // mm/s: enough water to flow and erode within 100 steps
            params[Param::edge_mode] = w == 97 ? EDGE_OPEN : EDGE_CLOSED;
            params[Param::record_maps] = 1;
            const gpu::SimParams p = toSimParams(params, w, h);
            auto sim = makeSim(ctx(), s, p, passes);
            ref::Sums sums{};
            for (int i = 0; i < 100; ++i) ref::step(s, p, {}, sums);
            sim->run(100);
            const std::vector<float> b = sim->download(Field::Terrain);
            double relief = 0.0, lo = 1e30, hi = -1e30;
            for (double v : s.terrain) lo = std::min(lo, v), hi = std::max(hi, v);
            relief = hi - lo;
            double max_db = 0.0;
            for (size_t i = 0; i < b.size(); ++i) max_db = std::max(max_db, std::abs(b[i] - s.terrain[i]));
            const double err_d = relativeError(sim->download(Field::Water), s.water);
            // Sediment is exchanged with the float ground height to the bit (see
            // erosion_deposition.comp), so it is exact to the ground's precision: measure its error
            // in ulps of the highest ground.
            const std::vector<float> sed = sim->download(Field::Sediment);
            double max_ds = 0.0;
            for (size_t i = 0; i < sed.size(); ++i) max_ds = std::max(max_ds, std::abs(sed[i] - s.sediment[i]));
            const double ulp_b = std::nextafter(float(hi), INFINITY) - float(hi);
            std::printf("[ step vs reference %dx%d, %s passes ] terrain %.3g of relief, water %.3g, sediment %.3g m "
                        "(%.1f ulps of the ground, %.3g of the sediment's scale)\n",
                        w, h, gpu::pipePassesName(passes), max_db / relief, err_d, max_ds, max_ds / ulp_b,
                        relativeError(sed, s.sediment));
            EXPECT_LE(max_db / relief, 1e-4);
            EXPECT_LE(err_d, 1e-4);
            EXPECT_LE(max_ds, 1e-4 * relief);
            const gpu::Totals t = sim->totals();
            EXPECT_LE(relativeError(t.acc[SLOT_RAIN], sums[SLOT_RAIN]), 1e-5);
            EXPECT_LE(relativeError(t.acc[SLOT_EVAPORATED], sums[SLOT_EVAPORATED]), 1e-3);
            EXPECT_GT(sums[SLOT_ERODED], 0.0);
        }
}

// rain + sources - evaporation - drained = stored_final - stored_initial, over 1,000 steps.
TEST_F(StepTest, WaterBudgetCloses) {
    for (int edge : {EDGE_CLOSED, EDGE_OPEN}) {
        ref::State s = generatedState(80, 56, 3, 4.0);
        Params params;
        params[Param::rain_rate] = 0.2;
        params[Param::evaporation_rate] = 0.01;
        params[Param::edge_mode] = edge;
        auto sim = makeSim(ctx(), s, toSimParams(params, s.w, s.h));
        sim->setSprings({{20.5f, 30.5f, 3.0f, 0.5f}});
        const double area = 16.0;
        sim->run(1000);
        const double stored = sum(sim->download(Field::Water)) * area;
        const gpu::Totals t = sim->totals();
        const double in = t.acc[SLOT_RAIN] + t.acc[SLOT_SPRING];
        const double expected = in - t.acc[SLOT_EVAPORATED] - t.acc[SLOT_DRAINED_WATER];
        const double err = std::abs(stored - expected) / in;
        std::printf("[ water budget, %s edges ] rained %.6g sourced %.6g evaporated %.6g drained %.6g "
                    "stored %.6g: error %.3g\n",
                    edge ? "open" : "closed", t.acc[SLOT_RAIN], t.acc[SLOT_SPRING], t.acc[SLOT_EVAPORATED],
                    t.acc[SLOT_DRAINED_WATER], stored, err);
        EXPECT_LE(err, 1e-5);
        EXPECT_GT(t.acc[SLOT_EVAPORATED], 0.0);
        EXPECT_GT(t.acc[SLOT_SPRING], 0.0);
        if (edge == EDGE_OPEN)
            EXPECT_GT(t.acc[SLOT_DRAINED_WATER], 0.0);
        else
            EXPECT_EQ(t.acc[SLOT_DRAINED_WATER], 0.0);
    }
}

// The fused pass (GPUs) and the direct passes (CPU drivers) run the same functions
// (pipe_erosion.glsl) in different shaders. A driver may contract a multiply and an add into one
// fused multiply-add differently in each shader (NVIDIA's does), so they are held to float
// rounding amplified by 100 steps of flow, as the reference is: 1e-4 of each field's scale. On
// lavapipe they agree to the bit.
TEST_F(StepTest, FusedAndDirectPassesAgree) {
    ref::State s = generatedState(97, 61, 13, 4.0);
    const gpu::SimParams p = rainOnOpenEdges(s, true);
    auto fused = makeSim(ctx(), s, p, gpu::PipePasses::Fused);
    auto direct = makeSim(ctx(), s, p, gpu::PipePasses::Direct);
    fused->run(100);
    direct->run(100);
    int identical = 0;
    for (Field f :
         {Field::Terrain, Field::Water, Field::Sediment, Field::Velocity, Field::Outflow, Field::Wear, Field::Flow}) {
        const std::vector<float> a = fused->download(f), b = direct->download(f);
        identical += a == b ? 1 : 0;
        EXPECT_LE(relativeError(a, toDouble(b)), 1e-4) << gpu::fieldName(f);
    }
    std::printf("[ fused vs direct passes, 100 steps ] %d of 7 fields bit-identical\n", identical);
    EXPECT_LE(relativeError(fused->totals().acc[SLOT_ERODED], direct->totals().acc[SLOT_ERODED]), 1e-4);
}

// A grid split over several images (4-channel fields as two rg32f images each, which a lowered
// allocation limit forces here as 16384^2 forces it on an NVIDIA GPU) behaves exactly like one
// image: the same shaders, another layout of the same bits. 100 steps compared bit for bit.
TEST_F(StepTest, SplitLayoutIsBitIdentical) {
    ref::State s = generatedState(97, 61, 17, 4.0);
    const gpu::SimParams p = rainOnOpenEdges(s, false);
    for (gpu::PipePasses passes : {gpu::PipePasses::Fused, gpu::PipePasses::Direct}) {
        SCOPED_TRACE(gpu::pipePassesName(passes));
        gpu::Context low = ctx(); // shares the device; only the limit differs
        low.max_allocation_bytes = uint64_t(s.w) * uint64_t(s.h) * 16u;
        ASSERT_TRUE(gpu::splitsWideFields(low, s.w, s.h));
        ASSERT_FALSE(gpu::splitsWideFields(ctx(), s.w, s.h));
        auto split = makeSim(low, s, p, passes);
        auto whole = makeSim(ctx(), s, p, passes);
        ASSERT_TRUE(split->splitWide());
        split->run(100);
        whole->run(100);
        for (Field f : {Field::Terrain, Field::Water, Field::Sediment, Field::Velocity, Field::Outflow})
            EXPECT_TRUE(split->download(f) == whole->download(f)) << gpu::fieldName(f);
        EXPECT_EQ(split->totals().acc[SLOT_ERODED], whole->totals().acc[SLOT_ERODED]);
    }
}

// Steps recorded back to back leave each one's sediment correction to the next step's erosion
// (gpu/pipe.cpp); a step recorded alone corrects in its own pass. Both give the same bits: 60
// steps in batches (the run's batches of 8) against 60 submissions of one step, in both forms.
TEST_F(StepTest, CarriedCorrectionIsBitIdentical) {
    ref::State s = generatedState(97, 61, 19, 4.0);
    const gpu::SimParams p = rainOnOpenEdges(s, true);
    for (gpu::PipePasses passes : {gpu::PipePasses::Fused, gpu::PipePasses::Direct}) {
        SCOPED_TRACE(gpu::pipePassesName(passes));
        auto batched = makeSim(ctx(), s, p, passes);
        auto single = makeSim(ctx(), s, p, passes);
        batched->run(60);
        for (int i = 0; i < 60; ++i) single->run(1);
        EXPECT_GE(batched->correctionsCarried(), 50); // 7 of every 8
        EXPECT_EQ(single->correctionsCarried(), 0);
        const gpu::Totals a = batched->totals(), b = single->totals();
        EXPECT_NE(a.sediment_scale, 1.0f); // a correction to carry
        for (Field f : {Field::Terrain, Field::Water, Field::Sediment, Field::Velocity, Field::Outflow, Field::Wear})
            EXPECT_TRUE(batched->download(f) == single->download(f)) << gpu::fieldName(f);
        for (int slot = 0; slot < TOTAL_SLOTS; ++slot) EXPECT_EQ(a.acc[slot], b.acc[slot]) << "slot " << slot;
        EXPECT_EQ(a.sediment_scale, b.sediment_scale);
    }
}

// Erosion/deposition and thermal erosion move soil between ground and water or between cells;
// terrain + suspended sediment is unchanged up to float rounding (n cells * a few ulps). The
// transport is off here (its global correction is tested on its own).
TEST_F(StepTest, ErosionAndThermalConserveSoil) {
    for (gpu::PipePasses passes : {gpu::PipePasses::Fused, gpu::PipePasses::Direct})
        for (uint32_t seed : {1u, 2u, 3u}) {
            SCOPED_TRACE(gpu::pipePassesName(passes));
            ref::State s = randomState(97, 61, seed);
            for (bool thermal : {false, true}) {
                gpu::SimParams p = defaultParams(s.w, s.h);
                p.enable_transport = 0;
                p.enable_erosion = thermal ? 0 : 1;
                p.enable_thermal = thermal ? 1 : 0;
                auto sim = makeSim(ctx(), s, p, passes);
                sim->upload(Field::WaterMid, toFloat(s.water));
                const double before = sum(sim->download(Field::Terrain)) + sum(sim->download(Field::Sediment));
                for (Pass pass : sim->stepPasses())
                    if (pass != Pass::SourcesFlux && pass != Pass::WaterVelocity && pass != Pass::ReducePartials)
                        sim->runPass(pass);
                const std::vector<float> b = sim->download(Field::Terrain, true);
                const double after = sum(b) + sum(sim->download(Field::Sediment, true));
                // Rounding: each cell's b (about 8 m) and s change by a rounded amount.
                const double ulp_bound = double(b.size()) * 8.0 * 6e-8 * 2.0;
                EXPECT_LE(std::abs(after - before), ulp_bound) << (thermal ? "thermal" : "erosion/deposition");
                if (!thermal) {
                    EXPECT_GT(sim->totals().acc[SLOT_ERODED], 0.0);
                    EXPECT_GT(sim->totals().acc[SLOT_DEPOSITED], 0.0);
                } else {
                    double moved = 0.0;
                    for (size_t i = 0; i < b.size(); ++i) moved += std::abs(b[i] - float(s.terrain[i]));
                    EXPECT_GT(moved, 1.0) << "thermal moved nothing: the test would be vacuous";
                }
            }
        }
}

// A pipe step of dt with n CFL sub-steps is exactly n steps of dt / n, bit for bit.
TEST_F(StepTest, SubstepsAreStepsOfAShorterTimeStep) {
    ref::State s = generatedState(61, 47, 19, 4.0);
    Params params;
    params[Param::rain_rate] = 2.0;
    params[Param::time_step] = 0.3;
    params[Param::edge_mode] = EDGE_OPEN;
    const gpu::SimParams p = toSimParams(params, s.w, s.h);
    gpu::SimParams p_sub = p;
    p_sub.time_step = p.time_step / 3.0f; // what the sub-steps' shaders see
    auto stepped = makeSim(ctx(), s, p);
    auto fine = makeSim(ctx(), s, p_sub);
    stepped->setSubsteps(3);
    for (auto [sim, steps] : {std::pair{stepped.get(), 10}, std::pair{fine.get(), 30}}) {
        VkCommandBuffer cmd = gpu::beginOneShot(ctx());
        sim->recordUpdates(cmd);
        for (int i = 0; i < steps; ++i) sim->recordStep(cmd);
        gpu::endOneShot(ctx(), cmd);
    }
    EXPECT_EQ(stepped->substepsTaken(), 30);
    for (Field f : {Field::Terrain, Field::Water, Field::Sediment, Field::Velocity, Field::Outflow})
        EXPECT_TRUE(stepped->download(f) == fine->download(f)) << gpu::fieldName(f);
    EXPECT_EQ(stepped->totals().acc[SLOT_RAIN], fine->totals().acc[SLOT_RAIN]);
}

// Deep, fast water at the longest time step the table allows on small cells: the sub-steps keep
// (|v| + sqrt(g d)) dt / L at the target once they adapt (from the first block of steps on), the
// velocity cap L / dt never binds, nothing turns non-finite and the water budget closes. The
// sub-steps are chosen per block of steps, so splitting the run differently changes nothing.
TEST_F(StepTest, CflSubstepsKeepTheLongestTimeStepStable) {
    const int w = 96, h = 40;
    ref::State s(w, h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const size_t i = s.index(x, y);
            s.terrain[i] = 0.02 * x;             // a gentle slope
            s.water[i] = x < w / 3 ? 20.0 : 0.5; // a 20 m deep dam about to break
            s.hardness[i] = 0.5;
        }
    Params params;
    params[Param::cell_size] = 1.0;
    params[Param::time_step] = 0.5; // the table's longest: a CFL of ~7 without sub-steps
    params[Param::edge_mode] = EDGE_CLOSED;
    params[Param::rain_rate] = 0.0;
    params[Param::evaporation_rate] = 0.0;
    const gpu::SimParams p = toSimParams(params, w, h);
    auto whole = makeSim(ctx(), s, p);
    auto split = makeSim(ctx(), s, p);
    const double water_before = sum(whole->download(Field::Water));
    whole->run(80);
    split->run(29);
    split->run(51);
    const gpu::Totals after = whole->totals();
    const double cfl_without = std::sqrt(9.81 * 20.0) * 0.5 / 1.0;
    std::printf("[ CFL, dt 0.5 s on 1 m cells, a 20 m dam ] without sub-steps %.1f at rest; with them max %.3f, up "
                "to %d sub-steps, %lld in 80 steps; max speed %.2f m/s (Ritter's front: %.1f)\n",
                cfl_without, double(after.max_cfl), whole->maxSubsteps(), whole->substepsTaken(),
                double(after.max_speed), 2.0 * std::sqrt(9.81 * 20.0));
    // The sub-steps follow the step before, so a flow that accelerates within one step runs that
    // step above the target: the dam released at rest goes from sqrt(g h) to about 2 sqrt(g h)
    // in its first step, twice the target (measured: 1.04). After that they keep up.
    EXPECT_LE(after.max_cfl, 1.1);
    EXPECT_GE(whole->maxSubsteps(), 14);
    const std::vector<float> water = whole->download(Field::Water);
    EXPECT_EQ(nonFinite(water), 0);
    EXPECT_LE(std::abs(sum(water) - water_before) / water_before, 1e-5);
    const std::vector<float> v = whole->download(Field::Velocity);
    const double cap = 1.0 / (0.5 / whole->substeps());
    for (size_t i = 0; i < v.size(); i += 2) ASSERT_LT(std::hypot(v[i], v[i + 1]), 0.99 * cap) << "the cap binds";
    for (Field f : {Field::Terrain, Field::Water, Field::Sediment, Field::Velocity, Field::Outflow})
        EXPECT_TRUE(whole->download(f) == split->download(f)) << gpu::fieldName(f) << ": batches changed the result";

    gpu::Totals t = whole->totals();
    t.max_cfl = 0.0f;
    whole->setTotals(t);
    whole->run(40);
    std::printf("[ CFL, the same dam 80 steps on ] max %.3f\n", double(whole->totals().max_cfl));
    EXPECT_LE(whole->totals().max_cfl, 0.55);
}

// A lake on an uneven bed with islands, surface level and at rest: nothing may move.
TEST_F(StepTest, LakeAtRestStaysAtRest) {
    const int w = 72, h = 56;
    ref::State s(w, h);
    std::mt19937 rng(11);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    const double level = 10.0;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            // Rough bed, quantised to 1/1024 m so that bed + depth is exactly the level in float.
            double b = 4.0 + 2.0 * std::sin(x * 0.3) * std::cos(y * 0.2) + u(rng);
            const double r1 = std::hypot(x - 20.0, y - 20.0), r2 = std::hypot(x - 50.0, y - 35.0);
            if (r1 < 6.0) b = 12.0 - r1 * 0.2; // islands above the surface
            if (r2 < 4.0) b = 11.0 + u(rng);
            b = std::round(b * 1024.0) / 1024.0;
            const size_t i = s.index(x, y);
            s.terrain[i] = b;
            s.water[i] = std::max(0.0, level - b);
        }
    Params params;
    params[Param::rain_rate] = 0.0;
    params[Param::evaporation_rate] = 0.0;
    params[Param::enable_thermal] = 0.0; // the islands' flanks are steeper than the talus angle
    params[Param::edge_mode] = EDGE_CLOSED;
    auto sim = makeSim(ctx(), s, toSimParams(params, w, h));
    sim->run(1000);
    const std::vector<float> v = sim->download(Field::Velocity);
    double max_speed = 0.0;
    for (size_t i = 0; i < v.size(); i += 2) max_speed = std::max(max_speed, double(std::hypot(v[i], v[i + 1])));
    std::printf("[ lake at rest ] max speed after 1000 steps: %.3g m/s\n", max_speed);
    EXPECT_LT(max_speed, 1e-6);
    EXPECT_LT(double(sim->totals().max_speed), 1e-6);
}

// Soil (terrain + suspended sediment) on closed edges over 10,000 default steps on 48x48: the
// corrected semi-Lagrangian transport keeps it to 1e-5 relative.
TEST_F(StepTest, SoilConservedOverTenThousandSteps) {
    ref::State s = generatedState(48, 48, 5, 4.0);
    Params params;
    params[Param::rain_rate] = 0.2;
    params[Param::edge_mode] = EDGE_CLOSED;
    auto sim = makeSim(ctx(), s, toSimParams(params, s.w, s.h));
    const double before = sum(sim->download(Field::Terrain)) + sum(sim->download(Field::Sediment));
    sim->run(10000);
    const std::vector<float> b = sim->download(Field::Terrain);
    const double after = sum(b) + sum(sim->download(Field::Sediment));
    const gpu::Totals t = sim->totals();
    const double drift = std::abs(after - before) / std::abs(before);
    double changed = 0.0;
    for (size_t i = 0; i < b.size(); ++i) changed += std::abs(b[i] - s.terrain[i]);
    std::printf("[ soil over 10000 steps ] drift %.3g, eroded %.4g m^3, deposited %.4g m^3, "
                "transport correction %.3g of the suspended sediment per step, mean |dz| %.3g m\n",
                drift, t.acc[SLOT_ERODED], t.acc[SLOT_DEPOSITED],
                t.acc[TOTAL_CORRECTION_ABS] / std::max(t.acc[SLOT_SED_AFTER], 1e-30), changed / double(b.size()));
    EXPECT_LE(drift, 1e-5);
    EXPECT_GT(t.acc[SLOT_ERODED], 0.0);
    EXPECT_EQ(nonFinite(b), 0);
}

// 40 parameter sets drawn uniformly within the table's ranges, 100 steps each on 48x44:
// no NaN or Inf in any field (Models/FuzzTest draws more, per model). In four shards of 10 sets
// (the same 40 draws), which ctest runs side by side.
class RandomParametersTest : public GpuTest, public ::testing::WithParamInterface<int> {};

TEST_P(RandomParametersTest, NeverBlowUp) {
    // 100 steps: an unstable set's growth shows within tens of steps; scripts/fuzz runs long ones.
    constexpr int kSets = 40, kShards = 4, kSteps = 100;
    const int shard = GetParam();
    ref::State s = generatedState(48, 44, 9, 4.0);
    auto sim = makeSim(ctx(), s, defaultParams(48, 44));
    // One pipeline per pass with every part (the parameters tested as it runs): the sets' parts
    // differ nearly every time, and building passes for each would be most of the test's time
    // (test_step_parts proves both forms give the same bits).
    sim->setPassesWithParts(false);
    std::mt19937 rng(2024);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    for (int set = 0; set < kSets; ++set) {
        Params params;
        std::string desc;
        for (int i = 0; i < kParamCount; ++i) {
            const ParamInfo& info = paramTable()[size_t(i)];
            double v = info.min + u(rng) * (info.max - info.min);
            if (info.kind != 'f') v = std::round(v);
            params.values[size_t(i)] = v;
            desc += std::string(info.name) + "=" + std::to_string(v) + " ";
        }
        if (set * kShards / kSets != shard) continue; // drawn all the same: the sets stay those of one stream
        loadState(*sim, s, toSimParams(params, 48, 44));
        sim->run(kSteps);
        long long bad = 0;
        for (Field f : {Field::Terrain, Field::Water, Field::Sediment, Field::Velocity, Field::Outflow, Field::Loose})
            bad += nonFinite(sim->download(f));
        ASSERT_EQ(bad, 0) << "set " << set << ": " << desc;
        ASSERT_TRUE(std::isfinite(sim->totals().acc[SLOT_RAIN]));
    }
}

INSTANTIATE_TEST_SUITE_P(Shards, RandomParametersTest, ::testing::Range(0, 4));

} // namespace
} // namespace alluvium::test
