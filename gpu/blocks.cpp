// Blocks of a grid split over processes (gpu/blocks.h).
#include "blocks.h"

#include <algorithm>
#include <string>

#include "passes.h"
#include "vk_check.h"

namespace alluvium::gpu {

Rect BlockGrid::owned(int rank) const {
    const int i = rank % cols, j = rank / cols;
    return {xs[size_t(i)], ys[size_t(j)], xs[size_t(i) + 1] - xs[size_t(i)], ys[size_t(j) + 1] - ys[size_t(j)]};
}

int BlockGrid::ownerOf(int x, int y) const {
    const auto i = std::upper_bound(xs.begin() + 1, xs.end(), x) - (xs.begin() + 1);
    const auto j = std::upper_bound(ys.begin() + 1, ys.end(), y) - (ys.begin() + 1);
    return int(j) * cols + int(i);
}

Rect BlockGrid::local(int rank) const {
    Rect r = owned(rank);
    const int left = neighbour(rank, -1, 0) >= 0 ? halo_x : 0, right = neighbour(rank, 1, 0) >= 0 ? halo_x : 0;
    const int top = neighbour(rank, 0, -1) >= 0 ? halo_y : 0, bottom = neighbour(rank, 0, 1) >= 0 ? halo_y : 0;
    return {r.x - left, r.y - top, r.w + left + right, r.h + top + bottom};
}

int BlockGrid::neighbour(int rank, int dx, int dy) const {
    const int i = rank % cols + dx, j = rank / cols + dy;
    return i < 0 || j < 0 || i >= cols || j >= rows ? -1 : j * cols + i;
}

std::vector<float> scatterRects(Transport& transport, const std::vector<float>& whole, int width, int channels,
                                const std::vector<Rect>& rects, size_t message_floats) {
    const size_t kMessage = std::max<size_t>(message_floats, 1);
    auto cut = [&](const Rect& r) {
        std::vector<float> part(r.cells() * size_t(channels));
        const size_t row = size_t(r.w) * size_t(channels);
        for (int y = 0; y < r.h; ++y)
            std::copy_n(whole.begin() +
                            std::ptrdiff_t((size_t(r.y + y) * size_t(width) + size_t(r.x)) * size_t(channels)),
                        row, part.begin() + std::ptrdiff_t(size_t(y) * row));
        return part;
    };
    const int me = transport.rank();
    if (me == 0) {
        for (int r = 1; r < transport.size(); ++r) {
            const std::vector<float> part = cut(rects[size_t(r)]);
            for (size_t at = 0; at < part.size(); at += kMessage)
                transport.swap(part.data() + at, std::min(kMessage, part.size() - at) * sizeof(float), r, nullptr, 0,
                               -1);
        }
        return cut(rects[0]);
    }
    std::vector<float> mine(rects[size_t(me)].cells() * size_t(channels));
    for (size_t at = 0; at < mine.size(); at += kMessage)
        transport.swap(nullptr, 0, -1, mine.data() + at, std::min(kMessage, mine.size() - at) * sizeof(float), 0);
    return mine;
}

std::vector<double> everyValue(Transport& transport, double value) {
    std::vector<double> all(static_cast<size_t>(transport.size()), value);
    transport.allGather(&value, all.data(), std::vector<size_t>(all.size(), sizeof(double)));
    return all;
}

int stepReach(const SimParams& p) {
    // Each pass that reads neighbours adds its reach: the pipe step's flux and velocity (1 each),
    // erosion and transport (the semi-Lagrangian footprint: 2), thermal gather (1), lava (2
    // passes), snow (2), vegetation (1); the talus and grid models' transfer and gather: 12 in all
    // (a 4-cell band gave the same bits over 40 default pipe steps). Groundwater adds its head and
    // flow per sub-step.
    int reach = 12;
    if (p.enable_groundwater != 0) reach += 2 * std::max(evenGroundwaterSubsteps(p.groundwater_substeps), 2);
    if (p.enable_sea != 0 && p.model == MODEL_PIPE) reach += SEA_ROUNDS_PER_STEP; // a cell a round
    return reach;
}

namespace {

// `n` cells in `parts` spans whose edges sit on multiples of `tile`, as even as the tiles allow.
std::vector<int> spans(int n, int parts, int tile) {
    const int tiles = int(groupsCovering(n, tile));
    std::vector<int> edges(size_t(parts) + 1, 0);
    for (int k = 1; k < parts; ++k) edges[size_t(k)] = int((long long)tiles * k / parts) * tile;
    edges[size_t(parts)] = n;
    return edges;
}

int roundUp(int v, int m) { return (v + m - 1) / m * m; }

} // namespace

BlockGrid splitGrid(int width, int height, int ranks, WorkgroupShape shape, int reach) {
    BlockGrid base;
    base.width = width;
    base.height = height;
    base.shape = shape;
    base.halo_x = roundUp(std::max(reach, 1), shape.x);
    base.halo_y = roundUp(std::max(reach, 1), shape.y);
    // Of the ways to lay `ranks` blocks out, the one with the fewest band cells (the band's width
    // differs across and down: the tiles are not square on every device).
    BlockGrid best;
    size_t best_band = 0;
    std::string tried; // each layout that did not fit, and a block it would have left too small
    for (int cols = 1; cols <= ranks; ++cols) {
        if (ranks % cols != 0) continue;
        BlockGrid g = base;
        g.cols = cols;
        g.rows = ranks / cols;
        g.xs = spans(width, g.cols, shape.x);
        g.ys = spans(height, g.rows, shape.y);
        size_t band = 0;
        bool fits = true;
        for (int r = 0; r < g.count() && fits; ++r) {
            const Rect o = g.owned(r);
            const int need_w = g.cols > 1 ? g.halo_x : 1, need_h = g.rows > 1 ? g.halo_y : 1;
            if (o.w < need_w || o.h < need_h) {
                fits = false;
                tried += std::string(tried.empty() ? "" : ", ") + std::to_string(g.cols) + "x" +
                         std::to_string(g.rows) + " leaves one of " + std::to_string(o.w) + " x " + std::to_string(o.h);
            }
            band += g.local(r).cells() - o.cells();
        }
        if (fits && (best.xs.empty() || band < best_band)) {
            best = g;
            best_band = band;
        }
    }
    if (best.xs.empty())
        throw SplitError("a " + std::to_string(width) + "x" + std::to_string(height) + " grid does not split into " +
                         std::to_string(ranks) + " blocks: a block needs at least " + std::to_string(base.halo_x) +
                         " columns beside another and " + std::to_string(base.halo_y) +
                         " rows above another (its ghost bands, on tiles of " + std::to_string(shape.x) + " x " +
                         std::to_string(shape.y) + " cells), and " + tried + ": use fewer processes");
    return best;
}

std::vector<double> foldOnHost(const std::vector<double>& level0, uint32_t groups) {
    std::vector<double> level = level0;
    uint32_t count_in = groups;
    while (count_in > 1) {
        const uint32_t count_out = (count_in + REDUCE_SIZE - 1) / REDUCE_SIZE;
        std::vector<double> next(size_t(count_out) * REDUCE_SLOTS, 0.0);
        for (int slot = 0; slot < REDUCE_SLOTS; ++slot) {
            const bool is_max = slotIsMax(slot);
            for (uint32_t b = 0; b < count_out; ++b) {
                // A block of REDUCE_SIZE: 16 chunks of 16, the chunks in turn.
                const double* in = level.data() + size_t(slot) * count_in;
                auto partial = [&](uint32_t k) { return in[k]; };
                auto chunk = [&](uint32_t i) { return fold_detail::sixteen(i * 16, count_in, is_max, partial); };
                next[size_t(slot) * count_out + b] = fold_detail::sixteen(b * 16, b * 16 + 16, is_max, chunk);
            }
        }
        level = std::move(next);
        count_in = count_out;
    }
    return level;
}

double gridTotalOnHost(const double* sums, uint32_t groups, uint32_t per_group) {
    double lanes[REDUCE_SIZE];
    for (uint32_t i = 0; i < REDUCE_SIZE; ++i) {
        double acc = 0.0;
        for (uint32_t g = i; g < groups; g += REDUCE_SIZE) {
            double group_sum = 0.0;
            for (uint32_t s = 0; s < per_group; ++s) group_sum += sums[size_t(g) * per_group + s];
            acc += group_sum;
        }
        lanes[i] = acc;
    }
    for (uint32_t stride = REDUCE_SIZE / 2; stride > 0; stride >>= 1)
        for (uint32_t i = 0; i < stride; ++i) lanes[i] += lanes[i + stride];
    return lanes[0];
}

// [SECTION] the fold's messages

static_assert(REDUCE_SIZE == 16 * 16, "a fold block is 16 runs of 16 partials (reduce_partials.comp)");

FoldPlan planFold(const BlockGrid& grid) {
    FoldPlan plan;
    const int sx = grid.shape.x, sy = grid.shape.y;
    const uint32_t across = groupsCovering(grid.width, sx);
    plan.groups = across * groupsCovering(grid.height, sy);
    plan.runs = (plan.groups + 15) / 16;
    plan.chunks = (plan.groups + REDUCE_SIZE - 1) / REDUCE_SIZE;
    std::vector<int> owner(plan.groups, -1);
    for (int r = 0; r < grid.count(); ++r) {
        const Rect o = grid.owned(r);
        for (int gy = o.y / sy; gy * sy < o.y + o.h; ++gy)
            for (int gx = o.x / sx; gx * sx < o.x + o.w; ++gx) owner[size_t(gy) * across + size_t(gx)] = r;
    }
    // A run's or a block's owner: the one rank owning all its workgroups, else -1.
    std::vector<int> run_owner(plan.runs);
    for (uint32_t r = 0; r < plan.runs; ++r) {
        const uint32_t first = r * 16, last = std::min(plan.groups, first + 16);
        run_owner[r] = owner[first];
        for (uint32_t g = first; g < last; ++g)
            if (owner[g] != run_owner[r]) run_owner[r] = -1;
    }
    plan.items.assign(size_t(grid.count()), {});
    for (uint32_t c = 0; c < plan.chunks; ++c) {
        const uint32_t first = c * 16, last = std::min(plan.runs, first + 16);
        int chunk_owner = run_owner[first];
        for (uint32_t r = first; r < last; ++r)
            if (run_owner[r] != chunk_owner) chunk_owner = -1;
        if (chunk_owner >= 0) {
            plan.items[size_t(chunk_owner)].push_back({FoldPlan::kChunk, c});
            continue;
        }
        for (uint32_t r = first; r < last; ++r) {
            if (run_owner[r] >= 0) {
                plan.items[size_t(run_owner[r])].push_back({FoldPlan::kRun, r});
                continue;
            }
            for (uint32_t g = r * 16; g < std::min(plan.groups, r * 16 + 16); ++g)
                plan.items[size_t(owner[g])].push_back({FoldPlan::kGroup, g});
        }
    }
    return plan;
}

std::vector<double> foldFromMessages(const FoldPlan& plan, const std::vector<const double*>& messages, bool is_max) {
    // What the messages hold, in place: whole blocks' and runs' sums, and loose partials.
    std::vector<double> chunk(plan.chunks, 0.0), run(plan.runs, 0.0), group(plan.groups, 0.0);
    std::vector<uint8_t> chunk_given(plan.chunks, 0), run_given(plan.runs, 0);
    for (size_t r = 0; r < plan.items.size(); ++r) {
        const double* m = messages[r];
        for (const FoldPlan::Item& item : plan.items[r]) {
            const double v = *m++;
            if (item.kind == FoldPlan::kChunk) {
                chunk[item.index] = v;
                chunk_given[item.index] = 1;
            } else if (item.kind == FoldPlan::kRun) {
                run[item.index] = v;
                run_given[item.index] = 1;
            } else {
                group[item.index] = v;
            }
        }
    }
    using fold_detail::sixteen;
    for (uint32_t r = 0; r < plan.runs; ++r)
        if (!run_given[r] && !chunk_given[r / 16])
            run[r] = sixteen(r * 16, plan.groups, is_max, [&](uint32_t g) { return group[g]; });
    for (uint32_t c = 0; c < plan.chunks; ++c)
        if (!chunk_given[c]) chunk[c] = sixteen(c * 16, plan.runs, is_max, [&](uint32_t r) { return run[r]; });
    return chunk;
}

} // namespace alluvium::gpu
