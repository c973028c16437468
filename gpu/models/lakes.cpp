// Lakes that balance evaporation: the host's solve over the basin graph (see lakes.h).
#include "lakes.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <exception>
#include <limits>
#include <numeric>
#include <unordered_map>
#include <utility>

#include "shared.h"

#if defined(__unix__) || defined(__APPLE__)
#include <pthread.h>
#endif

namespace alluvium::gpu {

namespace {

uint32_t orderedFloat(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    if (u == 0x80000000u) u = 0u;
    return (u & 0x80000000u) != 0u ? ~u : (u | 0x80000000u);
}

constexpr float kInf = std::numeric_limits<float>::infinity();

struct Node {
    int child[2] = {-1, -1};
    float pass = kInf;     // the height at which the children join
    int end[2] = {-1, -1}; // the basins (leaves) at the two ends of that pass, end[k] in child[k]
    bool ocean = false;
    int first = 0, count = 0; // its leaves in order[first, first + count)
};

class Solver {
public:
    Solver(int w, int h, const std::vector<float>& z, const std::vector<uint32_t>& labels,
           const std::vector<double>& inflow, double evaporation, float sea)
        : z_(z), e_(evaporation), sea_(sea) {
        const size_t n = size_t(w) * size_t(h);
        const size_t blocks = size_t((w + 1) / 2) * size_t((h + 1) / 2);
        out_.level.assign(blocks, FLUVIAL_NONE);
        out_.sink.assign(blocks, FLUVIAL_NONE);
        out_.volume.assign(blocks, 0.0);
        std::vector<int> id(blocks, -1);
        for (size_t i = 0; i < n; ++i) {
            const uint32_t l = labels[i];
            if (l == FLUVIAL_OCEAN || l >= blocks || id[l] >= 0) continue;
            id[l] = int(block_.size());
            block_.push_back(l);
        }
        const int basins = int(block_.size());
        ocean_ = basins;
        out_.basins = basins;
        heights_.resize(size_t(basins));
        pit_.assign(size_t(basins), FLUVIAL_NONE);
        rain_.assign(size_t(basins) + 1, 0.0);
        auto leaf = [&](size_t i) {
            return labels[i] == FLUVIAL_OCEAN || labels[i] >= blocks ? ocean_ : id[labels[i]];
        };
        std::vector<int> leaf_of(n);
        for (size_t i = 0; i < n; ++i) {
            const int b = leaf(i);
            leaf_of[i] = b;
            if (b == ocean_) continue;
            heights_[size_t(b)].push_back(z[i]);
            rain_[size_t(b)] += inflow[i];
            uint32_t& p = pit_[size_t(b)];
            if (p == FLUVIAL_NONE || orderedFloat(z[i]) < orderedFloat(z[p]) ||
                (orderedFloat(z[i]) == orderedFloat(z[p]) && i < p))
                p = uint32_t(i);
        }
        for (auto& v : heights_) std::sort(v.begin(), v.end());
        // The lowest pass between each pair of neighbouring basins (8 neighbours, each pair once).
        std::unordered_map<uint64_t, float> passes;
        static const int kDirs[4][2] = {{1, 0}, {-1, 1}, {0, 1}, {1, 1}};
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                const size_t i = size_t(y) * size_t(w) + size_t(x);
                for (const auto& d : kDirs) {
                    const int nx = x + d[0], ny = y + d[1];
                    if (nx < 0 || ny < 0 || nx >= w || ny >= h) continue;
                    const size_t j = size_t(ny) * size_t(w) + size_t(nx);
                    int a = leaf_of[i], b = leaf_of[j];
                    if (a == b) continue;
                    if (a > b) std::swap(a, b);
                    const float p = std::max(z[i], z[j]);
                    const uint64_t key = uint64_t(a) * uint64_t(basins + 1) + uint64_t(b);
                    auto [it, fresh] = passes.emplace(key, p);
                    if (!fresh && p < it->second) it->second = p;
                }
            }
        struct Edge {
            float pass;
            int a, b;
        };
        std::vector<Edge> edges;
        edges.reserve(passes.size());
        for (const auto& [key, p] : passes)
            edges.push_back({p, int(key / uint64_t(basins + 1)), int(key % uint64_t(basins + 1))});
        std::sort(edges.begin(), edges.end(), [](const Edge& l, const Edge& r) {
            return l.pass != r.pass ? l.pass < r.pass : l.a != r.a ? l.a < r.a : l.b < r.b;
        });
        // Kruskal: the merge tree. Leaves 0 .. basins (the ocean last), then one node per join.
        nodes_.resize(size_t(basins) + 1);
        nodes_[size_t(ocean_)].ocean = true;
        std::vector<int> uf(size_t(basins) + 1), top(size_t(basins) + 1);
        std::iota(uf.begin(), uf.end(), 0);
        std::iota(top.begin(), top.end(), 0);
        auto find = [&](int x) {
            while (uf[size_t(x)] != x) x = uf[size_t(x)] = uf[size_t(uf[size_t(x)])];
            return x;
        };
        for (const Edge& e : edges) {
            const int ra = find(e.a), rb = find(e.b);
            if (ra == rb) continue;
            Node m;
            m.child[0] = top[size_t(ra)];
            m.child[1] = top[size_t(rb)];
            m.pass = e.pass;
            m.end[0] = e.a;
            m.end[1] = e.b;
            m.ocean = nodes_[size_t(m.child[0])].ocean || nodes_[size_t(m.child[1])].ocean;
            nodes_.push_back(m);
            uf[size_t(rb)] = ra;
            top[size_t(ra)] = int(nodes_.size()) - 1;
        }
        // Leaves in depth-first order: every node's leaves are a range.
        order_.reserve(size_t(basins) + 1);
        pos_.assign(size_t(basins) + 1, 0);
        for (int x = 0; x <= basins; ++x)
            if (find(x) == x) {
                roots_.push_back(top[size_t(x)]);
                number(top[size_t(x)]);
            }
    }

    LakeSolve run() {
        for (int r : roots_) solve(r, kInf, {});
        return std::move(out_);
    }

private:
    using Extras = std::vector<std::pair<int, double>>; // (leaf it enters, amount)

    void number(int root) {
        // Iterative post-order: a node's range follows its children's.
        std::vector<std::pair<int, bool>> stack{{root, false}};
        while (!stack.empty()) {
            auto [v, done] = stack.back();
            stack.pop_back();
            Node& nd = nodes_[size_t(v)];
            if (nd.child[0] < 0) {
                nd.first = int(order_.size());
                nd.count = 1;
                pos_[size_t(v)] = int(order_.size());
                order_.push_back(v);
            } else if (!done) {
                stack.push_back({v, true});
                stack.push_back({nd.child[1], false});
                stack.push_back({nd.child[0], false});
            } else {
                const Node& a = nodes_[size_t(nd.child[0])];
                const Node& b = nodes_[size_t(nd.child[1])];
                nd.first = a.first;
                nd.count = a.count + b.count;
                (void)b;
            }
        }
    }
    bool contains(int node, int leaf) const {
        const Node& nd = nodes_[size_t(node)];
        const int p = pos_[size_t(leaf)];
        return p >= nd.first && p < nd.first + nd.count;
    }
    // Cells of the node's basins below h.
    uint64_t areaBelow(int node, float h) const {
        const Node& nd = nodes_[size_t(node)];
        uint64_t a = 0;
        for (int k = nd.first; k < nd.first + nd.count; ++k) {
            const int b = order_[size_t(k)];
            if (b == ocean_) continue;
            const auto& v = heights_[size_t(b)];
            a += uint64_t(std::lower_bound(v.begin(), v.end(), h) - v.begin());
        }
        return a;
    }
    double rain(int node, const Extras& extras) const {
        const Node& nd = nodes_[size_t(node)];
        double q = 0.0;
        for (int k = nd.first; k < nd.first + nd.count; ++k) q += rain_[size_t(order_[size_t(k)])];
        for (const auto& [leaf, amount] : extras) q += amount;
        return q;
    }
    Extras within(int node, const Extras& extras) const {
        Extras out;
        for (const auto& x : extras)
            if (contains(node, x.first)) out.push_back(x);
        return out;
    }
    void assign(int node, float level, bool closed, float exit = kInf) {
        const Node& nd = nodes_[size_t(node)];
        for (int k = nd.first; k < nd.first + nd.count; ++k) {
            const int b = order_[size_t(k)];
            if (b == ocean_) continue;
            const uint32_t block = block_[size_t(b)];
            out_.level[block] = orderedFloat(level);
            if (!closed) continue;
            out_.sink[block] = pit_[size_t(b)];
            const auto& hs = heights_[size_t(b)];
            double v = 0.0;
            for (float h : hs) {
                if (h >= level) break;
                v += double(level) - double(h);
            }
            if (v <= 0.0) v = double(std::min(exit, hs.back())) - double(z_[pit_[size_t(b)]]); // a dry pan
            out_.volume[block] = std::max(v, 0.0);
        }
        if (closed) {
            ++out_.closed_lakes;
            out_.closed_cells += areaBelow(node, level);
        }
    }
    // The closed lake's level: the lowest cell height at which the cells below it, k of them,
    // evaporate at most the inflow (k E <= Q) while one more cell would not fit (or a whole group
    // of cells of equal height). Below every exit (< x).
    float closedLevel(int node, double q, float x) const {
        const Node& nd = nodes_[size_t(node)];
        std::vector<float> hs;
        for (int k = nd.first; k < nd.first + nd.count; ++k) {
            const int b = order_[size_t(k)];
            if (b == ocean_) continue;
            for (float v : heights_[size_t(b)]) {
                if (v >= x) break;
                hs.push_back(v);
            }
        }
        std::sort(hs.begin(), hs.end());
        const size_t m = hs.size();
        if (m == 0) return x;
        size_t k = size_t(std::min(double(m), std::floor(q / e_)));
        if (k >= m) return x < kInf ? x : hs[m - 1]; // (no exit at all: every cell but the highest)
        while (k > 0 && hs[k - 1] == hs[k]) --k;
        return hs[k];
    }

    // Solves the node with exit height x and the extra inflows entering its basins; returns
    // what spills over x.
    double solve(int node, float x, const Extras& extras) {
        const Node& nd = nodes_[size_t(node)];
        if (node == ocean_) return 0.0;
        if (nd.ocean) { // the side without the ocean spills into the ocean's side
            const int o = nodes_[size_t(nd.child[0])].ocean ? 0 : 1;
            const int k = 1 - o;
            if (nd.pass < sea_) { // the sea's: filled as without evaporation
                assign(nd.child[k], nd.pass, false);
                solve(nd.child[o], x, within(nd.child[o], extras));
                return 0.0;
            }
            const double s = solve(nd.child[k], nd.pass, within(nd.child[k], extras));
            Extras rest = within(nd.child[o], extras);
            if (s > 0.0) rest.push_back({nd.end[o], s});
            solve(nd.child[o], x, rest);
            return 0.0;
        }
        const double q = rain(node, extras);
        if (x < kInf) {
            const double a = double(areaBelow(node, x));
            if (a * e_ <= q) {
                assign(node, x, false); // full to its exit: the surplus spills
                return q - a * e_;
            }
        }
        const float level = closedLevel(node, q, x);
        if (nd.child[0] < 0 || level >= nd.pass) {
            assign(node, level, true, x);
            return 0.0;
        }
        // Below the pass between its children: they hold water apart; a full one spills into the
        // other through the pass (both cannot be full: the whole would reach the pass).
        Extras in[2] = {within(nd.child[0], extras), within(nd.child[1], extras)};
        int first = 0;
        for (int c = 0; c < 2; ++c)
            if (double(areaBelow(nd.child[c], nd.pass)) * e_ <= rain(nd.child[c], in[c])) first = c;
        const double s = solve(nd.child[first], nd.pass, in[first]);
        if (s > 0.0) in[1 - first].push_back({nd.end[1 - first], s});
        solve(nd.child[1 - first], nd.pass, in[1 - first]);
        return 0.0;
    }

    const std::vector<float>& z_;
    double e_;
    float sea_;
    LakeSolve out_;
    std::vector<uint32_t> block_;
    int ocean_ = 0;
    std::vector<std::vector<float>> heights_;
    std::vector<uint32_t> pit_;
    std::vector<double> rain_;
    std::vector<Node> nodes_;
    std::vector<int> order_, pos_, roots_;
};

} // namespace

LakeSolve solveLakes(int width, int height, const std::vector<float>& z, const std::vector<uint32_t>& labels,
                     const std::vector<double>& inflow, double evaporation, float sea_level) {
    // The solve recurses down the merge tree, as deep as basins nest (tens of thousands in a
    // serpentine): on its own thread with a 1 GiB stack (reserved, committed as used).
    LakeSolve out;
    auto work = [&] { out = Solver(width, height, z, labels, inflow, evaporation, sea_level).run(); };
#if defined(__unix__) || defined(__APPLE__)
    struct Call {
        decltype(work)* f;
        std::exception_ptr error;
    } call{&work, nullptr};
    pthread_attr_t attr;
    pthread_t thread;
    bool started = pthread_attr_init(&attr) == 0 && pthread_attr_setstacksize(&attr, size_t(1) << 30) == 0 &&
                   pthread_create(
                       &thread, &attr,
                       [](void* p) -> void* {
                           auto* c = static_cast<Call*>(p);
                           try {
                               (*c->f)();
                           } catch (...) {
                               c->error = std::current_exception();
                           }
                           return nullptr;
                       },
                       &call) == 0;
    pthread_attr_destroy(&attr);
    if (started) {
        pthread_join(thread, nullptr);
        if (call.error) std::rethrow_exception(call.error);
        return out;
    }
#endif
    work();
    return out;
}

} // namespace alluvium::gpu
