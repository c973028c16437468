#include "particles.h"

#include "layers.h"

#include <algorithm>
#include <cmath>

namespace alluvium::ref {

namespace {
constexpr double kFixedOne = PARTICLE_FIXED_ONE;
constexpr double kMaxExchange = 16.0;
constexpr int64_t kMaxLoad = int64_t(1) << 30;
} // namespace

std::array<uint32_t, 3> pcg3d(std::array<uint32_t, 3> v) {
    for (uint32_t& x : v) x = x * 1664525u + 1013904223u;
    v[0] += v[1] * v[2];
    v[1] += v[2] * v[0];
    v[2] += v[0] * v[1];
    for (uint32_t& x : v) x ^= x >> 16u;
    v[0] += v[1] * v[2];
    v[1] += v[2] * v[0];
    v[2] += v[0] * v[1];
    return v;
}

void applyDelta(double& b, double& sediment, int64_t d) {
    const float fb = static_cast<float>(b), fs = static_cast<float>(sediment);
    if (d == 0 && fs == 0.0f) return;
    const double total = double(fb) + double(fs) + static_cast<double>(d) * (1.0 / kFixedOne);
    float ground = static_cast<float>(total);
    if (double(ground) > total) ground = std::nextafter(ground, -INFINITY);
    b = ground;
    sediment = static_cast<float>(total - double(ground));
}

DropletFork findFork(const DropletTrace& f, const DropletTrace& d, const gpu::SimParams& p) {
    DropletFork fork{p.particle_lifetime, 0};
    auto distance = [](double c) { return std::min(c - std::floor(c), std::ceil(c) - c); };
    double spread = std::max(std::abs(f.x0 - d.x0), std::abs(f.y0 - d.y0)), volume_spread = 0.0;
    int age = -1; // -1: the release point
    if (std::min(distance(d.x0), distance(d.y0)) >= kForkFactor * spread + kForkFloor) {
        for (age = 0; age < int(d.steps.size()); ++age) {
            const DropletStep& a = d.steps[size_t(age)];
            if (age < int(f.steps.size())) {
                const DropletStep& b = f.steps[size_t(age)];
                spread = std::max({spread, std::abs(a.x - b.x), std::abs(a.y - b.y)});
                volume_spread = std::max(volume_spread, std::abs(a.volume - b.volume));
            }
            if (std::min(distance(a.x), distance(a.y)) < kForkFactor * spread + kForkFloor) break;
            const double min_volume = p.particle_min_volume;
            if (a.volume > 0.0 &&
                std::abs(a.volume - min_volume) < kForkFactor * volume_spread + kForkFloor * min_volume) {
                ++age; // this iteration is the same everywhere; whether the droplet goes on is not
                break;
            }
        }
        if (age == int(d.steps.size())) return fork; // no near-tie on the whole path
    }
    fork.age = std::max(age, 0);
    int64_t uncertain = fork.age < int(d.steps.size()) ? d.steps[size_t(fork.age)].load : d.final_load;
    for (size_t k = size_t(fork.age); k < d.steps.size(); ++k) uncertain += std::abs(d.steps[k].exchange);
    fork.uncertain = uncertain + std::abs(d.final_load);
    return fork;
}

template <class T>
DropletTrace particleDroplet(const State& s, const gpu::SimParams& p, int step, uint32_t index,
                             std::vector<int64_t>& delta) {
    DropletTrace trace;
    const int W = s.w, H = s.h;
    auto clampX = [&](int x) { return std::clamp(x, 0, W - 1); };
    auto clampY = [&](int y) { return std::clamp(y, 0, H - 1); };
    auto ground = [&](int x, int y) { return static_cast<T>(s.terrain[s.index(x, y)]); };
    const T cell_size = static_cast<T>(p.cell_size);
    auto normal = [&](int cx, int cy, T& nx, T& ny) {
        const int l = clampX(cx - 1), r = clampX(cx + 1), t = clampY(cy - 1), b = clampY(cy + 1);
        const T gx = (ground(r, cy) - ground(l, cy)) / (static_cast<T>(std::max(r - l, 1)) * cell_size);
        const T gy = (ground(cx, b) - ground(cx, t)) / (static_cast<T>(std::max(b - t, 1)) * cell_size);
        const T inv = T(1) / std::sqrt(T(1) + gx * gx + gy * gy);
        nx = -gx * inv;
        ny = -gy * inv;
    };
    auto note = [&](T x, T y) {
        for (T c : {x, y}) {
            const double f = double(c) - std::floor(double(c));
            trace.margin = std::min(trace.margin, std::min(f, 1.0 - f));
        }
    };

    const std::array<uint32_t, 3> r = pcg3d({index, static_cast<uint32_t>(step), p.particle_seed});
    const T w = static_cast<T>(W), h = static_cast<T>(H);
    const T inv24 = static_cast<T>(1.0 / 16777216.0);
    T px = static_cast<T>(r[0] >> 8u) * inv24 * w;
    T py = static_cast<T>(r[1] >> 8u) * inv24 * h;
    trace.x0 = double(px), trace.y0 = double(py);
    // Droplets fall where it rains: one drawn on a cell of rain mask m falls with probability m.
    {
        const int sx0 = clampX(static_cast<int>(std::floor(px))), sy0 = clampY(static_cast<int>(std::floor(py)));
        if (static_cast<double>(r[2] >> 8u) * (1.0 / 16777216.0) >= float(s.rain_mask[s.index(sx0, sy0)])) {
            trace.unborn = true;
            return trace;
        }
    }
    T sx = 0, sy = 0;
    T volume = static_cast<T>(p.particle_volume);
    const T dt = static_cast<T>(p.particle_time_step);
    const T density = static_cast<T>(p.particle_density);
    const T friction = T(1) - dt * static_cast<T>(p.particle_friction);
    const T capacity_k = static_cast<T>(p.particle_capacity);
    const T rate = std::min(T(1), dt * static_cast<T>(p.particle_deposition));
    const T kd = static_cast<T>(p.particle_deposition), ks = static_cast<T>(p.particle_softness);
    const T evaporation = dt * static_cast<T>(p.particle_evaporation);
    const T volume0 = static_cast<T>(p.particle_volume);
    const T min_volume = static_cast<T>(p.particle_min_volume);
    const bool mass_transfer = p.particle_variant == PARTICLES_MASS_TRANSFER;
    int cx = clampX(static_cast<int>(std::floor(px))), cy = clampY(static_cast<int>(std::floor(py)));
    note(px, py);
    int64_t load = 0;
    for (int age = 0; age < p.particle_lifetime; ++age) {
        ++trace.iterations;
        T nx, ny;
        normal(cx, cy, nx, ny);
        const T inertia = volume * density;
        sx = sx + dt * nx / inertia;
        sy = sy + dt * ny / inertia;
        px = px + dt * sx;
        py = py + dt * sy;
        sx = sx * friction;
        sy = sy * friction;
        trace.steps.push_back({double(px), double(py), 0.0, load, 0});
        if (!(px >= 0 && py >= 0 && px < w && py < h)) {
            if (p.edge_mode == EDGE_OPEN) {
                trace.left_map = true;
                trace.lost = load;
                trace.final_load = load;
                return trace;
            }
            cx = static_cast<int>(std::clamp(std::floor(px), T(0), w - T(1)));
            cy = static_cast<int>(std::clamp(std::floor(py), T(0), h - T(1)));
            break;
        }
        note(px, py);
        const int nxc = clampX(static_cast<int>(std::floor(px))), nyc = clampY(static_cast<int>(std::floor(py)));
        const T v = std::sqrt(sx * sx + sy * sy);
        const T carried = static_cast<T>(load) * static_cast<T>(1.0 / kFixedOne);
        T amount;
        int ax, ay;
        if (mass_transfer) {
            const T c_eq = std::max(T(0), capacity_k * volume * v * (ground(cx, cy) - ground(nxc, nyc)));
            amount = rate * (volume * c_eq - carried);
            ax = cx, ay = cy;
        } else {
            const T capacity = capacity_k * v * volume;
            amount = carried > capacity ? -kd * (carried - capacity) : ks * (capacity - carried);
            ax = nxc, ay = nyc;
        }
        if (amount > 0) {
            const size_t at = s.index(ax, ay);
            amount = layeredErosion<T>(p, amount, static_cast<T>(s.loose[at]), static_cast<T>(s.hardness[at]));
        }
        const T scaled = std::clamp(amount, T(-kMaxExchange), T(kMaxExchange)) * static_cast<T>(kFixedOne);
        int64_t q = static_cast<int64_t>(std::nearbyint(scaled));
        q = std::clamp(q, -load, kMaxLoad - load);
        if (q != 0) {
            delta[s.index(ax, ay)] -= q;
            load += q;
            trace.moved += q < 0 ? -q : q;
        }
        volume = mass_transfer ? volume * (T(1) - evaporation) : std::max(T(0), volume - evaporation * volume0);
        trace.steps.back().exchange = q;
        trace.steps.back().volume = double(volume);
        cx = nxc, cy = nyc;
        if (volume < min_volume) break;
    }
    delta[s.index(cx, cy)] += load;
    trace.final_load = load;
    return trace;
}

template <class T>
std::vector<DropletTrace> particlesStep(State& s, const gpu::SimParams& p, int step, std::vector<int64_t>* delta_out) {
    std::vector<int64_t> delta(s.terrain.size(), 0);
    std::vector<DropletTrace> traces;
    traces.reserve(static_cast<size_t>(std::max(p.particle_count, 0)));
    for (int i = 0; i < p.particle_count; ++i)
        traces.push_back(particleDroplet<T>(s, p, step, static_cast<uint32_t>(i), delta));
    for (size_t i = 0; i < delta.size(); ++i) {
        const double before = s.terrain[i];
        applyDelta(s.terrain[i], s.sediment[i], delta[i]);
        if (layersOn(p)) s.loose[i] = looseAfter(s.loose[i], before, s.terrain[i]);
    }
    if (delta_out) *delta_out = std::move(delta);
    return traces;
}

template DropletTrace particleDroplet<float>(const State&, const gpu::SimParams&, int, uint32_t, std::vector<int64_t>&);
template DropletTrace particleDroplet<double>(const State&, const gpu::SimParams&, int, uint32_t,
                                              std::vector<int64_t>&);
template std::vector<DropletTrace> particlesStep<float>(State&, const gpu::SimParams&, int, std::vector<int64_t>*);
template std::vector<DropletTrace> particlesStep<double>(State&, const gpu::SimParams&, int, std::vector<int64_t>*);

} // namespace alluvium::ref
