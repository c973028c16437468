// Vegetation (shaders/vegetation.glsl): its pass against its double-precision twin
// (tests/reference/vegetation.cpp) on random fields of odd sizes, and what a person sees of it,
// measured: logistic growth under constant moisture, a vegetated slope losing less soil by the
// ratio its roots say, and a flood above the shear threshold clearing it.
#include <cmath>
#include <cstdio>

#include "gpu_fixture.h"
#include "vegetation.h"

namespace alluvium::test {
namespace {

constexpr double kTolerance = 1e-5;
using gpu::Field;
using gpu::Pass;

class VegetationPassTest : public GpuTest, public ::testing::WithParamInterface<PassCase> {};

// The vegetation pass on random ground, water, velocity and cover, with groundwater's table:
// growth, die-back, seeding, floods and burial all happen somewhere (seed 3: lava over a third of
// the cells, which burns it); density and wetness as the twin's.
TEST_P(VegetationPassTest, GrowthAndDeathEqualTheTwin) {
    const PassCase& c = GetParam();
    ref::State s = randomState(c.grid.w, c.grid.h, c.seed);
    std::mt19937 rng(c.seed * 17u + 5u);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::vector<double> before(s.terrain.size());
    for (size_t i = 0; i < s.terrain.size(); ++i) {
        s.vegetation[i] = {u(rng) < 0.2 ? 0.0 : u(rng), 0.02 * u(rng)};
        s.water_table[i] = s.terrain[i] - 3.0 * u(rng);
        before[i] = s.terrain[i] + (u(rng) < 0.3 ? -0.2 * u(rng) : 0.05 * (u(rng) - 0.5));
        s.velocity[i] = {4.0 * (u(rng) - 0.5), 4.0 * (u(rng) - 0.5)};
        if (c.seed == 3 && u(rng) < 0.3) s.lava[i] = {0.5, 1200.0};
    }
    roundToFloat(s);
    for (double& b : before) b = static_cast<float>(b);
    Params q;
    q[Param::cell_size] = 1.0;
    q[Param::enable_vegetation] = 1;
    q[Param::enable_groundwater] = 1;
    q[Param::vegetation_growth] = 0.5;
    q[Param::vegetation_decay] = 0.3;
    q[Param::vegetation_shear] = 60.0;
    q[Param::vegetation_burial] = 0.1;
    q[Param::time_step] = 0.3;
    q[Param::enable_lava] = c.seed == 3 ? 1 : 0;
    gpu::SimParams p = toSimParams(q, c.grid.w, c.grid.h);
    auto sim = simulationOf(ctx(), s, p);
    sim->upload(Field::Terrain, toFloat(before), false);
    sim->upload(Field::Terrain, toFloat(s.terrain), true);
    sim->upload(Field::Water, toFloat(s.water), true);
    sim->upload(Field::WaterTable, toFloat(s.water_table));
    sim->runPass(Pass::Vegetation);
    ref::State want = s;
    ref::vegetationStep(want, before, p);
    const std::vector<float> got = sim->download(Field::Vegetation);
    std::vector<float> density(got.size() / 2), wet(got.size() / 2);
    std::vector<double> want_density(density.size()), want_wet(density.size());
    for (size_t i = 0; i < density.size(); ++i) {
        density[i] = got[2 * i];
        wet[i] = got[2 * i + 1];
        want_density[i] = want.vegetation[i][0];
        want_wet[i] = want.vegetation[i][1];
    }
    EXPECT_LE(relativeError(density, want_density), kTolerance);
    for (size_t i = 0; i < density.size(); ++i) {
        if (s.lava[i][0] > 0.0) {
            EXPECT_EQ(density[i], 0.0f) << "lava burns it, cell " << i;
        }
    }
    EXPECT_LE(relativeError(wet, want_wet), kTolerance);
}

INSTANTIATE_TEST_SUITE_P(RandomFields, VegetationPassTest, ::testing::ValuesIn(passCases()), passCaseName);

class VegetationTest : public GpuTest {};

gpu::SimParams vegetationParams(Params q, int w, int h) {
    q[Param::enable_vegetation] = 1;
    q[Param::edge_mode] = EDGE_CLOSED;
    return toSimParams(q, w, h);
}

// Constant moisture (still water 0.1 m deep on flat ground, no rain, no evaporation): the density
// follows the logistic curve v(t) = 1 / (1 + (1 / v0 - 1) e^(-r t)), r = vegetation_growth.
TEST_F(VegetationTest, GrowthFollowsTheLogisticCurve) {
    constexpr int w = 19, h = 13;
    ref::State s(w, h);
    for (size_t i = 0; i < s.water.size(); ++i) {
        s.water[i] = 0.1;
        s.vegetation[i] = {0.02, 0.1};
    }
    Params q;
    q[Param::rain_rate] = 0.0;
    q[Param::enable_evaporation] = 0;
    q[Param::vegetation_growth] = 0.2;
    const gpu::SimParams p = vegetationParams(q, w, h);
    auto sim = simulationOf(ctx(), s, p);
    double worst = 0.0;
    for (int k = 1; k <= 6; ++k) {
        sim->run(100);
        const double t = 100.0 * k * p.time_step;
        const double want = 1.0 / (1.0 + (1.0 / 0.02 - 1.0) * std::exp(-0.2 * t));
        const std::vector<float> v = sim->download(Field::Vegetation);
        for (size_t i = 0; i < v.size(); i += 2) worst = std::max(worst, std::abs(v[i] - want) / want);
        std::printf("[ logistic ] t %5.1f s: density %.5f, the curve %.5f\n", t, v[0], want);
    }
    EXPECT_LE(worst, 0.01);
}

// The same slope under the same rain, bare and fully vegetated (the density held: no growth or
// die-back; stems add no roughness, so the water flows alike), the water far from carrying all
// it could (a slow dissolve_rate): the vegetated slope loses 1 - vegetation_roots of what the bare
// one loses, within 3 % (the first steps' erosion is below the ground's float resolution, and
// the bare slope's water, carrying more, takes a little less).
TEST_F(VegetationTest, AVegetatedSlopeLosesLessSoilByItsRoots) {
    constexpr int w = 40, h = 24;
    ref::State s(w, h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) s.terrain[s.index(x, y)] = 6.0 - 0.15 * x + 0.1 * std::sin(0.7 * y);
    Params q;
    q[Param::rain_rate] = 5.0;
    q[Param::vegetation_growth] = 0.0;
    q[Param::vegetation_decay] = 0.0;
    q[Param::vegetation_roughness] = 0.0;
    q[Param::vegetation_shear] = 1e5;
    q[Param::vegetation_roots] = 0.75;
    q[Param::dissolve_rate] = 0.02;
    const gpu::SimParams p = vegetationParams(q, w, h);
    double eroded[2] = {0.0, 0.0};
    for (int covered = 0; covered < 2; ++covered) {
        for (auto& v : s.vegetation) v = {double(covered), 0.0};
        auto sim = simulationOf(ctx(), s, p);
        sim->run(60);
        eroded[covered] = sim->totals().acc[SLOT_ERODED];
    }
    const double ratio = eroded[1] / eroded[0];
    std::printf("[ roots ] eroded in 60 steps bare %.5g m^3, vegetated %.5g m^3: ratio %.4f (1 - roots %.4f)\n",
                eroded[0], eroded[1], ratio, 1.0 - 0.75);
    EXPECT_GT(eroded[0], 1.0);
    EXPECT_NEAR(ratio, 0.25, 0.25 * 0.03);
}

// A flood released down a fully vegetated valley floor: above the shear threshold it clears the
// plants in its path; with the threshold beyond its shear, every plant stands; ground it never
// reaches keeps its cover either way.
TEST_F(VegetationTest, AFloodAboveTheShearThresholdClearsIt) {
    constexpr int w = 60, h = 20;
    ref::State s(w, h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const size_t i = s.index(x, y);
            s.terrain[i] = 30.0 - 0.3 * x + 0.05 * (y - 10.0) * (y - 10.0); // a valley down +x
            s.water[i] = x < 8 && std::abs(y - 10) < 4 ? 4.0 : 0.0;         // the flood
            s.vegetation[i] = {1.0, 0.0};
        }
    Params q;
    q[Param::cell_size] = 2.0;
    q[Param::rain_rate] = 0.0;
    q[Param::vegetation_growth] = 0.0;
    q[Param::vegetation_decay] = 0.0;
    q[Param::record_maps] = 1; // the flow map: where the flood went
    int cleared[2] = {0, 0}, dry_kept[2] = {0, 0}, dry[2] = {0, 0};
    const double thresholds[2] = {20.0, 1e5};
    for (int k = 0; k < 2; ++k) {
        q[Param::vegetation_shear] = thresholds[k];
        auto sim = simulationOf(ctx(), s, vegetationParams(q, w, h));
        sim->run(300);
        const std::vector<float> v = sim->download(Field::Vegetation), flow = sim->download(Field::Flow);
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                const size_t i = size_t(y * w + x);
                cleared[k] += v[2 * i] < 0.1f;
                if (flow[i] == 0.0f) { // no water ever flowed through
                    ++dry[k];
                    dry_kept[k] += v[2 * i] == 1.0f;
                }
            }
        std::printf("[ flood ] threshold %g Pa: %d of %d cells cleared; of %d the flood never reached, %d kept\n",
                    thresholds[k], cleared[k], w * h, dry[k], dry_kept[k]);
    }
    EXPECT_GT(cleared[0], 100);
    EXPECT_EQ(cleared[1], 0);
    EXPECT_GT(dry[0], 0);
    EXPECT_EQ(dry_kept[0], dry[0]);
    EXPECT_EQ(dry_kept[1], dry[1]);
}

} // namespace
} // namespace alluvium::test
