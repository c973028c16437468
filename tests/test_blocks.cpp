// The blocks of a grid split over processes (gpu/blocks.h): every cell owned once (and found by
// ownerOf), block edges on the whole grid's workgroup tiles, bands only towards neighbours, the
// layout with the fewest band cells, refusals; the host's fold in the GPU fold's order. The split
// runs themselves, bit for bit against one process, are tests/mpi_test.sh's (under mpirun).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "blocks.h"
#include "thread_transport.h"

using namespace alluvium::gpu;
using alluvium::test::onProcesses;

namespace {

void expectPartition(const BlockGrid& g) {
    std::vector<int> owners(size_t(g.width) * size_t(g.height), 0);
    for (int r = 0; r < g.count(); ++r) {
        const Rect o = g.owned(r), l = g.local(r);
        EXPECT_EQ(o.x % g.shape.x, 0) << "rank " << r;
        EXPECT_EQ(o.y % g.shape.y, 0) << "rank " << r;
        EXPECT_EQ(l.x % g.shape.x, 0) << "rank " << r; // the block's tiles are the whole grid's
        EXPECT_EQ(l.y % g.shape.y, 0) << "rank " << r;
        EXPECT_EQ(o.x - l.x, g.neighbour(r, -1, 0) >= 0 ? g.halo_x : 0);
        EXPECT_EQ(l.x + l.w - o.x - o.w, g.neighbour(r, 1, 0) >= 0 ? g.halo_x : 0);
        EXPECT_EQ(o.y - l.y, g.neighbour(r, 0, -1) >= 0 ? g.halo_y : 0);
        EXPECT_EQ(l.y + l.h - o.y - o.h, g.neighbour(r, 0, 1) >= 0 ? g.halo_y : 0);
        EXPECT_GE(l.x, 0);
        EXPECT_LE(l.x + l.w, g.width);
        for (int y = o.y; y < o.y + o.h; ++y)
            for (int x = o.x; x < o.x + o.w; ++x) {
                ++owners[size_t(y) * size_t(g.width) + size_t(x)];
                ASSERT_EQ(g.ownerOf(x, y), r) << x << ", " << y; // where a droplet is handed
            }
    }
    for (int n : owners) ASSERT_EQ(n, 1);
}

} // namespace

TEST(BlocksTest, EveryProcessReceivesItsRectAndRankZeroTheWholeBack) {
    // The blocks with their bands out of rank 0's whole field, in messages far smaller than a
    // rect (7 floats: many per rect, and a last one short); their owned cells back to rank 0.
    std::mt19937 rng(31);
    for (int ranks : {2, 3, 4, 6}) {
        const BlockGrid g = splitGrid(101, 67, ranks, {4, 4}, 3);
        const int channels = ranks % 2 == 0 ? 4 : 1;
        std::vector<float> whole(size_t(g.width) * size_t(g.height) * size_t(channels));
        for (float& v : whole) v = std::uniform_real_distribution<float>(-5.0f, 5.0f)(rng);
        std::vector<Rect> local, owned;
        for (int r = 0; r < ranks; ++r) {
            local.push_back(g.local(r));
            owned.push_back(g.owned(r));
        }
        onProcesses(ranks, [&](Transport& t) {
            const Rect l = local[size_t(t.rank())], o = owned[size_t(t.rank())];
            const std::vector<float> mine =
                scatterRects(t, t.rank() == 0 ? whole : std::vector<float>(), g.width, channels, local, 7);
            ASSERT_EQ(mine.size(), l.cells() * size_t(channels));
            std::vector<float> block; // the owned part of what arrived
            for (int y = 0; y < l.h; ++y)
                for (int x = 0; x < l.w; ++x)
                    for (int c = 0; c < channels; ++c) {
                        const size_t k = (size_t(y) * size_t(l.w) + size_t(x)) * size_t(channels) + size_t(c);
                        const size_t w =
                            (size_t(l.y + y) * size_t(g.width) + size_t(l.x + x)) * size_t(channels) + size_t(c);
                        ASSERT_EQ(mine[k], whole[w]) << "rank " << t.rank() << " cell " << x << ", " << y;
                        if (l.x + x >= o.x && l.x + x < o.x + o.w && l.y + y >= o.y && l.y + y < o.y + o.h)
                            block.push_back(mine[k]);
                    }
            const std::vector<float> back = gatherRects(t, block, g.width, g.height, channels, owned);
            if (t.rank() == 0) {
                EXPECT_EQ(back, whole);
            } else {
                EXPECT_TRUE(back.empty());
            }
        });
    }
}

TEST(BlocksTest, EveryCellIsOwnedOnceAndBlockEdgesSitOnTheTiles) {
    for (const WorkgroupShape shape : {WorkgroupShape{16, 16}, WorkgroupShape{32, 8}, WorkgroupShape{64, 4}})
        for (int ranks : {1, 2, 3, 4, 6}) {
            const BlockGrid g = splitGrid(211, 197, ranks, shape, 12);
            EXPECT_EQ(g.count(), ranks);
            EXPECT_EQ(g.halo_x % shape.x, 0);
            EXPECT_GE(g.halo_x, 12);
            EXPECT_GE(g.halo_y, 12);
            expectPartition(g);
        }
}

TEST(BlocksTest, TheLayoutHasTheFewestBandCells) {
    // Square tiles on a square grid: 2 x 2 beats 1 x 4 (4 bands of 16 across 96 against 3 of 16
    // across 192 each way).
    const BlockGrid square = splitGrid(192, 192, 4, {16, 16}, 12);
    EXPECT_EQ(square.cols, 2);
    EXPECT_EQ(square.rows, 2);
    // Wide tiles (64 x 4, CPU drivers): bands 64 cells wide across cost more than 12 rows down.
    const BlockGrid wide = splitGrid(192, 192, 4, {64, 4}, 12);
    EXPECT_EQ(wide.cols, 1);
    EXPECT_EQ(wide.rows, 4);
    EXPECT_EQ(wide.halo_y, 12);
}

TEST(BlocksTest, AGridTooSmallForItsProcessesIsRefused) {
    EXPECT_THROW(splitGrid(30, 20, 6, {16, 16}, 12), SplitError);
    EXPECT_NO_THROW(splitGrid(30, 40, 2, {16, 16}, 12)); // 1 x 2: two blocks of 16 and 24 rows
}

TEST(BlocksTest, AStepReachesFurtherWithEachGroundwaterSubstep) {
    SimParams p{};
    const int dry = stepReach(p);
    p.enable_groundwater = 1;
    p.groundwater_substeps = 8;
    EXPECT_EQ(stepReach(p), dry + 16);
}

TEST(BlocksTest, TheHostFoldsInTheGpuFoldsOrder) {
    // reduce_partials.comp: 256 partials a block, each block in chunks of 16 added in order, then
    // the chunks in order; 0.1 + 0.2 + 0.3 in another order gives other bits.
    const uint32_t groups = 300;
    std::vector<double> level0(size_t(REDUCE_SLOTS) * groups);
    for (size_t i = 0; i < level0.size(); ++i) level0[i] = 0.1 * double(i % 7) + 1e-3 * double(i % 13);
    const std::vector<double> folded = foldOnHost(level0, groups);
    ASSERT_EQ(folded.size(), size_t(REDUCE_SLOTS));
    for (int slot = 0; slot < REDUCE_SLOTS; ++slot) {
        const double* v = level0.data() + size_t(slot) * groups;
        double blocks[2] = {0.0, 0.0};
        for (uint32_t b = 0; b < 2; ++b)
            for (uint32_t c = 0; c < 16; ++c) {
                double chunk = 0.0;
                for (uint32_t j = 0; j < 16; ++j) {
                    const uint32_t k = b * 256 + c * 16 + j;
                    const double x = k < groups ? v[k] : 0.0;
                    chunk = slotIsMax(slot) ? std::max(chunk, x) : chunk + x;
                }
                blocks[b] = slotIsMax(slot) ? std::max(blocks[b], chunk) : blocks[b] + chunk;
            }
        // The second level: two partials, in one block.
        double second = 0.0;
        for (double b : blocks) second = slotIsMax(slot) ? std::max(second, b) : second + b;
        EXPECT_EQ(folded[size_t(slot)], second) << "slot " << slot;
    }
}

// The gathered fold: each block's message (its fold blocks', runs' and loose partials' values)
// gives the first level the one device folds, to the bit, for layouts whose runs and fold blocks
// lie in one block or straddle several.
TEST(BlocksTest, TheBlocksMessagesFoldAsTheWholeGrid) {
    std::mt19937 rng(5);
    std::uniform_real_distribution<double> value(-1.0, 1.0);
    for (const WorkgroupShape shape : {WorkgroupShape{16, 16}, WorkgroupShape{64, 4}, WorkgroupShape{32, 8}})
        for (int ranks : {2, 3, 4, 6}) {
            const BlockGrid g = splitGrid(4099, 1213, ranks, shape, 12);
            const FoldPlan plan = planFold(g);
            std::vector<double> level0(plan.groups);
            for (double& v : level0) v = value(rng) * std::pow(10.0, double(rng() % 12)); // magnitudes that round
            size_t items = 0;
            for (const bool is_max : {false, true}) {
                std::vector<std::vector<double>> messages;
                for (int r = 0; r < ranks; ++r)
                    messages.push_back(foldMessage(plan, r, is_max, [&](uint32_t i) { return level0[i]; }));
                std::vector<const double*> at;
                for (const auto& m : messages) at.push_back(m.data());
                const std::vector<double> level1 = foldFromMessages(plan, at, is_max);
                // Slot 0 sums, SLOT_MAX_SPEED takes the max: the one device's fold of the same.
                const int slot = is_max ? SLOT_MAX_SPEED : 0;
                std::vector<double> whole0(size_t(REDUCE_SLOTS) * plan.groups, 0.0),
                    whole1(size_t(REDUCE_SLOTS) * plan.chunks, 0.0);
                std::copy(level0.begin(), level0.end(), whole0.begin() + std::ptrdiff_t(size_t(slot) * plan.groups));
                std::copy(level1.begin(), level1.end(), whole1.begin() + std::ptrdiff_t(size_t(slot) * plan.chunks));
                EXPECT_EQ(foldOnHost(whole1, plan.chunks)[size_t(slot)], foldOnHost(whole0, plan.groups)[size_t(slot)])
                    << ranks << " blocks of " << shape.x << "x" << shape.y << (is_max ? ", max" : ", sum");
                items = 0;
                for (const auto& m : messages) items += m.size();
            }
            EXPECT_LT(items, size_t(plan.groups) / 2) << "the messages carry sums, not every partial";
        }
    // Rows of whole runs and blocks edges on them (grids of 2^n cells): a run's sum, not 16 partials.
    const BlockGrid aligned = splitGrid(8192, 4096, 8, {32, 8}, 12);
    const FoldPlan plan = planFold(aligned);
    size_t items = 0;
    for (const auto& list : plan.items) items += list.size();
    EXPECT_LE(items, size_t(plan.runs));
}
