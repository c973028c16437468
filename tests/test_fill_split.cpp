// The split lake fill's spill graph (gpu/fill_split.h): on the host, with the reference's priority
// flood as each block's fill, on random grids of odd sizes, with flats and ties, every outlet mask
// and many block layouts, the blocks' W = max(W_local, L(watershed)) equals the whole grid's
// priority flood to the bit; and with the GPU's fill and receivers for each block, in one process,
// equal to the GPU's fill of the whole grid (on any device the test programs run on). The split
// runs under mpirun are tests/mpi_test.sh's.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "drainage_split.h"
#include "fill_split.h"
#include "fluvial.h"
#include "fluvial_fixture.h"
#include "models/fluvial.h"
#include "thread_transport.h"

using namespace alluvium;
using gpu::BlockGrid;
using gpu::FillBlock;
using gpu::Rect;

namespace {

std::vector<float> slice(const std::vector<float>& z, int width, const Rect& r) {
    std::vector<float> out;
    for (int y = r.y; y < r.y + r.h; ++y)
        for (int x = r.x; x < r.x + r.w; ++x) out.push_back(z[size_t(y) * size_t(width) + size_t(x)]);
    return out;
}

// A block's fill with every side draining: W_local (ordered bits) and the receivers (cell indices).
struct BlockFill {
    std::vector<uint32_t> level, receivers;
};
using BlockFiller = std::function<BlockFill(const std::vector<float>& z, int w, int h)>;

BlockFill referenceBlockFill(const std::vector<float>& z, int w, int h) {
    const ref::FluvialGrid local{w, h}; // every side drains
    const ref::Fill fill = ref::fillPriorityFlood(local, z);
    BlockFill out;
    for (float l : fill.level) out.level.push_back(gpu::orderedFloatBits(l));
    out.receivers = ref::receivers(local, fill);
    return out;
}

// What fillSplit does on each process and rank 0, each block filled by `fill_block`.
std::vector<uint32_t> splitFillOnHost(const std::vector<float>& z, const BlockGrid& grid, int outlets,
                                      const BlockFiller& fill_block = referenceBlockFill) {
    std::vector<gpu::SpillEdge> edges;
    std::vector<std::vector<uint32_t>> levels(size_t(grid.count())), roots(size_t(grid.count()));
    for (int r = 0; r < grid.count(); ++r) {
        const FillBlock block = gpu::fillBlock(grid, r);
        const BlockFill fill = fill_block(slice(z, grid.width, block.owned), block.owned.w, block.owned.h);
        levels[size_t(r)] = fill.level;
        roots[size_t(r)] = gpu::watershedRoots(fill.receivers);
        for (uint32_t root : roots[size_t(r)]) { // every watershed ends on the block's edge
            const int x = int(root % uint32_t(block.owned.w)), y = int(root / uint32_t(block.owned.w));
            EXPECT_TRUE(x == 0 || y == 0 || x == block.owned.w - 1 || y == block.owned.h - 1) << x << ", " << y;
        }
        const std::vector<gpu::SpillEdge> mine = gpu::blockSpillEdges(
            grid, block, outlets, levels[size_t(r)], roots[size_t(r)], slice(z, grid.width, block.ring));
        edges.insert(edges.end(), mine.begin(), mine.end());
    }
    const auto solved = gpu::solveSpillGraph(edges);
    std::vector<uint32_t> w(z.size(), 0);
    for (int r = 0; r < grid.count(); ++r) {
        const Rect o = grid.owned(r);
        std::vector<uint32_t> edge_level;
        for (uint64_t cell : gpu::edgeCells(o, grid.width)) {
            const auto it = solved.find(cell);
            edge_level.push_back(it == solved.end() ? FLUVIAL_NONE : it->second);
        }
        const std::vector<uint32_t> block_w =
            gpu::combineLevels(o, grid.width, levels[size_t(r)], roots[size_t(r)], edge_level);
        for (int y = 0; y < o.h; ++y)
            for (int x = 0; x < o.w; ++x)
                w[size_t(o.y + y) * size_t(grid.width) + size_t(o.x + x)] =
                    block_w[size_t(y) * size_t(o.w) + size_t(x)];
    }
    return w;
}

// Terrain with pits, flats and ties: rough noise on a slope, quantised, with plateaus.
std::vector<float> randomTerrain(int w, int h, std::mt19937& rng) {
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    const float slope_x = u(rng) - 0.5f, slope_y = u(rng) - 0.5f, step = u(rng) < 0.5f ? 0.25f : 0.0f;
    std::vector<float> z(size_t(w) * size_t(h));
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            float v = 10.0f + slope_x * float(x) + slope_y * float(y) + 6.0f * u(rng);
            if (step > 0.0f) v = std::floor(v / step) * step; // flats and equal heights
            if (u(rng) < 0.02f) v = -0.0f;                    // -0 and +0 are one level
            z[size_t(y) * size_t(w) + size_t(x)] = v;
        }
    return z;
}

} // namespace

TEST(FillSplit, EqualsTheWholeGridsPriorityFlood) {
    std::mt19937 rng(2016);
    const gpu::WorkgroupShape shapes[] = {{1, 1}, {2, 3}, {4, 4}};
    int layouts = 0;
    for (int trial = 0; trial < 120; ++trial) {
        std::uniform_int_distribution<int> size(5, 61), ranks(2, 9), outlet(0, 15), pick(0, 2);
        const int w = size(rng) | 1, h = size(rng) | 1, outlets = trial % 16 == 0 ? 0 : outlet(rng);
        const std::vector<float> z = randomTerrain(w, h, rng);
        ref::FluvialGrid whole{w, h, outlets};
        const ref::Fill expected = ref::fillPriorityFlood(whole, z);
        BlockGrid grid;
        try {
            grid = gpu::splitGrid(w, h, ranks(rng), shapes[pick(rng)], 1);
        } catch (const gpu::SplitError&) {
            continue; // too small for those blocks
        }
        ++layouts;
        const std::vector<uint32_t> got = splitFillOnHost(z, grid, outlets);
        for (size_t i = 0; i < z.size(); ++i) {
            const bool unreached = expected.steps[i] == FLUVIAL_NONE;
            const uint32_t want = unreached ? FLUVIAL_NONE : gpu::orderedFloatBits(expected.level[i]);
            ASSERT_EQ(got[i], want) << "trial " << trial << ": " << w << "x" << h << " in " << grid.cols << "x"
                                    << grid.rows << " blocks, outlets " << outlets << ", cell " << i % size_t(w) << ", "
                                    << i / size_t(w);
        }
    }
    EXPECT_GT(layouts, 80);
}

TEST(FillSplit, WatershedRootsFollowTheReceivers) {
    // 0 <- 1 <- 2, 3 its own root, 4 -> 3, 5 -> 2 (a chain found from its middle first).
    const std::vector<uint32_t> rcv = {0, 0, 1, 3, 3, 2};
    EXPECT_EQ(gpu::watershedRoots(rcv), (std::vector<uint32_t>{0, 0, 0, 3, 3, 0}));
}

TEST(FillSplit, TheOceanReachesNothingWithoutOutlets) {
    // Two blocks, every side closed: no node has a level, so every cell is unreached.
    std::mt19937 rng(5);
    const std::vector<float> z = randomTerrain(32, 9, rng);
    const BlockGrid grid = gpu::splitGrid(32, 9, 2, {16, 16}, 1);
    for (uint32_t v : splitFillOnHost(z, grid, 0)) ASSERT_EQ(v, FLUVIAL_NONE);
}

namespace { // with its fixture, which lives in an anonymous namespace
class FillSplitGpu : public test::Fluvial {};

TEST_F(FillSplitGpu, BlocksFilledOnTheDeviceEqualTheWholeGridsFill) {
    // Each block filled and routed by the GPU as the split processes do it, the graph solved on
    // the host: the whole grid's GPU fill to the bit, on pitted ground (lakes across the blocks).
    const BlockFiller on_device = [&](const std::vector<float>& z, int w, int h) {
        gpu::SimParams p = params(w, h, 0);
        p.fluvial_outlets = OUTLET_LEFT | OUTLET_RIGHT | OUTLET_TOP | OUTLET_BOTTOM;
        auto sim = make(z, w, h, p);
        sim->fluvialAnalyse(false);
        return BlockFill{sim->fluvial().levels(), sim->fluvial().receivers()};
    };
    struct Case {
        int w, h, ranks, outlets; // outlets: the parameter's choice (0 all, 4 bottom, 5 left_right)
        uint32_t seed;
    };
    for (const Case c :
         {Case{97, 61, 2, 0, 1}, Case{131, 77, 6, 4, 2}, Case{75, 83, 4, 5, 3}, Case{211, 45, 3, 0, 4}}) {
        const std::vector<float> z = test::pittedTerrain(c.w, c.h, c.seed);
        auto whole = make(z, c.w, c.h, params(c.w, c.h, c.outlets));
        whole->fluvialAnalyse();
        const std::vector<uint32_t> expected = whole->fluvial().levels();
        const BlockGrid grid = gpu::splitGrid(c.w, c.h, c.ranks, {FLUVIAL_TILE, FLUVIAL_TILE}, 1);
        const std::vector<uint32_t> got =
            splitFillOnHost(z, grid, params(c.w, c.h, c.outlets).fluvial_outlets, on_device);
        size_t differ = 0;
        for (size_t i = 0; i < z.size(); ++i) differ += got[i] != expected[i] ? 1 : 0;
        EXPECT_EQ(differ, 0u) << c.w << "x" << c.h << " in " << grid.cols << "x" << grid.rows << " blocks";
        size_t filled = 0;
        for (size_t i = 0; i < z.size(); ++i) filled += gpu::fromOrderedFloatBits(expected[i]) > z[i] ? 1 : 0;
        EXPECT_GT(filled, z.size() / 50) << "the ground should hold lakes"; // the test would be idle without
    }
}

} // namespace

// [SECTION] the routing and drainage of the split grid (gpu/drainage_split.h)

namespace {

struct Drainage {
    std::vector<uint32_t> steps, receivers; // receivers as whole-grid cells (a root its own)
    std::vector<uint64_t> accumulation;
    std::vector<float> lake, area;
    int flat_rounds = 0;
};

// drainageSplit on a thread a block, from the whole grid's W (ordered bits), heights and rain,
// put back together.
Drainage splitDrainageOnThreads(const BlockGrid& grid, const gpu::DrainageInputs& in, const std::vector<uint32_t>& w,
                                const std::vector<float>& z, const std::vector<float>& rain) {
    const size_t n = z.size();
    Drainage out{std::vector<uint32_t>(n), std::vector<uint32_t>(n), std::vector<uint64_t>(n), std::vector<float>(n),
                 std::vector<float>(n)};
    std::vector<int> rounds(size_t(grid.count()));
    test::onProcesses(grid.count(), [&](gpu::Transport& t) {
        const FillBlock block = gpu::fillBlock(grid, t.rank());
        const Rect& o = block.owned;
        std::vector<uint32_t> level;
        for (int y = o.y; y < o.y + o.h; ++y)
            for (int x = o.x; x < o.x + o.w; ++x) level.push_back(w[size_t(y) * size_t(grid.width) + size_t(x)]);
        const gpu::SplitDrainage d = gpu::drainageSplit(t, grid, block, in, level, slice(z, grid.width, block.ring),
                                                        rain.empty() ? rain : slice(rain, grid.width, o));
        rounds[size_t(t.rank())] = d.flat_rounds;
        for (int y = 0; y < o.h; ++y)
            for (int x = 0; x < o.w; ++x) {
                const size_t i = size_t(y) * size_t(o.w) + size_t(x);
                const size_t g = size_t(o.y + y) * size_t(grid.width) + size_t(o.x + x);
                const uint32_t code = d.receivers[i];
                out.steps[g] = d.steps[i];
                out.receivers[g] =
                    code == RCV_SELF
                        ? uint32_t(g)
                        : uint32_t(int(g) + gpu::kNeighbourDy[code] * grid.width + gpu::kNeighbourDx[code]);
                out.accumulation[g] = d.accumulation[i];
                out.lake[g] = d.lake[i];
                out.area[g] = d.area[i];
            }
    });
    for (int r : rounds) EXPECT_EQ(r, rounds[0]) << "every process takes the same flats rounds";
    out.flat_rounds = rounds[0];
    return out;
}

std::vector<float> randomRain(size_t n, std::mt19937& rng) {
    std::uniform_real_distribution<float> u(-0.2f, 1.2f); // clamped to 0 .. 1 as the shaders do
    std::vector<float> rain(n);
    for (float& r : rain) r = u(rng);
    return rain;
}

// Bits, not values: -0 and NaN would slip past ==.
template <class T> size_t differing(const std::vector<T>& a, const std::vector<T>& b) {
    size_t count = 0;
    for (size_t i = 0; i < a.size() && i < b.size(); ++i) count += std::memcmp(&a[i], &b[i], sizeof(T)) != 0 ? 1 : 0;
    return count + (a.size() > b.size() ? a.size() - b.size() : b.size() - a.size());
}

} // namespace

TEST(DrainageSplit, EqualsTheWholeGridsReferenceRoutingAndAccumulation) {
    // The reference's fill of the whole grid as W; every block's steps, receivers, accumulation
    // and lake depths equal the reference's on the whole grid, whatever the layout.
    std::mt19937 rng(2017);
    const gpu::WorkgroupShape shapes[] = {{1, 1}, {2, 3}, {4, 4}};
    int layouts = 0, crossing = 0;
    for (int trial = 0; trial < 80; ++trial) {
        std::uniform_int_distribution<int> size(5, 61), ranks(2, 9), outlet(0, 15), pick(0, 2);
        const int w = size(rng) | 1, h = size(rng) | 1, outlets = trial % 16 == 0 ? 0 : outlet(rng);
        const std::vector<float> z = randomTerrain(w, h, rng);
        const std::vector<float> rain = trial % 3 == 0 ? std::vector<float>() : randomRain(z.size(), rng);
        const ref::FluvialGrid whole{w, h, outlets};
        const ref::Fill fill = ref::fillPriorityFlood(whole, z);
        BlockGrid grid;
        try {
            grid = gpu::splitGrid(w, h, ranks(rng), shapes[pick(rng)], 1);
        } catch (const gpu::SplitError&) {
            continue;
        }
        ++layouts;
        std::vector<uint32_t> level(z.size());
        for (size_t i = 0; i < z.size(); ++i)
            level[i] = fill.steps[i] == FLUVIAL_NONE ? FLUVIAL_NONE : gpu::orderedFloatBits(fill.level[i]);
        const gpu::DrainageInputs in{outlets, false, 0.0f, 7.0f};
        const Drainage got = splitDrainageOnThreads(grid, in, level, z, rain);
        crossing += got.flat_rounds > 2 ? 1 : 0;
        const std::vector<uint32_t> rcv = ref::receivers(whole, fill);
        const std::vector<uint64_t> acc =
            ref::accumulate(rcv, ref::rainWeights(rain.empty() ? std::vector<float>(z.size(), 1.0f) : rain));
        std::vector<float> lake(z.size(), 0.0f), area(z.size());
        for (size_t i = 0; i < z.size(); ++i) {
            if (fill.steps[i] != FLUVIAL_NONE) lake[i] = std::max(fill.level[i] - z[i], 0.0f);
            area[i] = float(acc[i]) / float(FLUVIAL_ACC_ONE) * (7.0f * 7.0f);
        }
        const std::string where = "trial " + std::to_string(trial) + ": " + std::to_string(w) + "x" +
                                  std::to_string(h) + " in " + std::to_string(grid.cols) + "x" +
                                  std::to_string(grid.rows) + " blocks, outlets " + std::to_string(outlets);
        ASSERT_EQ(differing(got.steps, fill.steps), 0u) << where;
        ASSERT_EQ(differing(got.receivers, rcv), 0u) << where;
        ASSERT_EQ(differing(got.accumulation, acc), 0u) << where;
        ASSERT_EQ(differing(got.lake, lake), 0u) << where;
        ASSERT_EQ(differing(got.area, area), 0u) << where;
    }
    EXPECT_GT(layouts, 50);
    EXPECT_GT(crossing, 5) << "flats crossing block edges (more than two rounds) should be common here";
}

namespace {
class DrainageSplitGpu : public test::Fluvial {};

TEST_F(DrainageSplitGpu, BlocksRoutedOnTheHostEqualTheDevicesRoutingAndDrainage) {
    // The whole grid filled, routed and accumulated on the device; the split routing of its W on
    // the host gives the same steps across flats, receivers, accumulation, lake depths and drainage areas to the bit
    // (the shaders' float arithmetic, the sea included).
    struct Case {
        int w, h, ranks, outlets;
        uint32_t seed;
        bool sea;
    };
    for (const Case c : {Case{97, 61, 2, 0, 1, false}, Case{131, 77, 6, 4, 2, true}, Case{75, 83, 4, 5, 3, false},
                         Case{211, 45, 3, 0, 4, true}}) {
        const std::vector<float> z = test::pittedTerrain(c.w, c.h, c.seed);
        gpu::SimParams p = params(c.w, c.h, c.outlets);
        p.enable_sea = c.sea ? 1 : 0;
        p.sea_level = c.sea ? z[z.size() / 2] : 0.0f; // some of the ground under the sea
        std::mt19937 rng(c.seed);
        const std::vector<float> rain = randomRain(z.size(), rng);
        auto whole = make(z, c.w, c.h, p);
        whole->upload(gpu::Field::RainMask, rain);
        whole->fluvialAnalyse();
        const BlockGrid grid = gpu::splitGrid(c.w, c.h, c.ranks, {FLUVIAL_TILE, FLUVIAL_TILE}, 1);
        const gpu::DrainageInputs in{p.fluvial_outlets, c.sea, p.sea_level, p.cell_size};
        const Drainage got = splitDrainageOnThreads(grid, in, whole->fluvial().levels(), z, rain);
        const std::string where = std::to_string(c.w) + "x" + std::to_string(c.h) + " in " + std::to_string(grid.cols) +
                                  "x" + std::to_string(grid.rows) + " blocks";
        std::vector<uint32_t> steps;
        for (uint64_t key : whole->fluvial().keys()) steps.push_back(uint32_t(key));
        EXPECT_EQ(differing(got.steps, steps), 0u) << where;
        EXPECT_EQ(differing(got.receivers, whole->fluvial().receivers()), 0u) << where;
        EXPECT_EQ(differing(got.accumulation, whole->fluvial().accumulation()), 0u) << where;
        EXPECT_EQ(differing(got.lake, whole->download(gpu::Field::Lake)), 0u) << where;
        EXPECT_EQ(differing(got.area, whole->download(gpu::Field::Drainage)), 0u) << where;
        size_t lakes = 0;
        for (float d : got.lake) lakes += d > 0.0f ? 1 : 0;
        EXPECT_GT(lakes, z.size() / 50) << "the ground should hold lakes";
    }
}

} // namespace
