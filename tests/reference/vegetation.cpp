#include "vegetation.h"

#include <algorithm>
#include <cmath>

namespace alluvium::ref {

namespace {

double smoothstep(double e0, double e1, double x) {
    const double t = std::clamp((x - e0) / (e1 - e0), 0.0, 1.0);
    return t * t * (3.0 - 2.0 * t);
}

double slopeAt(const State& s, const gpu::SimParams& p, int x, int y) {
    const Vec2 g = groundGradient(s, p.cell_size, x, y);
    const double gx = g[0], gy = g[1];
    return std::sqrt(gx * gx + gy * gy);
}

} // namespace

void vegetationStep(State& s, const std::vector<double>& before, const gpu::SimParams& p) {
    const double dt = p.time_step;
    for (int y = 0; y < s.h; ++y)
        for (int x = 0; x < s.w; ++x) {
            const size_t i = s.index(x, y);
            double v = s.vegetation[i][0], wet = s.vegetation[i][1];
            const double b = s.terrain[i], d = s.water[i];
            wet += (d - wet) * (1.0 - std::exp(-dt / p.vegetation_memory));
            double moisture = std::clamp(wet / p.vegetation_wet_depth, 0.0, 1.0);
            if (p.enable_groundwater != 0)
                moisture =
                    std::max(moisture, std::clamp(1.0 - (b - s.water_table[i]) / p.vegetation_root_depth, 0.0, 1.0));
            const double steepest = std::tan(double(p.vegetation_max_slope));
            const double q = moisture * (1.0 - smoothstep(0.75 * steepest, steepest, slopeAt(s, p, x, y)));
            const double r = p.vegetation_growth * q - p.vegetation_decay * (1.0 - q);
            if (r > 0.0) v = std::max(v, double(p.vegetation_seed));
            v = v / (v + (1.0 - v) * std::exp(-r * dt));
            const double n = p.manning_n + p.vegetation_roughness * v;
            const double speed = std::hypot(s.velocity[i][0], s.velocity[i][1]);
            const double shear =
                1000.0 * p.gravity * n * n * speed * speed / std::cbrt(std::max(d, double(p.dry_depth)));
            if (d > p.dry_depth && shear > p.vegetation_shear) v *= std::exp(-p.vegetation_uproot_rate * dt);
            const double raised = b - before[i];
            if (raised > 0.0) v *= std::max(1.0 - raised / p.vegetation_burial, 0.0);
            if (p.enable_lava != 0 && s.lava[i][0] > 0.0) v = 0.0; // lava burns it
            s.vegetation[i] = {std::clamp(v, 0.0, 1.0), wet};
        }
}

} // namespace alluvium::ref
