// The split lake fill's spill graph (fill_split.h): watersheds, the edges of a block, the solve.
#include <algorithm>
#include <cstring>
#include <queue>

#include "fill_split.h"
#include "models/fluvial.h"

namespace alluvium::gpu {

namespace {

// Each pair of neighbours once (fluvial.glsl's EDGE_DIRS).
constexpr int kEdgeDx[4] = {1, -1, 0, 1}, kEdgeDy[4] = {0, 1, 1, 1};

uint64_t wholeIndex(int x, int y, int grid_width) { return uint64_t(y) * uint64_t(grid_width) + uint64_t(x); }

} // namespace

std::vector<uint32_t> watershedRoots(const std::vector<uint32_t>& receivers) {
    constexpr uint32_t kUnset = FLUVIAL_NONE;
    std::vector<uint32_t> root(receivers.size(), kUnset), path;
    for (uint32_t i = 0; i < receivers.size(); ++i) {
        uint32_t c = i;
        // Receivers only go down in (W, steps): the walk ends, at a root or a cell already known.
        while (root[c] == kUnset && receivers[c] != c) {
            path.push_back(c);
            c = receivers[c];
        }
        const uint32_t r = root[c] == kUnset ? c : root[c];
        root[c] = r;
        for (uint32_t p : path) root[p] = r;
        path.clear();
    }
    return root;
}

std::vector<SpillEdge> blockSpillEdges(const BlockGrid& grid, const FillBlock& block, int outlets,
                                       const std::vector<uint32_t>& level, const std::vector<uint32_t>& root,
                                       const std::vector<float>& ring_ground) {
    const Rect& o = block.owned;
    const Rect& r = block.ring;
    auto whole = [&](uint32_t local) {
        return wholeIndex(o.x + int(local % uint32_t(o.w)), o.y + int(local / uint32_t(o.w)), grid.width);
    };
    auto ground = [&](int x, int y) {
        return orderedFloatBits(ring_ground[size_t(y - r.y) * size_t(r.w) + size_t(x - r.x)]);
    };
    // Between the block's watersheds: the lowest pass of each pair.
    std::unordered_map<uint64_t, uint32_t> lowest;
    for (int y = 0; y < o.h; ++y)
        for (int x = 0; x < o.w; ++x) {
            const uint32_t a = uint32_t(y * o.w + x);
            for (int d = 0; d < 4; ++d) {
                const int bx = x + kEdgeDx[d], by = y + kEdgeDy[d];
                if (bx < 0 || by < 0 || bx >= o.w || by >= o.h) continue;
                const uint32_t b = uint32_t(by * o.w + bx);
                if (root[a] == root[b]) continue;
                const uint64_t key = (uint64_t(std::min(root[a], root[b])) << 32) | std::max(root[a], root[b]);
                const uint32_t pass = std::max(level[a], level[b]);
                auto [it, fresh] = lowest.try_emplace(key, pass);
                if (!fresh) it->second = std::min(it->second, pass);
            }
        }
    std::vector<SpillEdge> edges;
    edges.reserve(lowest.size());
    for (const auto& [key, pass] : lowest) edges.push_back({whole(uint32_t(key >> 32)), whole(uint32_t(key)), pass});
    std::sort(edges.begin(), edges.end(), [](const SpillEdge& p, const SpillEdge& q) {
        return p.a != q.a ? p.a < q.a : p.b < q.b; // the same bytes from run to run
    });
    // The edge cells: to their neighbours in other blocks (each pair once, from its lower index)
    // and, on the grid's outlet sides, to the ocean.
    for (uint64_t cell : edgeCells(o, grid.width)) {
        const int x = int(cell % uint64_t(grid.width)), y = int(cell / uint64_t(grid.width));
        const uint32_t z = ground(x, y);
        if (isOutletCell(x, y, grid.width, grid.height, outlets)) edges.push_back({cell, kSpillOcean, z});
        for (int k = 0; k < 8; ++k) {
            const int nx = x + kNeighbourDx[k], ny = y + kNeighbourDy[k];
            const bool in_block = nx >= o.x && ny >= o.y && nx < o.x + o.w && ny < o.y + o.h;
            if (in_block || nx < 0 || ny < 0 || nx >= grid.width || ny >= grid.height) continue;
            const uint64_t other = wholeIndex(nx, ny, grid.width);
            if (cell < other) edges.push_back({cell, other, std::max(z, ground(nx, ny))});
        }
    }
    return edges;
}

std::unordered_map<uint64_t, uint32_t> solveSpillGraph(const std::vector<SpillEdge>& edges) {
    std::vector<uint64_t> nodes;
    nodes.reserve(2 * edges.size() + 1);
    for (const SpillEdge& e : edges) {
        nodes.push_back(e.a);
        nodes.push_back(e.b);
    }
    nodes.push_back(kSpillOcean);
    std::sort(nodes.begin(), nodes.end());
    nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
    auto id = [&](uint64_t n) { return uint32_t(std::lower_bound(nodes.begin(), nodes.end(), n) - nodes.begin()); };
    // Adjacency in compressed rows.
    std::vector<uint32_t> start(nodes.size() + 1, 0), next(2 * edges.size()), pass(2 * edges.size());
    for (const SpillEdge& e : edges) ++start[id(e.a) + 1], ++start[id(e.b) + 1];
    for (size_t k = 1; k < start.size(); ++k) start[k] += start[k - 1];
    std::vector<uint32_t> fill(start.begin(), start.end() - 1);
    for (const SpillEdge& e : edges) {
        const uint32_t a = id(e.a), b = id(e.b);
        next[fill[a]] = b, pass[fill[a]++] = e.level;
        next[fill[b]] = a, pass[fill[b]++] = e.level;
    }
    // Dijkstra's order on the highest pass of the way (minimax).
    std::vector<uint32_t> best(nodes.size(), FLUVIAL_NONE);
    std::vector<bool> done(nodes.size(), false);
    using Item = std::pair<uint32_t, uint32_t>; // level, node
    std::priority_queue<Item, std::vector<Item>, std::greater<Item>> queue;
    const uint32_t ocean = id(kSpillOcean);
    best[ocean] = 0;
    queue.push({0, ocean});
    while (!queue.empty()) {
        const auto [at, n] = queue.top();
        queue.pop();
        if (done[n]) continue;
        done[n] = true;
        for (uint32_t k = start[n]; k < start[n + 1]; ++k) {
            const uint32_t reach = std::max(at, pass[k]);
            if (reach < best[next[k]]) {
                best[next[k]] = reach;
                queue.push({reach, next[k]});
            }
        }
    }
    std::unordered_map<uint64_t, uint32_t> levels;
    for (size_t k = 0; k < nodes.size(); ++k)
        if (done[k] && nodes[k] != kSpillOcean) levels.emplace(nodes[k], best[k]);
    return levels;
}

std::vector<uint64_t> edgeCells(const Rect& owned, int grid_width) {
    std::vector<uint64_t> cells;
    for (int y = owned.y; y < owned.y + owned.h; ++y)
        for (int x = owned.x; x < owned.x + owned.w; ++x)
            if (y == owned.y || y == owned.y + owned.h - 1 || x == owned.x || x == owned.x + owned.w - 1)
                cells.push_back(wholeIndex(x, y, grid_width));
    return cells;
}

std::vector<uint32_t> combineLevels(const Rect& owned, int grid_width, const std::vector<uint32_t>& level,
                                    const std::vector<uint32_t>& root, const std::vector<uint32_t>& edge_level) {
    // The edge cells' levels by their index in the block.
    std::vector<uint32_t> at_edge(level.size(), FLUVIAL_NONE);
    const std::vector<uint64_t> cells = edgeCells(owned, grid_width);
    for (size_t k = 0; k < cells.size(); ++k) {
        const int x = int(cells[k] % uint64_t(grid_width)) - owned.x,
                  y = int(cells[k] / uint64_t(grid_width)) - owned.y;
        at_edge[size_t(y) * size_t(owned.w) + size_t(x)] = edge_level[k];
    }
    std::vector<uint32_t> w(level.size());
    for (size_t i = 0; i < level.size(); ++i) {
        const uint32_t l = at_edge[root[i]];
        w[i] = l == FLUVIAL_NONE ? FLUVIAL_NONE : std::max(level[i], l);
    }
    return w;
}

} // namespace alluvium::gpu
