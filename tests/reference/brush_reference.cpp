#include "brush_reference.h"

#include <algorithm>
#include <cmath>

namespace alluvium::ref {

double brushWeight(const gpu::BrushParams& p, int x, int y) {
    const double dx = x + 0.5 - p.x, dy = y + 0.5 - p.y;
    const double t2 = (dx * dx + dy * dy) / (double(p.radius) * p.radius);
    if (t2 >= 1.0) return 0.0;
    return p.falloff <= 0.0f ? 1.0 : std::pow(1.0 - t2, 2.0 * p.falloff);
}

namespace {

// One smoothing application: diffusion with symmetric face weights 0.5 (w_i + w_j), rate k.
void smoothOnce(BrushFields& f, const gpu::BrushParams& p, double k) {
    const auto at = [&](int x, int y) { return size_t(y) * size_t(f.w) + size_t(x); };
    std::vector<double> next = f.terrain;
    for (int y = 0; y < f.h; ++y)
        for (int x = 0; x < f.w; ++x) {
            const double w = brushWeight(p, x, y), hc = f.terrain[at(x, y)];
            double flow = 0;
            const int offsets[4][2] = {{-1, 0}, {1, 0}, {0, -1}, {0, 1}};
            for (const auto& o : offsets) {
                const int nx = x + o[0], ny = y + o[1];
                if (nx < 0 || ny < 0 || nx >= f.w || ny >= f.h) continue;
                flow += 0.5 * (w + brushWeight(p, nx, ny)) * (f.terrain[at(nx, ny)] - hc);
            }
            next[at(x, y)] = hc + k * flow;
        }
    f.terrain = std::move(next);
}

} // namespace

void applyBrush(BrushFields& f, const gpu::BrushParams& p, BrushSums& sums) {
    const double area = p.cell_area;
    const auto at = [&](int x, int y) { return size_t(y) * size_t(f.w) + size_t(x); };
    double tally[4] = {0, 0, 0, 0};
    if (p.tool == BRUSH_TOOL_SMOOTH) {
        // Explicit diffusion, stable up to 0.25 an application: split into equal ones (at most 64).
        const double amount = std::max(double(p.amount), 0.0);
        const int applications = std::clamp(int(std::ceil(amount / 0.25)), 1, 64);
        const double k = std::min(double(float(amount) / float(applications)), 0.25);
        for (int i = 0; i < applications; ++i) smoothOnce(f, p, k);
    } else {
        for (int y = 0; y < f.h; ++y)
            for (int x = 0; x < f.w; ++x) {
                const double w = brushWeight(p, x, y);
                if (w <= 0) continue;
                double a = double(p.amount) * w;
                if (p.tool == BRUSH_TOOL_DROP) a *= double(float(sums[BRUSH_HAND_PICKED] - sums[BRUSH_HAND_DROPPED]));
                double& b = f.terrain[at(x, y)];
                double& d = f.water[at(x, y)];
                double& r = f.hardness[at(x, y)];
                switch (p.tool) {
                case BRUSH_TOOL_ADD_WATER: d += a, tally[0] += a; break;
                case BRUSH_TOOL_REMOVE_WATER: {
                    const double removed = std::min(d, a);
                    d -= removed;
                    tally[1] += removed;
                    break;
                }
                case BRUSH_TOOL_RAISE:
                case BRUSH_TOOL_DROP: b += a, tally[2] += a; break;
                case BRUSH_TOOL_LOWER:
                case BRUSH_TOOL_PICK_UP: b -= a, tally[3] += a; break;
                case BRUSH_TOOL_FLATTEN: {
                    const double dh = (p.target - b) * std::min(a, 1.0);
                    b += dh;
                    tally[dh > 0 ? 2 : 3] += std::abs(dh);
                    break;
                }
                case BRUSH_TOOL_HARDNESS: r = std::clamp(r + (p.target - r) * std::min(a, 1.0), 0.0, 1.0); break;
                case BRUSH_TOOL_RAIN: {
                    double& m = f.rain[at(x, y)];
                    m = std::clamp(m + (p.target - m) * std::min(a, 1.0), 0.0, 1.0);
                    break;
                }
                case BRUSH_TOOL_UPLIFT: {
                    double& u = f.uplift[at(x, y)];
                    u = std::clamp(u + (p.target - u) * std::min(a, 1.0), 0.0, 10.0);
                    break;
                }
                default: break;
                }
            }
    }
    for (int s = 0; s < 4; ++s) sums[size_t(s)] += tally[s] * area;
    if (p.tool == BRUSH_TOOL_PICK_UP) sums[BRUSH_HAND_PICKED] += tally[3] * area;
    if (p.tool == BRUSH_TOOL_DROP) sums[BRUSH_HAND_DROPPED] += tally[2] * area;
}

} // namespace alluvium::ref
