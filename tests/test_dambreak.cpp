// Ritter's dry-bed dam break in a 1-cell-wide channel: the depth profile against the analytic
// solution, at 400 and 800 cells. The scheme is first order, so the L1 error must shrink as the
// grid is refined.
#include <cstdio>

#include "gpu_fixture.h"

namespace alluvium::test {
namespace {

constexpr double kLength = 1000.0; // m
constexpr double kDam = 500.0;     // m
constexpr double kDepth = 1.0;     // m upstream
constexpr double kTime = 20.0;     // s
constexpr double kGravity = 9.81;

// Ritter (1892): h = h0 upstream of the rarefaction, (2 c0 - x/t)^2 / 9g inside it, 0 past the
// front at 2 c0 t.
double ritter(double x, double t) {
    const double c0 = std::sqrt(kGravity * kDepth);
    const double xi = x - kDam;
    if (xi <= -c0 * t) return kDepth;
    if (xi >= 2.0 * c0 * t) return 0.0;
    const double c = 2.0 * c0 - xi / t;
    return c * c / (9.0 * kGravity);
}

class DamBreakTest : public GpuTest {
protected:
    // Returns the L1 error (m^2) of the depth at kTime.
    double run(int cells) {
        const double cell = kLength / cells;
        const double c0 = std::sqrt(kGravity * kDepth);
        // Courant number 0.2 on the fastest wave (the front, 2 c0).
        const int steps = static_cast<int>(std::ceil(kTime / (0.2 * cell / (2.0 * c0))));
        const double dt = kTime / steps;
        Params params = waterOnlyParams(cell, dt); // closed edges: the channel's ends are walls
        params[Param::gravity] = kGravity;
        params[Param::manning_n] = 0.0; // Ritter's solution: no friction, no Froude limit
        params[Param::froude_max] = 0.0;
        params[Param::flux_damping] = 0.0;
        params[Param::dry_depth] = 1e-6;
        ref::State s(cells, 1);
        for (int i = 0; i < cells; ++i) s.water[size_t(i)] = (i + 0.5) * cell < kDam ? kDepth : 0.0;
        gpu::Simulation sim(ctx(), cells, 1);
        loadState(sim, s, toSimParams(params, cells, 1));
        sim.run(steps);
        const std::vector<float> d = sim.download(gpu::Field::Water);
        double l1 = 0.0;
        std::printf("[ dam break %d cells, %d steps of %.4f s ] x-500 (m): depth / Ritter\n", cells, steps, dt);
        for (int i = 0; i < cells; ++i) {
            const double x = (i + 0.5) * cell;
            l1 += std::abs(d[size_t(i)] - ritter(x, kTime)) * cell;
            if (i % (cells / 20) == 0 && std::abs(x - kDam) < 160.0)
                std::printf("    %7.1f  %.4f / %.4f\n", x - kDam, d[size_t(i)], ritter(x, kTime));
        }
        return l1;
    }
};

TEST_F(DamBreakTest, ConvergesToRitter) {
    const double l1_400 = run(400);
    const double l1_800 = run(800);
    std::printf("[ dam break ] L1 error of depth at t = %.0f s: 400 cells %.4f m^2, 800 cells %.4f m^2 "
                "(of %.0f m^2 of water)\n",
                kTime, l1_400, l1_800, kDam * kDepth);
    EXPECT_LT(l1_800, l1_400);
    // Within 1% of the water's volume per unit width: the front moves at the right speed.
    EXPECT_LT(l1_400, 0.01 * kDam * kDepth);
}

} // namespace
} // namespace alluvium::test
