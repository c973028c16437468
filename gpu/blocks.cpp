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

int stepReach(const SimParams& p) {
    // Each pass that reads neighbours adds its reach: the pipe step's flux, velocity, erosion and
    // transport (the semi-Lagrangian footprint: up to 2 cells), thermal gather, lava (2 passes),
    // snow (2), vegetation; the talus and grid models' transfer and gather. Groundwater adds its
    // head and flow per sub-step. A margin of 2 for what a pass reads diagonally.
    int reach = 12;
    if (p.enable_groundwater != 0) reach += 2 * std::max(p.groundwater_substeps, 2);
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
    std::string smallest; // why the last layout tried did not fit
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
                smallest = std::to_string(g.cols) + "x" + std::to_string(g.rows) + " leaves a block of " +
                           std::to_string(o.w) + "x" + std::to_string(o.h) + " cells, under the " +
                           std::to_string(need_w) + "x" + std::to_string(need_h) + " its bands need";
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
                         std::to_string(ranks) + " blocks (" + smallest + "): use fewer processes");
    return best;
}

std::vector<double> foldOnHost(const std::vector<double>& level0, uint32_t groups) {
    constexpr uint32_t kChunk = 16; // reduce_partials.comp's FOLD_CHUNK
    std::vector<double> level = level0;
    uint32_t count_in = groups;
    while (count_in > 1) {
        const uint32_t count_out = (count_in + REDUCE_SIZE - 1) / REDUCE_SIZE;
        std::vector<double> next(size_t(count_out) * REDUCE_SLOTS, 0.0);
        for (int slot = 0; slot < REDUCE_SLOTS; ++slot) {
            const bool is_max = slotIsMax(slot);
            for (uint32_t b = 0; b < count_out; ++b) {
                const size_t first = size_t(slot) * count_in + size_t(b) * REDUCE_SIZE;
                const uint32_t count = std::min<uint32_t>(REDUCE_SIZE, count_in - b * REDUCE_SIZE);
                double acc = 0.0;
                for (uint32_t i = 0; i < REDUCE_SIZE / kChunk; ++i) {
                    double chunk = 0.0;
                    for (uint32_t j = 0; j < kChunk; ++j) {
                        const uint32_t k = i * kChunk + j;
                        const double v = k < count ? level[first + k] : 0.0;
                        chunk = is_max ? std::max(chunk, v) : chunk + v;
                    }
                    acc = is_max ? std::max(acc, chunk) : acc + chunk;
                }
                next[size_t(slot) * count_out + b] = acc;
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

} // namespace alluvium::gpu
