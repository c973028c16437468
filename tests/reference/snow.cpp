#include "snow.h"

#include <algorithm>
#include <cmath>

namespace alluvium::ref {

namespace {

constexpr int kOffsets[8][2] = {{-1, 0}, {1, 0}, {0, -1}, {0, 1}, {-1, -1}, {1, -1}, {-1, 1}, {1, 1}};
constexpr int kOpposite[8] = {1, 0, 3, 2, 7, 6, 5, 4};

double depthPerWater(const gpu::SimParams& p) { return 1000.0 / double(p.snow_density); }

double surface(const State& s, const gpu::SimParams& p, int x, int y) {
    const size_t i = s.index(x, y);
    return s.terrain[i] + s.snow[i] * depthPerWater(p);
}

bool inside(const State& s, int x, int y) { return x >= 0 && y >= 0 && x < s.w && y < s.h; }

// The excess over the angle of repose from (x, y) to its neighbour k (0 where none).
double excess(const State& s, const gpu::SimParams& p, int x, int y, int k) {
    const int nx = x + kOffsets[k][0], ny = y + kOffsets[k][1];
    if (!inside(s, nx, ny)) return 0.0;
    const double distance = (k < 4 ? 1.0 : std::sqrt(2.0)) * p.cell_size;
    const double e = surface(s, p, x, y) - surface(s, p, nx, ny) - std::tan(double(p.snow_repose_angle)) * distance;
    return std::max(e, 0.0);
}

// The sunlight on the slope at (x, y) relative to flat ground's, from central differences.
double sunExposure(const State& s, const gpu::SimParams& p, int x, int y) {
    const Vec2 g = groundGradient(s, p.cell_size, x, y);
    const double gx = g[0], gy = g[1];
    const double n = std::sqrt(gx * gx + gy * gy + 1.0);
    const double el = p.sun_elevation, az = p.sun_azimuth;
    const double lit = (-gx * std::cos(el) * std::sin(az) - gy * std::cos(el) * std::cos(az) + std::sin(el)) / n;
    return std::max(lit, 0.0) / std::sin(el);
}

} // namespace

double airTemperature(const gpu::SimParams& p, double z, double t) {
    const double season =
        p.season_amplitude > 0.0f ? p.season_amplitude * std::sin(2.0 * M_PI * t / double(p.season_period)) : 0.0;
    return p.air_temperature - double(p.lapse_rate) * z + season;
}

std::vector<double> snowSlideRates(const State& s, const gpu::SimParams& p) {
    std::vector<double> rates(s.snow.size(), 0.0);
    for (int y = 0; y < s.h; ++y)
        for (int x = 0; x < s.w; ++x) {
            double largest = 0.0, total = 0.0;
            for (int k = 0; k < 8; ++k) {
                const double e = excess(s, p, x, y, k);
                largest = std::max(largest, e);
                total += e;
            }
            const double moved = std::min(0.5 * largest, s.snow[s.index(x, y)] * depthPerWater(p));
            rates[s.index(x, y)] = total > 0.0 ? moved / total : 0.0;
        }
    return rates;
}

void snowStep(State& s, const gpu::SimParams& p, double t, Sums& sums) {
    const std::vector<double> rates = snowSlideRates(s, p);
    std::vector<double> next(s.snow.size());
    const double area = double(p.cell_size) * p.cell_size, dt = p.time_step;
    for (int y = 0; y < s.h; ++y)
        for (int x = 0; x < s.w; ++x) {
            const size_t i = s.index(x, y);
            double moved = 0.0;
            for (int k = 0; k < 8; ++k) {
                moved -= rates[i] * excess(s, p, x, y, k);
                const int nx = x + kOffsets[k][0], ny = y + kOffsets[k][1];
                if (inside(s, nx, ny)) moved += rates[s.index(nx, ny)] * excess(s, p, nx, ny, kOpposite[k]);
            }
            double lying = std::max(s.snow[i] + moved / depthPerWater(p), 0.0);
            const double temperature = airTemperature(p, s.terrain[i], t);
            if (temperature < 0.0) {
                const double fall = dt * p.snowfall_rate * s.rain_mask[i];
                lying += fall;
                sums[SLOT_SNOWFALL] += fall * area;
            }
            if (temperature > 0.0 && lying > 0.0) {
                const double sun = p.sun_melt > 0.0f ? 1.0 + p.sun_melt * (sunExposure(s, p, x, y) - 1.0) : 1.0;
                const double melt = std::min(lying, dt * p.melt_factor * temperature * sun);
                lying -= melt;
                s.water[i] += melt;
                sums[SLOT_MELT] += melt * area;
            }
            next[i] = lying;
        }
    s.snow = std::move(next);
}

} // namespace alluvium::ref
