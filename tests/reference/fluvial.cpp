#include "fluvial.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <deque>
#include <queue>

namespace alluvium::ref {

namespace {

constexpr int kDx[8] = {-1, 0, 1, -1, 1, -1, 0, 1};
constexpr int kDy[8] = {-1, -1, -1, 0, 0, 1, 1, 1};
constexpr float kInvDist[8] = {0.70710677f, 1.0f, 0.70710677f, 1.0f, 1.0f, 0.70710677f, 1.0f, 0.70710677f};
constexpr uint32_t kUnset = 0xFFFFFFFFu;

bool inside(const FluvialGrid& g, int x, int y) { return x >= 0 && y >= 0 && x < g.width && y < g.height; }

// Breadth-first from the exits in `queue` (their steps 0): the steps across each flat of the
// filled surface to its exit, what routing on lakes follows.
void stepsAcrossFlats(const FluvialGrid& g, Fill& f, std::deque<uint32_t>& queue) {
    while (!queue.empty()) {
        const uint32_t i = queue.front();
        queue.pop_front();
        const int x = int(i) % g.width, y = int(i) / g.width;
        for (int k = 0; k < 8; ++k) {
            const int nx = x + kDx[k], ny = y + kDy[k];
            if (!inside(g, nx, ny)) continue;
            const uint32_t j = uint32_t(ny * g.width + nx);
            if (f.steps[j] != kUnset || g.isOutlet(nx, ny) || f.level[j] != f.level[i]) continue;
            f.steps[j] = f.steps[i] + 1;
            queue.push_back(j);
        }
    }
}

} // namespace

uint32_t orderedBits(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    if (u == 0x80000000u) u = 0;
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}

float fromOrderedBits(uint32_t o) {
    const uint32_t u = (o & 0x80000000u) ? (o & 0x7FFFFFFFu) : ~o;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

Fill fillWithLevels(const FluvialGrid& g, const std::vector<float>& z, const std::vector<uint32_t>& labels,
                    const std::vector<uint32_t>& block_level, const std::vector<uint32_t>& block_sink) {
    const size_t n = size_t(g.width) * size_t(g.height);
    Fill f;
    f.level.assign(n, 0.0f);
    f.steps.assign(n, kUnset);
    std::vector<char> sink(n, 0);
    for (uint32_t s : block_sink)
        if (s != FLUVIAL_NONE) sink[s] = 1;
    for (size_t i = 0; i < n; ++i) {
        const uint32_t zb = orderedBits(z[i]);
        f.level[i] =
            labels[i] == FLUVIAL_OCEAN ? fromOrderedBits(zb) : fromOrderedBits(std::max(zb, block_level[labels[i]]));
    }
    std::deque<uint32_t> queue;
    for (uint32_t i = 0; i < n; ++i) {
        const int x = int(i) % g.width, y = int(i) / g.width;
        bool exit = g.isOutlet(x, y) || sink[i];
        for (int k = 0; k < 8 && !exit; ++k) {
            const int nx = x + kDx[k], ny = y + kDy[k];
            if (inside(g, nx, ny) && f.level[size_t(ny * g.width + nx)] < z[i]) exit = true;
        }
        if (exit) {
            f.steps[i] = 0;
            queue.push_back(i);
        }
    }
    stepsAcrossFlats(g, f, queue);
    return f;
}

std::vector<uint32_t> basinLabels(const FluvialGrid& g, const std::vector<float>& z, std::vector<uint32_t>* pits) {
    const size_t n = size_t(g.width) * size_t(g.height);
    const uint32_t half_w = uint32_t((g.width + 1) / 2);
    std::vector<uint32_t> down(n), label(n, kUnset);
    for (uint32_t i = 0; i < n; ++i) {
        const int x = int(i) % g.width, y = int(i) / g.width;
        down[i] = i;
        if (g.isOutlet(x, y)) {
            label[i] = FLUVIAL_OCEAN;
            continue;
        }
        const uint32_t own = orderedBits(z[i]);
        uint32_t lowest = own;
        for (int k = 0; k < 8; ++k) {
            const int nx = x + kDx[k], ny = y + kDy[k];
            if (!inside(g, nx, ny)) continue;
            const uint32_t j = uint32_t(ny * g.width + nx);
            if (orderedBits(z[j]) < lowest) lowest = orderedBits(z[j]), down[i] = j;
        }
        for (int k = 0; k < 4 && down[i] == i; ++k) {
            const int nx = x + kDx[k], ny = y + kDy[k];
            if (inside(g, nx, ny) && orderedBits(z[size_t(ny * g.width + nx)]) == own)
                down[i] = uint32_t(ny * g.width + nx);
        }
        if (down[i] == i) {
            label[i] = uint32_t(y / 2) * half_w + uint32_t(x / 2);
            if (pits) pits->push_back(i);
        }
    }
    std::vector<uint32_t> path;
    for (uint32_t i = 0; i < n; ++i) {
        uint32_t c = i;
        while (label[c] == kUnset) path.push_back(c), c = down[c];
        for (uint32_t p : path) label[p] = label[c];
        path.clear();
    }
    return label;
}

std::vector<uint32_t> basinSpills(const FluvialGrid& g, const std::vector<float>& z,
                                  const std::vector<uint32_t>& labels) {
    const size_t blocks = size_t((g.width + 1) / 2) * size_t((g.height + 1) / 2);
    const uint32_t ocean = uint32_t(blocks); // the ocean's node in the union-find
    struct Edge {
        uint32_t height, a, b;
    };
    std::vector<Edge> edges;
    auto node = [&](uint32_t label) { return label == FLUVIAL_OCEAN ? ocean : label; };
    for (int y = 0; y < g.height; ++y)
        for (int x = 0; x < g.width; ++x) {
            const size_t i = size_t(y * g.width + x);
            const int dx[4] = {1, -1, 0, 1}, dy[4] = {0, 1, 1, 1};
            for (int d = 0; d < 4; ++d) {
                if (!inside(g, x + dx[d], y + dy[d])) continue;
                const size_t j = size_t((y + dy[d]) * g.width + x + dx[d]);
                if (labels[i] != labels[j])
                    edges.push_back({std::max(orderedBits(z[i]), orderedBits(z[j])), node(labels[i]), node(labels[j])});
            }
        }
    std::sort(edges.begin(), edges.end(), [](const Edge& l, const Edge& r) { return l.height < r.height; });
    std::vector<uint32_t> parent(blocks + 1);
    std::vector<std::vector<uint32_t>> members(blocks + 1);
    for (uint32_t b = 0; b <= blocks; ++b) parent[b] = b, members[b] = {b};
    auto find = [&](uint32_t b) {
        while (parent[b] != b) b = parent[b] = parent[parent[b]];
        return b;
    };
    std::vector<uint32_t> spill(blocks, FLUVIAL_NONE);
    for (const Edge& e : edges) {
        uint32_t ra = find(e.a), rb = find(e.b);
        if (ra == rb) continue;
        const uint32_t ra_ocean = find(ocean);
        if (ra == ra_ocean || rb == ra_ocean) { // the other component drains out over this pass
            const uint32_t other = ra == ra_ocean ? rb : ra;
            for (uint32_t m : members[other]) spill[m] = e.height;
        }
        if (members[ra].size() < members[rb].size()) std::swap(ra, rb);
        parent[rb] = ra;
        members[ra].insert(members[ra].end(), members[rb].begin(), members[rb].end());
        members[rb].clear();
    }
    return spill;
}

bool FluvialGrid::isOutlet(int x, int y) const {
    return ((outlets & OUTLET_LEFT) && x == 0) || ((outlets & OUTLET_RIGHT) && x == width - 1) ||
           ((outlets & OUTLET_TOP) && y == 0) || ((outlets & OUTLET_BOTTOM) && y == height - 1);
}

uint64_t fillKey(float level, uint32_t steps) { return (uint64_t(orderedBits(level)) << 32) | steps; }

Fill fillPriorityFlood(const FluvialGrid& g, const std::vector<float>& z) {
    const size_t n = size_t(g.width) * size_t(g.height);
    Fill f;
    f.level.assign(n, 0.0f);
    f.steps.assign(n, kUnset);
    std::vector<char> done(n, 0);
    using Item = std::pair<float, uint32_t>; // (level, cell): the lowest level first
    std::priority_queue<Item, std::vector<Item>, std::greater<Item>> open;
    for (int y = 0; y < g.height; ++y)
        for (int x = 0; x < g.width; ++x)
            if (g.isOutlet(x, y)) {
                const uint32_t i = uint32_t(y * g.width + x);
                f.level[i] = z[i];
                done[i] = 1;
                open.push({z[i], i});
            }
    while (!open.empty()) {
        const auto [level, i] = open.top();
        open.pop();
        const int x = int(i) % g.width, y = int(i) / g.width;
        for (int k = 0; k < 8; ++k) {
            const int nx = x + kDx[k], ny = y + kDy[k];
            if (!inside(g, nx, ny)) continue;
            const uint32_t j = uint32_t(ny * g.width + nx);
            if (done[j]) continue;
            done[j] = 1;
            f.level[j] = std::max(z[j], level);
            open.push({f.level[j], j});
        }
    }
    // Cells that never got a level have no outlet at all (no outlet sides): +inf, GPU alike.
    // Flat steps: 0 at outlets and at cells with a neighbour whose level is below their ground.
    std::deque<uint32_t> queue;
    for (uint32_t i = 0; i < n; ++i) {
        if (!done[i]) continue;
        const int x = int(i) % g.width, y = int(i) / g.width;
        bool exit = g.isOutlet(x, y);
        for (int k = 0; k < 8 && !exit; ++k) {
            const int nx = x + kDx[k], ny = y + kDy[k];
            if (inside(g, nx, ny) && done[size_t(ny * g.width + nx)] && f.level[size_t(ny * g.width + nx)] < z[i])
                exit = true;
        }
        if (exit) {
            f.steps[i] = 0;
            queue.push_back(i);
        }
    }
    stepsAcrossFlats(g, f, queue);
    return f;
}

std::vector<uint32_t> receivers(const FluvialGrid& g, const Fill& f) {
    const size_t n = size_t(g.width) * size_t(g.height);
    std::vector<uint32_t> rcv(n);
    for (uint32_t i = 0; i < n; ++i) {
        const int x = int(i) % g.width, y = int(i) / g.width;
        rcv[i] = i;
        if (g.isOutlet(x, y) || f.steps[i] == kUnset) continue;
        const float w = f.level[i];
        float best_slope = 0.0f;
        uint32_t best_steps = f.steps[i], flat = i;
        for (int k = 0; k < 8; ++k) {
            const int nx = x + kDx[k], ny = y + kDy[k];
            if (!inside(g, nx, ny)) continue;
            const uint32_t j = uint32_t(ny * g.width + nx);
            if (f.steps[j] == kUnset) continue;
            const float wn = f.level[j];
            if (wn < w) {
                const float slope = (w - wn) * kInvDist[k];
                if (slope > best_slope) {
                    best_slope = slope;
                    rcv[i] = j;
                }
            } else if (wn == w && f.steps[j] < best_steps) {
                best_steps = f.steps[j];
                flat = j;
            }
        }
        if (rcv[i] == i) rcv[i] = flat;
    }
    return rcv;
}

namespace {
// Cells ordered so that every receiver comes before its donors (outlets and roots first).
std::vector<uint32_t> upstreamOrder(const std::vector<uint32_t>& rcv) {
    const size_t n = rcv.size();
    std::vector<std::vector<uint32_t>> donors(n);
    std::vector<uint32_t> order;
    order.reserve(n);
    for (uint32_t i = 0; i < n; ++i)
        if (rcv[i] == i)
            order.push_back(i);
        else
            donors[rcv[i]].push_back(i);
    for (size_t k = 0; k < order.size(); ++k)
        for (uint32_t d : donors[order[k]]) order.push_back(d);
    return order; // shorter than n only if the receivers had a cycle
}
} // namespace

std::vector<uint64_t> accumulate(const std::vector<uint32_t>& rcv, const std::vector<uint64_t>& weight) {
    std::vector<uint64_t> acc = weight;
    const std::vector<uint32_t> order = upstreamOrder(rcv);
    for (size_t k = order.size(); k-- > 0;) {
        const uint32_t i = order[k];
        if (rcv[i] != i) acc[rcv[i]] += acc[i];
    }
    return acc;
}

std::vector<uint64_t> rainWeights(const std::vector<float>& rain) {
    std::vector<uint64_t> w(rain.size());
    for (size_t i = 0; i < rain.size(); ++i)
        w[i] = uint64_t(std::clamp(rain[i], 0.0f, 1.0f) * float(FLUVIAL_ACC_ONE) + 0.5f);
    return w;
}

std::vector<double> fluvialErode(const FluvialGrid& g, const FluvialInputs& in, const Fill& f,
                                 const std::vector<uint32_t>& rcv, const std::vector<uint64_t>& acc,
                                 const gpu::SimParams& p) {
    const size_t n = rcv.size();
    const std::vector<float>& z = *in.z;
    const double dt = p.fluvial_time_step, L = p.cell_size;
    std::vector<double> out(n);
    const std::vector<uint32_t> order = upstreamOrder(rcv);
    for (uint32_t i : order) {
        const int x = int(i) % g.width, y = int(i) / g.width;
        const double zi = z[i];
        const double rise = double(p.uplift_rate) * (*in.uplift)[i] * dt;
        const bool lake = f.steps[i] != kUnset && f.level[i] > z[i];
        const uint32_t r = rcv[i];
        if (g.isOutlet(x, y)) {
            out[i] = zi;
        } else if (r == i || lake) {
            out[i] = zi + rise;
        } else {
            const int rx = int(r) % g.width, ry = int(r) / g.width;
            const double dist = std::hypot(rx - x, ry - y) * L;
            const double area = double(acc[i]) / FLUVIAL_ACC_ONE * L * L;
            // Layered ground: the loose layer's own rate where it lies (fluvial_drainage.comp).
            const bool loose = p.enable_layers != 0 && in.loose && (*in.loose)[i] > 0.0f;
            const double k =
                loose ? double(p.stream_power_k) * p.loose_erodibility
                      : double(p.stream_power_k) * (1.0 - 0.9 * std::clamp<double>((*in.hardness)[i], 0.0, 1.0));
            double F = k * dt * std::pow(area, double(p.stream_power_m)) / std::pow(dist, double(p.stream_power_n));
            const bool into_lake = f.level[r] > z[r];
            const double zr_old = into_lake ? f.level[r] : z[r];
            if (p.stream_power_n != 1.0f)
                F *= std::pow(std::max((zi - zr_old) / dist, 1e-6), double(p.stream_power_n) - 1.0);
            const double zr_new = into_lake ? f.level[r] : out[r];
            out[i] = (zi + rise + F * zr_new) / (1.0 + F);
        }
    }
    // Deposition (fluvial_deposition = G > 0): the sediment passing a cell, T = E + sum over donors
    // of (1 - f) T, swept downstream; each cell keeps f T.
    std::vector<double> deposit(n, 0.0);
    if (p.fluvial_deposition > 0.0f) {
        const double cell_area = L * L;
        std::vector<double> passing(n, 0.0), keep(n, 0.0);
        for (uint32_t i = 0; i < n; ++i) {
            const int x = int(i) % g.width, y = int(i) / g.width;
            const bool lake = f.steps[i] != kUnset && f.level[i] > z[i];
            const double rise = double(p.uplift_rate) * (*in.uplift)[i] * dt;
            if (!g.isOutlet(x, y) && !lake) passing[i] = std::max(double(z[i]) + rise - out[i], 0.0) * cell_area;
            const double area = std::max(double(acc[i]) / FLUVIAL_ACC_ONE * cell_area, cell_area);
            keep[i] = g.isOutlet(x, y) ? 0.0 : std::min(double(p.fluvial_deposition) * cell_area / area, 1.0);
        }
        for (size_t k = order.size(); k-- > 0;) { // donors before their receivers
            const uint32_t i = order[k];
            deposit[i] = keep[i] * passing[i] / cell_area;
            if (rcv[i] != i) passing[rcv[i]] += (1.0 - keep[i]) * passing[i];
        }
    }
    if (p.hillslope_diffusion > 0.0f) {
        const double kappa = std::min(double(p.hillslope_diffusion) * dt / (L * L), 0.2);
        for (uint32_t i = 0; i < n; ++i) {
            const int x = int(i) % g.width, y = int(i) / g.width;
            if (g.isOutlet(x, y)) continue;
            double lap = 0.0;
            const int nx[4] = {x - 1, x + 1, x, x}, ny[4] = {y, y, y - 1, y + 1};
            for (int k = 0; k < 4; ++k)
                if (inside(g, nx[k], ny[k])) lap += double(z[size_t(ny[k] * g.width + nx[k])]) - z[i];
            out[i] += kappa * lap;
        }
    }
    for (uint32_t i = 0; i < n; ++i) out[i] += deposit[i];
    return out;
}

} // namespace alluvium::ref
