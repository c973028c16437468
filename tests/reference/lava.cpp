#include "lava.h"

#include <algorithm>
#include <cmath>

#include "layers.h"

namespace alluvium::ref {

namespace {

constexpr double kStefanBoltzmann = 5.670374e-8, kGround = 300.0, kBoiling = 373.15;
constexpr double kBoilJoulesPerM3 = 1000.0 * (4186.0 * 80.0 + 2.257e6);
constexpr int kOffsets[4][2] = {{-1, 0}, {1, 0}, {0, -1}, {0, 1}};
constexpr int kOpposite[4] = {1, 0, 3, 2};

double viscosity(const gpu::SimParams& p, double t) {
    return p.lava_viscosity * std::exp(p.lava_viscosity_rise * (p.lava_vent_temperature - t));
}
double yieldStrength(const gpu::SimParams& p, double t) {
    return p.lava_yield_strength * std::exp(p.lava_yield_rise * (p.lava_vent_temperature - t));
}

double faceFlow(const gpu::SimParams& p, double h, double t, double drop) {
    if (drop <= 0.0 || h <= 0.0) return 0.0;
    const double slope = drop / p.cell_size, rho_g = double(p.lava_density) * p.gravity;
    const double critical = yieldStrength(p, t) / (rho_g * slope);
    if (h <= critical) return 0.0;
    const double r = critical / h;
    const double q = rho_g * slope * h * h * h / (3.0 * viscosity(p, t)) * (1.0 - 1.5 * r + 0.5 * r * r * r);
    const double area = double(p.cell_size) * p.cell_size;
    return std::min(q * p.cell_size * p.time_step, 0.2 * drop * area);
}

double ventDepth(const gpu::SimParams& p, int x, int y) {
    if (p.lava_eruption_rate <= 0.0f) return 0.0;
    const double radius = std::max(double(p.lava_vent_radius), 0.75 * p.cell_size);
    const double dx = (x + 0.5 - double(p.lava_vent_x) * p.width) * p.cell_size;
    const double dy = (y + 0.5 - double(p.lava_vent_y) * p.height) * p.cell_size;
    return dx * dx + dy * dy <= radius * radius ? p.lava_eruption_rate * p.time_step / (M_PI * radius * radius) : 0.0;
}

} // namespace

std::vector<Vec4> lavaOutflows(const State& s, const gpu::SimParams& p) {
    std::vector<Vec4> out(s.lava.size(), Vec4{});
    const double area = double(p.cell_size) * p.cell_size;
    for (int y = 0; y < s.h; ++y)
        for (int x = 0; x < s.w; ++x) {
            const size_t i = s.index(x, y);
            const double h = s.lava[i][0], t = s.lava[i][1], surface = s.terrain[i] + h;
            Vec4 o{};
            double total = 0.0;
            for (int k = 0; k < 4; ++k) {
                const int nx = x + kOffsets[k][0], ny = y + kOffsets[k][1];
                if (nx < 0 || ny < 0 || nx >= s.w || ny >= s.h) continue;
                const size_t j = s.index(nx, ny);
                o[size_t(k)] = faceFlow(p, h, t, surface - (s.terrain[j] + s.lava[j][0]));
                total += o[size_t(k)];
            }
            // As the shader: at most the lava held, less 2^-20 of it (its sums stay within it).
            const double held = h * area * (1.0 - 1.0 / 1048576.0);
            if (total > held)
                for (double& v : o) v *= held / total;
            out[i] = o;
        }
    return out;
}

double lavaCooled(const gpu::SimParams& p, double t, double h, double water, double& boiled) {
    const double capacity = double(p.lava_density) * p.lava_heat_capacity * h, dt = p.time_step;
    if (p.lava_emissivity > 0.0f)
        t *= std::pow(1.0 + 3.0 * p.lava_emissivity * kStefanBoltzmann * dt * t * t * t / capacity, -1.0 / 3.0);
    t = kGround + (t - kGround) * std::exp(-p.lava_ground_transfer * dt / capacity);
    boiled = 0.0;
    if (water > 0.0 && t > kBoiling && p.lava_quench > 0.0f) {
        const double quenched = kBoiling + (t - kBoiling) * std::exp(-p.lava_quench * dt / capacity);
        boiled = std::min((t - quenched) * capacity / kBoilJoulesPerM3, water);
        t -= boiled * kBoilJoulesPerM3 / capacity;
    }
    return t;
}

void lavaStep(State& s, const gpu::SimParams& p, Sums& sums, std::vector<double>* sensitive) {
    if (sensitive) sensitive->assign(s.lava.size(), 0.0);
    const std::vector<Vec4> out = lavaOutflows(s, p);
    const double area = double(p.cell_size) * p.cell_size;
    std::vector<Vec2> next(s.lava.size());
    for (int y = 0; y < s.h; ++y)
        for (int x = 0; x < s.w; ++x) {
            const size_t i = s.index(x, y);
            const Vec4& sent = out[i];
            double volume = s.lava[i][0] * area - (sent[0] + sent[1] + sent[2] + sent[3]);
            double heat = std::max(volume, 0.0) * s.lava[i][1];
            for (int k = 0; k < 4; ++k) {
                const int nx = x + kOffsets[k][0], ny = y + kOffsets[k][1];
                if (nx < 0 || ny < 0 || nx >= s.w || ny >= s.h) continue;
                const size_t j = s.index(nx, ny);
                volume += out[j][size_t(kOpposite[k])];
                heat += out[j][size_t(kOpposite[k])] * s.lava[j][1];
            }
            const double vent = ventDepth(p, x, y) * area;
            volume = std::max(volume + vent, 0.0);
            heat += vent * p.lava_vent_temperature;
            sums[SLOT_LAVA_ERUPTED] += vent;
            double h = volume / area, t = volume > 0.0 ? heat / volume : 0.0;
            if (h > 0.0) {
                double boiled = 0.0;
                t = lavaCooled(p, t, h, s.water[i], boiled);
                if (sensitive && (h < 1e-3 || std::abs(t - p.lava_solidus) < 1.0)) (*sensitive)[i] = volume;
                s.water[i] -= boiled;
                sums[SLOT_BOILED] += boiled * area;
                if (t <= p.lava_solidus) {
                    s.terrain[i] += h * (double(p.lava_density) / p.lava_rock_density);
                    const double rock = h * (double(p.lava_density) / p.lava_rock_density);
                    s.hardness[i] += (std::max(double(p.lava_rock_hardness), s.hardness[i]) - s.hardness[i]) *
                                     std::min(rock / 0.1, 1.0);
                    if (layersOn(p)) s.loose[i] = 0.0;
                    sums[SLOT_LAVA_SOLIDIFIED] += volume;
                    h = 0.0;
                }
            }
            next[i] = {h, h > 0.0 ? t : 0.0};
        }
    s.lava = std::move(next);
}

} // namespace alluvium::ref
