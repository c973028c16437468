// The fluvial model (issue 5, seed 003): lake filling, routing and drainage accumulation on the
// GPU against the sequential reference (priority flood, topological accumulation), exactly;
// the implicit stream-power update against its double reference; analytic drainage areas; the
// steady state of uniform uplift against the stream-power law.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "fluvial.h"
#include "gpu_fixture.h"
#include "test_util.h"

namespace alluvium::test {
namespace {

using gpu::Field;
namespace fs = std::filesystem;
const fs::path kData = ALLUVIUM_SHARED_DATA_DIR;

std::vector<float> readF32(const fs::path& p, size_t cells) {
    const std::vector<unsigned char> bytes = readBytes(p);
    EXPECT_EQ(bytes.size(), cells * 4) << p;
    std::vector<float> v(cells);
    std::memcpy(v.data(), bytes.data(), std::min(bytes.size(), cells * 4));
    return v;
}

struct Dem {
    const char* file;
    int w, h;
};
const Dem kDems[] = {{"olinda_111x111.f32", 111, 111},
                     {"srtm_frontrange_240x144_240x144.f32", 240, 144},
                     {"west_bijou_escarpment_129x67.f32", 129, 67}};

// Rough random ground with many pits (white noise on a tilt), heights rounded to steps of
// 1/8 m so that flats and exact ties are common.
std::vector<float> pittedTerrain(int w, int h, uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    std::vector<float> z(size_t(w) * h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) z[size_t(y * w + x)] = std::round((0.05f * float(x + y) + 4.0f * u(rng)) * 8.0f) / 8.0f;
    return z;
}

class Fluvial : public GpuTest {
protected:
    gpu::SimParams params(int w, int h, int outlets_choice = 0) {
        Params table;
        table[Param::cell_size] = 10.0;
        table[Param::fluvial_outlets] = outlets_choice;
        gpu::SimParams p = toSimParams(table, w, h);
        p.model = MODEL_FLUVIAL;
        return p;
    }
    std::unique_ptr<gpu::Simulation> make(const std::vector<float>& z, int w, int h, const gpu::SimParams& p) {
        auto sim = std::make_unique<gpu::Simulation>(ctx(), w, h);
        sim->upload(Field::Terrain, z);
        sim->upload(Field::Terrain, z, true);
        sim->setParams(p);
        return sim;
    }
    // GPU fill, receivers and accumulation equal the reference's, bit for bit.
    void expectExact(const std::vector<float>& z, int w, int h, int outlets_choice,
                     const std::vector<float>& rain = {}) {
        const gpu::SimParams p = params(w, h, outlets_choice);
        auto sim = make(z, w, h, p);
        if (!rain.empty()) sim->upload(Field::RainMask, rain);
        sim->fluvialAnalyse();
        ref::FluvialGrid g{w, h, p.fluvial_outlets};
        const ref::Fill f = ref::fillPriorityFlood(g, z);
        const std::vector<uint64_t> keys = sim->fluvialKeys();
        size_t key_mismatch = 0, first = SIZE_MAX;
        for (size_t i = 0; i < keys.size(); ++i) {
            const uint64_t want = f.steps[i] == 0xFFFFFFFFu ? ~0ull : ref::fillKey(f.level[i], f.steps[i]);
            if (keys[i] != want && key_mismatch++ == 0) first = i;
        }
        EXPECT_EQ(key_mismatch, 0u) << "first at cell " << first;
        const std::vector<uint32_t> rcv = ref::receivers(g, f);
        EXPECT_EQ(sim->fluvialReceivers(), rcv);
        const std::vector<uint64_t> acc =
            ref::accumulate(rcv, ref::rainWeights(rain.empty() ? std::vector<float>(z.size(), 1.0f) : rain));
        EXPECT_EQ(sim->fluvialAccumulation(), acc);
        const std::vector<float> lake = sim->download(Field::Lake);
        for (size_t i = 0; i < z.size(); ++i)
            if (f.steps[i] != 0xFFFFFFFFu) {
                ASSERT_EQ(lake[i], std::max(f.level[i] - z[i], 0.0f)) << i;
            }
    }
};

TEST_F(Fluvial, FillRoutingAndAccumulationEqualTheReferenceOnRealDems) {
    for (const Dem& d : kDems) {
        SCOPED_TRACE(d.file);
        expectExact(readF32(kData / d.file, size_t(d.w) * d.h), d.w, d.h, 0);
    }
}

TEST_F(Fluvial, FillRoutingAndAccumulationEqualTheReferenceOnRandomGrids) {
    // Odd sizes, every outlet choice, a rain mask: pits, flats and ties everywhere.
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    const GridCase cases[] = {{97, 61}, {1, 50}, {50, 1}, {33, 17}};
    int seed = 0;
    for (const GridCase& c : cases)
        for (int outlets = 0; outlets <= 6; ++outlets) {
            SCOPED_TRACE(::testing::Message() << c.w << "x" << c.h << " outlets " << outlets);
            std::vector<float> rain(size_t(c.w) * c.h);
            for (float& r : rain) r = u(rng);
            ++seed;
            expectExact(pittedTerrain(c.w, c.h, uint32_t(seed)), c.w, c.h, outlets, seed % 2 ? rain : std::vector<float>{});
        }
}

TEST_F(Fluvial, FilledSurfaceDrainsEverywhereAndIsAFixedPoint) {
    const Dem d = kDems[1];
    const std::vector<float> z = readF32(kData / d.file, size_t(d.w) * d.h);
    const gpu::SimParams p = params(d.w, d.h);
    auto sim = make(z, d.w, d.h, p);
    sim->fluvialAnalyse();
    const std::vector<float> lake = sim->download(Field::Lake);
    std::vector<float> filled(z.size());
    double volume = 0.0;
    for (size_t i = 0; i < z.size(); ++i) {
        ASSERT_GE(lake[i], 0.0f);
        filled[i] = z[i] + lake[i];
        volume += lake[i];
    }
    EXPECT_GT(volume, 0.0) << "a real DEM has pits";
    // Every cell reaches an outlet along its receivers without going uphill on the fill.
    const std::vector<uint32_t> rcv = sim->fluvialReceivers();
    ref::FluvialGrid g{d.w, d.h, p.fluvial_outlets};
    for (uint32_t i = 0; i < rcv.size(); ++i) {
        uint32_t c = i;
        for (size_t steps = 0; rcv[c] != c; ++steps) {
            ASSERT_LE(filled[rcv[c]], filled[c]) << "uphill from " << c;
            ASSERT_LT(steps, rcv.size()) << "cycle from " << i;
            c = rcv[c];
        }
        ASSERT_TRUE(g.isOutlet(int(c) % d.w, int(c) / d.w)) << "cell " << i << " ends at " << c;
    }
    // Filling the filled surface changes nothing: no lake left.
    auto again = make(filled, d.w, d.h, p);
    again->fluvialAnalyse();
    for (float v : again->download(Field::Lake)) ASSERT_EQ(v, 0.0f);
}

TEST_F(Fluvial, ConstructedBasinsFillExactlyToTheirSpillHeight) {
    // Two basins (floors 1 m and 3 m) inside walls of 20 m; the left one spills over a notch at
    // 7.25 m into the right one, which spills at 9.5 m through its wall to the outlet edge.
    const int w = 41, h = 21;
    std::vector<float> z(size_t(w) * h, 20.0f);
    auto at = [&](int x, int y) -> float& { return z[size_t(y * w + x)]; };
    for (int y = 3; y < 18; ++y) {
        for (int x = 3; x < 19; ++x) at(x, y) = 1.0f + 0.01f * float(x);
        for (int x = 22; x < 38; ++x) at(x, y) = 3.0f + 0.01f * float(y);
    }
    for (int x = 19; x < 22; ++x) at(x, 10) = 7.25f; // the notch between the basins
    for (int x = 38; x < w; ++x) at(x, 5) = 9.5f;     // the right basin's spillway to the edge
    at(w - 1, 5) = 0.0f;
    for (int x = 0; x < w; ++x) at(x, 0) = at(x, h - 1) = 20.0f;
    const gpu::SimParams p = params(w, h);
    auto sim = make(z, w, h, p);
    sim->fluvialAnalyse();
    const std::vector<float> lake = sim->download(Field::Lake);
    for (int y = 3; y < 18; ++y) {
        for (int x = 3; x < 19; ++x) ASSERT_EQ(at(x, y) + lake[size_t(y * w + x)], 9.5f) << x << "," << y;
        for (int x = 22; x < 38; ++x) ASSERT_EQ(at(x, y) + lake[size_t(y * w + x)], 9.5f) << x << "," << y;
    }
    // The left basin's own spill (7.25) is below the right one's level: one lake at 9.5 m.
    EXPECT_EQ(lake[size_t(10 * w + 20)], 9.5f - 7.25f);
    EXPECT_EQ(lake[size_t(1 * w + 1)], 0.0f);
    // With the spillway at 30 m instead, both basins would fill to the walls' 20 m.
    for (int x = 38; x < w - 1; ++x) at(x, 5) = 30.0f;
    auto closed = make(z, w, h, p);
    closed->fluvialAnalyse();
    const std::vector<float> lake2 = closed->download(Field::Lake);
    EXPECT_EQ(at(10, 10) + lake2[size_t(10 * w + 10)], 20.0f);
}

TEST_F(Fluvial, DrainageOnAnInclinedPlaneCountsTheCellsUpslope) {
    // Outlets on the bottom row only; the plane falls towards it. Each column drains straight
    // down: the cell in row y gathers rows 0..y, (y + 1) cells; half rain gives half of that.
    const int w = 37, h = 53;
    const double L = 10.0;
    std::vector<float> z(size_t(w) * h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) z[size_t(y * w + x)] = float(h - 1 - y) * 0.5f;
    for (float rain : {1.0f, 0.5f}) {
        const gpu::SimParams p = params(w, h, 4); // bottom
        auto sim = make(z, w, h, p);
        sim->upload(Field::RainMask, std::vector<float>(z.size(), rain));
        sim->fluvialAnalyse();
        const std::vector<float> area = sim->download(Field::Drainage);
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x)
                ASSERT_EQ(area[size_t(y * w + x)], float(double(rain) * (y + 1) * L * L)) << x << "," << y;
    }
}

TEST_F(Fluvial, DrainageOnAConeFollowsItsStraightFlowLines) {
    // A cone falling from its apex (at a cell corner in the middle of an even grid) to outlets
    // on every side. Steepest descent sends each cell along an axis or a diagonal, whichever
    // falls faster, and such flow lines never merge: a cell's area is itself plus the cells
    // behind it on its line that flow the same way. The directions come from the geometry in
    // double precision, not from the routing code.
    const int w = 48, h = 48;
    const double cx = 24.0, cy = 24.0;
    auto r = [&](int x, int y) { return std::hypot(x + 0.5 - cx, y + 0.5 - cy); };
    std::vector<float> z(size_t(w) * h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) z[size_t(y * w + x)] = float(100.0 - 2.0 * r(x, y));
    auto direction = [&](int x, int y) {
        int best = -1;
        double best_drop = 0.0;
        const int dxs[8] = {-1, 0, 1, -1, 1, -1, 0, 1}, dys[8] = {-1, -1, -1, 0, 0, 1, 1, 1};
        for (int k = 0; k < 8; ++k) {
            const double drop = (r(x + dxs[k], y + dys[k]) - r(x, y)) / std::hypot(dxs[k], dys[k]);
            if (drop > best_drop + 1e-9) best_drop = drop, best = k;
        }
        return std::pair<int, int>{dxs[best], dys[best]};
    };
    const gpu::SimParams p = params(w, h);
    auto sim = make(z, w, h, p);
    sim->fluvialAnalyse();
    const std::vector<uint64_t> acc = sim->fluvialAccumulation();
    ref::FluvialGrid g{w, h, p.fluvial_outlets};
    int checked = 0;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            if (g.isOutlet(x, y)) continue;
            const auto [dx, dy] = direction(x, y);
            uint64_t count = 1;
            for (int bx = x - dx, by = y - dy; bx >= 1 && by >= 1 && bx < w - 1 && by < h - 1; bx -= dx, by -= dy) {
                if (direction(bx, by) != std::pair<int, int>{dx, dy}) break;
                ++count;
            }
            ASSERT_EQ(acc[size_t(y * w + x)], count * uint64_t(FLUVIAL_ACC_ONE)) << x << "," << y;
            ++checked;
        }
    EXPECT_EQ(checked, (w - 2) * (h - 2));
}

// Depression routing's phases against their twins: every cell's basin (the descent and the
// label rounds across tiles), every basin's spill (the rounds of the basin graph against
// Kruskal's algorithm, and against priority flood's level at the basin's pit).
TEST_F(Fluvial, BasinsAndSpillsEqualTheirTwins) {
    struct Case {
        std::vector<float> z;
        int w, h, outlets;
    };
    std::vector<Case> cases;
    for (const Dem& d : kDems) cases.push_back({readF32(kData / d.file, size_t(d.w) * d.h), d.w, d.h, 0});
    const GridCase sizes[] = {{97, 61}, {1, 50}, {50, 1}, {33, 17}, {161, 129}};
    int seed = 40;
    for (const GridCase& c : sizes)
        for (int outlets : {0, 1, 6}) cases.push_back({pittedTerrain(c.w, c.h, uint32_t(++seed)), c.w, c.h, outlets});
    for (const Case& c : cases) {
        SCOPED_TRACE(::testing::Message() << c.w << "x" << c.h << " outlets " << c.outlets);
        const gpu::SimParams p = params(c.w, c.h, c.outlets);
        auto sim = make(c.z, c.w, c.h, p);
        sim->fluvialAnalyse();
        ref::FluvialGrid g{c.w, c.h, p.fluvial_outlets};
        std::vector<uint32_t> pit_cells;
        const std::vector<uint32_t> labels = ref::basinLabels(g, c.z, &pit_cells);
        ASSERT_EQ(sim->fluvialBasins(), labels);
        const std::vector<uint32_t> spills = ref::basinSpills(g, c.z, labels);
        const std::vector<uint32_t> gpu_spills = sim->fluvialSpills();
        const ref::Fill f = ref::fillPriorityFlood(g, c.z);
        for (uint32_t i : pit_cells) {
            const int x = int(i) % c.w, y = int(i) / c.w;
            ASSERT_EQ(gpu_spills[labels[i]], spills[labels[i]]) << "pit " << x << "," << y;
            const uint32_t level = f.steps[i] == 0xFFFFFFFFu ? FLUVIAL_NONE : ref::orderedBits(f.level[i]);
            ASSERT_EQ(spills[labels[i]], level) << "pit " << x << "," << y;
        }
        EXPECT_EQ(pit_cells.size(), sim->fluvialControl().lists[LIST_PITS]);
    }
}

// A serpentine channel one cell wide, cut deep into a 1000 m plateau, from the far end of the
// grid to one mouth on the left edge (the only outlet side), falling 1 mm per cell towards the
// mouth. Every `period` cells it holds a pair of nested basins: two 1 m pits around a sill
// 0.5 m down, behind a 0.3 m dam: the lake behind the dam drowns the sill, so the pair must
// merge (a mutual pass) before it hooks onto the pair downstream: a chain of basins as long as
// the channel, each spilling into the next. In-place sweeps need rounds in proportion to the
// channel's length; depression routing, the log of it.
// The cells of a serpentine one cell wide: from the mouth (0, 2) on the left edge along row 2,
// then back and forth along every third row, joined at alternating ends.
std::vector<size_t> serpentinePath(int w, int h) {
    std::vector<size_t> path;
    for (int x = 0; x < 2; ++x) path.push_back(size_t(2 * w + x));
    bool right = true;
    for (int y = 2; y + 2 < h; y += 3) {
        for (int k = 0; k < w - 4; ++k) path.push_back(size_t(y * w + (right ? 2 + k : w - 3 - k)));
        if (y + 5 >= h) break;
        const int x = right ? w - 3 : 2;
        path.push_back(size_t((y + 1) * w + x));
        path.push_back(size_t((y + 2) * w + x));
        right = !right;
    }
    return path;
}

std::vector<float> serpentineChannel(int w, int h, int period) {
    std::vector<float> z(size_t(w) * h, 1000.0f);
    const std::vector<size_t> path = serpentinePath(w, h);
    for (size_t s = 0; s < path.size(); ++s) z[path[s]] = 0.001f * float(s);
    for (size_t s = size_t(period); s + 3 < path.size(); s += size_t(period)) {
        z[path[s - 1]] += 0.3f; // the dam
        z[path[s]] -= 1.0f;     // the lower pit
        z[path[s + 1]] -= 0.5f; // the sill
        z[path[s + 2]] -= 1.0f; // the upper pit
    }
    return z;
}

TEST_F(Fluvial, SerpentineChannelOfNestedBasinsInFewRounds) {
    const int w = 1000, h = 1000;
    const std::vector<float> z = serpentineChannel(w, h, 10);
    gpu::SimParams p = params(w, h, 1); // the left edge
    auto sim = make(z, w, h, p);
    sim->fluvialAnalyse();
    const gpu::FluvialControl c = sim->fluvialControl(); // the fill's rounds and the accumulation's
    ref::FluvialGrid g{w, h, p.fluvial_outlets};
    const ref::Fill f = ref::fillPriorityFlood(g, z);
    const std::vector<uint64_t> keys = sim->fluvialKeys();
    size_t mismatch = 0;
    for (size_t i = 0; i < keys.size(); ++i) mismatch += keys[i] != ref::fillKey(f.level[i], f.steps[i]);
    EXPECT_EQ(mismatch, 0u);
    const std::vector<uint32_t> rcv = ref::receivers(g, f);
    EXPECT_EQ(sim->fluvialReceivers(), rcv);
    EXPECT_EQ(sim->fluvialAccumulation(), ref::accumulate(rcv, ref::rainWeights(std::vector<float>(z.size(), 1.0f))));
    const gpu::FluvialRoundBounds bounds = gpu::fluvialRoundBounds(w, h);
    const double log_cells = std::log2(double(w) * h);
    const unsigned log_rounds = c.rounds_label + c.rounds_boruvka + c.rounds_hook + c.rounds_tree[TREE_ACCUMULATE];
    std::printf("serpentine %dx%d, %u basins: rounds: %u basin labels (bound %d), %u basin graph (bound %d) + %u hook "
                "jumps (bound %d), %u flats, %u accumulate; %u log-bounded in all, 4 log2(cells) = %.0f\n",
                w, h, c.lists[LIST_PITS], c.rounds_label, bounds.label, c.rounds_boruvka, bounds.boruvka, c.rounds_hook,
                bounds.hookTotal(), c.rounds_flats, c.rounds_tree[TREE_ACCUMULATE], log_rounds, 4 * log_cells);
    EXPECT_GT(c.lists[LIST_PITS], 10000u);
    EXPECT_GE(c.rounds_boruvka, 2u) << "the nested pairs merge before they hook downstream";
    EXPECT_LE(int(c.rounds_label), bounds.label);
    EXPECT_LE(int(c.rounds_boruvka), bounds.boruvka);
    EXPECT_LE(int(c.rounds_hook), bounds.hookTotal());
    EXPECT_LE(double(log_rounds), 4 * log_cells);
    // The flats are the lakes behind the dams (10 cells of channel) and the plateau's rim: a
    // round to relax them, one per tile border a lake crosses (at a turn, two), one to see that
    // nothing changed.
    EXPECT_LE(c.rounds_flats, 6u);
    EXPECT_EQ(c.converged, 1u);
}

// The rounds and every bit of the result do not depend on the order in which workgroups take
// their tiles and list chunks (lavapipe runs them one after another, in order).
TEST_F(Fluvial, RoundsAndBitsDoNotDependOnTheOrderOfTiles) {
    struct Case {
        std::vector<float> z;
        int w, h;
    };
    const Dem d = kDems[1];
    const Case cases[] = {{serpentineChannel(301, 203, 7), 301, 203},
                          {readF32(kData / d.file, size_t(d.w) * d.h), d.w, d.h},
                          {pittedTerrain(161, 97, 9), 161, 97}};
    for (const Case& c : cases) {
        SCOPED_TRACE(::testing::Message() << c.w << "x" << c.h);
        gpu::FluvialControl first{}, first_step{};
        std::vector<uint64_t> keys, acc;
        std::vector<uint32_t> rcv;
        std::vector<float> terrain;
        for (int order : {0, 1, 2}) {
            SCOPED_TRACE(::testing::Message() << "tile order " << order);
            gpu::SimParams p = params(c.w, c.h, 0);
            p.fluvial_tile_order = order;
            auto sim = make(c.z, c.w, c.h, p);
            const gpu::FluvialControl fc = sim->fluvialAnalyse();
            sim->run(1);
            const gpu::FluvialControl step = sim->fluvialControl();
            if (order == 0) {
                first = fc;
                first_step = step;
                keys = sim->fluvialKeys();
                rcv = sim->fluvialReceivers();
                acc = sim->fluvialAccumulation();
                terrain = sim->download(Field::Terrain);
                std::printf("%dx%d: rounds %u labels, %u basin graph + %u hook jumps, %u flats over %u tiles, %u jumps\n",
                            c.w, c.h, fc.rounds_label, fc.rounds_boruvka, fc.rounds_hook, fc.rounds_flats,
                            fc.tiles_flats, step.rounds_tree[0] + step.rounds_tree[1] + step.rounds_tree[2]);
                continue;
            }
            EXPECT_EQ(fc.rounds_label, first.rounds_label);
            EXPECT_EQ(fc.rounds_boruvka, first.rounds_boruvka);
            EXPECT_EQ(fc.rounds_hook, first.rounds_hook);
            EXPECT_EQ(fc.rounds_flats, first.rounds_flats);
            EXPECT_EQ(fc.tiles_flats, first.tiles_flats);
            EXPECT_EQ(fc.edges_first, first.edges_first);
            for (int t = 0; t < 3; ++t) EXPECT_EQ(step.rounds_tree[t], first_step.rounds_tree[t]) << "tree " << t;
            EXPECT_EQ(step.rounds_flats, first_step.rounds_flats) << "the step's flats rounds";
            EXPECT_EQ(sim->fluvialKeys(), keys);
            EXPECT_EQ(sim->fluvialReceivers(), rcv);
            EXPECT_EQ(sim->fluvialAccumulation(), acc);
            EXPECT_EQ(sim->download(Field::Terrain), terrain);
        }
    }
}

// A flat lake shaped as a serpentine corridor behind a sill at its mouth: its steps follow the
// corridor, a long way across tiles. An iteration stops the flats after fluvial_flat_rounds and
// says so; the analysis (and `alluvium fill`) goes on until they converge, exactly.
TEST_F(Fluvial, SerpentineLakeFlatsConvergeExactly) {
    const int w = 96, h = 96;
    std::vector<float> z(size_t(w) * h, 10.0f);
    const std::vector<size_t> path = serpentinePath(w, h);
    for (size_t s = 0; s < path.size(); ++s) z[path[s]] = 0.0f;
    z[path[0]] = -1.0f; // the outlet
    z[path[1]] = 0.5f;  // the sill: the lake's level
    gpu::SimParams p = params(w, h, 1);
    p.fluvial_flat_rounds = 4;
    auto sim = make(z, w, h, p);
    sim->run(1);
    EXPECT_EQ(sim->fluvialControl().converged, 0u) << "4 rounds cannot follow the corridor";
    EXPECT_EQ(sim->fluvialControl().rounds_flats, 4u);
    auto exact = make(z, w, h, p);
    const gpu::FluvialControl c = exact->fluvialAnalyse();
    ref::FluvialGrid g{w, h, p.fluvial_outlets};
    const ref::Fill f = ref::fillPriorityFlood(g, z);
    uint32_t longest = 0;
    for (uint32_t st : f.steps)
        if (st != 0xFFFFFFFFu) longest = std::max(longest, st);
    std::printf("serpentine lake: %u steps to its exit at most, %u flats rounds over %u tiles\n", longest,
                c.rounds_flats, c.tiles_flats);
    EXPECT_GT(longest, 2500u);
    EXPECT_GT(c.rounds_flats, 4u);
    EXPECT_EQ(c.converged, 1u);
    const std::vector<uint64_t> keys = exact->fluvialKeys();
    for (size_t i = 0; i < keys.size(); ++i)
        ASSERT_EQ(keys[i], f.steps[i] == 0xFFFFFFFFu ? ~0ull : ref::fillKey(f.level[i], f.steps[i])) << i;
    EXPECT_EQ(exact->fluvialReceivers(), ref::receivers(g, f));
}

// Every fluvial buffer is bound whole: none is above 8 bytes a cell, so a 4096 x 4096 grid binds
// each within 128 MiB (lavapipe's maxStorageBufferRange; GPUs allow 4 GiB), and a grid whose
// buffer would not bind is refused with a DeviceError, not a validation error.
TEST_F(Fluvial, BuffersBindWithinTheDevicesRange) {
    EXPECT_LE(gpu::fluvialLargestBuffer(4096, 4096), uint64_t(128) << 20);
    // 8 bytes a cell of the tiles the grid covers (the ring nodes are per tile).
    for (const GridCase c : {GridCase{4095, 4097}, GridCase{1, 50}, GridCase{403, 344}})
        EXPECT_LE(gpu::fluvialLargestBuffer(c.w, c.h), uint64_t(8) * WG_SIZE * ((c.w + 15) / 16) * ((c.h + 15) / 16));
    const uint64_t range = ctx().properties.limits.maxStorageBufferRange;
    // The largest square grid this device's memory holds binds too.
    int side = 64;
    while (gpu::simulationBytes(side + 64, side + 64) + gpu::fluvialBytes(side + 64, side + 64) <= ctx().device_local_bytes)
        side += 64;
    EXPECT_LE(gpu::fluvialLargestBuffer(side, side), range) << side << "x" << side;
}

// The fluvial buffers (about 60 bytes a cell) exist only once that model is used: a pipe-model
// simulation never allocates them and simulationBytes leaves them out; the first switch to the
// fluvial model allocates them. A grid whose buffers would not bind, or not fit in the device's
// memory, is refused at that switch with one clear DeviceError (exit status 3 in the commands),
// and the simulation goes on with the model it had.
TEST_F(Fluvial, BuffersAreAllocatedOnlyWhenTheModelIsUsed) {
    const int w = 67, h = 45;
    const std::vector<float> z = pittedTerrain(w, h, 7);
    EXPECT_GE(gpu::fluvialBytes(w, h), uint64_t(w) * h * 56);
    gpu::SimParams pipe = params(w, h);
    pipe.model = MODEL_PIPE;
    auto sim = make(z, w, h, pipe);
    sim->run(2);
    EXPECT_FALSE(sim->fluvialAllocated());
    EXPECT_TRUE(sim->fluvialKeys().empty());
    EXPECT_EQ(sim->fluvialControl().converged, 0u);
    sim->setParams(params(w, h));
    EXPECT_TRUE(sim->fluvialAllocated());
    sim->run(1);
    EXPECT_EQ(sim->fluvialControl().converged, 1u);
    EXPECT_EQ(sim->fluvialReceivers().size(), size_t(w) * h);
    sim->setParams(pipe); // back to the pipe model: the buffers stay for the next switch
    sim->run(1);
    EXPECT_TRUE(sim->fluvialAllocated());

    auto refused = [&](const gpu::Context& limited, const char* expect) {
        gpu::Simulation s(limited, w, h);
        s.upload(Field::Terrain, z);
        s.setParams(pipe);
        s.run(1);
        try {
            s.setParams(params(w, h));
            ADD_FAILURE() << "the fluvial model was allowed: " << expect;
        } catch (const gpu::DeviceError& e) {
            const std::string what = e.what();
            EXPECT_NE(what.find("fluvial model"), std::string::npos) << what;
            EXPECT_NE(what.find(expect), std::string::npos) << what;
            EXPECT_EQ(what.find('\n'), std::string::npos) << what;
        }
        EXPECT_FALSE(s.fluvialAllocated());
        EXPECT_EQ(s.params().model, MODEL_PIPE);
        s.run(1); // the pipe model goes on
        EXPECT_TRUE(s.fluvialKeys().empty());
    };
    gpu::Context narrow = ctx(); // shares the device; only the limit differs
    narrow.properties.limits.maxStorageBufferRange = uint32_t(gpu::fluvialLargestBuffer(w, h) - 4);
    refused(narrow, "binds at most");
    gpu::Context small = ctx();
    small.device_local_bytes = gpu::simulationBytes(w, h, gpu::resolvePartialsPerGroup(ctx())) + gpu::fluvialBytes(w, h) / 2;
    refused(small, "MiB of GPU memory");
}

// One whole iteration (fill, route, accumulate, implicit erosion, diffusion) against the double
// reference, on rough random ground with random hardness and uplift maps, odd sizes.
TEST_F(Fluvial, IterationMatchesTheReference) {
    struct Case {
        int w, h;
        float n, diffusion_m2_per_yr, deposition;
        int outlets; // fluvial_outlets choice: a 1-wide grid with every side open is all outlet
    };
    const Case cases[] = {{97, 61, 1.0f, 0.0f, 0.0f, 0}, {97, 61, 1.0f, 0.0f, 0.5f, 0}, {63, 65, 1.5f, 0.0f, 2.0f, 0},
                          {1, 50, 1.0f, 0.0f, 0.5f, 3},  {50, 1, 1.0f, 0.0f, 0.0f, 1},  {45, 39, 1.0f, 5.0f, 0.3f, 0},
                          {45, 39, 0.7f, 0.5f, 0.0f, 4}};
    uint32_t seed = 100;
    for (const Case& c : cases) {
        SCOPED_TRACE(::testing::Message() << c.w << "x" << c.h << " n " << c.n << " D " << c.diffusion_m2_per_yr
                                          << " G " << c.deposition);
        std::mt19937 rng(++seed);
        std::uniform_real_distribution<float> u(0.0f, 1.0f);
        const std::vector<float> z = pittedTerrain(c.w, c.h, seed);
        std::vector<float> hardness(z.size()), uplift(z.size());
        for (size_t i = 0; i < z.size(); ++i) hardness[i] = u(rng), uplift[i] = 2.0f * u(rng);
        Params table;
        table[Param::cell_size] = 10.0;
        table[Param::stream_power_n] = c.n;
        table[Param::stream_power_k] = 1e-4;
        table[Param::hillslope_diffusion] = c.diffusion_m2_per_yr;
        table[Param::fluvial_outlets] = c.outlets;
        table[Param::fluvial_deposition] = c.deposition;
        gpu::SimParams p = toSimParams(table, c.w, c.h);
        p.model = MODEL_FLUVIAL;
        auto sim = make(z, c.w, c.h, p);
        sim->upload(Field::Hardness, hardness);
        sim->upload(Field::Uplift, uplift);
        sim->run(1);
        EXPECT_EQ(sim->fluvialControl().converged, 1u);
        const std::vector<float> gpu_z = sim->download(Field::Terrain);

        ref::FluvialGrid g{c.w, c.h, p.fluvial_outlets};
        const ref::Fill f = ref::fillPriorityFlood(g, z);
        const std::vector<uint32_t> rcv = ref::receivers(g, f);
        const std::vector<uint64_t> acc = ref::accumulate(rcv, ref::rainWeights(std::vector<float>(z.size(), 1.0f)));
        const std::vector<double> want = ref::fluvialErode(g, {&z, &hardness, &uplift}, f, rcv, acc, p);
        // Relative to the change (the heights themselves are ~10 m, the change ~1 m).
        double change = 0.0, err = 0.0;
        for (size_t i = 0; i < z.size(); ++i) {
            change = std::max(change, std::abs(want[i] - z[i]));
            err = std::max(err, std::abs(double(gpu_z[i]) - want[i]));
        }
        EXPECT_GT(change, 0.1);
        // With deposition, each cell's eroded volume is a difference of float heights (one ulp of
        // ~10 m is 1e-6 m) and the sediment passing a cell sums those over its upstream area.
        const double tolerance = c.deposition > 0.0f ? 1e-4 : 1e-5;
        EXPECT_LT(err / change, tolerance) << "max error " << err << " m of a change up to " << change << " m";
        // Sediment is never created: what the cells kept is at most what the stream power eroded.
        const std::vector<float> wear = sim->download(Field::Wear);
        double eroded = 0.0, deposited = 0.0;
        for (size_t i = 0; i < z.size(); ++i) eroded += wear[2 * i], deposited += wear[2 * i + 1];
        if (c.deposition > 0.0f) {
            EXPECT_GT(deposited, 0.0);
            EXPECT_LE(deposited, eroded * (1.0 + 1e-5));
        } else {
            EXPECT_EQ(deposited, 0.0);
        }
    }
}

// Uniform uplift on rough random ground until nothing changes (|dz/dt| < 1e-3 U): then
// U = K A^m S^n everywhere, so on log-log axes slope against drainage area is a line of
// exponent -m/n through the steepness (U/K)^(1/n). Fitted on the cells with A >= 20 cells.
TEST_F(Fluvial, SteadyStateFollowsTheStreamPowerLaw) {
    const int w = 81, h = 67;
    const double L = 10.0, U_mm = 1.0, K = 1e-4, m = 0.4;
    Params table;
    table[Param::cell_size] = L;
    table[Param::uplift_rate] = U_mm;
    table[Param::stream_power_k] = K;
    table[Param::stream_power_m] = m;
    table[Param::stream_power_n] = 1.0;
    table[Param::fluvial_time_step] = 20000.0;
    table[Param::hillslope_diffusion] = 0.0; // the law is that of stream power alone
    table[Param::fluvial_deposition] = 0.0;
    gpu::SimParams p = toSimParams(table, w, h);
    p.model = MODEL_FLUVIAL;
    std::vector<float> z = pittedTerrain(w, h, 5);
    auto sim = make(z, w, h, p);
    const double U_dt = U_mm * 1e-3 * table[Param::fluvial_time_step];
    double change = INFINITY;
    int iterations = 0;
    while (change >= 1e-3 * U_dt && iterations < 3000) {
        sim->run(25);
        iterations += 25;
        const std::vector<float> before = sim->download(Field::Terrain);
        sim->run(1);
        ++iterations;
        z = sim->download(Field::Terrain);
        change = 0.0;
        for (size_t i = 0; i < z.size(); ++i) change = std::max(change, double(std::abs(z[i] - before[i])));
    }
    ASSERT_LT(change, 1e-3 * U_dt) << "no steady state after " << iterations << " iterations";
    sim->fluvialAnalyse();
    const std::vector<uint32_t> rcv = sim->fluvialReceivers();
    const std::vector<float> area = sim->download(Field::Drainage);
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    int count = 0;
    for (uint32_t i = 0; i < rcv.size(); ++i) {
        if (rcv[i] == i || area[i] < 20.0 * L * L) continue;
        const int dx = int(rcv[i] % w) - int(i % w), dy = int(rcv[i] / w) - int(i / w);
        const double slope = (double(z[i]) - z[rcv[i]]) / (std::hypot(dx, dy) * L);
        ASSERT_GT(slope, 0.0);
        const double x = std::log(area[i]), y = std::log(slope);
        sx += x, sy += y, sxx += x * x, sxy += x * y, ++count;
    }
    ASSERT_GT(count, 50);
    const double exponent = (count * sxy - sx * sy) / (count * sxx - sx * sx);
    const double steepness = std::exp((sy - exponent * sx) / count);
    const double want_steepness = (U_mm * 1e-3) / K; // (U/K)^(1/n), both per year
    std::printf("steady state after %d iterations: %d cells, exponent %.5f (want %.2f), steepness %.5f (want %.5f)\n",
                iterations, count, exponent, -m, steepness, want_steepness);
    EXPECT_NEAR(exponent, -m, 0.02);
    EXPECT_NEAR(steepness / want_steepness, 1.0, 0.05);
}

// Fast-forward with the fluvial model, then detail with the pipe model, on the same state: the
// pipe model's water and sediment wait unchanged through fluvial iterations, nothing turns NaN.
TEST_F(Fluvial, SwitchesWithThePipeModelOnTheSameState) {
    const int w = 61, h = 47;
    ref::State s = randomState(w, h, 3);
    gpu::SimParams p = defaultParams(w, h);
    gpu::Simulation sim(ctx(), w, h);
    loadState(sim, s, p);
    sim.run(20);
    const std::vector<float> water = sim.download(Field::Water), sediment = sim.download(Field::Sediment);
    const std::vector<float> ground = sim.download(Field::Terrain);
    p.model = MODEL_FLUVIAL;
    sim.setParams(p);
    sim.run(3);
    EXPECT_EQ(sim.download(Field::Water), water);
    EXPECT_EQ(sim.download(Field::Sediment), sediment);
    const std::vector<float> carved = sim.download(Field::Terrain);
    EXPECT_NE(carved, ground);
    p.model = MODEL_PIPE;
    sim.setParams(p);
    sim.run(20);
    for (Field f : {Field::Terrain, Field::Water, Field::Sediment})
        for (float v : sim.download(f)) ASSERT_TRUE(std::isfinite(v)) << fieldName(f);
}

} // namespace
} // namespace alluvium::test
