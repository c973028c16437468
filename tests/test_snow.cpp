// Snow (shaders/snow.glsl): its two passes against their double-precision twin
// (tests/reference/snow.cpp) on random fields of odd sizes, and what a person sees of it,
// measured: the snow line at the height where the air is at 0 C, degree-day melt, the water
// budget with snow on, and avalanches that leave no snow slope steeper than its angle of repose.
#include <cmath>
#include <cstdio>

#include "gpu_fixture.h"
#include "report.h"
#include "setup.h"
#include "snow.h"

namespace alluvium::test {
namespace {

constexpr double kTolerance = 1e-5;
using gpu::Field;
using gpu::Pass;

// Table values in SI with snow on; the caller sets the rest.
gpu::SimParams snowParams(Params q, int w, int h) {
    q[Param::enable_snow] = 1;
    return toSimParams(q, w, h);
}

class SnowPassTest : public GpuTest, public ::testing::WithParamInterface<PassCase> {};

// snow_slide + snow on random ground (5..8 m on 1 m cells: slopes far past the angle of repose)
// with random snow, half the cells below 0 C (a lapse of 100 C/km over the 3 m), seasons and
// the sun's melt on: snow, water and the two sums as the twin's.
TEST_P(SnowPassTest, SlideFallAndMeltEqualTheTwin) {
    const PassCase& c = GetParam();
    ref::State s = randomState(c.grid.w, c.grid.h, c.seed);
    std::mt19937 rng(c.seed * 31u + 7u);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    for (double& snow : s.snow) snow = u(rng) < 0.3 ? 0.0 : 0.5 * u(rng);
    roundToFloat(s);
    Params q;
    q[Param::cell_size] = 1.0;
    q[Param::lapse_rate] = 100.0;
    q[Param::air_temperature] = 0.55 + 0.03 * double(c.seed); // 0 C at 6.7 .. 7.3 m with the season
    q[Param::season_amplitude] = 0.2;
    q[Param::season_period] = 40.0;
    q[Param::melt_factor] = 10.0;
    q[Param::sun_melt] = 0.8;
    q[Param::snowfall_rate] = 5.0;
    q[Param::rain_rate] = 1.0; // the rain mask is read
    gpu::SimParams p = snowParams(q, c.grid.w, c.grid.h);
    p.rain_uniform = 0;
    auto sim = std::make_unique<gpu::Simulation>(ctx(), c.grid.w, c.grid.h);
    loadState(*sim, s, p);
    sim->setSimTime(3.1);
    sim->runPass(Pass::SnowSlide);
    sim->runPass(Pass::Snow);
    sim->runPass(Pass::ReduceTotals);
    ref::Sums sums{};
    ref::State want = s;
    ref::snowStep(want, p, 3.1, sums);
    EXPECT_LE(relativeError(sim->download(Field::Snow, true), want.snow), kTolerance);
    EXPECT_LE(relativeError(sim->download(Field::Water, true), want.water), kTolerance);
    EXPECT_LE(relativeError(sim->totals().acc[SLOT_SNOWFALL], sums[SLOT_SNOWFALL]), kTolerance);
    // The melt summed is what the snow lost, to the bit what the water gains; it differs from the
    // twin's by the rounding of the snow left and of the slide before (an ulp of snow under 1 m a
    // cell at most), much more than 1e-5 of melts of 1e-4 m.
    const double area = double(p.cell_size) * p.cell_size, rounding = std::ldexp(1.0, -23) * area;
    EXPECT_NEAR(sim->totals().acc[SLOT_MELT], sums[SLOT_MELT],
                kTolerance * sums[SLOT_MELT] + rounding * double(s.snow.size()));
    if (c.grid.w > 2 && c.grid.h > 2) {
        EXPECT_GT(sums[SLOT_SNOWFALL], 0.0);
        EXPECT_GT(sums[SLOT_MELT], 0.0);
        double slid = 0.0;
        for (double r : ref::snowSlideRates(s, p)) slid += r;
        EXPECT_GT(slid, 0.0);
    }
}

INSTANTIATE_TEST_SUITE_P(RandomFields, SnowPassTest, ::testing::ValuesIn(passCases()), passCaseName);

class SnowTest : public GpuTest {};

// A ramp rising 100 m over 64 cells of 10 m (5.4 deg: no avalanche) under snowfall, with the
// pipe model's whole step (rain, flow, erosion): snow lies exactly where the ground is above the
// height at which the air is at 0 C, within one cell's rise.
TEST_F(SnowTest, TheSnowLineLiesWhereTheAirIsAtZero) {
    constexpr int w = 64, h = 24;
    ref::State s(w, h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) s.terrain[s.index(x, y)] = 100.0 * x / (w - 1);
    Params q;
    q[Param::cell_size] = 10.0;
    q[Param::edge_mode] = EDGE_CLOSED;
    q[Param::air_temperature] = 0.4;
    q[Param::lapse_rate] = 8.0; // 0 C at 50 m
    q[Param::snowfall_rate] = 1.0;
    q[Param::rain_rate] = 0.1;
    gpu::SimParams p = snowParams(q, w, h);
    auto sim = simulationOf(ctx(), s, p);
    sim->run(200);
    const std::vector<float> snow = sim->download(Field::Snow), ground = sim->download(Field::Terrain);
    const double line = 0.4 / 8e-3, rise = 100.0 / (w - 1);
    double lowest_white = 1e30, highest_bare = -1e30;
    for (size_t i = 0; i < snow.size(); ++i) {
        if (snow[i] > 0.0f)
            lowest_white = std::min(lowest_white, double(ground[i]));
        else
            highest_bare = std::max(highest_bare, double(ground[i]));
    }
    std::printf("[ snow line ] 0 C at %.2f m: bare up to %.2f m, snow from %.2f m (a cell rises %.2f m)\n", line,
                highest_bare, lowest_white, rise);
    EXPECT_LE(std::abs(lowest_white - line), rise);
    EXPECT_LE(std::abs(highest_bare - line), rise);
    EXPECT_LT(highest_bare, lowest_white);
}

// Degree-day melt: 1 m of snow (as water) on flat ground at 0 m, the air at 3 C swinging 2 C
// with the seasons, no sun's melt: after each step the snow lost exactly dt melt_factor max(T, 0)
// at the step's time, and the water holds it (no rain, no evaporation, closed edges).
TEST_F(SnowTest, MeltFollowsTheDegreeDayFormula) {
    constexpr int w = 17, h = 13;
    ref::State s(w, h);
    for (double& snow : s.snow) snow = 1.0;
    Params q;
    q[Param::edge_mode] = EDGE_CLOSED;
    q[Param::rain_rate] = 0.0;
    q[Param::enable_evaporation] = 0;
    q[Param::air_temperature] = 3.0;
    q[Param::season_amplitude] = 2.0;
    q[Param::season_period] = 30.0;
    q[Param::melt_factor] = 0.5;
    q[Param::sun_melt] = 0.0;
    gpu::SimParams p = snowParams(q, w, h);
    auto sim = simulationOf(ctx(), s, p);
    const int steps = 400;
    double expected = 0.0;
    for (int k = 0; k < steps; ++k) {
        const double t = k * double(p.time_step);
        const double air = 3.0 + 2.0 * std::sin(2.0 * M_PI * t / 30.0);
        expected += double(p.time_step) * p.melt_factor * std::max(air, 0.0);
    }
    sim->run(steps);
    const std::vector<float> snow = sim->download(Field::Snow), water = sim->download(Field::Water);
    double worst = 0.0;
    for (size_t i = 0; i < snow.size(); ++i) {
        worst = std::max(worst, std::abs((1.0 - snow[i]) - expected));
        worst = std::max(worst, std::abs(water[i] - expected));
    }
    std::printf("[ degree-day melt ] %d steps: melted %.6f m expected %.6f m, worst cell off by %.3g m\n", steps,
                1.0 - snow[0], expected, worst);
    EXPECT_GT(expected, 0.05);
    EXPECT_LE(worst, 1e-5 * expected);
    const double area = double(p.cell_size) * p.cell_size;
    EXPECT_NEAR(sim->totals().acc[SLOT_MELT], expected * w * h * area, 1e-5 * expected * w * h * area);
}

// The water budget with snow on: rain, snowfall, melt by degree-days and the sun, the seasons,
// avalanches, the pipe model's flow and evaporation, open edges, groundwater: what is stored on,
// in and as snow on the ground equals what came in minus what left, within 1e-6.
TEST_F(SnowTest, WaterBudgetClosesWithSnow) {
    constexpr int w = 61, h = 47;
    const ref::State s = generatedState(w, h, 4, 4.0);
    Params q;
    q[Param::cell_size] = 4.0;
    q[Param::edge_mode] = EDGE_OPEN;
    q[Param::rain_rate] = 0.5;
    q[Param::snowfall_rate] = 1.0;
    q[Param::lapse_rate] = 20.0;
    q[Param::air_temperature] = 1.0;
    q[Param::season_amplitude] = 1.5;
    q[Param::season_period] = 20.0;
    q[Param::melt_factor] = 0.5;
    q[Param::enable_groundwater] = 1;
    q[Param::enable_snow] = 1;
    InitialTerrain initial;
    initial.terrain.width = w;
    initial.terrain.height = h;
    initial.terrain.heights = toFloat(s.terrain);
    initial.hardness = toFloat(s.hardness);
    gpu::Simulation sim(ctx(), w, h);
    loadInitialState(sim, initial, q);
    sim.setParams(toSimParams(q, w, h));
    const StateSums before = sumState(sim, 4.0);
    sim.run(600);
    const StateSums after = sumState(sim, 4.0);
    const nlohmann::json r = makeReport(sim, before, after, 600, 0.0, 4.0);
    const auto& water = r["water"];
    std::printf("[ snow budget ] rained %.6g snowfall %.6g melted %.6g snow %.6g evaporated %.6g drained %.6g: "
                "error %.3g\n",
                water["rained"].get<double>(), water["snowfall"].get<double>(), water["melted"].get<double>(),
                water["snow_stored"].get<double>(), water["evaporated"].get<double>(), water["drained"].get<double>(),
                water["budget_error_rel"].get<double>());
    EXPECT_GT(water["snowfall"].get<double>(), 0.0);
    EXPECT_GT(water["melted"].get<double>(), 0.0);
    EXPECT_GT(water["snow_stored"].get<double>(), 0.0);
    EXPECT_LE(water["budget_error_rel"].get<double>(), 1e-6);
}

// Avalanches: a 6 m drift of snow (as water; 20 m deep) heaped on one side of flat ground, cold
// air, no snowfall: it slides until no snow surface stands steeper than the angle of repose
// towards any of its eight neighbours, and the snow is kept.
TEST_F(SnowTest, AnAvalancheLeavesNoSlopeAboveTheAngleOfRepose) {
    constexpr int w = 41, h = 29;
    ref::State s(w, h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const double r = std::hypot(x - 10.0, y - 14.0);
            s.snow[s.index(x, y)] = std::max(6.0 - 0.8 * r, 0.0);
            s.terrain[s.index(x, y)] = 0.2 * x; // a gentle ramp down to the left
        }
    Params q;
    q[Param::cell_size] = 1.0;
    q[Param::edge_mode] = EDGE_CLOSED;
    q[Param::rain_rate] = 0.0;
    q[Param::snowfall_rate] = 0.0;
    q[Param::air_temperature] = -10.0;
    gpu::SimParams p = snowParams(q, w, h);
    auto sim = simulationOf(ctx(), s, p);
    const double before = sum(sim->download(Field::Snow));
    sim->run(1500);
    const std::vector<float> snow = sim->download(Field::Snow), ground = sim->download(Field::Terrain);
    const double per_water = 1000.0 / p.snow_density, slope = std::tan(double(p.snow_repose_angle));
    double steepest = 0.0, worst_excess = -1e30;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const size_t i = size_t(y * w + x);
            if (snow[i] <= 0.0f) continue;
            for (int k = 0; k < 8; ++k) {
                const int nx = x + (k % 3) - 1, ny = y + (k / 3) - 1;
                if ((nx == x && ny == y) || nx < 0 || ny < 0 || nx >= w || ny >= h) continue;
                const size_t j = size_t(ny * w + nx);
                const double dist = (nx != x && ny != y) ? std::sqrt(2.0) : 1.0;
                const double drop = (ground[i] + snow[i] * per_water) - (ground[j] + snow[j] * per_water);
                steepest = std::max(steepest, drop / dist);
                worst_excess = std::max(worst_excess, drop - slope * dist);
            }
        }
    const double after = sum(snow);
    std::printf("[ avalanche ] steepest snow slope %.4f (repose %.4f), largest excess %.3g m, snow %.6g -> %.6g\n",
                steepest, slope, worst_excess, before, after);
    EXPECT_LE(worst_excess, 1e-3);
    EXPECT_GT(steepest, 0.9 * slope); // it slid to the angle, not flat
    EXPECT_NEAR(after, before, 1e-6 * before);
}

} // namespace
} // namespace alluvium::test
