// The fluvial model's water bodies (seed 003). The sea as base level: cells below
// sea_level that reach an outlet through cells below it are ocean: outlets of the routing, their
// ground neither eroded nor raised, the sediment reaching them gone (sediment_out). Lakes that
// balance evaporation (lake_evaporation): the endorheic cone against R A_c / E and its spill
// threshold; on random grids the GPU's fill, routing and accumulation with the host's levels
// against the reference's (its own basins, bit for bit); E = 0 and a vanishing E give the old
// fill exactly. And the host's solve of 100,000 nested basins, on the default stack, in seconds.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>

#include "fluvial.h"
#include "models/lakes.h"

#include "gpu_fixture.h"
#include "test_util.h"

namespace alluvium::test {
namespace {

using gpu::Field;

class Lakes : public GpuTest {};

// A plane rising from x = 0 (the outlet edge) at 0.5 m a cell, 8 m below the sea at the edge, with
// a pit in the sea floor and, inland, a depression whose floor lies below the sea behind the
// plane's rising ground (not ocean: it reaches the sea only over land above it).
struct Coast {
    int w = 60, h = 31;
    std::vector<float> z;
    Coast() : z(size_t(w) * h) {
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x)
                z[size_t(y * w + x)] = 0.5f * float(x) - 8.0f + 0.125f * float((x * 7 + y * 3) % 4);
        at(5, 6) = -20.0f;
        for (int y = 10; y < 15; ++y)
            for (int x = 30; x < 35; ++x) at(x, y) = -3.0f;
    }
    float& at(int x, int y) { return z[size_t(y * w + x)]; }
    bool ocean(int x, int y) const { return x < 16 && z[size_t(y * w + x)] < 0.0f; }
};

gpu::SimParams coastParams(int w, int h, bool sea, float sea_level) {
    Params table;
    table[Param::cell_size] = 10.0;
    table[Param::fluvial_outlets] = 1; // left
    table[Param::stream_power_k] = 1e-4;
    table[Param::enable_sea] = sea ? 1 : 0;
    table[Param::sea_level] = sea_level;
    gpu::SimParams p = toSimParams(table, w, h);
    p.model = MODEL_FLUVIAL;
    return p;
}

TEST_F(Lakes, SlopingPlaneRoutesEveryCellIntoTheSeaAndTheSeaDoesNotErode) {
    Coast coast;
    const int w = coast.w, h = coast.h;
    auto sim = make(coast.z, w, h, coastParams(w, h, true, 0.0f));
    sim->fluvialAnalyse();
    const std::vector<uint32_t> rcv = sim->fluvial().receivers();
    const std::vector<float> lake = sim->download(Field::Lake);
    int ocean_cells = 0;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const size_t i = size_t(y * w + x);
            if (coast.ocean(x, y)) {
                ++ocean_cells;
                ASSERT_EQ(rcv[i], i) << x << "," << y << ": the ocean is base level";
                ASSERT_EQ(lake[i], 0.0f - coast.z[i]) << x << "," << y << ": the sea drawn as water, at sea level";
                continue;
            }
            // Every land cell's path ends in the ocean (none at a land outlet, none in a pit).
            size_t k = i;
            for (int n = 0; n < w * h && rcv[k] != k; ++n) k = rcv[k];
            ASSERT_TRUE(coast.ocean(int(k % size_t(w)), int(k / size_t(w)))) << x << "," << y << " ends at " << k;
        }
    EXPECT_GT(ocean_cells, 16 * h - h);
    // The inland depression is a lake filled to its spill above the sea, not ocean.
    const size_t inland = size_t(12 * w + 32);
    EXPECT_GT(coast.z[inland] + lake[inland], 0.0f);
    EXPECT_NE(rcv[inland], inland);

    // Iterations: the ocean's ground stays bit for bit and nothing erodes or deposits there; the
    // land erodes and its sediment leaves into the sea.
    sim->run(5);
    const std::vector<float> z5 = sim->download(Field::Terrain);
    const std::vector<float> wear = sim->download(Field::Wear);
    double eroded = 0.0, deposited = 0.0;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const size_t i = size_t(y * w + x);
            eroded += wear[2 * i], deposited += wear[2 * i + 1];
            if (!coast.ocean(x, y)) continue;
            ASSERT_EQ(z5[i], coast.z[i]) << x << "," << y;
            ASSERT_EQ(wear[2 * i], 0.0f) << x << "," << y;
            ASSERT_EQ(wear[2 * i + 1], 0.0f) << x << "," << y;
        }
    EXPECT_GT(eroded, 0.0);
    EXPECT_GT(eroded - deposited, 0.0) << "sediment_out: what reached the sea";
}

TEST_F(Lakes, AClosedLakeBelowTheSeaLevelInlandIsNoOcean) {
    // With strong evaporation the inland depression (floor 3 m below the sea, behind land above
    // it) holds a small closed lake whose level lies below the sea: a lake with its sink, not
    // ocean; the sea's cells stay base level at the sea's surface.
    Coast coast;
    const int w = coast.w, h = coast.h;
    gpu::SimParams p = coastParams(w, h, true, 0.0f);
    p.lake_evaporation = float(50.0 / 3.15576e7);
    p.fluvial_rainfall = float(1.0 / 3.15576e7);
    auto sim = make(coast.z, w, h, p);
    sim->fluvialAnalyse();
    const std::vector<uint32_t> rcv = sim->fluvial().receivers();
    const std::vector<float> lake = sim->download(Field::Lake);
    const std::vector<uint64_t> keys = sim->fluvial().keys();
    const size_t pit = size_t(10 * w + 30); // the depression's flat floor drains to its first cell
    EXPECT_EQ(rcv[pit], pit);
    EXPECT_LT(ref::fromOrderedBits(uint32_t(keys[pit] >> 32)), 0.0f) << "its level is below the sea";
    EXPECT_GE(sim->fluvial().lakes.closed_lakes, 1);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            if (coast.ocean(x, y)) {
                const size_t i = size_t(y * w + x);
                ASSERT_EQ(rcv[i], i);
                ASSERT_EQ(lake[i], 0.0f - coast.z[i]);
            }
}

TEST_F(Lakes, WithoutAnOceanTheSeaChangesNothing) {
    // The sea off, or on but below every cell: the same iterations, bit for bit.
    Coast coast;
    const int w = coast.w, h = coast.h;
    auto off = make(coast.z, w, h, coastParams(w, h, false, 0.0f));
    auto low = make(coast.z, w, h, coastParams(w, h, true, -100.0f));
    off->run(3);
    low->run(3);
    EXPECT_EQ(off->download(Field::Terrain), low->download(Field::Terrain));
    EXPECT_EQ(off->download(Field::Wear), low->download(Field::Wear));
    EXPECT_EQ(off->download(Field::Lake), low->download(Field::Lake));
}

// ---- Lakes that balance evaporation ----

gpu::SimParams lakeParams(int w, int h, double evaporation, double rainfall, int outlets = 0) {
    Params table;
    table[Param::cell_size] = 10.0;
    table[Param::fluvial_outlets] = outlets;
    table[Param::lake_evaporation] = evaporation;
    table[Param::fluvial_rainfall] = rainfall;
    gpu::SimParams p = toSimParams(table, w, h);
    p.model = MODEL_FLUVIAL;
    return p;
}

// A conical depression (0.5 m a cell, a small deterministic roughness that breaks the ties of
// equal radii) inside a flat ring wall at 40 m; outside the wall the ground stands at 30 m and
// drains to the outlet edges. Its one basin holds the cone and the wall cells that drain inward.
struct Cone {
    int w = 61, h = 61;
    std::vector<float> z;
    std::vector<uint32_t> labels;
    uint32_t basin = 0;
    size_t catchment = 0, below_rim = 0; // cells: the basin's, those below its pass (40 m)
    Cone() : z(size_t(w) * h) {
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                const double r = std::hypot(double(x - 30), double(y - 30));
                z[size_t(y * w + x)] = r <= 24.0   ? float(2.0 + 0.5 * r + 0.001 * double((x * 37 + y * 11) % 97))
                                       : r <= 26.0 ? 40.0f
                                                   : 30.0f;
            }
        labels = ref::basinLabels(ref::FluvialGrid{w, h}, z);
        basin = labels[size_t(30 * w + 30)];
        for (size_t i = 0; i < z.size(); ++i)
            if (labels[i] == basin) ++catchment, below_rim += z[i] < 40.0f ? 1 : 0;
    }
};

// The lake the analysis leaves: the cells that hold water and the level at the sink.
struct LakeExtent {
    size_t wet = 0;
    float level = 0.0f;
};

LakeExtent analyseLake(gpu::Simulation& sim, uint32_t sink) {
    sim.fluvialAnalyse();
    LakeExtent lake;
    for (float depth : sim.download(Field::Lake)) lake.wet += depth > 0.0f ? 1 : 0;
    lake.level = ref::fromOrderedBits(uint32_t(sim.fluvial().keys()[sink] >> 32));
    return lake;
}

TEST_F(Lakes, EndorheicConeGrowsALakeOfAreaRainTimesCatchmentOverEvaporation) {
    Cone cone;
    const int w = cone.w, h = cone.h;
    const double cell = 100.0; // m^2
    // The whole inside of the wall is one basin (the roughness makes no pits of its own).
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            if (std::hypot(double(x - 30), double(y - 30)) <= 24.0) {
                ASSERT_EQ(cone.labels[size_t(y * w + x)], cone.basin);
            }
    ASSERT_GT(cone.catchment, cone.below_rim); // the wall's inner cells drain in
    const double evaporation = 1.0;            // m/yr
    for (double rain : {0.05, 0.2, 0.5, 0.8}) {
        SCOPED_TRACE(::testing::Message() << "R " << rain << " m/yr");
        auto sim = make(cone.z, w, h, lakeParams(w, h, evaporation, rain));
        const uint32_t sink = uint32_t(30 * w + 30);
        const LakeExtent lake = analyseLake(*sim, sink);
        const double want = rain * double(cone.catchment) * cell / evaporation; // R A_c / E
        const double area = double(lake.wet) * cell;
        // The lake covers whole cells: those below its level evaporate at most the inflow, and
        // the next cell (or group of cells of one height) at the level would evaporate more.
        size_t at_level = 0;
        for (size_t i = 0; i < cone.z.size(); ++i)
            at_level += cone.labels[i] == cone.basin && cone.z[i] == lake.level ? 1 : 0;
        EXPECT_LE(area, want * (1.0 + 1e-9));
        EXPECT_GT(area + double(std::max<size_t>(at_level, 1)) * cell, want);
        EXPECT_EQ(sim->fluvial().lakes.closed_lakes, 1);
        EXPECT_EQ(sim->fluvial().lakes.closed_area_m2, area);
        EXPECT_EQ(sim->fluvial().receivers()[sink], sink) << "the lake's sink is its pit";
        // Every cell of the basin drains into it: its catchment's rain arrives there.
        EXPECT_EQ(sim->download(Field::Drainage)[sink], float(double(cone.catchment) * cell));
        std::printf("    R %.2f m/yr: lake %.0f m^2, R A_c / E %.0f m^2 (%zu cells at the level)\n", rain, area, want,
                    at_level);
    }
}

TEST_F(Lakes, EndorheicConeSpillsExactlyWhenInflowExceedsEvaporationAtTheRim) {
    Cone cone;
    const int w = cone.w, h = cone.h;
    const uint32_t sink = uint32_t(30 * w + 30);
    const double evaporation = 2.0;
    // R A_c / E half a cell below and half a cell above the basin's area at its rim.
    for (double margin : {-0.5, 0.5}) {
        SCOPED_TRACE(::testing::Message() << "R A_c / E = rim area " << (margin < 0 ? "-" : "+") << " half a cell");
        const double rain = evaporation * (double(cone.below_rim) + margin) / double(cone.catchment);
        auto sim = make(cone.z, w, h, lakeParams(w, h, evaporation, rain));
        const LakeExtent lake = analyseLake(*sim, sink);
        const float level = lake.level;
        const size_t wet = lake.wet;
        const std::vector<uint32_t> rcv = sim->fluvial().receivers();
        if (margin < 0) { // closed, one cell short of the brim
            EXPECT_EQ(sim->fluvial().lakes.closed_lakes, 1);
            EXPECT_LT(level, 40.0f);
            EXPECT_EQ(wet, cone.below_rim - 1);
            EXPECT_EQ(rcv[sink], sink);
        } else { // full to the rim: it spills; no closed lake, the pit drains over the flat
            EXPECT_EQ(sim->fluvial().lakes.closed_lakes, 0);
            EXPECT_EQ(level, 40.0f);
            EXPECT_EQ(wet, cone.below_rim);
            EXPECT_NE(rcv[sink], sink);
        }
    }
}

TEST_F(Lakes, LakeLevelsRoutingAndDrainageEqualTheReferenceOnRandomGrids) {
    // Odd sizes, random rain masks, evaporation from a trickle to far more than the rain: the
    // GPU's basins, filled levels and flat steps (bit for bit), receivers and accumulation
    // (exact) against the reference's own basins with the host's levels.
    struct Case {
        int w, h, outlets;
    };
    const Case cases[] = {{97, 61, 0}, {1, 50, 3}, {50, 1, 1}, {33, 17, 5}};
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    uint32_t seed = 200;
    int closed_total = 0;
    for (const Case& c : cases)
        for (double evaporation : {0.01, 1.0, 3.0, 50.0}) {
            SCOPED_TRACE(::testing::Message() << c.w << "x" << c.h << " E " << evaporation);
            const std::vector<float> z = pittedTerrain(c.w, c.h, ++seed);
            std::vector<float> rain(z.size());
            for (float& r : rain) r = u(rng);
            const gpu::SimParams p = lakeParams(c.w, c.h, evaporation, 1.0, c.outlets);
            auto sim = make(z, c.w, c.h, p);
            sim->upload(Field::RainMask, rain);
            sim->fluvialAnalyse();
            const ref::FluvialGrid g{c.w, c.h, p.fluvial_outlets};
            const std::vector<uint32_t> labels = ref::basinLabels(g, z);
            ASSERT_EQ(sim->fluvial().basins(), labels);
            std::vector<double> inflow(z.size());
            for (size_t i = 0; i < z.size(); ++i) inflow[i] = 1.0 * double(rain[i]) * 100.0;
            const gpu::LakeSolve s = gpu::solveLakes(c.w, c.h, z, labels, inflow, evaporation * 100.0);
            closed_total += s.closed_lakes;
            EXPECT_EQ(sim->fluvial().lakes.closed_lakes, s.closed_lakes);
            const ref::Fill f = ref::fillWithLevels(g, z, labels, s.level, s.sink);
            const std::vector<uint64_t> keys = sim->fluvial().keys();
            size_t mismatch = 0, first = SIZE_MAX;
            for (size_t i = 0; i < keys.size(); ++i)
                if (keys[i] != ref::fillKey(f.level[i], f.steps[i]) && mismatch++ == 0) first = i;
            EXPECT_EQ(mismatch, 0u) << "first at cell " << first;
            const std::vector<uint32_t> rcv = ref::receivers(g, f);
            EXPECT_EQ(sim->fluvial().receivers(), rcv);
            EXPECT_EQ(sim->fluvial().accumulation(), ref::accumulate(rcv, ref::rainWeights(rain)));
            const std::vector<float> lake = sim->download(Field::Lake);
            for (size_t i = 0; i < z.size(); ++i) ASSERT_EQ(lake[i], std::max(f.level[i] - z[i], 0.0f)) << i;
            // Every path ends at an outlet or a closed lake's sink.
            for (size_t i = 0; i < z.size(); ++i)
                if (rcv[i] == i && !g.isOutlet(int(i % size_t(c.w)), int(i / size_t(c.w)))) {
                    ASSERT_EQ(s.sink[labels[i]], i) << i;
                }
        }
    EXPECT_GT(closed_total, 20);
}

TEST_F(Lakes, NoEvaporationOrAVanishingOneGivesTheOldFillExactly) {
    // E = 0 (whatever the rainfall), and E so small that every basin fills to its spill: the
    // fill, routing and accumulation of the old model, bit for bit, and so are two iterations.
    const int w = 97, h = 61;
    const std::vector<float> z = pittedTerrain(w, h, 77);
    auto old = make(z, w, h, lakeParams(w, h, 0.0, 1.0));
    auto dry = make(z, w, h, lakeParams(w, h, 0.0, 7.0));
    auto tiny = make(z, w, h, lakeParams(w, h, 1e-9, 100.0));
    for (auto* s : {old.get(), dry.get(), tiny.get()}) s->fluvialAnalyse();
    EXPECT_EQ(old->fluvial().keys(), dry->fluvial().keys());
    EXPECT_EQ(old->fluvial().keys(), tiny->fluvial().keys());
    EXPECT_EQ(old->fluvial().receivers(), tiny->fluvial().receivers());
    EXPECT_EQ(old->fluvial().accumulation(), tiny->fluvial().accumulation());
    EXPECT_EQ(tiny->fluvial().lakes.closed_lakes, 0);
    old->run(2);
    dry->run(2);
    EXPECT_EQ(old->download(Field::Terrain), dry->download(Field::Terrain));
}

TEST_F(Lakes, ClosedLakesDoNotErodeAndKeepTheSedimentThatReachesThem) {
    // Stream power on, no deposition term (G = 0): what the streams erode either leaves at the
    // outlets or stays in the closed lakes, on their sinks; lake cells do not erode.
    const int w = 97, h = 61;
    const std::vector<float> z = pittedTerrain(w, h, 91);
    Params table;
    table[Param::cell_size] = 10.0;
    table[Param::stream_power_k] = 1e-4;
    table[Param::fluvial_deposition] = 0.0;
    table[Param::lake_evaporation] = 3.0;
    gpu::SimParams p = toSimParams(table, w, h);
    p.model = MODEL_FLUVIAL;
    auto sim = make(z, w, h, p);
    sim->fluvialAnalyse();
    const std::vector<float> lake = sim->download(Field::Lake);
    const std::vector<uint32_t> rcv = sim->fluvial().receivers();
    ASSERT_GT(sim->fluvial().lakes.closed_lakes, 0);
    sim->run(1);
    const std::vector<float> wear = sim->download(Field::Wear);
    // The closed lakes' cells (their basins') and dry pans' pits.
    const ref::FluvialGrid g{w, h, p.fluvial_outlets};
    const std::vector<uint32_t> labels = ref::basinLabels(g, z);
    std::vector<char> closed(labels.size(), 0);
    for (size_t i = 0; i < z.size(); ++i)
        if (rcv[i] == i && !g.isOutlet(int(i % size_t(w)), int(i / size_t(w)))) closed[labels[i]] = 1;
    double eroded = 0.0, deposited = 0.0;
    for (size_t i = 0; i < z.size(); ++i) {
        eroded += wear[2 * i], deposited += wear[2 * i + 1];
        if (lake[i] > 0.0f) {
            ASSERT_EQ(wear[2 * i], 0.0f) << i;
        }
        const bool in_closed_lake = labels[i] != FLUVIAL_OCEAN && closed[labels[i]] && (lake[i] > 0.0f || rcv[i] == i);
        if (!in_closed_lake) {
            ASSERT_EQ(wear[2 * i + 1], 0.0f) << i << ": G = 0 deposits only in closed lakes";
        } else if (lake[i] > 0.0f) {
            // Spread over the lake in proportion to its depth: never above its surface.
            ASSERT_LE(wear[2 * i + 1], lake[i] * (1.0f + 1e-5f)) << i;
        }
    }
    EXPECT_GT(eroded, 0.0);
    EXPECT_GT(deposited, 0.0);
    EXPECT_LE(deposited, eroded * (1.0 + 1e-5));
}

// 100,000 basins nested one in the next: a row of pits, pit j at -j, between walls rising by one
// (wall j, at j + 1 between pit j and pit j + 1, drains into the deeper pit j + 1); no outlet. So
// basin 0 is its pit alone, basin j its pit and wall j - 1, and the lowest pass out of basins
// 0 .. j is wall j: the merge tree is a chain N deep, which the recursive solve went down one
// stack frame a level (and walked every basin below at every level: minutes). Each pit receives
// 1, a lake cell loses E = 15/16. Basins 0 .. j hold the 2j + 1 cells -j .. j below their exit
// j + 1; basin j alone holds its pit below its exit j, fills with 1 and spills 1/16 more than the
// basin above spilled into it: (N - j) / 16 into basin j - 1. So basins 0 .. j receive
// Q = j + 1 + (N - 1 - j) / 16, enough for floor(Q / E) = j + 1 + floor(N / 15) cells, which
// would fill them (2j + 1 cells) only for j <= N / 15: going down, the solve splits at every
// level (the level of the k-th lowest cell, J = 1 + floor(N / 15), lies below the pass j) until
// j = J, where basins 0 .. J hold one closed lake at J, exactly their pass. Above it every basin
// is full to its exit j. Forward and mirrored: the chain's basins come first, then last, in the
// depth-first order (its inflows are sums over prefixes, then suffixes).
TEST(LakeSolve, HundredThousandNestedBasinsSolveIterativelyInSeconds) {
    const int n = 100000, w = 2 * n, h = 1;
    const int J = n / 15 + 1; // the closed lake's level
    for (bool mirrored : {false, true}) {
        SCOPED_TRACE(mirrored ? "mirrored" : "forward");
        auto cell = [&](int x) { return mirrored ? w - 1 - x : x; };
        std::vector<float> z(size_t(w) * size_t(h));
        std::vector<double> inflow(z.size(), 0.0);
        std::vector<uint32_t> labels(z.size());
        for (int j = 0; j < n; ++j) {
            const int pit = cell(2 * j), wall = cell(2 * j + 1);
            z[size_t(pit)] = -float(j);
            z[size_t(wall)] = float(j + 1);
            inflow[size_t(pit)] = 1.0;
            labels[size_t(pit)] = uint32_t(pit / 2); // the pit's 2x2 block
            labels[size_t(wall)] = uint32_t(j + 1 < n ? cell(2 * j + 2) / 2 : pit / 2);
        }
        ASSERT_EQ(labels, ref::basinLabels(ref::FluvialGrid{w, h, 0}, z)) << "the GPU's basins";
        const auto start = std::chrono::steady_clock::now();
        const gpu::LakeSolve s = gpu::solveLakes(w, h, z, labels, inflow, 15.0 / 16.0);
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        EXPECT_LT(seconds, 5.0);
        std::printf("    %s: %d nested basins solved in %.3f s\n", mirrored ? "mirrored" : "forward", n, seconds);
        EXPECT_EQ(s.basins, n);
        EXPECT_EQ(s.closed_lakes, 1);
        EXPECT_EQ(s.closed_cells, uint64_t(2 * J)); // the cells -J .. J - 1
        for (int j = 0; j < n; ++j) {
            const uint32_t pit = uint32_t(cell(2 * j)), block = pit / 2;
            const bool lake = j <= J;
            ASSERT_EQ(s.level[block], ref::orderedBits(float(lake ? J : j))) << "basin " << j;
            ASSERT_EQ(s.sink[block], lake ? pit : FLUVIAL_NONE) << "basin " << j;
            // J - z over the cells below J: the pit (J + j) and wall j - 1 (J - j).
            const double volume = !lake ? 0.0 : j == 0 ? double(J) : 2.0 * J;
            ASSERT_EQ(s.volume[block], volume) << "basin " << j;
        }
    }
}

} // namespace
} // namespace alluvium::test
