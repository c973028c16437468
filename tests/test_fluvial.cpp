// The fluvial model (seed 003), its analysis: lake filling, routing and drainage
// accumulation on the GPU against the sequential reference (priority flood, topological
// accumulation), exactly; basins and spills of depression routing against their twins; analytic
// drainage areas; few rounds on long chains of basins and lakes, whatever the order of the tiles.
// A whole iteration, the steady state, switching models and the buffers:
// test_fluvial_iteration.cpp; the fixture: fluvial_fixture.h.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "fluvial.h"
#include "fluvial_fixture.h"
#include "gpu_fixture.h"
#include "test_util.h"

namespace alluvium::test {
namespace {

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
            expectExact(pittedTerrain(c.w, c.h, uint32_t(seed)), c.w, c.h, outlets,
                        seed % 2 ? rain : std::vector<float>{});
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
    const std::vector<uint32_t> rcv = sim->fluvial().receivers();
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
    for (int x = 38; x < w; ++x) at(x, 5) = 9.5f;    // the right basin's spillway to the edge
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
    const std::vector<uint64_t> acc = sim->fluvial().accumulation();
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
        ASSERT_EQ(sim->fluvial().basins(), labels);
        const std::vector<uint32_t> spills = ref::basinSpills(g, c.z, labels);
        const std::vector<uint32_t> gpu_spills = sim->fluvial().spills();
        const ref::Fill f = ref::fillPriorityFlood(g, c.z);
        for (uint32_t i : pit_cells) {
            const int x = int(i) % c.w, y = int(i) / c.w;
            ASSERT_EQ(gpu_spills[labels[i]], spills[labels[i]]) << "pit " << x << "," << y;
            const uint32_t level = f.steps[i] == 0xFFFFFFFFu ? FLUVIAL_NONE : ref::orderedBits(f.level[i]);
            ASSERT_EQ(spills[labels[i]], level) << "pit " << x << "," << y;
        }
        EXPECT_EQ(pit_cells.size(), sim->fluvial().hostControl().lists[LIST_PITS]);
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
    const gpu::FluvialControl c = sim->fluvial().hostControl(); // the fill's rounds and the accumulation's
    ref::FluvialGrid g{w, h, p.fluvial_outlets};
    const ref::Fill f = ref::fillPriorityFlood(g, z);
    const std::vector<uint64_t> keys = sim->fluvial().keys();
    size_t mismatch = 0;
    for (size_t i = 0; i < keys.size(); ++i) mismatch += keys[i] != ref::fillKey(f.level[i], f.steps[i]);
    EXPECT_EQ(mismatch, 0u);
    const std::vector<uint32_t> rcv = ref::receivers(g, f);
    EXPECT_EQ(sim->fluvial().receivers(), rcv);
    EXPECT_EQ(sim->fluvial().accumulation(),
              ref::accumulate(rcv, ref::rainWeights(std::vector<float>(z.size(), 1.0f))));
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
// their tiles and list chunks (lavapipe runs them one after another, in order), nor on how the
// jobs' workgroups are laid out in rows (JOB_ROW_GROUPS: grids from 8192^2 need several rows;
// here rows of 1 and 3 workgroups, the last row part empty).
TEST_F(Fluvial, RoundsAndBitsDoNotDependOnTheOrderOfTilesOrTheRowsOfJobs) {
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
        struct Layout {
            int order, row;
        };
        for (const Layout l : {Layout{0, 0}, Layout{1, 0}, Layout{2, 0}, Layout{0, 1}, Layout{2, 3}}) {
            const int order = l.order;
            SCOPED_TRACE(::testing::Message() << "tile order " << order << ", rows of " << l.row << " workgroups");
            gpu::SimParams p = params(c.w, c.h, 0);
            p.fluvial_tile_order = order;
            p.fluvial_job_row = l.row;
            auto sim = make(c.z, c.w, c.h, p);
            const gpu::FluvialControl fc = sim->fluvialAnalyse();
            sim->run(1);
            const gpu::FluvialControl step = sim->fluvial().hostControl();
            // The label job (the ring nodes) kept its rows when it ended (only its x is zeroed).
            const uint32_t ring_groups = gpu::groupsCovering(
                int(gpu::groupsCovering(c.w, FLUVIAL_TILE) * gpu::groupsCovering(c.h, FLUVIAL_TILE) * RING_CELLS),
                WG_SIZE);
            EXPECT_EQ(fc.job[JOB_RING * 3 + 1],
                      gpu::groupsCovering(int(ring_groups), l.row > 0 ? l.row : JOB_ROW_GROUPS));
            if (order == 0 && l.row == 0) { // the natural order, rows of JOB_ROW_GROUPS: the reference
                first = fc;
                first_step = step;
                keys = sim->fluvial().keys();
                rcv = sim->fluvial().receivers();
                acc = sim->fluvial().accumulation();
                terrain = sim->download(Field::Terrain);
                std::printf(
                    "%dx%d: rounds %u labels, %u basin graph + %u hook jumps, %u flats over %u tiles, %u jumps\n", c.w,
                    c.h, fc.rounds_label, fc.rounds_boruvka, fc.rounds_hook, fc.rounds_flats, fc.tiles_flats,
                    step.rounds_tree[0] + step.rounds_tree[1] + step.rounds_tree[2]);
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
            EXPECT_EQ(sim->fluvial().keys(), keys);
            EXPECT_EQ(sim->fluvial().receivers(), rcv);
            EXPECT_EQ(sim->fluvial().accumulation(), acc);
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
    EXPECT_EQ(sim->fluvial().hostControl().converged, 0u) << "4 rounds cannot follow the corridor";
    EXPECT_EQ(sim->fluvial().hostControl().rounds_flats, 4u);
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
    const std::vector<uint64_t> keys = exact->fluvial().keys();
    for (size_t i = 0; i < keys.size(); ++i)
        ASSERT_EQ(keys[i], f.steps[i] == 0xFFFFFFFFu ? ~0ull : ref::fillKey(f.level[i], f.steps[i])) << i;
    EXPECT_EQ(exact->fluvial().receivers(), ref::receivers(g, f));
}

} // namespace
} // namespace alluvium::test
