// Water and sediment against analytic solutions: a thin sheet down a uniform slope settles at
// Manning's terminal speed, the cells a dam break's front floods move no faster than the front,
// and grains settle through still water at their fall speed.
#include <cmath>
#include <cstdio>

#include "gpu_fixture.h"

namespace alluvium::test {
namespace {

// A sheet fed by a spring at the top of a uniform slope S (a 1-cell-wide strip, the cell above
// the spring a wall) settles at its normal depth h, where gravity and friction balance:
// Manning's U = h^(2/3) S^(1/2) / n, or, where that would pass froude_max times the critical
// speed sqrt(g h) (steep beds roughen), U = froude_max sqrt(g h). The cells' speed (the
// velocity field erosion reads) within 10 % of the speed for the depth each cell holds: thin
// water moves as fast as friction allows, no faster.
class SheetFlowTest : public GpuTest {
protected:
    static constexpr double kManning = 0.03;
    static double terminal(double h, double slope, double froude_max) {
        const double manning = std::pow(h, 2.0 / 3.0) * std::sqrt(slope) / kManning;
        return froude_max > 0.0 ? std::min(manning, froude_max * std::sqrt(9.81 * h)) : manning;
    }

    // Settles a sheet of normal depth `depth` on `slope`; the largest difference of the measured
    // cells' speed from the terminal speed of their depth (relative).
    double settle(double slope, double depth, double froude_max, int steps) {
        constexpr int kCells = 120;
        constexpr double kCell = 2.0;
        const double q = depth * terminal(depth, slope, froude_max); // its discharge per unit width
        // Closed edges: a 1-cell strip is all edge across. The lower end fills a pond, below the
        // cells measured.
        Params params = waterOnlyParams(kCell, 1.0);
        params[Param::manning_n] = kManning;
        params[Param::flux_damping] = 0.0;
        params[Param::froude_max] = froude_max;
        ref::State s(kCells, 1);
        for (int i = 0; i < kCells; ++i) s.terrain[size_t(i)] = 300.0 - slope * kCell * i;
        s.terrain[0] += 1.0; // a wall above the spring
        gpu::Simulation sim(ctx(), kCells, 1);
        loadState(sim, s, toSimParams(params, kCells, 1));
        sim.setSprings({{1.5f, 0.5f, 0.6f, float(q * kCell)}});
        sim.run(steps);
        const std::vector<float> d = sim.download(gpu::Field::Water), v = sim.download(gpu::Field::Velocity);
        double worst = 0.0, mean_h = 0.0;
        for (int i = 30; i < 90; ++i) {
            const double h = d[size_t(i)], u = v[2 * size_t(i)];
            worst = std::max(worst, std::abs(u - terminal(h, slope, froude_max)) / terminal(h, slope, froude_max));
            mean_h += h / 60.0;
        }
        const double u = v[2 * 60], h = d[60];
        std::printf("[ sheet on a %.0f %% slope, Froude bound %.0f ] depth %.4f m (normal depth %.4f), speed "
                    "%.4f m/s (Froude %.2f); largest difference from the terminal speed %.2f %%\n",
                    100.0 * slope, froude_max, mean_h, depth, u, u / std::sqrt(9.81 * h), 100.0 * worst);
        EXPECT_NEAR(mean_h, depth, 0.1 * depth) << "the sheet carries the spring's discharge";
        // The bound holds the front's transients too (without it this strip's front reached 5.15).
        if (froude_max > 0.0) {
            EXPECT_LE(double(sim.totals().max_froude), 5.0);
        }
        return worst;
    }
};

TEST_F(SheetFlowTest, ThinSheetsSettleAtManningsTerminalSpeed) {
    // On a 2 % slope the sheets are subcritical: the steep beds' bound does not act. The
    // kinematic wave (5/3 U) crosses the strip in under 1,100 s.
    for (const double depth : {0.002, 0.02}) {
        SCOPED_TRACE(depth);
        EXPECT_DOUBLE_EQ(terminal(depth, 0.02, 2.0), terminal(depth, 0.02, 0.0)) << "Manning's speed";
        EXPECT_LE(settle(0.02, depth, 2.0, 3000), 0.10);
    }
}

TEST_F(SheetFlowTest, SheetsOnASteepBedRunNearCritical) {
    // An 80 % slope: Manning's n of 0.03 alone would run 5 mm and 2 cm sheets at Froude 3.9 and
    // 5.0; the steep bed's roughness holds them at twice the critical speed.
    for (const double depth : {0.005, 0.02}) {
        SCOPED_TRACE(depth);
        EXPECT_GT(terminal(depth, 0.8, 0.0), 1.5 * terminal(depth, 0.8, 2.0)) << "the bound acts";
        EXPECT_LE(settle(0.8, depth, 2.0, 1000), 0.10); // the wave (1.5 U) crosses in under 400 s
    }
    // Without the bound (froude_max 0) the 5 mm sheet runs at Manning's speed, Froude 3.9.
    EXPECT_LE(settle(0.8, 0.005, 0.0, 1000), 0.10);
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
