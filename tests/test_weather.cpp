// The weather (shaders/weather.glsl, storms.glsl): noise rain, storms and orographic rain, read
// through where the pipe model's rain lands in one step (flow and evaporation off, so the water a
// step adds is that step's rain). Storms drift downwind at their speed, noise rain has wet and
// dry patches that drift into new ones, orographic rain falls more on heights and on slopes
// facing the wind, and every option leaves the rain between 0 and rain_rate.
#include <cmath>
#include <functional>

#include "gpu_fixture.h"

namespace alluvium::test {
namespace {

using gpu::Field;

constexpr int kW = 96, kH = 64;

gpu::SimParams weatherParams(const std::function<void(Params&)>& set) {
    Params q;
    q[Param::enable_flow] = 0;
    q[Param::enable_evaporation] = 0;
    q[Param::enable_erosion] = 0;
    q[Param::enable_thermal] = 0;
    q[Param::rain_rate] = 1.0;
    q[Param::edge_mode] = EDGE_CLOSED;
    set(q);
    return toSimParams(q, kW, kH);
}

// The rain of the simulation's next step (m of depth a cell).
std::vector<double> nextRain(gpu::Simulation& sim) {
    const std::vector<float> before = sim.download(Field::Water);
    sim.run(1);
    const std::vector<float> after = sim.download(Field::Water);
    std::vector<double> rain(before.size());
    for (size_t i = 0; i < rain.size(); ++i) rain[i] = double(after[i]) - before[i];
    return rain;
}

struct Centroid {
    double x = 0, y = 0, total = 0;
};
Centroid centroid(const std::vector<double>& rain, double floor) {
    Centroid c;
    for (int y = 0; y < kH; ++y)
        for (int x = 0; x < kW; ++x) {
            const double r = std::max(rain[size_t(y * kW + x)] - floor, 0.0);
            c.x += r * (x + 0.5), c.y += r * (y + 0.5), c.total += r;
        }
    if (c.total > 0) c.x /= c.total, c.y /= c.total;
    return c;
}

double correlation(const std::vector<double>& a, const std::vector<double>& b) {
    double ma = 0, mb = 0;
    for (size_t i = 0; i < a.size(); ++i) ma += a[i], mb += b[i];
    ma /= double(a.size()), mb /= double(b.size());
    double ab = 0, aa = 0, bb = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        ab += (a[i] - ma) * (b[i] - mb), aa += (a[i] - ma) * (a[i] - ma), bb += (b[i] - mb) * (b[i] - mb);
    }
    return ab / std::sqrt(std::max(aa * bb, 1e-300));
}

class WeatherTest : public GpuTest {};

// One storm, 40 m across on cells of 4 m, drifting at 0.5 m/s towards 30 degrees: 60 s later its
// rain's centroid has moved 30 m (7.5 cells) that way, within a cell. The seed is the first whose
// storm lies whole inside the grid at both times.
TEST_F(WeatherTest, AStormDriftsDownwindAtItsSpeed) {
    const double heading = 30.0 * 3.14159265358979323846 / 180.0;
    bool found = false;
    for (int seed = 1; seed <= 40 && !found; ++seed) {
        const gpu::SimParams p = weatherParams([&](Params& q) {
            q[Param::storm_count] = 1;
            q[Param::storm_radius] = 40.0;
            q[Param::storm_speed] = 0.5;
            q[Param::storm_lifetime] = 600.0;
            q[Param::storm_background] = 0.0;
            q[Param::storm_seed] = seed;
            q[Param::wind_direction] = 30.0;
        });
        auto sim = make(std::vector<float>(size_t(kW) * kH, 10.0f), kW, kH, p);
        const std::vector<double> early = nextRain(*sim);
        sim->run(599); // 60 s at 0.1 s a step
        const std::vector<double> late = nextRain(*sim);
        const Centroid a = centroid(early, 0.0), b = centroid(late, 0.0);
        // Whole inside: 10 cells of radius, at least 11 cells from every edge.
        auto inside = [](const Centroid& c) {
            return c.total > 0 && c.x > 11 && c.y > 11 && c.x < kW - 11 && c.y < kH - 11;
        };
        if (!inside(a) || !inside(b)) continue;
        found = true;
        const double moved = 60.0 * 0.5 / 4.0; // cells
        std::printf("[ storm, seed %d ] centroid (%.2f, %.2f) -> (%.2f, %.2f); expected a move of (%.2f, %.2f)\n", seed,
                    a.x, a.y, b.x, b.y, moved * std::cos(heading), moved * std::sin(heading));
        EXPECT_NEAR(b.x - a.x, moved * std::cos(heading), 1.0);
        EXPECT_NEAR(b.y - a.y, moved * std::sin(heading), 1.0);
        for (double r : late) ASSERT_LE(r, p.time_step * p.rain_rate * (1.0 + 1e-5));
    }
    EXPECT_TRUE(found) << "no seed put the storm inside the grid";
}

// Noise rain: wet and dry patches (the rain spans most of 0 .. rain_rate), nearly the same
// pattern a second later, a new one after two periods.
TEST_F(WeatherTest, NoiseRainHasPatchesThatDrift) {
    const gpu::SimParams p = weatherParams([](Params& q) {
        q[Param::rain_noise] = 1.0;
        q[Param::rain_noise_scale] = 100.0;
        q[Param::rain_noise_period] = 30.0;
    });
    auto sim = make(std::vector<float>(size_t(kW) * kH, 10.0f), kW, kH, p);
    const std::vector<double> first = nextRain(*sim);
    sim->run(9);
    const std::vector<double> second = nextRain(*sim); // 1 s later
    sim->run(589);
    const std::vector<double> later = nextRain(*sim); // 60 s later: two periods
    const double full = p.time_step * p.rain_rate;
    double low = full, high = 0.0;
    for (double r : first) low = std::min(low, r), high = std::max(high, r);
    const double near = correlation(first, second), far = correlation(first, later);
    std::printf("[ noise rain ] %.3g .. %.3g of %.3g m a step; correlation after 1 s %.3f, after 60 s %.3f\n", low,
                high, full, near, far);
    EXPECT_LT(low, 0.2 * full);
    EXPECT_GT(high, 0.8 * full);
    EXPECT_LE(high, full * (1.0 + 1e-5));
    EXPECT_GT(near, 0.95);
    EXPECT_LT(far, 0.6);
}

// Orographic rain on a ridge across the wind (which blows towards +x): the crest gets more than
// the foot, and the windward flank more than the lee flank at the same height.
TEST_F(WeatherTest, OrographicRainFollowsHeightAndTheWindwardSlope) {
    std::vector<float> z(size_t(kW) * kH);
    for (int y = 0; y < kH; ++y)
        for (int x = 0; x < kW; ++x) z[size_t(y * kW + x)] = float(100.0 * std::exp(-std::pow((x - 48) / 16.0, 2)));
    const gpu::SimParams p = weatherParams([](Params& q) {
        q[Param::orographic] = 1.0;
        q[Param::orographic_height] = 100.0;
        q[Param::orographic_slope] = 1.0;
    });
    auto sim = make(z, kW, kH, p);
    const std::vector<double> rain = nextRain(*sim);
    auto at = [&](int x) { return rain[size_t(32 * kW + x)]; };
    std::printf("[ orographic ] foot %.3g, windward flank %.3g, crest %.3g, lee flank %.3g m a step\n", at(2), at(38),
                at(48), at(58));
    EXPECT_GT(at(48), 2.0 * at(2));
    EXPECT_GT(at(38), at(58) * 1.1);
    EXPECT_NEAR(z[size_t(32 * kW + 38)], z[size_t(32 * kW + 58)], 1e-3); // the same height
}

} // namespace
} // namespace alluvium::test
