// Each GPU pass against its double-precision reference on random fields: 3 seeds, grids 64x64,
// 97x61, 1x50 and 50x1, closed edges for even seeds and open for odd. Max relative error
// (max |gpu - ref| over max |ref| of the field) <= 1e-5.
#include "gpu_fixture.h"

namespace alluvium::test {
namespace {

constexpr double kTolerance = 1e-5;
using gpu::Field;
using gpu::Pass;

struct PassCase {
    GridCase grid;
    uint32_t seed;
};

std::string caseName(const ::testing::TestParamInfo<PassCase>& info) {
    return std::to_string(info.param.grid.w) + "x" + std::to_string(info.param.grid.h) + "_seed" +
           std::to_string(info.param.seed);
}

std::vector<PassCase> allCases() {
    std::vector<PassCase> cases;
    for (const GridCase& g : gridCases())
        for (uint32_t seed : {1u, 2u, 3u}) cases.push_back({g, seed});
    return cases;
}

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
    std::vector<double> randomDepths(uint32_t salt) const {
        std::mt19937 rng(GetParam().seed * 977u + salt);
        std::uniform_real_distribution<double> u(0.0, 1.0);
        std::vector<double> d(state.water.size());
        for (double& v : d) v = u(rng) < 0.2 ? 0.0 : double(float(0.8 * u(rng)));
        return d;
    }

    int w = 0, h = 0;
    ref::State state;
    gpu::SimParams params{};
    std::unique_ptr<gpu::Simulation> sim;
};

TEST_P(PassTest, Sources) {
    const std::vector<ref::Spring> springs = {{w * 0.3, h * 0.5, 3.0, 0.7}, {w * 0.8, h * 0.2, 1.5, 2.0}};
    params.brush_tool = static_cast<int>(GetParam().seed % 4) + BRUSH_ADD_WATER;
    params.brush_x = float(w) * 0.5f;
    params.brush_y = float(h) * 0.5f;
    params.brush_radius = 6.0f;
    params.brush_strength = 3.0f;
    std::vector<gpu::Spring> gpu_springs;
    for (const auto& s : springs)
        gpu_springs.push_back({float(s.x), float(s.y), float(s.radius), float(s.rate_per_cell)});
    sim->setSprings(gpu_springs);
    sim->setParams(params);
    sim->upload(Field::Water, toFloat(state.water));
    sim->upload(Field::Terrain, toFloat(state.terrain));
    sim->upload(Field::RainMask, toFloat(state.rain_mask));
    sim->runPass(Pass::Sources);
    sim->runPass(Pass::ReduceTotals);

    ref::Sums sums{};
    ref::State want = state;
    ref::sources(want, params, {{double(float(springs[0].x)), double(float(springs[0].y)), 3.0, 0.7f},
                                {double(float(springs[1].x)), double(float(springs[1].y)), 1.5, 2.0}},
                 sums);
    EXPECT_LE(relativeError(sim->download(Field::Water), want.water), kTolerance);
    EXPECT_LE(relativeError(sim->download(Field::Terrain), want.terrain), kTolerance);
    for (int slot = SLOT_RAIN; slot <= SLOT_BRUSH_SOIL_REMOVE; ++slot) expectTotal(slot, sums);
    EXPECT_GT(sums[SLOT_SPRING], 0.0);
}

TEST_P(PassTest, OutflowFlux) {
    sim->upload(Field::Terrain, toFloat(state.terrain));
    sim->upload(Field::Water, toFloat(state.water));
    sim->upload(Field::Outflow, toFloat(state.outflow));
    sim->runPass(Pass::OutflowFlux);
    const std::vector<ref::Vec4> want = ref::outflowFlux(state, params);
    EXPECT_LE(relativeError(sim->download(Field::Outflow, true), flatten(want)), kTolerance);
}

TEST_P(PassTest, WaterUpdate) {
    sim->upload(Field::Water, toFloat(state.water));
    sim->upload(Field::Outflow, toFloat(state.outflow), true);
    sim->runPass(Pass::WaterUpdate);
    sim->runPass(Pass::ReduceTotals);
    ref::Sums sums{};
    const std::vector<double> want = ref::waterUpdate(state, state.outflow, params, sums);
    EXPECT_LE(relativeError(sim->download(Field::Water, true), want), kTolerance);
    expectTotal(SLOT_DRAINED_WATER, sums);
}

TEST_P(PassTest, Velocity) {
    const std::vector<double> water_next = randomDepths(1);
    sim->upload(Field::Water, toFloat(state.water));
    sim->upload(Field::Water, toFloat(water_next), true);
    sim->upload(Field::Outflow, toFloat(state.outflow), true);
    sim->runPass(Pass::Velocity);
    sim->runPass(Pass::ReduceTotals);
    ref::Sums sums{};
    ref::State s = state;
    const std::vector<ref::Vec2> want = ref::velocity(s, state.outflow, water_next, params, sums);
    EXPECT_LE(relativeError(sim->download(Field::Velocity), flatten(want)), kTolerance);
    EXPECT_LE(relativeError(sim->download(Field::Flow), s.flow), kTolerance);
    EXPECT_LE(relativeError(double(sim->totals().max_speed), sums[SLOT_MAX_SPEED]), kTolerance);
}

TEST_P(PassTest, ErosionDeposition) {
    sim->upload(Field::Terrain, toFloat(state.terrain));
    sim->upload(Field::Sediment, toFloat(state.sediment));
    sim->upload(Field::Velocity, toFloat(state.velocity));
    sim->upload(Field::Water, toFloat(state.water), true);
    sim->upload(Field::Hardness, toFloat(state.hardness));
    sim->runPass(Pass::ErosionDeposition);
    sim->runPass(Pass::ReduceTotals);
    ref::Sums sums{};
    ref::State want = state;
    ref::erosionDeposition(want, params, sums);
    EXPECT_LE(relativeError(sim->download(Field::Terrain, true), want.terrain), kTolerance);
    // The sediment receives exactly the change of the float ground height (so b + s is
    // conserved to the bit): where the GPU's float e and the reference's double e round b to
    // neighbouring floats, s differs by one ulp of b. So: 1e-5 of the field plus one ulp of b.
    const std::vector<float> s_gpu = sim->download(Field::Sediment);
    double s_scale = 0.0, s_err = 0.0, b_max = 0.0;
    for (size_t i = 0; i < s_gpu.size(); ++i) {
        s_scale = std::max(s_scale, std::abs(want.sediment[i]));
        s_err = std::max(s_err, std::abs(s_gpu[i] - want.sediment[i]));
        b_max = std::max(b_max, std::abs(want.terrain[i]));
    }
    const double ulp_b = std::nextafter(float(b_max), INFINITY) - float(b_max);
    EXPECT_LE(s_err, kTolerance * s_scale + ulp_b);
    // The wear map accumulates the same exact amounts: same allowance.
    const std::vector<float> wear = sim->download(Field::Wear);
    const std::vector<double> want_wear = flatten(want.wear);
    double wear_scale = 0.0, wear_err = 0.0;
    for (size_t i = 0; i < wear.size(); ++i) {
        wear_scale = std::max(wear_scale, std::abs(want_wear[i]));
        wear_err = std::max(wear_err, std::abs(wear[i] - want_wear[i]));
    }
    EXPECT_GT(wear_scale, 0.0);
    EXPECT_LE(wear_err, kTolerance * wear_scale + ulp_b);
    const gpu::Totals t = sim->totals();
    const double cells = double(w) * h;
    for (int slot : {SLOT_ERODED, SLOT_DEPOSITED})
        EXPECT_LE(std::abs(t.acc[slot] - sums[size_t(slot)]),
                  kTolerance * sums[size_t(slot)] + ulp_b * std::sqrt(cells) * 3.0) << "slot " << slot;
}

TEST_P(PassTest, SedimentTransportAndCorrection) {
    params.dt = 0.4f; // displacements up to ~1 cell, so the bilinear stencil is exercised
    sim->setParams(params);
    sim->upload(Field::Sediment, toFloat(state.sediment));
    sim->upload(Field::Velocity, toFloat(state.velocity));
    sim->upload(Field::Outflow, toFloat(state.outflow), true);
    sim->runPass(Pass::SedimentTransport);
    sim->runPass(Pass::ReduceSediment);
    sim->runPass(Pass::SedimentCorrect);
    ref::Sums sums{};
    std::vector<double> want = ref::sedimentTransport(state, params, sums);
    const double scale = ref::sedimentScale(sums);
    for (double& v : want) v *= scale;
    EXPECT_LE(relativeError(sim->download(Field::Sediment, true), want), kTolerance);
    const gpu::Totals t = sim->totals();
    EXPECT_LE(relativeError(double(t.sediment_scale), scale), kTolerance);
    expectTotal(SLOT_SED_DRAINED, sums);
    if (params.edge_mode == EDGE_OPEN) {
        EXPECT_GT(sums[SLOT_SED_DRAINED], 0.0);
    }
}

TEST_P(PassTest, ThermalOutflowAndGather) {
    sim->upload(Field::Terrain, toFloat(state.terrain), true);
    sim->upload(Field::Hardness, toFloat(state.hardness));
    sim->runPass(Pass::ThermalOutflow);
    ref::State want = state;
    ref::thermalOutflow(want, params);
    EXPECT_LE(relativeError(sim->download(Field::ThermalAxis), flatten(want.thermal_axis)), kTolerance);
    EXPECT_LE(relativeError(sim->download(Field::ThermalDiag), flatten(want.thermal_diag)), kTolerance);
    sim->runPass(Pass::ThermalGather);
    ref::thermalGather(want);
    EXPECT_LE(relativeError(sim->download(Field::Terrain, true), want.terrain), kTolerance);
}

TEST_P(PassTest, Evaporation) {
    sim->upload(Field::Water, toFloat(state.water), true);
    sim->runPass(Pass::Evaporation);
    sim->runPass(Pass::ReduceTotals);
    ref::Sums sums{};
    ref::State want = state;
    ref::evaporation(want, params, sums);
    EXPECT_LE(relativeError(sim->download(Field::Water, true), want.water), kTolerance);
    expectTotal(SLOT_EVAPORATED, sums);
}

INSTANTIATE_TEST_SUITE_P(RandomFields, PassTest, ::testing::ValuesIn(allCases()), caseName);

} // namespace
} // namespace alluvium::test
