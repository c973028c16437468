// Lakes that balance evaporation: the host's solve over the basin graph (see lakes.h). Basins
// nest as deep as the terrain makes them (a serpentine: tens of thousands), so nothing here
// recurses or walks a node's basins at every level of the merge tree: the cells below every
// node's exit are counted once for all nodes, the inflows are range sums over the depth-first
// order (lake_inflows.h), the solve runs top-down from an explicit stack, and only a node that
// ends there (full, or a closed lake) walks its own basins, each basin once in all: O(n log n)
// in the basins, plus a node's basins wherever its inflow, summed in its order, decides a near tie.
#include "lakes.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <optional>
#include <unordered_map>
#include <utility>

#include "fluvial.h"
#include "lake_inflows.h"
#include "shared.h"

namespace alluvium::gpu {

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

struct Node {
    int child[2] = {-1, -1};
    int parent = -1;
    float pass = kInf;     // the height at which the children join
    int end[2] = {-1, -1}; // the basins (leaves) at the two ends of that pass, end[k] in child[k]
    bool ocean = false;
    int first = 0, count = 0; // its leaves in order[first, first + count)
    float exit = kInf;        // its parent's pass, where it spills (none at a root)
    uint64_t below = 0;       // its cells below its exit
};

// Union-find over the leaves, each set knowing the merge tree's node on top of it.
struct Components {
    std::vector<int> parent, top;
    explicit Components(int leaves) : parent(size_t(leaves)), top(size_t(leaves)) {
        std::iota(parent.begin(), parent.end(), 0);
        std::iota(top.begin(), top.end(), 0);
    }
    int find(int x) {
        while (parent[size_t(x)] != x) x = parent[size_t(x)] = parent[size_t(parent[size_t(x)])];
        return x;
    }
    void join(int ra, int rb, int node) { // roots; ra stays the root
        parent[size_t(rb)] = ra;
        top[size_t(ra)] = node;
    }
};

// A node's inflow Q, as the solve compares it: bounded from the running sums, and summed in its
// order only where the bounds cannot decide (lake_inflows.h).
class NodeInflow {
public:
    NodeInflow(const LakeInflows& inflows, const Node& nd)
        : inflows_(inflows), first_(nd.first), count_(nd.count), bounds_(inflows.bounds(nd.first, nd.count)) {}
    // demand <= Q
    bool covers(double demand) {
        if (demand <= bounds_.lo) return true;
        if (demand > bounds_.hi) return false;
        return demand <= value();
    }
    // The cells that Q keeps wet against the evaporation e of a cell, at most m: k = min(m,
    // floor(Q / e)).
    size_t cells(double e, uint64_t m) {
        if (bounds_.lo >= 0.0 && cellsAt(bounds_.lo, e, m) == cellsAt(bounds_.hi, e, m))
            return cellsAt(bounds_.lo, e, m);
        return cellsAt(value(), e, m);
    }
    // Whether test(k), a test that holds from some k on, holds for those cells: the bounds decide
    // unless they straddle where it starts.
    template <class Test> bool holds(double e, uint64_t m, const Test& test) {
        if (bounds_.lo >= 0.0) {
            const bool lo = test(cellsAt(bounds_.lo, e, m));
            if (lo == test(cellsAt(bounds_.hi, e, m))) return lo;
        }
        return test(cellsAt(value(), e, m));
    }
    double value() {
        if (bounds_.lo == bounds_.hi) return bounds_.lo;
        if (!summed_) ordered_ = inflows_.ordered(first_, count_), summed_ = true;
        return ordered_;
    }

private:
    static size_t cellsAt(double q, double e, uint64_t m) { return size_t(std::min(double(m), std::floor(q / e))); }

    const LakeInflows& inflows_;
    int first_, count_;
    LakeInflows::Bounds bounds_;
    bool summed_ = false;
    double ordered_ = 0.0;
};

class Solver {
public:
    Solver(int w, int h, const std::vector<float>& z, const std::vector<uint32_t>& labels,
           const std::vector<double>& inflow, double evaporation, float sea)
        : z_(z), e_(evaporation), sea_(sea) {
        buildTree(w, h, readBasins(w, h, labels, inflow));
        countBelowExits();
    }

    LakeSolve run() {
        std::vector<double> rain(order_.size());
        for (size_t p = 0; p < order_.size(); ++p) rain[p] = rain_[size_t(order_[p])];
        inflows_.emplace(rain);
        std::vector<Task> stack;
        for (int r : roots_) stack.push_back({r, -1});
        while (!stack.empty()) {
            const Task task = stack.back();
            stack.pop_back();
            solve(task, stack);
        }
        return std::move(out_);
    }

private:
    // A node to solve; spill_to: the leaf its surplus enters if it turns out full (-1: none).
    struct Task {
        int node, spill_to;
    };

    std::vector<int> readBasins(int w, int h, const std::vector<uint32_t>& labels, const std::vector<double>& inflow);
    void buildTree(int w, int h, const std::vector<int>& leaf_of);
    void number(int root);
    void countBelowExits();
    void solve(const Task& task, std::vector<Task>& stack);
    void solveOcean(const Node& nd, std::vector<Task>& stack);
    bool closedAbovePass(const Node& nd, NodeInflow& q);
    float closedLevel(const Node& nd, NodeInflow& q);
    void assignOpen(const Node& nd, float level);
    void assignClosed(const Node& nd, float level);

    // A basin's cells' heights, ascending.
    const float* heightsBegin(int b) const { return heights_.data() + start_[size_t(b)]; }
    const float* heightsEnd(int b) const { return heights_.data() + start_[size_t(b) + 1]; }

    const std::vector<float>& z_;
    double e_;
    float sea_;
    LakeSolve out_;
    std::vector<uint32_t> block_;
    int ocean_ = 0;
    std::vector<size_t> start_; // basin b's cells: heights_[start_[b], start_[b + 1])
    std::vector<float> heights_;
    std::vector<uint32_t> pit_;
    std::vector<double> rain_;
    std::vector<Node> nodes_; // the leaves (basins, then the ocean), then one node per join
    std::vector<int> order_, pos_, roots_;
    std::optional<LakeInflows> inflows_;
};

// The basins named by the labels (in order of their first cell), each one's cells, rain and pit;
// returns each cell's leaf.
std::vector<int> Solver::readBasins(int w, int h, const std::vector<uint32_t>& labels,
                                    const std::vector<double>& inflow) {
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
    pit_.assign(size_t(basins), FLUVIAL_NONE);
    rain_.assign(size_t(basins) + 1, 0.0);
    start_.assign(size_t(basins) + 2, 0);
    std::vector<int> leaf_of(n);
    for (size_t i = 0; i < n; ++i) {
        const int b = labels[i] == FLUVIAL_OCEAN || labels[i] >= blocks ? ocean_ : id[labels[i]];
        leaf_of[i] = b;
        if (b == ocean_) continue;
        ++start_[size_t(b) + 2];
        rain_[size_t(b)] += inflow[i];
        uint32_t& p = pit_[size_t(b)];
        if (p == FLUVIAL_NONE || orderedFloatBits(z_[i]) < orderedFloatBits(z_[p]) ||
            (orderedFloatBits(z_[i]) == orderedFloatBits(z_[p]) && i < p))
            p = uint32_t(i);
    }
    for (size_t b = 2; b < start_.size(); ++b) start_[b] += start_[b - 1];
    heights_.resize(start_.back());
    for (size_t i = 0; i < n; ++i)
        if (leaf_of[i] != ocean_) heights_[start_[size_t(leaf_of[i]) + 1]++] = z_[i];
    start_.pop_back(); // now start_[b] .. start_[b + 1]
    for (int b = 0; b < basins; ++b)
        std::sort(heights_.begin() + std::ptrdiff_t(start_[size_t(b)]),
                  heights_.begin() + std::ptrdiff_t(start_[size_t(b) + 1]));
    return leaf_of;
}

// The merge tree (Kruskal in increasing pass height, ties by the basins' order), its roots and
// its leaves in depth-first order.
void Solver::buildTree(int w, int h, const std::vector<int>& leaf_of) {
    const int basins = ocean_;
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
                const float p = std::max(z_[i], z_[j]);
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
    nodes_.resize(size_t(basins) + 1);
    nodes_[size_t(ocean_)].ocean = true;
    Components sets(basins + 1);
    for (const Edge& e : edges) {
        const int ra = sets.find(e.a), rb = sets.find(e.b);
        if (ra == rb) continue;
        Node m;
        m.child[0] = sets.top[size_t(ra)];
        m.child[1] = sets.top[size_t(rb)];
        m.pass = e.pass;
        m.end[0] = e.a;
        m.end[1] = e.b;
        m.ocean = nodes_[size_t(m.child[0])].ocean || nodes_[size_t(m.child[1])].ocean;
        const int id = int(nodes_.size());
        for (int c : m.child) nodes_[size_t(c)].parent = id, nodes_[size_t(c)].exit = e.pass;
        nodes_.push_back(m);
        sets.join(ra, rb, id);
    }
    order_.reserve(size_t(basins) + 1);
    pos_.assign(size_t(basins) + 1, 0);
    for (int x = 0; x <= basins; ++x)
        if (sets.find(x) == x) {
            roots_.push_back(sets.top[size_t(x)]);
            number(sets.top[size_t(x)]);
        }
}

// Leaves in depth-first order (the first child's first): every node's leaves are a range.
void Solver::number(int root) {
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
            nd.first = nodes_[size_t(nd.child[0])].first;
            nd.count = nodes_[size_t(nd.child[0])].count + nodes_[size_t(nd.child[1])].count;
        }
    }
}

// Every node's cells below its exit, at once. The exits grow up the tree, so a cell of height z
// counts in the ancestors of its basin from the lowest whose exit is above z to the root: the top
// of its basin's component once the joins at passes <= z are made (the first t joins: they are
// in pass order). So the cells are bucketed by that t, the joins replayed, each cell counted at
// the top of its basin when its turn comes, and the counts summed up the tree.
void Solver::countBelowExits() {
    const int leaves = ocean_ + 1;
    const size_t joins = nodes_.size() - size_t(leaves);
    std::vector<float> join_pass(joins);
    for (size_t t = 0; t < joins; ++t) join_pass[t] = nodes_[size_t(leaves) + t].pass;
    constexpr uint32_t kNever = ~0u; // a cell at +infinity: below no exit
    std::vector<uint32_t> wait(heights_.size(), kNever);
    std::vector<size_t> bucket(joins + 2, 0);
    for (int b = 0; b < ocean_; ++b) {
        size_t t = 0; // ascending along the basin's cells
        for (size_t c = start_[size_t(b)]; c < start_[size_t(b) + 1] && heights_[c] < kInf; ++c) {
            if (c == start_[size_t(b)] || heights_[c] != heights_[c - 1])
                t = size_t(std::upper_bound(join_pass.begin() + std::ptrdiff_t(t), join_pass.end(), heights_[c]) -
                           join_pass.begin());
            wait[c] = uint32_t(t);
            ++bucket[t + 1];
        }
    }
    std::partial_sum(bucket.begin(), bucket.end(), bucket.begin());
    std::vector<int> by_wait(bucket.back());
    for (int b = 0; b < ocean_; ++b)
        for (size_t c = start_[size_t(b)]; c < start_[size_t(b) + 1] && wait[c] != kNever; ++c)
            by_wait[bucket[wait[c]]++] = b;
    Components sets(leaves);
    for (size_t t = 0, k = 0; t <= joins; ++t) {
        for (int last = -1, top = -1; k < bucket[t]; ++k) { // bucket[t]: now the end of t's cells
            if (by_wait[k] != last) last = by_wait[k], top = sets.top[size_t(sets.find(last))];
            ++nodes_[size_t(top)].below;
        }
        if (t == joins) break;
        const Node& m = nodes_[size_t(leaves) + t];
        sets.join(sets.find(m.end[0]), sets.find(m.end[1]), leaves + int(t));
    }
    for (Node& nd : nodes_) // children before parents
        if (nd.parent >= 0) nodes_[size_t(nd.parent)].below += nd.below;
}

// Solves the node with the inflow that reaches it now (its rain, the spills into its basins): full
// to its exit, its surplus spilling into task.spill_to; a closed lake; or, below the pass between
// its children, split: they hold water apart, a full one spilling into the other through the pass
// (both cannot be full: the whole would reach the pass). The children go on the stack, the one
// that may spill on top: a node is full or not as soon as it is solved, so its spill is added
// then, after every spill its sibling receives from above and before any from below: in the
// order the nodes below sum them.
void Solver::solve(const Task& task, std::vector<Task>& stack) {
    if (task.node == ocean_) return;
    const Node& nd = nodes_[size_t(task.node)];
    if (nd.ocean) return solveOcean(nd, stack);
    NodeInflow q(*inflows_, nd);
    if (nd.exit < kInf) {
        const double a = double(nd.below);
        if (q.covers(a * e_)) { // full to its exit: the surplus spills
            assignOpen(nd, nd.exit);
            if (task.spill_to < 0) return;
            const double s = q.value() - a * e_;
            if (s > 0.0) inflows_->add(pos_[size_t(task.spill_to)], s);
            return;
        }
    }
    if (nd.child[0] < 0 || closedAbovePass(nd, q)) return assignClosed(nd, closedLevel(nd, q));
    // The second child goes first if it fills to the pass on its own.
    const Node& second = nodes_[size_t(nd.child[1])];
    const int first = NodeInflow(*inflows_, second).covers(double(second.below) * e_) ? 1 : 0;
    stack.push_back({nd.child[1 - first], -1});
    stack.push_back({nd.child[first], nd.end[1 - first]});
}

// A node with the ocean: the side without it spills into the ocean's side; or, joined below the
// sea level, it is the sea's: filled as without evaporation.
void Solver::solveOcean(const Node& nd, std::vector<Task>& stack) {
    const int o = nodes_[size_t(nd.child[0])].ocean ? 0 : 1;
    const int k = 1 - o;
    stack.push_back({nd.child[o], -1});
    if (nd.pass < sea_)
        assignOpen(nodes_[size_t(nd.child[k])], nd.pass);
    else
        stack.push_back({nd.child[k], nd.end[o]});
}

// Whether the closed lake's level (closedLevel) reaches the pass between the node's children,
// from the counts alone: below its exit the node has m cells, below the pass those of its
// children; the exit is at or above the pass.
bool Solver::closedAbovePass(const Node& nd, NodeInflow& q) {
    const uint64_t m = nd.below;
    if (m == 0) return true; // the level is the exit
    const uint64_t below_pass = nodes_[size_t(nd.child[0])].below + nodes_[size_t(nd.child[1])].below;
    return q.holds(e_, m, [&](size_t k) {
        if (k >= m) return nd.exit < kInf || below_pass < m; // the exit, or the highest cell
        return k >= below_pass;                              // the k-th lowest cell
    });
}

// The closed lake's level: the lowest cell height at which the cells below it, k of them,
// evaporate at most the inflow (k E <= Q) while one more cell would not fit (or a whole group
// of cells of equal height). Below the exit (< x). Walks the node's cells: it ends here.
float Solver::closedLevel(const Node& nd, NodeInflow& q) {
    const uint64_t m = nd.below;
    if (m == 0) return nd.exit;
    const size_t k = q.cells(e_, m);
    if (k >= m && nd.exit < kInf) return nd.exit;
    std::vector<float> hs;
    hs.reserve(size_t(m));
    for (int p = nd.first; p < nd.first + nd.count; ++p) {
        const int b = order_[size_t(p)];
        if (b == ocean_) continue;
        for (const float* c = heightsBegin(b); c != heightsEnd(b) && *c < nd.exit; ++c) hs.push_back(*c);
    }
    if (k >= m) return *std::max_element(hs.begin(), hs.end()); // no exit at all: every cell but the highest
    std::nth_element(hs.begin(), hs.begin() + std::ptrdiff_t(k), hs.end());
    return hs[k];
}

void Solver::assignOpen(const Node& nd, float level) {
    for (int p = nd.first; p < nd.first + nd.count; ++p)
        if (order_[size_t(p)] != ocean_) out_.level[block_[size_t(order_[size_t(p)])]] = orderedFloatBits(level);
}

// A closed lake over the node's basins, each with its sink and its volume (the room on its pit up
// to the exit if it is a dry pan).
void Solver::assignClosed(const Node& nd, float level) {
    uint64_t cells = 0;
    for (int p = nd.first; p < nd.first + nd.count; ++p) {
        const int b = order_[size_t(p)];
        if (b == ocean_) continue;
        const uint32_t block = block_[size_t(b)];
        out_.level[block] = orderedFloatBits(level);
        out_.sink[block] = pit_[size_t(b)];
        double v = 0.0;
        for (const float* c = heightsBegin(b); c != heightsEnd(b); ++c, ++cells) {
            if (*c >= level) break;
            v += double(level) - double(*c);
        }
        if (v <= 0.0) v = double(std::min(nd.exit, *(heightsEnd(b) - 1))) - double(z_[pit_[size_t(b)]]); // dry pan
        out_.volume[block] = std::max(v, 0.0);
    }
    ++out_.closed_lakes;
    out_.closed_cells += cells;
}

} // namespace

LakeSolve solveLakes(int width, int height, const std::vector<float>& z, const std::vector<uint32_t>& labels,
                     const std::vector<double>& inflow, double evaporation, float sea_level) {
    return Solver(width, height, z, labels, inflow, evaporation, sea_level).run();
}

} // namespace alluvium::gpu
