// Each GPU pass against its double-precision reference on random fields: 3 seeds, grids 64x64,
// 97x61, 1x50 and 50x1, closed edges for even seeds and open for odd. Max relative error
// (max |gpu - ref| over max |ref| of the field) <= 1e-5. And the fold of the step's sums against
// a CPU sum on grids whose partials span several levels.
#include <cstdio>
#include <map>

#include "gpu_fixture.h"
#include "test_util.h"

namespace alluvium::test {
namespace {

constexpr double kTolerance = 1e-5;
using gpu::Field;
using gpu::Pass;

class PassTest : public GpuTest, public ::testing::WithParamInterface<PassCase> {
protected:
    void SetUp() override {
        GpuTest::SetUp();
        const PassCase& c = GetParam();
        w = c.grid.w;
        h = c.grid.h;
        state = randomState(w, h, c.seed);
        params = defaultParams(w, h);
        params.edge_mode = c.seed % 2 ? EDGE_OPEN : EDGE_CLOSED;
        sim = std::make_unique<gpu::Simulation>(ctx(), w, h);
        sim->setParams(params);
        sim->resetTotals();
    }
    void TearDown() override {
        sim.reset();
        GpuTest::TearDown();
    }
    // Compares a GPU total (m^3) with the reference's.
    void expectTotal(int slot, const ref::Sums& sums) {
        const double gpu = sim->totals().acc[slot];
        const double want = sums[static_cast<size_t>(slot)];
        EXPECT_LE(relativeError(gpu, want), kTolerance) << "slot " << slot << ": gpu " << gpu << " ref " << want;
    }
    int w = 0, h = 0;
    ref::State state;
    gpu::SimParams params{};
    std::unique_ptr<gpu::Simulation> sim;
};

const std::vector<ref::Spring> kSprings = {{20.5, 30.25, 3.0, 0.7}, {40.75, 10.5, 1.5, 2.0}};

std::vector<gpu::Spring> gpuSprings(const std::vector<ref::Spring>& springs) {
    std::vector<gpu::Spring> out;
    for (const auto& s : springs) out.push_back({float(s.x), float(s.y), float(s.radius), float(s.rate_per_cell)});
    return out;
}

// Pass 1: the outflow after this step's rain (random mask) and springs.
TEST_P(PassTest, SourcesFlux) {
    sim->setSprings(gpuSprings(kSprings));
    sim->upload(Field::Terrain, toFloat(state.terrain));
    sim->upload(Field::Water, toFloat(state.water));
    sim->upload(Field::Outflow, toFloat(state.outflow));
    sim->upload(Field::RainMask, toFloat(state.rain_mask));
    sim->runPass(Pass::SourcesFlux);
    const std::vector<ref::Vec4> want = ref::sourcesFlux(state, params, kSprings);
    EXPECT_LE(relativeError(sim->download(Field::Outflow, true), flatten(want)), kTolerance);
}

// Pass 2: sources (counted), water update and velocity, the flow map, and their sums.
TEST_P(PassTest, WaterVelocity) {
    params.record_maps = 1;
    sim->setParams(params);
    sim->setSprings(gpuSprings(kSprings));
    sim->upload(Field::Water, toFloat(state.water));
    sim->upload(Field::Outflow, toFloat(state.outflow), true);
    sim->upload(Field::RainMask, toFloat(state.rain_mask));
    sim->runPass(Pass::WaterVelocity);
    sim->runPass(Pass::ReduceTotals); // the whole fold
    ref::Sums sums{};
    ref::State want = state;
    ref::waterVelocity(want, state.outflow, params, kSprings, sums);
    EXPECT_LE(relativeError(sim->download(Field::WaterMid), want.water), kTolerance);
    EXPECT_LE(relativeError(sim->download(Field::Velocity), flatten(want.velocity)), kTolerance);
    EXPECT_LE(relativeError(sim->download(Field::Flow), want.flow), kTolerance);
    EXPECT_LE(relativeError(double(sim->totals().max_speed), sums[SLOT_MAX_SPEED]), kTolerance);
    EXPECT_LE(relativeError(double(sim->totals().step_wave), sums[SLOT_MAX_WAVE]), kTolerance);
    EXPECT_LE(relativeError(double(sim->totals().max_froude), sums[SLOT_MAX_FROUDE]), kTolerance);
    for (int slot : {SLOT_RAIN, SLOT_SPRING, SLOT_DRAINED_WATER}) expectTotal(slot, sums);
    if (w >= 40 && h >= 40) {
        EXPECT_GT(sums[SLOT_SPRING], 0.0);
    }
}

// Pass 3 (fused, and the three direct passes of CPU drivers) and pass 4: erosion/deposition,
// transport, thermal erosion, evaporation, the fold of the sums and the sediment correction.
TEST_P(PassTest, ErosionTransportThermalEvaporation) {
    params.time_step = 0.35f; // displacements up to ~1 cell, so the bilinear stencil is exercised
    params.record_maps = 1;
    params.enable_layers = GetParam().seed == 3 ? 1 : 0; // seed 3 on layered ground (randomState's loose layer)
    for (gpu::PipePasses variant : {gpu::PipePasses::Fused, gpu::PipePasses::Direct}) {
        SCOPED_TRACE(gpu::pipePassesName(variant));
        sim = std::make_unique<gpu::Simulation>(ctx(), w, h, variant);
        sim->setParams(params);
        sim->resetTotals();
        sim->upload(Field::Terrain, toFloat(state.terrain));
        sim->upload(Field::Sediment, toFloat(state.sediment));
        sim->upload(Field::Velocity, toFloat(state.velocity));
        sim->upload(Field::WaterMid, toFloat(state.water));
        sim->upload(Field::Hardness, toFloat(state.hardness));
        sim->upload(Field::Loose, toFloat(state.loose));
        sim->upload(Field::Outflow, toFloat(state.outflow), true);
        for (Pass pass : sim->stepPasses())
            if (pass != Pass::SourcesFlux && pass != Pass::WaterVelocity && pass != Pass::ReducePartials)
                sim->runPass(pass); // ReduceTotals runs the whole fold
        ref::Sums sums{};
        ref::State want = state;
        ref::erosionTransportThermalEvaporation(want, params, sums);
        const double scale = ref::sedimentScale(sums);
        for (double& v : want.sediment) v *= scale;

        // Terrain: float rounding of the eroded ground shifts the thermal excesses by an ulp.
        EXPECT_LE(relativeError(sim->download(Field::Terrain, true), want.terrain), kTolerance);
        EXPECT_LE(relativeError(sim->download(Field::Water, true), want.water), kTolerance);
        if (params.enable_layers) {
            EXPECT_LE(looseErrorOverGround(sim->download(Field::Loose, true), want.loose, want.terrain), 1e-5);
            EXPECT_NE(want.loose, state.loose) << "the loose layer never changed: vacuous";
        }
        // The sediment receives exactly the change of the float ground height (so b + s is
        // conserved to the bit): where the GPU's float e and the reference's double e round b
        // to neighbouring floats, s differs by one ulp of b. So: 1e-5 of the field plus one ulp
        // of b (times the correction, about 1).
        double b_max = 0.0;
        for (double b : want.terrain) b_max = std::max(b_max, std::abs(b));
        const double ulp_b = std::nextafter(float(b_max), INFINITY) - float(b_max);
        auto expectWithinUlp = [&](const std::vector<float>& gpu, const std::vector<double>& ref, const char* what) {
            double field_scale = 0.0, err = 0.0;
            for (size_t i = 0; i < gpu.size(); ++i) {
                field_scale = std::max(field_scale, std::abs(ref[i]));
                err = std::max(err, std::abs(gpu[i] - ref[i]));
            }
            EXPECT_GT(field_scale, 0.0) << what;
            EXPECT_LE(err, kTolerance * field_scale + 1.01 * ulp_b) << what;
        };
        expectWithinUlp(sim->download(Field::Sediment, true), want.sediment, "sediment");
        expectWithinUlp(sim->download(Field::Wear), flatten(want.wear), "wear");
        const gpu::Totals t = sim->totals();
        EXPECT_LE(relativeError(double(t.sediment_scale), scale), kTolerance);
        for (int slot : {SLOT_EVAPORATED, SLOT_SED_DRAINED}) expectTotal(slot, sums);
        const double cells = double(w) * h;
        for (int slot : {SLOT_ERODED, SLOT_DEPOSITED})
            EXPECT_LE(std::abs(t.acc[slot] - sums[size_t(slot)]),
                      kTolerance * sums[size_t(slot)] + ulp_b * std::sqrt(cells) * 3.0)
                << "slot " << slot;
        if (params.edge_mode == EDGE_OPEN) {
            EXPECT_GT(sums[SLOT_SED_DRAINED], 0.0);
        }
    }
}

INSTANTIATE_TEST_SUITE_P(RandomFields, PassTest, ::testing::ValuesIn(passCases()), passCaseName);

class FoldTest : public GpuTest {};

// The fold of the step's sums (a double per workgroup and slot, then reduce_partials levels of
// REDUCE_SIZE down to one, then reduce_totals) against a CPU sum in double and the CPU maximum,
// with values spanning six orders of magnitude, with every workgroup shape the device runs, on
// grids whose partials take (with 16x16 workgroups) one level (1x50: 4 workgroups), two
// (1024x1024: 4096, then 16, then 1; 16384x5, the widest image lavapipe allows: 1024, 4, 1), a
// last block of 2 (4097x17: 514 partials, then 3, then 1) and an odd 333x257; with 64x4, 1x50 is
// 13 workgroups down one column. Both kinds of partials: one per workgroup (GPUs: the levels fold
// with barriers) and one per subgroup, folded per workgroup by reduce_subgroups (CPU drivers: the
// levels fold in one invocation each); both add in the same order, so their totals are the same
// to the bit.
TEST_F(FoldTest, SumWithin1e9AndMaxExactly) {
    std::map<std::string, std::pair<double, float>> by_workgroup; // shape and grid: the sum and the max
    for (const char* partials : {"workgroup", "subgroup"})        // GPUs' partials, CPU drivers' (workgroup.h)
        for (const gpu::WorkgroupShape& shape : gpu::workgroupShapes())
            for (auto [w, h] : {std::pair{1, 50}, std::pair{1024, 1024}, std::pair{16384, 5}, std::pair{4097, 17},
                                std::pair{333, 257}}) {
                if (!gpu::deviceRunsShape(ctx(), shape)) continue;
                if (std::string(partials) == "subgroup" && ctx().properties.deviceType != VK_PHYSICAL_DEVICE_TYPE_CPU)
                    continue; // CPU drivers only (gpu/workgroup.h)
                const ScopedEnv env("ALLUVIUM_PARTIALS", partials);
                SCOPED_TRACE(gpu::workgroupShapeName(shape) + ", partials per " + partials);
                std::mt19937 rng(uint32_t(w * 7919 + h));
                std::uniform_real_distribution<double> u(0.0, 1.0);
                std::vector<float> values(size_t(w) * size_t(h));
                for (float& v : values) v = float(std::pow(10.0, 6.0 * u(rng) - 3.0)); // 1e-3 .. 1e3
                double cpu_sum = 0.0;
                float cpu_max = 0.0f;
                for (float v : values) cpu_sum += v, cpu_max = std::max(cpu_max, v);
                gpu::Simulation sim(ctx(), w, h, gpu::PipePasses::Auto, shape);
                gpu::SimParams params = defaultParams(w, h);
                params.rain_rate = 1.0f; // SLOT_RAIN is produced only when it rains
                sim.setParams(params);
                sim.resetTotals();
                sim.upload(Field::Water, values);
                sim.runPass(Pass::ReduceCheck);
                sim.runPass(Pass::ReduceTotals);
                const gpu::Totals t = sim.totals();
                const std::vector<uint32_t> levels = gpu::foldLevelSizes(w, h, sim.workgroupShape());
                std::printf("[ fold %dx%d, %s, %u per workgroup ] %zu levels (%u partials per slot first): relative "
                            "error %.3g\n",
                            w, h, gpu::workgroupShapeName(shape).c_str(), sim.partialsPerGroup(), levels.size(),
                            levels[0], relativeError(t.acc[SLOT_RAIN], cpu_sum));
                EXPECT_LE(relativeError(t.acc[SLOT_RAIN], cpu_sum), 1e-9) << w << "x" << h;
                EXPECT_EQ(t.max_speed, cpu_max) << w << "x" << h;
                const std::string key =
                    gpu::workgroupShapeName(shape) + " " + std::to_string(w) + "x" + std::to_string(h);
                if (std::string(partials) == "workgroup") {
                    by_workgroup[key] = {t.acc[SLOT_RAIN], t.max_speed};
                } else {
                    ASSERT_EQ(by_workgroup.count(key), 1u);
                    EXPECT_EQ(t.acc[SLOT_RAIN], by_workgroup[key].first) << key << ": not the same order of additions";
                    EXPECT_EQ(t.max_speed, by_workgroup[key].second) << key;
                }
            }
}

// A pass with several rows of cells per invocation (CPU drivers: water_velocity, erosion and
// transport_thermal_outflow_evaporation, partials.glsl's SUM_ROWS) fills fewer subgroups than
// the tile has places for partials; it writes 0 to the others, so nothing another pass left
// there (here reduce_check, one row per invocation, with depths of 1e3 m; in a session, the
// musgrave model's rain before a switch to the pipe model) enters its sums. Against a
// simulation whose partials never held anything: the rain and the largest speed to the bit.
TEST_F(FoldTest, PassesWithRowsLeaveNoStalePartial) {
    const int w = 97, h = 61;
    {
        gpu::Simulation probe(ctx(), w, h);
        if (probe.partialsPerGroup() == 1)
            GTEST_SKIP()
                << "one partial per workgroup here (a GPU, or ALLUVIUM_PARTIALS=workgroup): no places left over";
    }
    auto run = [&](bool stale) {
        gpu::Simulation sim(ctx(), w, h);
        gpu::SimParams params = defaultParams(w, h);
        params.rain_rate = 1.0f;
        sim.setParams(params);
        if (stale) {
            sim.upload(Field::Water, std::vector<float>(size_t(w) * h, 1000.0f));
            sim.runPass(Pass::ReduceCheck);
        }
        const ref::State s = randomState(w, h, 31);
        sim.upload(Field::Water, toFloat(s.water));
        sim.upload(Field::Outflow, toFloat(s.outflow), true);
        sim.resetTotals();
        sim.runPass(Pass::WaterVelocity);
        sim.runPass(Pass::ReduceTotals);
        return sim.totals();
    };
    const gpu::Totals fresh = run(false), after = run(true);
    const double rain = double(w) * h * double(defaultParams(w, h).time_step) * 1.0;
    EXPECT_LE(relativeError(fresh.acc[SLOT_RAIN], rain), 1e-6); // rain_rate dt per cell of 1 m^2
    EXPECT_EQ(after.acc[SLOT_RAIN], fresh.acc[SLOT_RAIN]);
    EXPECT_GT(fresh.max_speed, 0.0f);
    EXPECT_EQ(after.max_speed, fresh.max_speed);
}

} // namespace
} // namespace alluvium::test
