// Lava (shaders/lava.glsl): its two passes against their double-precision twin
// (tests/reference/lava.cpp) on random fields of odd sizes, and what a person sees of it,
// measured: a still pool cooling by radiation as the analytic curve, a flow down an incline that
// stops and runs out less far the stiffer it is, a ledger in which every erupted cubic metre flows
// or is rock, and lava in a lake boiling water by the energy it gives up.
#include <cmath>
#include <cstdio>

#include "gpu_fixture.h"
#include "lava.h"
#include "report.h"
#include "setup.h"

namespace alluvium::test {
namespace {

constexpr double kTolerance = 1e-5;
using gpu::Field;
using gpu::Pass;

class LavaPassTest : public GpuTest, public ::testing::WithParamInterface<PassCase> {};

// lava_flux + lava on random ground (5..8 m on 1 m cells) with random lava (0.2..2 m), water over
// part of it: seeds 1 and 2 hot (1100..1450 K, the vent in the middle), seed 3 cold (900..950 K,
// no vent: it turns to rock): lava, ground, hardness, water and the three sums as
// the twin's, but for cells whose outcome hangs on the last bits (the twin's `sensitive`: films
// under 1 mm, temperatures within 1 K of the solidus), which the sums' tolerance covers.
TEST_P(LavaPassTest, FlowHeatAndRockEqualTheTwin) {
    const PassCase& c = GetParam();
    ref::State s = randomState(c.grid.w, c.grid.h, c.seed);
    std::mt19937 rng(c.seed * 13u + 11u);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    const bool cold = c.seed == 3;
    for (auto& l : s.lava)
        l = u(rng) < 0.3 ? ref::Vec2{0.0, 0.0}
                         : ref::Vec2{0.2 + 1.8 * u(rng), cold ? 900.0 + 50.0 * u(rng) : 1100.0 + 350.0 * u(rng)};
    roundToFloat(s);
    Params q;
    q[Param::cell_size] = 1.0;
    q[Param::enable_lava] = 1;
    q[Param::lava_viscosity] = 2000.0;
    q[Param::lava_yield_strength] = 500.0;
    q[Param::lava_ground_transfer] = 50.0;
    q[Param::lava_quench] = 2000.0;
    q[Param::lava_vent_radius] = 3.0;
    q[Param::lava_eruption_rate] = cold ? 0.0 : 5.0;
    const gpu::SimParams p = toSimParams(q, c.grid.w, c.grid.h);
    auto sim = simulationOf(ctx(), s, p);
    sim->runPass(Pass::LavaFlux);
    sim->runPass(Pass::Lava);
    sim->runPass(Pass::ReduceTotals);
    ref::Sums sums{};
    ref::State want = s;
    std::vector<double> sensitive;
    ref::lavaStep(want, p, sums, &sensitive);
    std::vector<float> lava = sim->download(Field::Lava, true), ground = sim->download(Field::Terrain, true),
                       hardness = sim->download(Field::Hardness), water = sim->download(Field::Water, true);
    double flips = 0.0; // the volume of the sensitive cells: what the sums may differ by
    for (size_t i = 0; i < sensitive.size(); ++i) {
        if (sensitive[i] <= 0.0) continue;
        flips += sensitive[i];
        lava[2 * i] = float(want.lava[i][0]), lava[2 * i + 1] = float(want.lava[i][1]);
        ground[i] = float(want.terrain[i]), hardness[i] = float(want.hardness[i]), water[i] = float(want.water[i]);
    }
    EXPECT_LE(relativeError(channel(lava, 0), channel(want.lava, 0)), kTolerance);
    EXPECT_LE(relativeError(channel(lava, 1), channel(want.lava, 1)), kTolerance);
    EXPECT_LE(relativeError(ground, want.terrain), kTolerance);
    EXPECT_LE(relativeError(hardness, want.hardness), kTolerance);
    EXPECT_LE(relativeError(water, want.water), kTolerance);
    for (int slot : {SLOT_LAVA_ERUPTED, SLOT_LAVA_SOLIDIFIED, SLOT_BOILED}) {
        // The water boiled is what the water lost, to the bit (the budget's), so it differs from the
        // twin's by the rounding of the water left: an ulp of up to 1 m a cell.
        const double rounding = slot == SLOT_BOILED ? std::ldexp(1.0, -23) * double(lava.size() / 2) : 0.0;
        EXPECT_NEAR(sim->totals().acc[slot], sums[size_t(slot)], kTolerance * sums[size_t(slot)] + flips + rounding)
            << "slot " << slot;
    }
    if (cold) {
        EXPECT_GT(sums[SLOT_LAVA_SOLIDIFIED], flips);
    }
    if (c.grid.w > 2 && c.grid.h > 2) {
        EXPECT_GT(sums[SLOT_BOILED], 0.0);
        double moved = 0.0;
        for (const ref::Vec4& o : ref::lavaOutflows(s, p)) moved += o[0] + o[1] + o[2] + o[3];
        EXPECT_GT(moved, 0.0);
    }
}

INSTANTIATE_TEST_SUITE_P(RandomFields, LavaPassTest, ::testing::ValuesIn(passCases()), passCaseName);

class LavaTest : public GpuTest {};

Params lavaTable() {
    Params q;
    q[Param::enable_lava] = 1;
    q[Param::rain_rate] = 0.0;
    q[Param::edge_mode] = EDGE_CLOSED;
    return q;
}

// A still pool 5 cm deep at 1400 K on flat ground, only radiation on: its temperature follows
// T(t) = (T0^-3 + 3 eps sigma t / (rho c h))^(-1/3) within 2 %.
TEST_F(LavaTest, AStillPoolCoolsByRadiationAsTheAnalyticCurve) {
    constexpr int w = 17, h = 13;
    ref::State s(w, h);
    for (auto& l : s.lava) l = {0.05, 1400.0};
    Params q = lavaTable();
    q[Param::lava_eruption_rate] = 0.0;
    q[Param::lava_ground_transfer] = 0.0;
    q[Param::lava_solidus] = 300.0;
    q[Param::time_step] = 0.5;
    const gpu::SimParams p = toSimParams(q, w, h);
    auto sim = simulationOf(ctx(), s, p);
    const double rho_c_h = double(p.lava_density) * p.lava_heat_capacity * 0.05;
    double worst = 0.0;
    for (int k = 1; k <= 4; ++k) {
        sim->run(100);
        const double t = 100.0 * k * p.time_step;
        const double want =
            std::pow(std::pow(1400.0, -3.0) + 3.0 * p.lava_emissivity * 5.670374e-8 * t / rho_c_h, -1.0 / 3.0);
        const std::vector<float> got = channel(sim->download(Field::Lava), 1);
        for (float v : got) worst = std::max(worst, std::abs(v - want) / want);
        std::printf("[ radiative cooling ] t %5.0f s: %.2f K, the curve %.2f K\n", t, got[0], want);
    }
    EXPECT_LE(worst, 0.02);
}

// What a flow down an incline leaves: its run-out (the farthest cell it reached, m) and the
// ledger's error, after erupting for 40 s and cooling for 160 s more.
struct RunOut {
    double run_out = 0.0, run_out_earlier = 0.0, ledger = 0.0, flowing = 0.0, erupted = 0.0;
};

RunOut flowDownAnIncline(const gpu::Context& ctx, double yield) {
    constexpr int w = 90, h = 15;
    ref::State s(w, h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) s.terrain[s.index(x, y)] = 40.0 - 0.3 * x + 0.02 * (y - 7.0) * (y - 7.0);
    Params q = lavaTable();
    q[Param::cell_size] = 2.0;
    q[Param::lava_vent_x] = 0.05;
    q[Param::lava_vent_y] = 0.5;
    q[Param::lava_vent_radius] = 2.0;
    q[Param::lava_eruption_rate] = 4.0;
    q[Param::lava_viscosity] = 500.0;
    q[Param::lava_yield_strength] = yield;
    q[Param::lava_ground_transfer] = 300.0; // a thin flow on cold ground, stiffening fast as it cools
    q[Param::lava_yield_rise] = 0.05;
    q[Param::lava_viscosity_rise] = 0.05;
    gpu::SimParams p = toSimParams(q, w, h);
    gpu::Simulation sim(ctx, w, h);
    loadState(sim, s, p);
    const StateSums before = sumState(sim, 2.0);
    sim.run(400);
    p.lava_eruption_rate = 0.0f;
    sim.setParams(p);
    RunOut r;
    auto reach = [&] {
        const std::vector<float> ground = sim.download(Field::Terrain), lava = channel(sim.download(Field::Lava), 0);
        double far = 0.0;
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                const size_t i = size_t(y * w + x);
                if (lava[i] > 0.0f || ground[i] > float(s.terrain[i]) + 1e-4f) far = std::max(far, 2.0 * (x + 1));
            }
        return far;
    };
    sim.run(1200);
    r.run_out_earlier = reach();
    sim.run(400);
    r.run_out = reach();
    const StateSums after = sumState(sim, 2.0);
    const nlohmann::json report = makeReport(sim, before, after, 2000, 0.0, 2.0);
    r.ledger = report["lava"]["ledger_error_rel"].get<double>();
    r.flowing = report["lava"]["flowing"].get<double>();
    r.erupted = report["lava"]["erupted"].get<double>();
    return r;
}

// A flow down an incline stops (its front no farther after 40 s more), runs out less far as its
// yield strength rises, and every erupted cubic metre flows on or is rock (ledger <= 1e-6).
TEST_F(LavaTest, AFlowStopsAndRunsOutLessAsItStiffens) {
    const RunOut soft = flowDownAnIncline(ctx(), 200.0), stiff = flowDownAnIncline(ctx(), 1500.0);
    for (const auto& [name, r] : {std::pair{"200 Pa", soft}, std::pair{"1500 Pa", stiff}})
        std::printf("[ lava run-out ] yield %s: erupted %.1f m^3, run-out %.0f m (%.0f m 40 s before), still "
                    "flowing %.3g m^3, ledger error %.3g\n",
                    name, r.erupted, r.run_out, r.run_out_earlier, r.flowing, r.ledger);
    for (const RunOut& r : {soft, stiff}) {
        EXPECT_GT(r.erupted, 100.0);
        EXPECT_EQ(r.run_out, r.run_out_earlier); // it stopped
        EXPECT_LE(r.ledger, 1e-6);
    }
    EXPECT_LT(stiff.run_out, soft.run_out);
}

// Lava 0.5 m deep at 1400 K under a lake 2 m deep (radiation and the ground off): in a step the
// water loses what the lava's heat boils, (T0 - T1) rho c h / (rho_w (c_w 80 K + L_v)), and the
// report's water budget counts it.
TEST_F(LavaTest, LavaInALakeBoilsWaterByTheEnergyItGivesUp) {
    constexpr int w = 15, h = 11;
    ref::State s(w, h);
    for (size_t i = 0; i < s.water.size(); ++i) {
        s.water[i] = 2.0;
        s.lava[i] = {0.5, 1400.0};
    }
    Params q = lavaTable();
    q[Param::lava_eruption_rate] = 0.0;
    q[Param::lava_emissivity] = 0.0;
    q[Param::lava_ground_transfer] = 0.0;
    q[Param::enable_evaporation] = 0;
    const gpu::SimParams p = toSimParams(q, w, h);
    auto sim = simulationOf(ctx(), s, p);
    const StateSums before = sumState(*sim, p.cell_size);
    sim->run(1);
    const double t1 = channel(sim->download(Field::Lava), 1)[0];
    const double joules = (1400.0 - t1) * double(p.lava_density) * p.lava_heat_capacity * 0.5;
    const double boiled = joules / (1000.0 * (4186.0 * 80.0 + 2.257e6));
    const double water = sim->download(Field::Water)[size_t(5 * w + 7)];
    std::printf("[ lava in a lake ] lava 1400 -> %.2f K: %.4g J/m^2, boils %.6g m; the water %.6f m (was 2)\n", t1,
                joules, boiled, water);
    EXPECT_LT(t1, 1400.0);
    EXPECT_NEAR(2.0 - water, boiled, 1e-5 * boiled + 2e-7);
    sim->run(50);
    const StateSums after = sumState(*sim, p.cell_size);
    const nlohmann::json r = makeReport(*sim, before, after, 51, 0.0, p.cell_size);
    EXPECT_GT(r["water"]["boiled_by_lava"].get<double>(), 0.0);
    EXPECT_LE(r["water"]["budget_error_rel"].get<double>(), 1e-6);
}

} // namespace
} // namespace alluvium::test
