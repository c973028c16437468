// Water and sediment against analytic solutions: a thin sheet down a uniform slope settles at
// Manning's terminal speed, the cells a dam break's front floods move no faster than the front,
// and grains settle through still water at their fall speed.
#include <cmath>
#include <cstdio>

#include "gpu_fixture.h"

namespace alluvium::test {
namespace {

// A sheet fed by a spring at the top of a uniform slope S (a 1-cell-wide strip, the cell above
// the spring a wall) settles at its normal depth h, where gravity and
// Manning's friction balance: U = h^(2/3) S^(1/2) / n. The cells' speed (the velocity field
// erosion reads) within 10 % of that for the depth each cell holds, for films of about 2 mm and
// 2 cm: thin water moves as fast as friction allows, no faster.
class SheetFlowTest : public GpuTest {};

TEST_F(SheetFlowTest, ThinSheetsSettleAtManningsTerminalSpeed) {
    constexpr int kCells = 120;
    constexpr double kCell = 2.0, kSlope = 0.02, kManning = 0.03;
    for (const double depth : {0.002, 0.02}) {
        SCOPED_TRACE(depth);
        // The discharge per unit width whose normal depth is `depth`.
        const double q = std::pow(depth, 5.0 / 3.0) * std::sqrt(kSlope) / kManning;
        // Closed edges: a 1-cell strip is all edge across. The lower end fills a pond, 7 and 22
        // cells long after 3000 s, below the cells measured.
        Params params = waterOnlyParams(kCell, 1.0);
        params[Param::manning_n] = kManning;
        params[Param::flux_damping] = 0.0;
        ref::State s(kCells, 1);
        for (int i = 0; i < kCells; ++i) s.terrain[size_t(i)] = 100.0 - kSlope * kCell * i;
        s.terrain[0] += 1.0; // a wall above the spring
        gpu::Simulation sim(ctx(), kCells, 1);
        loadState(sim, s, toSimParams(params, kCells, 1));
        sim.setSprings({{1.5f, 0.5f, 0.6f, float(q * kCell)}});
        sim.run(3000); // the kinematic wave (5/3 U) crosses the strip in under 1,100 s
        const std::vector<float> d = sim.download(gpu::Field::Water), v = sim.download(gpu::Field::Velocity);
        double worst = 0.0, mean_h = 0.0;
        for (int i = 30; i < 90; ++i) {
            const double h = d[size_t(i)], u = v[2 * size_t(i)];
            const double terminal = std::pow(h, 2.0 / 3.0) * std::sqrt(kSlope) / kManning;
            worst = std::max(worst, std::abs(u - terminal) / terminal);
            mean_h += h / 60.0;
        }
        std::printf("[ sheet on a %.0f %% slope ] depth %.4f m (normal depth %.4f), speed %.4f m/s; largest "
                    "difference from Manning's terminal speed %.2f %%\n",
                    100.0 * kSlope, mean_h, depth, double(v[2 * 60]), 100.0 * worst);
        EXPECT_LE(worst, 0.10);
        EXPECT_NEAR(mean_h, depth, 0.1 * depth) << "the sheet carries the spring's discharge";
        EXPECT_LE(double(sim.totals().max_froude), 5.0);
    }
}

// A wet/dry front: a 1 m deep pool behind a dam on flat ground, let go. No water in Ritter's
// solution moves faster than its front, 2 sqrt(g h0); the cells the front floods are thinnest of
// all. Their speed stays below that bound from the first step on (over the cell's own depth it
// was q / d, L / dt on the step a dry cell first wets: 80 m/s here), and the Froude number the
// report keeps is finite.
TEST_F(SheetFlowTest, AFloodedDryCellMovesNoFasterThanTheFront) {
    constexpr int kCells = 40;
    constexpr double kCell = 4.0, kDt = 0.05, kDepth = 1.0, kGravity = 9.81;
    Params params = waterOnlyParams(kCell, kDt);
    params[Param::gravity] = kGravity;
    ref::State s(kCells, 1);
    for (int i = 0; i < kCells / 2; ++i) s.water[size_t(i)] = kDepth;
    gpu::Simulation sim(ctx(), kCells, 1);
    loadState(sim, s, toSimParams(params, kCells, 1));
    const double front = 2.0 * std::sqrt(kGravity * kDepth);
    for (int steps : {1, 10, 100}) {
        sim.run(steps == 1 ? 1 : steps - (steps == 10 ? 1 : 10));
        const std::vector<float> v = sim.download(gpu::Field::Velocity), d = sim.download(gpu::Field::Water);
        double fastest = 0.0;
        int wet = 0;
        for (int i = 0; i < kCells; ++i) {
            fastest = std::max(fastest, std::abs(double(v[2 * size_t(i)])));
            wet += d[size_t(i)] > 1e-4f;
        }
        std::printf("[ front after %d steps ] %d wet cells, fastest %.3f m/s (front speed %.3f, L / dt %.0f), "
                    "largest Froude number so far %.2f\n",
                    steps, wet, fastest, front, kCell / kDt, double(sim.totals().max_froude));
        EXPECT_LE(fastest, front) << steps;
        EXPECT_GT(wet, kCells / 2) << "the front moved";
    }
    EXPECT_TRUE(std::isfinite(sim.totals().max_froude));
}

// Grains settling through still water: with no flow the capacity is 0, and a load s falls at
// w_s / d of itself a second, s(t) = s0 exp(-w_s t / d) (per step s (1 - dt w_s / d)): in a
// pool 0.5 m deep 63 % settles in 50 s, in one 2 m deep 22 %. Within 1 % of the exponential,
// and every grain that leaves the water lands on the ground.
TEST_F(SheetFlowTest, GrainsSettleThroughStillWaterAtTheirFallSpeed) {
    constexpr int kSide = 9;
    constexpr double kSettling = 0.01, kDt = 0.1, kLoad = 0.05, kTime = 50.0;
    for (const double depth : {0.5, 2.0}) {
        SCOPED_TRACE(depth);
        Params params;
        params[Param::time_step] = kDt;
        params[Param::rain_rate] = 0.0;
        params[Param::evaporation_rate] = 0.0;
        params[Param::enable_thermal] = 0.0;
        params[Param::deposit_rate] = 0.0;
        params[Param::settling_velocity] = kSettling;
        params[Param::edge_mode] = EDGE_CLOSED;
        const size_t n = size_t(kSide) * kSide;
        ref::State still(kSide, kSide);
        still.terrain.assign(n, 10.0);
        still.water.assign(n, depth);
        still.sediment.assign(n, kLoad);
        gpu::Simulation sim(ctx(), kSide, kSide);
        loadState(sim, still, toSimParams(params, kSide, kSide));
        sim.run(int(std::lround(kTime / kDt)));
        const std::vector<float> s = sim.download(gpu::Field::Sediment), b = sim.download(gpu::Field::Terrain);
        const double want = kLoad * std::exp(-kSettling * kTime / depth);
        double worst = 0.0, landed = 0.0;
        for (size_t i = 0; i < n; ++i) {
            worst = std::max(worst, std::abs(double(s[i]) - want) / want);
            landed = std::max(landed, std::abs((double(b[i]) - 10.0) + (double(s[i]) - kLoad)));
        }
        std::printf("[ settling through %.1f m of still water ] load %.5f m after %.0f s (exp: %.5f), largest "
                    "difference %.3f %%; largest soil imbalance %.2g m\n",
                    depth, double(s[0]), kTime, want, 100.0 * worst, landed);
        EXPECT_LE(worst, 0.01);
        EXPECT_LE(landed, 1e-5);
    }
}

} // namespace
} // namespace alluvium::test
