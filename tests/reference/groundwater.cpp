#include "groundwater.h"

#include <algorithm>
#include <cmath>
#include <queue>

namespace alluvium::ref {

namespace {

constexpr int kDx[4] = {-1, 1, 0, 0};
constexpr int kDy[4] = {0, 0, -1, 1};

double poreCapacity(const gpu::SimParams& p, double b, double base) { return p.porosity * std::max(b - base, 0.0); }

int substeps(const gpu::SimParams& p) { return gpu::evenGroundwaterSubsteps(p.groundwater_substeps); }

double faceCoefficient(const gpu::SimParams& p, double h_a, double h_b) {
    const double dt_sub = double(p.time_step) / substeps(p);
    const double coef = dt_sub * p.hydraulic_conductivity * 0.5 * (h_a + h_b) / (double(p.cell_size) * p.cell_size);
    return std::min(coef, 0.125 * p.porosity);
}

int seaOutlets(const gpu::SimParams& p) {
    if (p.model == MODEL_FLUVIAL) return p.fluvial_outlets;
    return p.edge_mode == EDGE_OPEN ? (OUTLET_LEFT | OUTLET_RIGHT | OUTLET_TOP | OUTLET_BOTTOM) : 0;
}

bool onSeaEdge(const gpu::SimParams& p, int x, int y, int w, int h) {
    const int o = seaOutlets(p);
    return ((o & OUTLET_LEFT) && x == 0) || ((o & OUTLET_RIGHT) && x == w - 1) || ((o & OUTLET_TOP) && y == 0) ||
           ((o & OUTLET_BOTTOM) && y == h - 1);
}

} // namespace

double seaSurface(const gpu::SimParams& p, double t) {
    if (!p.enable_sea) return 0.0;
    const double period = p.tide_period > 0.0f ? double(p.tide_period) : 1.0;
    return double(p.sea_level) + double(p.tide_amplitude) * std::sin(6.283185307179586 * t / period);
}

bool seaHolds(const State& s, const gpu::SimParams& p, size_t i) {
    const double surface = seaSurface(p, s.time);
    return p.enable_sea && p.model == MODEL_PIPE && s.terrain[i] < surface && s.sea_spill[i] < surface;
}

double groundwaterHead(const State& s, const gpu::SimParams& p, size_t i) {
    const double b = s.terrain[i], base = s.aquifer_base[i], g = s.groundwater[i];
    const double capacity = poreCapacity(p, b, base);
    const bool ocean = seaHolds(s, p, i);
    if (!ocean && g < capacity) return base + g / p.porosity;
    return (ocean ? b + s.water[i] : b) + (g - capacity);
}

void waterExchange(State& s, const gpu::SimParams& p, double surface, Sums& sums) {
    const bool groundwater = p.enable_groundwater && p.model != MODEL_FLUVIAL;
    const bool sea = p.enable_sea && p.model == MODEL_PIPE;
    if (!groundwater && !sea) return;
    const double area = double(p.cell_size) * p.cell_size;
    for (size_t i = 0; i < s.terrain.size(); ++i) {
        const double b = s.terrain[i], base = s.aquifer_base[i];
        double d = s.water[i], g = s.groundwater[i];
        const double capacity = groundwater ? poreCapacity(p, b, base) : 0.0;
        double seep = 0.0;
        if (groundwater) {
            seep = std::max(g - capacity, 0.0);
            g -= seep;
            d += seep;
            const double soak =
                std::min(std::min(d, double(p.time_step) * p.infiltration_rate), std::max(capacity - g, 0.0));
            g += soak;
            d -= soak;
            sums[SLOT_INFILTRATED] += soak * area;
            sums[SLOT_SEEPED] += seep * area;
        }
        if (sea && b < surface && s.sea_spill[i] < surface) {
            const double change = (surface - b) - d;
            double in = std::max(change, 0.0), out = std::max(-change, 0.0);
            d = surface - b;
            if (groundwater) {
                in += std::max(capacity - g, 0.0);
                out += std::max(g - capacity, 0.0);
                g = capacity;
            }
            sums[SLOT_SEA_IN] += in * area;
            sums[SLOT_SEA_OUT] += out * area;
            seep = 0.0;
            for (double& w : s.outflow[i]) w *= std::exp(-double(p.sea_damping) * p.time_step);
        }
        s.water[i] = d;
        s.groundwater[i] = g;
        if (groundwater) {
            s.seepage[i] = seep / p.time_step;
            s.water_table[i] = g < capacity ? base + g / p.porosity : b;
        }
    }
}

void groundwaterSubstep(State& s, const gpu::SimParams& p) {
    const size_t n = s.terrain.size();
    std::vector<double> head(n), thick(n), scale(n);
    for (size_t i = 0; i < n; ++i) {
        head[i] = groundwaterHead(s, p, i);
        thick[i] = std::max(head[i] - s.aquifer_base[i], 0.0);
    }
    for (int y = 0; y < s.h; ++y)
        for (int x = 0; x < s.w; ++x) {
            const size_t i = s.index(x, y);
            double out = 0.0;
            for (int k = 0; k < 4; ++k) {
                const int nx = x + kDx[k], ny = y + kDy[k];
                if (nx < 0 || ny < 0 || nx >= s.w || ny >= s.h) continue;
                const size_t j = s.index(nx, ny);
                out += faceCoefficient(p, thick[i], thick[j]) * std::max(head[i] - head[j], 0.0);
            }
            scale[i] = out > s.groundwater[i] && !seaHolds(s, p, i) ? s.groundwater[i] / out : 1.0;
        }
    std::vector<double> next = s.groundwater;
    for (int y = 0; y < s.h; ++y)
        for (int x = 0; x < s.w; ++x) {
            const size_t i = s.index(x, y);
            for (int k = 0; k < 4; ++k) {
                const int nx = x + kDx[k], ny = y + kDy[k];
                if (nx < 0 || ny < 0 || nx >= s.w || ny >= s.h) continue;
                const size_t j = s.index(nx, ny);
                const double drop = head[i] - head[j];
                next[i] -= faceCoefficient(p, thick[i], thick[j]) * drop * (drop > 0.0 ? scale[i] : scale[j]);
            }
            if (!seaHolds(s, p, i)) next[i] = std::max(next[i], 0.0);
        }
    s.groundwater = next;
}

void groundwaterFlow(State& s, const gpu::SimParams& p) {
    if (!p.enable_groundwater || p.model == MODEL_FLUVIAL) return;
    for (int k = 0; k < substeps(p); ++k) groundwaterSubstep(s, p);
}

std::vector<double> seaSpill(const std::vector<double>& terrain, int w, int h, const gpu::SimParams& p) {
    // Priority flood: the lowest level at which each cell is reached from a sea edge.
    std::vector<double> spill(terrain.size(), SEA_UNREACHED);
    using Item = std::pair<double, size_t>;
    std::priority_queue<Item, std::vector<Item>, std::greater<Item>> open;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            if (onSeaEdge(p, x, y, w, h)) {
                const size_t i = size_t(y) * size_t(w) + size_t(x);
                spill[i] = terrain[i];
                open.push({spill[i], i});
            }
    while (!open.empty()) {
        const auto [level, i] = open.top();
        open.pop();
        if (level > spill[i]) continue;
        const int x = int(i % size_t(w)), y = int(i / size_t(w));
        for (int k = 0; k < 4; ++k) {
            const int nx = x + kDx[k], ny = y + kDy[k];
            if (nx < 0 || ny < 0 || nx >= w || ny >= h) continue;
            const size_t j = size_t(ny) * size_t(w) + size_t(nx);
            const double reach = std::max(terrain[j], level);
            if (reach < spill[j]) {
                spill[j] = reach;
                open.push({reach, j});
            }
        }
    }
    return spill;
}

std::vector<double> seaSpillRound(const std::vector<double>& spill, const std::vector<double>& terrain, int w, int h,
                                  const gpu::SimParams& p, bool first) {
    std::vector<double> next(spill.size());
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const size_t i = size_t(y) * size_t(w) + size_t(x);
            double lowest = onSeaEdge(p, x, y, w, h) ? terrain[i] : SEA_UNREACHED;
            if (!first)
                for (int k = 0; k < 4; ++k) {
                    const int nx = x + kDx[k], ny = y + kDy[k];
                    if (nx < 0 || ny < 0 || nx >= w || ny >= h) continue;
                    lowest = std::min(lowest, spill[size_t(ny) * size_t(w) + size_t(nx)]);
                }
            next[i] = lowest >= SEA_UNREACHED ? SEA_UNREACHED : std::max(terrain[i], lowest);
        }
    return next;
}

namespace {

constexpr double kTableOverrelax = 1.6; // water_table.glsl's TABLE_OVERRELAX

bool tableOcean(const State& s, const gpu::SimParams& p, size_t i) {
    return p.enable_sea && s.terrain[i] < p.sea_level && s.sea_spill[i] < p.sea_level;
}
bool tableLake(const State& s, size_t i) { return s.sea_spill[i] < SEA_UNREACHED && s.sea_spill[i] > s.terrain[i]; }
// The fixed value, or NaN for a free cell.
double tableFixed(const State& s, const gpu::SimParams& p, int x, int y) {
    const size_t i = s.index(x, y);
    if (tableOcean(s, p, i)) return p.sea_level;
    if (!p.enable_sea && onSeaEdge(p, x, y, s.w, s.h)) return s.terrain[i];
    return NAN;
}

} // namespace

std::vector<double> waterTableStart(const State& s, const gpu::SimParams& p) {
    std::vector<double> t(s.terrain.size());
    for (int y = 0; y < s.h; ++y)
        for (int x = 0; x < s.w; ++x) {
            const size_t i = s.index(x, y);
            const double fixed = tableFixed(s, p, x, y);
            t[i] = !std::isnan(fixed) ? fixed : tableLake(s, i) ? s.sea_spill[i] : s.terrain[i];
        }
    return t;
}

std::vector<double> waterTableHalfRound(const State& s, const std::vector<double>& table, const gpu::SimParams& p,
                                        int colour) {
    std::vector<double> next = table;
    auto side = [&](bool water_body, double t, double b) {
        return water_body && t > b ? double(p.table_tension_air) : double(p.table_tension_ground);
    };
    for (int y = 0; y < s.h; ++y)
        for (int x = 0; x < s.w; ++x) {
            const size_t i = s.index(x, y);
            if (((x + y) & 1) != colour || !std::isnan(tableFixed(s, p, x, y))) continue;
            const double t = table[i], b = s.terrain[i];
            const bool lake = tableLake(s, i);
            const double own = side(lake, t, b);
            double num = 0.0, den = 0.0, beside = -SEA_UNREACHED;
            bool contact = false;
            for (int k = 0; k < 4; ++k) {
                const int nx = x + kDx[k], ny = y + kDy[k];
                if (nx < 0 || ny < 0 || nx >= s.w || ny >= s.h) continue;
                const size_t j = s.index(nx, ny);
                const double tn = table[j], bn = s.terrain[j];
                const bool water_body = tableLake(s, j) || tableOcean(s, p, j);
                const double sigma = std::min(own, side(water_body, tn, bn));
                const double slope = (t - tn) / p.cell_size;
                const double wgt = sigma / (double(p.cell_size) * p.cell_size) / std::sqrt(1.0 + slope * slope);
                num += wgt * tn;
                den += wgt;
                if (water_body && tn > bn) {
                    contact = true;
                    beside = std::max(beside, tn);
                }
            }
            double best = t;
            if (lake) {
                best = (num + p.table_gravity * s.sea_spill[i]) / (den + p.table_gravity);
            } else {
                const double load = contact ? (double(p.table_internal) - p.table_capillarity) * p.porosity : 0.0;
                best = den > 0.0 ? (num - load) / den : t;
                if (contact) best = std::max(best, beside);
                if (best > b) best = std::max((num + p.table_gravity * b) / (den + p.table_gravity), b);
            }
            double v = t + kTableOverrelax * (best - t);
            if (!lake && (best - b) * (v - b) < 0.0) v = b;
            if (!lake && contact && v <= b) v = std::max(v, beside);
            next[i] = std::max(v, s.aquifer_base[i]);
        }
    return next;
}

} // namespace alluvium::ref
