// Groundwater: each pass against its double-precision twin (tests/reference/
// groundwater.cpp) on random fields of odd sizes, whole steps against the reference, Dupuit's
// analytic steady states, and the water budget with infiltration and seepage.
#include <cstdio>

#include "gpu_fixture.h"
#include "groundwater.h"
#include "io/terrain_gen.h"
#include "models/sea.h"
#include "setup.h"

namespace alluvium::test {
namespace {

constexpr double kTolerance = 1e-5;
using gpu::Field;
using gpu::Pass;

// Random groundwater over random ground: bases 0.5 .. 6 m below it, from dry to over-full (so
// seepage, infiltration limits and the outflow limiter all happen), and a sea at 6.5 m over
// ground of 5 .. 8 m whose spill surface is exact.
void addGroundwater(ref::State& s, const gpu::SimParams& p, uint32_t seed) {
    std::mt19937 rng(seed * 7919u + 3u);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    for (size_t i = 0; i < s.terrain.size(); ++i) {
        s.aquifer_base[i] = float(s.terrain[i] - 0.5 - 5.5 * u(rng));
        const double capacity = p.porosity * (s.terrain[i] - s.aquifer_base[i]);
        s.groundwater[i] = float(capacity * 1.1 * u(rng));
    }
    const std::vector<double> spill = ref::seaSpill(s.terrain, s.w, s.h, p);
    for (size_t i = 0; i < spill.size(); ++i) s.sea_spill[i] = float(spill[i]);
}

gpu::SimParams groundwaterParams(int w, int h, uint32_t seed) {
    gpu::SimParams p = defaultParams(w, h);
    p.edge_mode = seed % 2 ? EDGE_OPEN : EDGE_CLOSED;
    p.enable_groundwater = 1;
    p.porosity = 0.3f;
    p.infiltration_rate = 0.5f; // m/s: limited by the water and the pore space as often as not
    p.hydraulic_conductivity = 0.4f;
    p.time_step = 0.3f;
    p.groundwater_substeps = 2;
    p.enable_sea = 1;
    p.sea_level = 6.5f;
    return p;
}

class GroundwaterPassTest : public GpuTest, public ::testing::WithParamInterface<PassCase> {
protected:
    void SetUp() override {
        GpuTest::SetUp();
        const PassCase& c = GetParam();
        params = groundwaterParams(c.grid.w, c.grid.h, c.seed);
        state = randomState(c.grid.w, c.grid.h, c.seed);
        addGroundwater(state, params, c.seed);
        sim = std::make_unique<gpu::Simulation>(ctx(), c.grid.w, c.grid.h);
        loadState(*sim, state, params);
        sim->upload(Field::AquiferBase, toFloat(state.aquifer_base));
        sim->upload(Field::SeaSpill, toFloat(state.sea_spill));
    }
    void TearDown() override {
        sim.reset();
        GpuTest::TearDown();
    }
    ref::State state;
    gpu::SimParams params{};
    std::unique_ptr<gpu::Simulation> sim;
};

// water_exchange: seepage, infiltration and the ocean at the step's sea surface (with the tide),
// on the step's new ground and water (the "next" halves), and its sums.
TEST_P(GroundwaterPassTest, WaterExchange) {
    params.tide_amplitude = 0.4f;
    params.tide_period = 10.0f;
    sim->setParams(params);
    sim->setSimTime(1.7);
    sim->upload(Field::Terrain, toFloat(state.terrain), true);
    sim->upload(Field::Water, toFloat(state.water), true);
    sim->upload(Field::Groundwater, toFloat(state.groundwater));
    sim->upload(Field::SeaSpill,
                toFloat(state.sea_spill)); // the upload of the ground asks for a new one
    sim->runPass(Pass::WaterExchange);
    sim->runPass(Pass::ReduceTotals);
    ref::Sums sums{};
    ref::State want = state;
    const double surface = ref::seaSurface(params, 1.7);
    EXPECT_NEAR(double(sim->seaSurface()), surface, 1e-6);
    ref::waterExchange(want, params, surface, sums);
    EXPECT_LE(relativeError(sim->download(Field::Water, true), want.water), kTolerance);
    EXPECT_LE(relativeError(sim->download(Field::Groundwater), want.groundwater), kTolerance);
    EXPECT_LE(relativeError(sim->download(Field::Seepage), want.seepage), kTolerance);
    EXPECT_LE(relativeError(sim->download(Field::WaterTable), want.water_table), kTolerance);
    for (int slot : {SLOT_INFILTRATED, SLOT_SEEPED, SLOT_SEA_IN, SLOT_SEA_OUT}) {
        EXPECT_LE(relativeError(sim->totals().acc[slot], sums[size_t(slot)]), kTolerance) << "slot " << slot;
    }
    EXPECT_GT(sums[SLOT_INFILTRATED], 0.0);
    EXPECT_GT(sums[SLOT_SEEPED], 0.0);
    if (params.edge_mode == EDGE_OPEN && state.w > 2 && state.h > 2) {
        EXPECT_GT(sums[SLOT_SEA_IN] + sums[SLOT_SEA_OUT], 0.0);
    }
}

// The Dupuit sub-steps (groundwater_head + groundwater_flow; in pairs, so 1 runs as 2 and 3 as 4)
// against the reference, from the groundwater where water_exchange leaves it; the flow moves
// groundwater and keeps its total to float rounding.
TEST_P(GroundwaterPassTest, GroundwaterFlow) {
    for (int substeps : {1, 2, 3}) {
        SCOPED_TRACE(substeps);
        params.groundwater_substeps = substeps;
        params.hydraulic_conductivity = 2.0f; // faces at their stability cap here and there
        sim->setParams(params);
        sim->upload(Field::Terrain, toFloat(state.terrain), true);
        sim->upload(Field::Water, toFloat(state.water), true);
        sim->upload(Field::Groundwater, toFloat(state.groundwater));
        sim->runPass(Pass::GroundwaterFlow);
        ref::State want = state;
        ref::groundwaterFlow(want, params);
        const std::vector<float> got = sim->download(Field::Groundwater);
        EXPECT_LE(relativeError(got, want.groundwater), kTolerance);
        double moved = 0.0;
        for (size_t i = 0; i < got.size(); ++i) moved += std::abs(want.groundwater[i] - state.groundwater[i]);
        if (got.size() > 1) {
            EXPECT_GT(moved, 1e-3);
        }
        EXPECT_NEAR(sum(got), sum(toFloat(state.groundwater)), 1e-6 * double(got.size()));
    }
}

// The sea's spill surface run to its end: exactly the priority flood's (min and max of floats).
TEST_P(GroundwaterPassTest, SeaSpillEqualsPriorityFlood) {
    params.edge_mode = EDGE_OPEN;
    sim->setParams(params);
    const int rounds = sim->updateSeaSpill();
    const std::vector<float> got = sim->download(Field::SeaSpill);
    const std::vector<double> want = ref::seaSpill(toDouble(toFloat(state.terrain)), state.w, state.h, params);
    int differ = 0;
    for (size_t i = 0; i < got.size(); ++i) differ += double(got[i]) == want[i] ? 0 : 1;
    EXPECT_EQ(differ, 0) << "rounds " << rounds;
    EXPECT_GT(rounds, 0);
    EXPECT_GE(gpu::seaControl(sim->sea()).commits, 1u);
}

// One red-black half-round of the equilibrium water table against the reference.
TEST_P(GroundwaterPassTest, WaterTableHalfRound) {
    params.model = MODEL_FLUVIAL;
    params.fluvial_outlets = OUTLET_LEFT | OUTLET_TOP;
    params.table_capillarity = 3.0f;
    params.table_internal = 0.5f;
    params.table_tension_air = 1e4f;
    params.table_tension_ground = 20.0f;
    params.table_gravity = 1.0f;
    params.enable_sea = GetParam().seed == 2 ? 1 : 0;
    sim->setParams(params);
    ref::State s = state;
    const std::vector<double> spill = ref::seaSpill(s.terrain, s.w, s.h, params);
    for (size_t i = 0; i < spill.size(); ++i) s.sea_spill[i] = float(spill[i]);
    sim->upload(Field::SeaSpill, toFloat(s.sea_spill));
    std::mt19937 rng(GetParam().seed);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::vector<double> table(s.terrain.size());
    for (size_t i = 0; i < table.size(); ++i) table[i] = float(s.terrain[i] + 1.5 * u(rng) - 1.0);
    sim->upload(Field::RelaxA, toFloat(table));
    sim->runPass(Pass::WaterTable); // mode 0: colour 0, read relax_a, write relax_b
    const std::vector<double> want = ref::waterTableHalfRound(s, table, params, 0);
    EXPECT_LE(relativeError(sim->download(Field::RelaxB), want), kTolerance);
    int updated = 0;
    for (size_t i = 0; i < want.size(); ++i) updated += want[i] != table[i] ? 1 : 0;
    if ((state.w > 2 && state.h > 2) || params.enable_sea) {
        EXPECT_GT(updated,
                  0); // a 1-wide grid's cells all lie on an outlet edge: fixed at their ground
    }
}

INSTANTIATE_TEST_SUITE_P(RandomFields, GroundwaterPassTest, ::testing::ValuesIn(passCases()), passCaseName);

class GroundwaterTest : public GpuTest {};

// 100 whole steps with groundwater, the sea (a tide) and rain on the GPU against the reference
// step, on ground that does not move (erosion and thermal off).
TEST_F(GroundwaterTest, HundredStepsMatchReference) {
    ref::State s = generatedState(97, 61, 7, 4.0);
    Params params;
    params[Param::rain_rate] = 0.5;
    params[Param::edge_mode] = EDGE_OPEN;
    params[Param::enable_groundwater] = 1;
    params[Param::infiltration_rate] = 0.3;
    params[Param::hydraulic_conductivity] = 3.0;
    params[Param::aquifer_thickness] = 6.0;
    params[Param::enable_sea] = 1;
    params[Param::tide_amplitude] = 1.0;
    params[Param::tide_period] = 4.0;
    // The ground stays put: the GPU refreshes the sea's spill surface behind a moving ground
    // while the reference keeps the first one, and a cell at the shore that changes sides makes
    // the two runs part ways (the sea's threshold, not the arithmetic).
    params[Param::enable_erosion] = 0;
    params[Param::enable_thermal] = 0;
    double lo = 1e30, hi = -1e30;
    for (double b : s.terrain) lo = std::min(lo, b), hi = std::max(hi, b);
    params[Param::sea_level] = lo + 0.2 * (hi - lo);
    const gpu::SimParams p = toSimParams(params, s.w, s.h);
    ASSERT_GE(p.groundwater_substeps, 2);
    for (size_t i = 0; i < s.terrain.size(); ++i) {
        s.terrain[i] = float(s.terrain[i]);
        s.aquifer_base[i] = float(s.terrain[i] - 6.0);
        s.groundwater[i] = float(0.3 * 4.0);
    }
    const std::vector<double> spill = ref::seaSpill(s.terrain, s.w, s.h, p);
    for (size_t i = 0; i < spill.size(); ++i) s.sea_spill[i] = spill[i];
    auto sim = std::make_unique<gpu::Simulation>(ctx(), s.w, s.h);
    loadState(*sim, s, p);
    sim->upload(Field::AquiferBase, toFloat(s.aquifer_base));
    sim->upload(Field::Groundwater, toFloat(s.groundwater));
    ref::Sums sums{};
    const int kSteps = 100;
    for (int i = 0; i < kSteps; ++i) ref::step(s, p, {}, sums);
    { // whole steps of dt, as the reference's (run() would choose CFL sub-steps over the deep sea)
        VkCommandBuffer cmd = gpu::beginOneShot(ctx());
        sim->recordUpdates(cmd);
        for (int i = 0; i < kSteps; ++i) sim->recordStep(cmd);
        gpu::endOneShot(ctx(), cmd);
    }
    const double err_d = relativeError(sim->download(Field::Water), s.water);
    const double err_g = relativeError(sim->download(Field::Groundwater), s.groundwater);
    const gpu::Totals t = sim->totals();
    std::printf("[ groundwater + sea steps vs reference ] water %.3g, groundwater %.3g; "
                "infiltrated %.4g/%.4g "
                "seeped %.4g/%.4g from sea %.4g/%.4g into sea %.4g/%.4g m^3\n",
                err_d, err_g, t.acc[SLOT_INFILTRATED], sums[SLOT_INFILTRATED], t.acc[SLOT_SEEPED], sums[SLOT_SEEPED],
                t.acc[SLOT_SEA_IN], sums[SLOT_SEA_IN], t.acc[SLOT_SEA_OUT], sums[SLOT_SEA_OUT]);
    EXPECT_LE(err_d, 1e-4);
    EXPECT_LE(err_g, 1e-4);
    for (int slot : {SLOT_INFILTRATED, SLOT_SEEPED, SLOT_SEA_IN, SLOT_SEA_OUT}) {
        EXPECT_GT(sums[size_t(slot)], 0.0) << slot;
        EXPECT_LE(relativeError(t.acc[slot], sums[size_t(slot)]), 1e-3) << "slot " << slot;
    }
}

// A 1-cell-wide strip of N cells on a flat aquifer base (0 m): Dupuit's steady states, after 4000
// steps of 0.5 s: six e-folding times of the slowest mode, L^2 S / (pi^2 K H) ~ 320 s (6000
// steps change the heads by under 0.03 %).
struct Strip {
    int n = 41;
    double cell = 2.0, k = 0.1, porosity = 0.3, sea = 5.0;
    Params params() const {
        Params q;
        q[Param::cell_size] = cell;
        q[Param::time_step] = 0.5;
        q[Param::edge_mode] = EDGE_OPEN;
        q[Param::enable_groundwater] = 1;
        q[Param::hydraulic_conductivity] = k;
        q[Param::porosity] = porosity;
        q[Param::infiltration_rate] = 50.0; // every drop of rain soaks in: the recharge is the rain
        q[Param::aquifer_thickness] = 30.0; // (the sub-steps' estimate; the base is uploaded)
        q[Param::enable_sea] = 1;
        q[Param::sea_level] = sea;
        q[Param::dry_depth] = 0.1; // rain this thin does not run off the strip's edges
        q[Param::evaporation_rate] = 0.0;
        q[Param::enable_erosion] = 0;
        q[Param::enable_thermal] = 0;
        q[Param::enable_transport] = 0;
        return q;
    }
};

// The head of each cell of a strip (the table, or the sea's surface in ocean cells).
std::vector<double> stripHeads(gpu::Simulation& sim, const Strip& st) {
    const std::vector<float> g = sim.download(Field::Groundwater), b = sim.download(Field::Terrain),
                             d = sim.download(Field::Water);
    std::vector<double> head(g.size());
    for (size_t i = 0; i < g.size(); ++i) {
        const double capacity = st.porosity * b[i];
        const bool ocean = i == 0 || i + 1 == g.size();
        head[i] = !ocean && g[i] < capacity ? g[i] / st.porosity : b[i] + (ocean ? d[i] : 0.0) + (g[i] - capacity);
    }
    return head;
}

std::unique_ptr<gpu::Simulation> stripSim(const gpu::Context& ctx, const Strip& st, const std::vector<float>& ground,
                                          const gpu::SimParams& p) {
    auto sim = std::make_unique<gpu::Simulation>(ctx, st.n, 1);
    ref::State s(st.n, 1);
    for (int i = 0; i < st.n; ++i) s.terrain[size_t(i)] = ground[size_t(i)];
    loadState(*sim, s, p);
    sim->upload(Field::AquiferBase, std::vector<float>(size_t(st.n), 0.0f));
    std::vector<float> g(size_t(st.n));
    for (int i = 0; i < st.n; ++i) g[size_t(i)] = float(st.porosity * std::min<double>(st.sea, ground[size_t(i)]));
    sim->upload(Field::Groundwater, g);
    return sim;
}

// Uniform recharge R between two fixed heads H0 (the sea at both ends): the steady mound
// H^2 = H0^2 + R (L x - x^2) / K, within 1%.
TEST_F(GroundwaterTest, DupuitMoundUnderRecharge) {
    Strip st;
    Params q = st.params();
    const double recharge = 2e-3; // m/s
    q[Param::rain_rate] = recharge * 1e3;
    const gpu::SimParams p = toSimParams(q, st.n, 1);
    std::vector<float> ground(size_t(st.n), 30.0f);
    ground.front() = ground.back() = float(st.sea - 1.0); // the sea at both ends
    auto sim = stripSim(ctx(), st, ground, p);
    sim->run(4000);
    const std::vector<double> head = stripHeads(*sim, st);
    const double length = (st.n - 1) * st.cell;
    double worst = 0.0, top = 0.0;
    for (int i = 0; i < st.n; ++i) {
        const double x = i * st.cell;
        const double want = std::sqrt(st.sea * st.sea + recharge * (length * x - x * x) / st.k);
        worst = std::max(worst, std::abs(head[size_t(i)] - want) / want);
        top = std::max(top, head[size_t(i)]);
    }
    std::printf("[ Dupuit mound ] highest head %.4f m (analytic %.4f), largest relative error %.3g\n", top,
                std::sqrt(st.sea * st.sea + recharge * length * length / (4.0 * st.k)), worst);
    EXPECT_LE(worst, 0.01);
    EXPECT_GT(top, st.sea + 2.0); // a real mound
}

// Between two fixed heads and no recharge, H^2 is linear in x, within 1%. The strip is the middle
// row of three: walls without an aquifer (base at their top) on either side hold a pond at its
// far end, fed by a spring and spilling over a sill into the open edge: a saturated cell whose
// head stays put; the sea holds the other end.
TEST_F(GroundwaterTest, DupuitBetweenTwoHeads) {
    Strip st;
    const int w = st.n + 1, h = 3; // the strip: cells 0 .. n-1 of row 1; the sill: cell n
    const gpu::SimParams p = toSimParams(st.params(), w, h);
    ref::State s(w, h);
    std::vector<float> base(size_t(w) * h), g(size_t(w) * h, 0.0f), rain(size_t(w) * h, 0.0f);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const size_t i = s.index(x, y);
            double b = 40.0; // the walls
            if (y == 1) b = x == 0 ? st.sea - 1.0 : x == st.n - 1 ? 12.0 : x == st.n ? 12.3 : 30.0;
            s.terrain[i] = b;
            base[i] = y == 1 && x < st.n ? 0.0f : float(b);
            if (y == 1 && x < st.n) g[i] = float(st.porosity * std::min(st.sea, b));
        }
    auto sim = std::make_unique<gpu::Simulation>(ctx(), w, h);
    loadState(*sim, s, p);
    sim->upload(Field::RainMask, rain);
    sim->upload(Field::AquiferBase, base);
    sim->upload(Field::Groundwater, g);
    sim->setSprings({{float(st.n) - 0.5f, 1.5f, 0.6f, 1.0f}});
    sim->run(4000);
    const std::vector<float> gw = sim->download(Field::Groundwater), b = sim->download(Field::Terrain),
                             d = sim->download(Field::Water);
    std::vector<double> head(size_t(st.n));
    for (int x = 0; x < st.n; ++x) {
        const size_t i = s.index(x, 1);
        const double capacity = st.porosity * b[i];
        const bool ocean = x == 0;
        head[size_t(x)] =
            !ocean && gw[i] < capacity ? gw[i] / st.porosity : b[i] + (ocean ? d[i] : 0.0) + (gw[i] - capacity);
    }
    const double h0 = head.front(), h1 = head.back();
    double worst = 0.0;
    for (int i = 0; i < st.n; ++i) {
        const double f = double(i) / (st.n - 1);
        const double want = std::sqrt(h0 * h0 + f * (h1 * h1 - h0 * h0));
        worst = std::max(worst, std::abs(head[size_t(i)] - want) / want);
    }
    std::printf("[ Dupuit between heads ] H0 %.4f m, HL %.4f m, largest relative error of H %.3g\n", h0, h1, worst);
    EXPECT_NEAR(h0, st.sea,
                0.05); // with the groundwater the step brought in (the next step lets it out)
    EXPECT_GT(h1, 11.5);
    EXPECT_LE(worst, 0.01);
}

// Rain, infiltration, groundwater flow, seepage and evaporation for 1600 steps (rain stops half
// way, so the springs run on): the water on and in the ground is what came in minus what left,
// to 1e-5; and the same with the sea and its tide.
TEST_F(GroundwaterTest, BudgetClosesWithInfiltrationAndSeepage) {
    for (bool sea : {false, true}) {
        SCOPED_TRACE(sea ? "sea" : "no sea");
        ref::State s = generatedState(67, 45, 5, 4.0);
        Params params;
        params[Param::rain_rate] = 1.0;
        params[Param::evaporation_rate] = 0.002;
        params[Param::edge_mode] = sea ? EDGE_OPEN : EDGE_CLOSED;
        params[Param::enable_groundwater] = 1;
        params[Param::infiltration_rate] = 0.5;
        params[Param::hydraulic_conductivity] = 0.05;
        params[Param::aquifer_thickness] = 3.0;
        params[Param::initial_table_depth] = 1.0;
        if (sea) {
            double lo = 1e30, hi = -1e30;
            for (double b : s.terrain) lo = std::min(lo, b), hi = std::max(hi, b);
            params[Param::enable_sea] = 1;
            params[Param::sea_level] = lo + 0.15 * (hi - lo);
            params[Param::tide_amplitude] = 0.5;
            params[Param::tide_period] = 60.0;
        }
        gpu::SimParams p = toSimParams(params, s.w, s.h);
        auto sim = std::make_unique<gpu::Simulation>(ctx(), s.w, s.h);
        loadState(*sim, s, p);
        std::vector<float> base, groundwater;
        initialAquifer(toFloat(s.terrain), params, base, groundwater);
        sim->upload(Field::AquiferBase, base);
        sim->upload(Field::Groundwater, groundwater);
        const double area = 16.0;
        const double before = (sum(sim->download(Field::Water)) + sum(sim->download(Field::Groundwater))) * area;
        sim->run(800);
        p.rain_rate = 0.0f;
        sim->setParams(p);
        sim->run(800);
        const double stored = (sum(sim->download(Field::Water)) + sum(sim->download(Field::Groundwater))) * area;
        const gpu::Totals t = sim->totals();
        const double in = t.acc[SLOT_RAIN] + t.acc[SLOT_SEA_IN];
        const double expected = before + in - t.acc[SLOT_EVAPORATED] - t.acc[SLOT_DRAINED_WATER] - t.acc[SLOT_SEA_OUT];
        const double err = std::abs(stored - expected) / (before + in);
        std::printf("[ groundwater budget%s ] rained %.6g infiltrated %.6g seeped %.6g evaporated "
                    "%.6g from sea %.6g "
                    "into sea %.6g stored %.6g (ground %.6g): error %.3g\n",
                    sea ? ", sea" : "", t.acc[SLOT_RAIN], t.acc[SLOT_INFILTRATED], t.acc[SLOT_SEEPED],
                    t.acc[SLOT_EVAPORATED], t.acc[SLOT_SEA_IN], t.acc[SLOT_SEA_OUT], stored,
                    sum(sim->download(Field::Groundwater)) * area, err);
        EXPECT_LE(err, 1e-5);
        EXPECT_GT(t.acc[SLOT_INFILTRATED], 0.0);
        EXPECT_GT(t.acc[SLOT_SEEPED], 0.0);
        EXPECT_GT(t.acc[SLOT_EVAPORATED], 0.0);
        if (sea) {
            EXPECT_GT(t.acc[SLOT_SEA_OUT], 0.0);
        }
    }
}

} // namespace
} // namespace alluvium::test
