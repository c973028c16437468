#include "grid_models.h"

#include "layers.h"

#include <algorithm>

namespace alluvium::ref {

namespace {

constexpr int kDx[8] = {-1, 1, 0, 0, -1, 1, -1, 1};
constexpr int kDy[8] = {0, 0, -1, 1, -1, -1, 1, 1};
constexpr int kOpposite[8] = {1, 0, 3, 2, 7, 6, 5, 4};

bool inGrid(const State& s, int x, int y) { return x >= 0 && y >= 0 && x < s.w && y < s.h; }

// The ground is float32 on the GPU and exchanges exactly what its stored height changed by
// (grid_models.glsl): model that rounding, on the float value of the height.
double asFloat(double v) { return static_cast<double>(static_cast<float>(v)); }
double exchange(double& ground, double amount) {
    const double before = asFloat(ground);
    const double after = asFloat(before + amount);
    ground += after - before;
    return after - before;
}

double slot(const State& s, size_t i, int k) {
    return k < 4 ? s.thermal_axis[i][size_t(k)] : s.thermal_diag[i][size_t(k - 4)];
}

} // namespace

void musgraveTransfer(const State& cur, State& next, const gpu::SimParams& p, int step_index) {
    const double rain = step_index % std::max(p.musgrave_rain_interval, 1) == 0 ? p.musgrave_rain_amount : 0.0;
    for (int y = 0; y < cur.h; ++y)
        for (int x = 0; x < cur.w; ++x) {
            const size_t i = cur.index(x, y);
            double a = cur.terrain[i], w = cur.water[i] + rain * cur.rain_mask[i], s = cur.sediment[i];
            const double h = a + w;
            std::array<double, 8> drop{};
            double total_drop = 0.0, largest = 0.0;
            for (int k = 0; k < 8; ++k) {
                const int nx = x + kDx[k], ny = y + kDy[k];
                if (!inGrid(cur, nx, ny)) continue;
                const size_t j = cur.index(nx, ny);
                const double hn = cur.terrain[j] + cur.water[j] + rain * cur.rain_mask[j];
                if (hn < h) {
                    drop[size_t(k)] = h - hn;
                    total_drop += h - hn;
                    largest = std::max(largest, h - hn);
                }
            }
            const double moved = total_drop > 0.0 ? std::min(w, 0.5 * largest) : 0.0;
            double sent = 0.0;
            if (moved > 0.0) {
                const double capacity = p.musgrave_capacity * moved;
                if (s > capacity) {
                    sent = capacity;
                    const double settled = exchange(a, p.musgrave_deposition * (s - capacity));
                    s = std::max(0.0, (s - capacity) - settled);
                } else {
                    const double dissolved =
                        layeredErosion(p, p.musgrave_softness * (capacity - s), cur.loose[i], cur.hardness[i]);
                    sent = s - exchange(a, -dissolved);
                    s = 0.0;
                }
            } else {
                s = std::max(0.0, s - exchange(a, p.musgrave_deposition * s));
            }
            for (size_t k = 0; k < 4; ++k) {
                next.thermal_axis[i][k] = moved > 0.0 ? moved * drop[k] / total_drop : 0.0;
                next.thermal_diag[i][k] = moved > 0.0 ? moved * drop[k + 4] / total_drop : 0.0;
            }
            next.scratch[i] = {moved, sent, 0.0, 0.0};
            next.terrain[i] = a;
            if (layersOn(p)) next.loose[i] = looseAfter(cur.loose[i], cur.terrain[i], a);
            next.water[i] = w - moved;
            next.sediment[i] = s;
            next.outflow[i] = cur.outflow[i];
        }
}

void musgraveApply(State& next, const gpu::SimParams& p) {
    std::vector<double> water = next.water, sediment = next.sediment;
    for (int y = 0; y < next.h; ++y)
        for (int x = 0; x < next.w; ++x) {
            const size_t i = next.index(x, y);
            double w = next.water[i], s = next.sediment[i];
            for (int k = 0; k < 8; ++k) {
                const int nx = x + kDx[k], ny = y + kDy[k];
                if (!inGrid(next, nx, ny)) continue;
                const size_t j = next.index(nx, ny);
                const double share = slot(next, j, kOpposite[k]);
                if (share > 0.0) {
                    w += share;
                    s += next.scratch[j][1] * (share / next.scratch[j][0]);
                }
            }
            water[i] = w * (1.0 - p.musgrave_evaporation);
            sediment[i] = s;
        }
    next.water = water;
    next.sediment = sediment;
}

void simpleTransfer(const State& cur, State& next, const gpu::SimParams& p) {
    auto groundAndWater = [&](size_t j) {
        const double w = cur.water[j] + p.simple_rain_amount * cur.rain_mask[j];
        const double dissolved = layeredErosion(p, p.simple_solubility * w, cur.loose[j], cur.hardness[j]);
        return std::pair{cur.terrain[j] - dissolved, w};
    };
    for (int y = 0; y < cur.h; ++y)
        for (int x = 0; x < cur.w; ++x) {
            const size_t i = cur.index(x, y);
            const double w = cur.water[i] + p.simple_rain_amount * cur.rain_mask[i];
            double a = cur.terrain[i];
            const double s = cur.sediment[i] -
                             exchange(a, -layeredErosion(p, p.simple_solubility * w, cur.loose[i], cur.hardness[i]));
            const double h = a + w;
            int lowest = -1;
            double h_lowest = h;
            for (int k = 0; k < 8; ++k) {
                const int nx = x + kDx[k], ny = y + kDy[k];
                if (!inGrid(cur, nx, ny)) continue;
                const auto [an, wn] = groundAndWater(cur.index(nx, ny));
                if (an + wn < h_lowest) {
                    h_lowest = an + wn;
                    lowest = k;
                }
            }
            double dw = 0.0, ds = 0.0;
            if (lowest >= 0 && w > 0.0) {
                dw = w + h_lowest <= a ? w : std::min(w, 0.5 * (h - h_lowest));
                ds = s * (dw / w);
            }
            next.scratch[i] = {dw, ds, double(lowest), 0.0};
            next.terrain[i] = a;
            next.water[i] = w - dw;
            next.sediment[i] = s - ds;
            next.outflow[i] = cur.outflow[i];
        }
}

void simpleApply(const State& cur, State& next, const gpu::SimParams& p) {
    std::vector<double> terrain = next.terrain, water = next.water, sediment = next.sediment;
    for (int y = 0; y < next.h; ++y)
        for (int x = 0; x < next.w; ++x) {
            const size_t i = next.index(x, y);
            double w = next.water[i], s = next.sediment[i], a = next.terrain[i];
            for (int k = 0; k < 8; ++k) {
                const int nx = x + kDx[k], ny = y + kDy[k];
                if (!inGrid(next, nx, ny)) continue;
                const Vec4& move = next.scratch[next.index(nx, ny)];
                if (static_cast<int>(move[2]) == kOpposite[k] && move[0] > 0.0) {
                    w += move[0];
                    s += move[1];
                }
            }
            w *= 1.0 - p.simple_evaporation;
            const double capacity = p.simple_capacity * w;
            if (s > capacity) s = std::max(0.0, s - exchange(a, s - capacity));
            terrain[i] = a, water[i] = w, sediment[i] = s;
            if (layersOn(p)) next.loose[i] = looseAfter(cur.loose[i], cur.terrain[i], a);
        }
    next.terrain = terrain, next.water = water, next.sediment = sediment;
}

} // namespace alluvium::ref
