// The same landscape at any resolution: what a run does to a terrain must not depend on how finely
// the terrain is sampled. A slope above the talus angle slumps by the same volume at cell sizes L
// and L/2 (the thermal rate is a diffusivity, not a rate per cell), and a real DEM resampled at L
// and L/2 loses the same ground per unit area and keeps the same drainage density over the same
// simulated time.
#include <cmath>

#include "cli_process.h"
#include "gpu_fixture.h"
#include "io/heightmap.h"

namespace alluvium::test {
namespace {

using gpu::Field;

class ResolutionTest : public GpuTest {};

// A ramp at 40 degrees, 64 m long, under thermal erosion alone (talus 33 degrees). Inside it every
// cell receives what it sends, so the volume crossing its middle per metre of width is the flux
// K (S - S_talus) / 2 times the time, until the rounding of the crest and the toe (a front some
// sqrt(K t) wide, 9 m here) reaches the middle. Both cell sizes must carry exactly that; a rate per
// cell would carry 4 times less at half the cell size. (dt K / L^2 is 0.2 and 0.8 here: below the
// explicit limit of 1, where a step moves at most half the largest excess.)
TEST_F(ResolutionTest, ASlopeAboveTheTalusAngleSlumpsAlikeAtHalfTheCellSize) {
    constexpr double kLength = 64.0, kSlope = 0.83909963117728, kSeconds = 10.0;
    const double talus = std::tan(33.0 * 3.14159265358979323846 / 180.0);
    for (int half = 0; half < 2; ++half) {
        const double cell = half ? 1.0 : 2.0;
        const int w = int(kLength / cell), h = 4;
        std::vector<float> z(size_t(w) * h);
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) z[size_t(y * w + x)] = float(kSlope * (kLength - (x + 0.5) * cell));
        Params q;
        q[Param::cell_size] = cell;
        q[Param::edge_mode] = EDGE_CLOSED;
        q[Param::rain_rate] = 0.0;
        q[Param::enable_flow] = 0;
        q[Param::enable_erosion] = 0;
        q[Param::enable_evaporation] = 0;
        q[Param::talus_angle] = 33.0;
        gpu::SimParams p = toSimParams(q, w, h);
        auto sim = make(z, w, h, p);
        sim->run(int(std::lround(kSeconds / p.time_step)));
        const std::vector<float> after = sim->download(Field::Terrain);
        const double expected = 0.5 * p.thermal_rate * (kSlope - talus) * kSeconds;
        for (int y = 0; y < h; ++y) {
            double crossed = 0.0; // m^3 per metre of width: what the lower half gained
            for (int x = w / 2; x < w; ++x) crossed += (double(after[size_t(y * w + x)]) - z[size_t(y * w + x)]) * cell;
            EXPECT_NEAR(crossed, expected, 2e-3 * expected) << "cell " << cell << " m, row " << y;
            if (y == 0)
                std::printf("[ slump ] cell %.1f m: %.4f m^3/m crossed the middle (K (S - S_talus) t / 2 = %.4f), "
                            "the crest lowered %.3f m\n",
                            cell, crossed, expected, double(z[0] - after[0]));
        }
    }
}

// The West Bijou escarpment (shared/data, 30 m cells) as it is (L = 30 m, 129 x 67) and sampled
// bilinearly at half the spacing (L/2 = 15 m, 257 x 133: the same surface, node for node), under
// the default preset for 300 simulated seconds (0.5 s steps: the CFL sub-steps keep the flow
// stable). Measured on both:
//  - the ground lost per unit area (what left the ground, net of what settled back);
//  - the ground lowered per unit area at the scale both grids resolve: the fine run's change
//    averaged onto the coarse cells (tent weights) before the lowered parts are summed; the fine
//    grid's own rills, narrower than a coarse cell, add erosion and deposition side by side that a
//    30 m cell cannot hold (its gross eroded volume is printed: about 1.3 times the coarse one);
//  - the drainage density after the run: the length of channels (cells draining at least
//    20,000 m^2 after a priority-flood fill, D8) per unit area.
// Each within 20 % of the other.
TEST(Resolution, ARealDemAtTwoCellSizesErodesAlike) {
    Scratch s;
    constexpr int kW = 129, kH = 67, kFineW = 2 * kW - 1, kFineH = 2 * kH - 1;
    std::vector<float> coarse(size_t(kW) * kH);
    {
        std::ifstream in(std::string(ALLUVIUM_SHARED_DATA_DIR) + "/west_bijou_escarpment_129x67.f32", std::ios::binary);
        ASSERT_TRUE(in.read(reinterpret_cast<char*>(coarse.data()), std::streamsize(coarse.size() * 4)));
    }
    std::vector<float> fine(size_t(kFineW) * kFineH);
    auto at = [&](int x, int y) { return double(coarse[size_t(std::min(y, kH - 1) * kW + std::min(x, kW - 1))]); };
    for (int y = 0; y < kFineH; ++y)
        for (int x = 0; x < kFineW; ++x) {
            const int cx = x / 2, cy = y / 2;
            const double fx = 0.5 * (x % 2), fy = 0.5 * (y % 2);
            fine[size_t(y * kFineW + x)] = float((1 - fy) * ((1 - fx) * at(cx, cy) + fx * at(cx + 1, cy)) +
                                                 fy * ((1 - fx) * at(cx, cy + 1) + fx * at(cx + 1, cy + 1)));
        }
    struct Grid {
        const char* name;
        int w, h;
        double cell;
        const std::vector<float>& z0;
        std::vector<float> z, area;
        double eroded = 0.0;
    };
    Grid grids[2] = {{"coarse", kW, kH, 30.0, coarse, {}, {}}, {"fine", kFineW, kFineH, 15.0, fine, {}, {}}};
    for (Grid& g : grids) {
        const std::string n = g.name, size = std::to_string(g.w) + "x" + std::to_string(g.h);
        writeFloats(s.in / (n + ".f32"), g.z0);
        const CliResult r = runCli({"run", "--in", s.inPath(n + ".f32"), "--size", size, "--cell-size",
                                    std::to_string(g.cell), "--steps", "600", "--set", "time_step=0.5", "--out",
                                    s.outPath(n + ".f32"), "--report", s.outPath(n + ".json")},
                                   s.io);
        ASSERT_EQ(r.code, 0) << r;
        const CliResult f =
            runCli({"fill", "--in", s.outPath(n + ".f32"), "--size", size, "--cell-size", std::to_string(g.cell),
                    "--out", s.outPath(n + "-filled.f32"), "--out-maps", s.outPath(n + "-maps")},
                   s.io);
        ASSERT_EQ(f.code, 0) << f;
        g.z = loadHeightmap(s.out / (n + ".f32"), sized(g.w, g.h)).heights;
        g.area = loadHeightmap(s.out / (n + "-maps") / "drainage_area.exr", {}).heights;
        ASSERT_EQ(g.area.size(), g.z0.size());
        g.eroded = nlohmann::json::parse(readText(s.out / (n + ".json")))["soil"]["eroded"].get<double>();
    }
    // Per unit area (m, or 1/km for the density) on each grid.
    double lost[2], lowered[2], density[2];
    for (int k = 0; k < 2; ++k) {
        const Grid& g = grids[k];
        const double area = double(g.w) * g.h * g.cell * g.cell;
        double sum = 0.0;
        long channels = 0;
        for (size_t i = 0; i < g.z0.size(); ++i) {
            sum += double(g.z0[i]) - g.z[i];
            channels += g.area[i] >= 2e4f;
        }
        lost[k] = sum * g.cell * g.cell / area;
        density[k] = double(channels) * g.cell / area * 1e3;
        std::printf("[ resolution ] %s (%d x %d, %.0f m): gross eroded %.2f mm\n", g.name, g.w, g.h, g.cell,
                    g.eroded / area * 1e3);
    }
    // Lowered at the coarse cells: the fine change under each coarse cell, tent-weighted.
    const Grid &c = grids[0], &f = grids[1];
    lowered[0] = lowered[1] = 0.0;
    for (int y = 0; y < kH; ++y)
        for (int x = 0; x < kW; ++x) {
            double sum = 0.0, weight = 0.0;
            for (int dy = -1; dy <= 1; ++dy)
                for (int dx = -1; dx <= 1; ++dx) {
                    const int fx = 2 * x + dx, fy = 2 * y + dy;
                    if (fx < 0 || fy < 0 || fx >= kFineW || fy >= kFineH) continue;
                    const double w = (2 - std::abs(dx)) * (2 - std::abs(dy));
                    const size_t i = size_t(fy * kFineW + fx);
                    sum += w * (double(f.z0[i]) - f.z[i]);
                    weight += w;
                }
            const size_t i = size_t(y * kW + x);
            lowered[0] += std::max(double(c.z0[i]) - c.z[i], 0.0);
            lowered[1] += std::max(sum / weight, 0.0);
        }
    lowered[0] /= double(kW) * kH;
    lowered[1] /= double(kW) * kH;
    const char* what[3] = {"ground lost (mm)", "ground lowered at 30 m (mm)", "drainage density (1/km)"};
    const double* values[3] = {lost, lowered, density};
    for (int m = 0; m < 3; ++m) {
        const double scale = m < 2 ? 1e3 : 1.0;
        std::printf("[ resolution ] %s: 30 m %.3f, 15 m %.3f, ratio %.3f\n", what[m], values[m][0] * scale,
                    values[m][1] * scale, values[m][1] / values[m][0]);
        EXPECT_GT(values[m][0], 0.0) << what[m];
        EXPECT_NEAR(values[m][1] / values[m][0], 1.0, 0.2) << what[m];
    }
}

} // namespace
} // namespace alluvium::test
