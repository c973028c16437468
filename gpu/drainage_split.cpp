// The split grid's routing and drainage accumulation (drainage_split.h): the ring swaps, the flats'
// rounds, the receivers, and the accumulation graph solved on rank 0.
#include "drainage_split.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>
#include <unordered_map>

#include "models/fluvial.h"

namespace alluvium::gpu {

namespace {

constexpr uint64_t kNoCell = ~uint64_t(0);

Rect intersect(const Rect& a, const Rect& b) {
    const int x0 = std::max(a.x, b.x), y0 = std::max(a.y, b.y);
    const int x1 = std::min(a.x + a.w, b.x + b.w), y1 = std::min(a.y + a.h, b.y + b.h);
    return {x0, y0, std::max(x1 - x0, 0), std::max(y1 - y0, 0)};
}

// Copies the cells of `part` between `from` (rect `fr`) and `to` (rect `tr`), row by row.
template <class T> void copyRect(const Rect& part, const T* from, const Rect& fr, T* to, const Rect& tr) {
    for (int y = part.y; y < part.y + part.h; ++y)
        std::memcpy(to + size_t(y - tr.y) * size_t(tr.w) + size_t(part.x - tr.x),
                    from + size_t(y - fr.y) * size_t(fr.w) + size_t(part.x - fr.x), size_t(part.w) * sizeof(T));
}

// A block's cells: owned (indices row by row within `owned`) inside its ring (whole-grid cells);
// a neighbour outside the ring lies outside the grid.
struct BlockView {
    Rect owned, ring;
    int grid_width = 0, grid_height = 0;
    size_t ringAt(int x, int y) const { return size_t(y - ring.y) * size_t(ring.w) + size_t(x - ring.x); }
    bool inRing(int x, int y) const { return x >= ring.x && y >= ring.y && x < ring.x + ring.w && y < ring.y + ring.h; }
    bool isOwned(int x, int y) const {
        return x >= owned.x && y >= owned.y && x < owned.x + owned.w && y < owned.y + owned.h;
    }
    size_t ownedAt(int x, int y) const { return size_t(y - owned.y) * size_t(owned.w) + size_t(x - owned.x); }
    uint64_t whole(int x, int y) const { return uint64_t(y) * uint64_t(grid_width) + uint64_t(x); }
};

// Lowers the owned cells' `steps` (FLUVIAL_NONE: none known yet) to the fewest steps over cells of
// the same W to an exit (`exit`, when given: the first round) or to a ring cell of known steps: a
// breadth-first search from all of them at once, in order of their steps. Steps only fall from
// round to round, so a round relaxes only what the ring's news lowers.
void relaxSteps(const BlockView& v, const std::vector<uint32_t>& ring_level, const std::vector<uint8_t>* exit,
                const std::vector<uint32_t>& ring_steps, std::vector<uint32_t>& steps) {
    const Rect& o = v.owned;
    // (steps, owned cell): the queue holds nondecreasing steps, the exits' 0 first; the ring's
    // seeds, sorted, join it in order.
    std::vector<std::pair<uint32_t, uint32_t>> seeds, queue;
    for (size_t i = 0; exit && i < exit->size(); ++i)
        if ((*exit)[i] != 0) queue.emplace_back(0u, uint32_t(i));
    const Rect& r = v.ring;
    for (int y = r.y; y < r.y + r.h; ++y)
        for (int x = r.x; x < r.x + r.w; ++x) {
            if (v.isOwned(x, y)) { // the ring's cells only
                if (x == o.x && o.w > 1) x = o.x + o.w - 1;
                continue;
            }
            const uint32_t s = ring_steps[v.ringAt(x, y)], w = ring_level[v.ringAt(x, y)];
            if (s == FLUVIAL_NONE || w == FLUVIAL_NONE) continue;
            for (int k = 0; k < 8; ++k) {
                const int nx = x + kNeighbourDx[k], ny = y + kNeighbourDy[k];
                if (v.isOwned(nx, ny) && ring_level[v.ringAt(nx, ny)] == w && s + 1u < steps[v.ownedAt(nx, ny)])
                    seeds.emplace_back(s + 1u, uint32_t(v.ownedAt(nx, ny)));
            }
        }
    std::sort(seeds.begin(), seeds.end());
    size_t head = 0, next_seed = 0;
    while (head < queue.size() || next_seed < seeds.size()) {
        const bool take_seed =
            head == queue.size() || (next_seed < seeds.size() && seeds[next_seed].first <= queue[head].first);
        const auto [d, i] = take_seed ? seeds[next_seed++] : queue[head++];
        if (d >= steps[i]) continue;
        steps[i] = d;
        const int x = o.x + int(i % uint32_t(o.w)), y = o.y + int(i / uint32_t(o.w));
        const uint32_t w = ring_level[v.ringAt(x, y)];
        for (int k = 0; k < 8; ++k) {
            const int nx = x + kNeighbourDx[k], ny = y + kNeighbourDy[k];
            if (!v.isOwned(nx, ny) || ring_level[v.ringAt(nx, ny)] != w) continue;
            const uint32_t n = uint32_t(v.ownedAt(nx, ny));
            if (d + 1u < steps[n]) queue.emplace_back(d + 1u, n);
        }
    }
}

// fluvial_level.comp's exits: outlets, the ocean, and cells with a neighbour whose W lies below
// their ground.
std::vector<uint8_t> flatExits(const BlockView& v, const DrainageInputs& in, const std::vector<uint32_t>& ring_level,
                               const std::vector<float>& ring_ground) {
    const Rect& o = v.owned;
    const uint32_t sea = orderedFloatBits(in.sea_level);
    std::vector<uint8_t> exit(o.cells(), 0);
    for (int y = o.y; y < o.y + o.h; ++y)
        for (int x = o.x; x < o.x + o.w; ++x) {
            const uint32_t w = ring_level[v.ringAt(x, y)];
            if (w == FLUVIAL_NONE) continue;
            bool is_exit = isOutletCell(x, y, v.grid_width, v.grid_height, in.outlets) || (in.sea && w < sea);
            const uint32_t z = orderedFloatBits(ring_ground[v.ringAt(x, y)]);
            for (int k = 0; k < 8 && !is_exit; ++k) {
                const int nx = x + kNeighbourDx[k], ny = y + kNeighbourDy[k];
                if (!v.inRing(nx, ny)) continue;
                const uint32_t wn = ring_level[v.ringAt(nx, ny)];
                is_exit = wn != FLUVIAL_NONE && wn < z;
            }
            exit[v.ownedAt(x, y)] = is_exit ? 1 : 0;
        }
    return exit;
}

// fluvial_route.comp's receiver and lake depth of owned cell (x, y).
void route(const BlockView& v, const DrainageInputs& in, const std::vector<uint32_t>& ring_level,
           const std::vector<uint32_t>& ring_steps, const std::vector<float>& ring_ground, int x, int y,
           uint32_t& receiver, float& lake) {
    const uint32_t wc = ring_level[v.ringAt(x, y)];
    const float z = fromOrderedFloatBits(orderedFloatBits(ring_ground[v.ringAt(x, y)]));
    receiver = RCV_SELF;
    lake = 0.0f;
    if (in.sea && wc != FLUVIAL_NONE && wc < orderedFloatBits(in.sea_level)) {
        lake = std::max(in.sea_level - z, 0.0f);
        return;
    }
    if (wc == FLUVIAL_NONE || isOutletCell(x, y, v.grid_width, v.grid_height, in.outlets)) return;
    const float w = fromOrderedFloatBits(wc);
    lake = std::max(w - z, 0.0f);
    float best_slope = 0.0f;
    uint32_t best_steps = ring_steps[v.ringAt(x, y)];
    int best = -1, flat_best = -1;
    for (int k = 0; k < 8; ++k) {
        const int nx = x + kNeighbourDx[k], ny = y + kNeighbourDy[k];
        if (!v.inRing(nx, ny)) continue;
        const uint32_t wn_bits = ring_level[v.ringAt(nx, ny)];
        if (wn_bits == FLUVIAL_NONE) continue;
        const float wn = fromOrderedFloatBits(wn_bits);
        if (wn < w) {
            const float slope = (w - wn) * kNeighbourInvDist[k];
            if (slope > best_slope) {
                best_slope = slope;
                best = k;
            }
        } else if (wn == w) {
            const uint32_t sn = ring_steps[v.ringAt(nx, ny)];
            if (sn < best_steps) {
                best_steps = sn;
                flat_best = k;
            }
        }
    }
    if (best < 0) best = flat_best;
    if (best >= 0) receiver = uint32_t(best);
}

// The owned cells ordered so that every cell comes before its receiver (the sources first), and
// each cell's receiver within the block (-1: its own, or another block's).
struct LocalTree {
    std::vector<int64_t> parent;
    std::vector<uint32_t> order;
};

LocalTree localTree(const BlockView& v, const std::vector<uint32_t>& receivers) {
    const Rect& o = v.owned;
    LocalTree t;
    t.parent.assign(o.cells(), -1);
    std::vector<uint8_t> donors(o.cells(), 0);
    for (size_t i = 0; i < o.cells(); ++i) {
        if (receivers[i] == RCV_SELF) continue;
        const int x = o.x + int(i % size_t(o.w)) + kNeighbourDx[receivers[i]],
                  y = o.y + int(i / size_t(o.w)) + kNeighbourDy[receivers[i]];
        if (!v.isOwned(x, y)) continue;
        t.parent[i] = int64_t(v.ownedAt(x, y));
        ++donors[size_t(t.parent[i])];
    }
    t.order.reserve(o.cells());
    for (size_t i = 0; i < o.cells(); ++i)
        if (donors[i] == 0) t.order.push_back(uint32_t(i));
    for (size_t k = 0; k < t.order.size(); ++k) {
        const int64_t p = t.parent[t.order[k]];
        if (p >= 0 && --donors[size_t(p)] == 0) t.order.push_back(uint32_t(p));
    }
    if (t.order.size() != o.cells()) throw DeviceError("the split drainage's receivers form a cycle");
    return t;
}

std::vector<uint64_t> accumulate(const LocalTree& t, std::vector<uint64_t> acc) {
    for (uint32_t i : t.order)
        if (t.parent[i] >= 0) acc[size_t(t.parent[i])] += acc[i];
    return acc;
}

// The accumulation graph's records: a cell whose receiver lies in another block (`to`), with its
// block's sum; an edge cell of a block and the block exit its path leaves by (`to`).
struct AccExit {
    uint64_t cell = 0, to = 0, sum = 0;
};
struct AccEntry {
    uint64_t cell = 0, to = 0;
};

// Rank 0: the sums that enter each block, (cell, sum) pairs, one message a rank.
std::vector<std::vector<char>> solveInflows(const BlockGrid& grid, const std::vector<AccExit>& exits,
                                            const std::vector<AccEntry>& entries) {
    std::unordered_map<uint64_t, uint64_t> exit_of; // an edge cell: the exit it leaves its block by
    for (const AccEntry& e : entries) exit_of.emplace(e.cell, e.to);
    std::unordered_map<uint64_t, size_t> index;
    for (size_t k = 0; k < exits.size(); ++k) index.emplace(exits[k].cell, k);
    // Exit k pours into the block of its receiver, whose path leaves by exit next[k] (or ends).
    std::vector<int64_t> next(exits.size(), -1);
    std::vector<uint32_t> pending(exits.size(), 0);
    for (size_t k = 0; k < exits.size(); ++k) {
        const auto it = exit_of.find(exits[k].to);
        if (it == exit_of.end()) continue;
        next[k] = int64_t(index.at(it->second));
        ++pending[size_t(next[k])];
    }
    std::vector<uint64_t> total(exits.size());
    std::vector<size_t> order;
    for (size_t k = 0; k < exits.size(); ++k) {
        total[k] = exits[k].sum;
        if (pending[k] == 0) order.push_back(k);
    }
    for (size_t j = 0; j < order.size(); ++j) {
        const int64_t n = next[order[j]];
        if (n < 0) continue;
        total[size_t(n)] += total[order[j]];
        if (--pending[size_t(n)] == 0) order.push_back(size_t(n));
    }
    if (order.size() != exits.size()) throw DeviceError("the split drainage's graph holds a cycle");
    std::unordered_map<uint64_t, uint64_t> inflow;
    for (size_t k = 0; k < exits.size(); ++k) inflow[exits[k].to] += total[k];
    std::vector<std::vector<uint64_t>> pairs(size_t(grid.count()));
    for (const auto& [cell, sum] : inflow) {
        const int owner = grid.ownerOf(int(cell % uint64_t(grid.width)), int(cell / uint64_t(grid.width)));
        pairs[size_t(owner)].insert(pairs[size_t(owner)].end(), {cell, sum});
    }
    std::vector<std::vector<char>> send;
    for (const std::vector<uint64_t>& p : pairs) send.push_back(bytesOf(p));
    return send;
}

// The steps of the owned cells (step 2): rounds of relaxing and swapping the ring until no ring
// changes. Returns the ring's steps (the owned cells' included).
std::vector<uint32_t> flatSteps(Transport& transport, const BlockGrid& grid, const BlockView& v,
                                const std::vector<uint32_t>& ring_level, const std::vector<uint8_t>& exit,
                                SplitDrainage& out) {
    std::vector<uint32_t> ring_steps(v.ring.cells(), FLUVIAL_NONE), steps(v.owned.cells(), FLUVIAL_NONE);
    bool relax = true;
    for (;;) {
        const auto start = std::chrono::steady_clock::now();
        if (relax) relaxSteps(v, ring_level, out.flat_rounds == 0 ? &exit : nullptr, ring_steps, steps);
        out.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::vector<uint32_t> swapped = ringFromNeighbours(transport, grid, steps, &out.bytes);
        copyRect(v.owned, steps.data(), v.owned, ring_steps.data(), v.ring);
        relax = swapped != ring_steps; // a neighbour's steps changed: relax again
        ring_steps = std::move(swapped);
        ++out.flat_rounds;
        double changed = 0.0;
        for (double c : everyValue(transport, relax ? 1.0 : 0.0)) changed += c;
        if (changed == 0.0) break;
    }
    return ring_steps;
}

} // namespace

std::vector<uint32_t> ringFromNeighbours(Transport& transport, const BlockGrid& grid, const std::vector<uint32_t>& mine,
                                         uint64_t* bytes) {
    const int me = transport.rank();
    const Rect o = grid.owned(me), r = fillBlock(grid, me).ring;
    std::vector<std::vector<char>> send(size_t(grid.count()));
    for (int k = 0; k < grid.count(); ++k) {
        const Rect part = intersect(fillBlock(grid, k).ring, o);
        if (k == me || part.cells() == 0) continue;
        std::vector<uint32_t> cells(part.cells());
        copyRect(part, mine.data(), o, cells.data(), part);
        send[size_t(k)] = bytesOf(cells);
        if (bytes) *bytes += send[size_t(k)].size();
    }
    std::vector<char> received;
    transport.allToAll(send, received);
    if (bytes) *bytes += received.size();
    std::vector<uint32_t> out(r.cells(), FLUVIAL_NONE);
    copyRect(o, mine.data(), o, out.data(), r);
    size_t at = 0;
    for (int k = 0; k < grid.count(); ++k) {
        const Rect part = intersect(r, grid.owned(k));
        if (k == me || part.cells() == 0) continue;
        if (at + part.cells() * sizeof(uint32_t) > received.size()) break;
        std::vector<uint32_t> cells(part.cells());
        std::memcpy(cells.data(), received.data() + at, cells.size() * sizeof(uint32_t));
        copyRect(part, cells.data(), part, out.data(), r);
        at += cells.size() * sizeof(uint32_t);
    }
    if (at != received.size()) throw DeviceError("a block's ring arrived with the wrong size");
    return out;
}

SplitDrainage drainageSplit(Transport& transport, const BlockGrid& grid, const FillBlock& block,
                            const DrainageInputs& in, const std::vector<uint32_t>& level,
                            const std::vector<float>& ring_ground, const std::vector<float>& rain) {
    using Clock = std::chrono::steady_clock;
    auto since = [](Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); };
    const BlockView v{block.owned, block.ring, grid.width, grid.height};
    const Rect& o = v.owned;
    SplitDrainage out;
    auto start = Clock::now();
    const std::vector<uint32_t> ring_level = ringFromNeighbours(transport, grid, level, &out.bytes);
    out.exchange_seconds += since(start);

    start = Clock::now();
    const std::vector<uint8_t> exit = flatExits(v, in, ring_level, ring_ground);
    out.seconds += since(start);
    start = Clock::now();
    const double before_flats = out.seconds;
    const std::vector<uint32_t> ring_steps = flatSteps(transport, grid, v, ring_level, exit, out);
    // The flats' swaps, and the waits for the slowest block (their relaxing is work).
    const double flats = since(start) - (out.seconds - before_flats);
    out.steps.resize(o.cells());
    copyRect(o, ring_steps.data(), v.ring, out.steps.data(), o);

    start = Clock::now();
    out.receivers.resize(o.cells());
    out.lake.resize(o.cells());
    for (int y = o.y; y < o.y + o.h; ++y)
        for (int x = o.x; x < o.x + o.w; ++x) {
            const size_t i = v.ownedAt(x, y);
            route(v, in, ring_level, ring_steps, ring_ground, x, y, out.receivers[i], out.lake[i]);
        }
    std::vector<uint64_t> weight(o.cells(), uint64_t(FLUVIAL_ACC_ONE));
    for (size_t i = 0; i < rain.size() && i < weight.size(); ++i) {
        const float r = rain[i] > 0.0f ? std::min(rain[i], 1.0f) : 0.0f; // clamp, and NaN as no rain
        weight[i] = uint64_t(uint32_t(r * float(FLUVIAL_ACC_ONE) + 0.5f));
    }
    const LocalTree tree = localTree(v, out.receivers);
    const std::vector<uint64_t> local = accumulate(tree, weight);
    // Each cell's block exit (kNoCell: its path ends in the block), downstream cells first.
    std::vector<uint64_t> exit_of(o.cells(), kNoCell);
    std::vector<AccExit> exits;
    for (size_t k = tree.order.size(); k-- > 0;) {
        const uint32_t i = tree.order[k];
        const int x = o.x + int(i % uint32_t(o.w)), y = o.y + int(i / uint32_t(o.w));
        if (tree.parent[i] >= 0) {
            exit_of[i] = exit_of[size_t(tree.parent[i])];
        } else if (out.receivers[i] != RCV_SELF) {
            exit_of[i] = v.whole(x, y);
            exits.push_back({v.whole(x, y),
                             v.whole(x + kNeighbourDx[out.receivers[i]], y + kNeighbourDy[out.receivers[i]]),
                             local[i]});
        }
    }
    std::vector<AccEntry> entries; // the edge cells (only they receive from other blocks)
    for (int y = o.y; y < o.y + o.h; ++y)
        for (int x = o.x; x < o.x + o.w; ++x) {
            if (y != o.y && y != o.y + o.h - 1 && x == o.x + 1) x = o.x + o.w - 1;
            if (exit_of[v.ownedAt(x, y)] != kNoCell) entries.push_back({v.whole(x, y), exit_of[v.ownedAt(x, y)]});
        }
    out.seconds += since(start);

    start = Clock::now();
    const std::vector<AccExit> all_exits = gatherVectors(transport, exits, out.bytes);
    const std::vector<AccEntry> all_entries = gatherVectors(transport, entries, out.bytes);
    std::vector<std::vector<char>> send(size_t(grid.count()));
    if (transport.rank() == 0) {
        send = solveInflows(grid, all_exits, all_entries);
        out.graph_exits = all_exits.size();
        for (const std::vector<char>& s : send) out.bytes += s.size();
    }
    std::vector<char> received;
    transport.allToAll(send, received);
    if (transport.rank() != 0) out.bytes += received.size();
    out.exchange_seconds += since(start) + flats;

    start = Clock::now();
    std::vector<uint64_t> pairs(received.size() / sizeof(uint64_t));
    if (!pairs.empty()) std::memcpy(pairs.data(), received.data(), pairs.size() * sizeof(uint64_t));
    for (size_t k = 0; k + 1 < pairs.size(); k += 2) {
        const int x = int(pairs[k] % uint64_t(grid.width)), y = int(pairs[k] / uint64_t(grid.width));
        if (!v.isOwned(x, y)) throw DeviceError("the split drainage's inflow names another block's cell");
        weight[v.ownedAt(x, y)] += pairs[k + 1];
    }
    out.accumulation = accumulate(tree, std::move(weight));
    out.area.resize(o.cells());
    const float cell_area = in.cell_size * in.cell_size;
    for (size_t i = 0; i < o.cells(); ++i)
        out.area[i] = float(out.accumulation[i]) / float(FLUVIAL_ACC_ONE) * cell_area;
    out.seconds += since(start);
    return out;
}

} // namespace alluvium::gpu
