// Seed 003's rule for rivers under the water table (app/rivers.h): "Only rivers ending or coming
// from a water body are sustainable, all the others just deposit at their end-point."
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "rivers.h"

using namespace alluvium;

namespace {

struct Grid {
    int w, h;
    std::vector<float> ground, surface;
    std::vector<uint8_t> water, base;
    Grid(int w_, int h_)
        : w(w_), h(h_), ground(std::size_t(w_) * h_), surface(std::size_t(w_) * h_, 0.0f),
          water(std::size_t(w_) * h_, 0), base(std::size_t(w_) * h_, 0) {}
    std::size_t at(int x, int y) const { return std::size_t(y) * w + x; }
    RiverMap classify(double min_cells) const { return classifyRivers(ground, surface, water, base, w, h, min_cells); }
};

// A valley down the middle column (x = w/2) falling towards row `pit_row`, where it ends in a pit
// (the ground rises again beyond it); the sides fall towards the valley. Closed edges.
Grid valley(int w, int h, int pit_row) {
    Grid g(w, h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            g.ground[g.at(x, y)] = 10.0f * float(std::abs(x - w / 2)) + float(std::abs(y - pit_row)) + 100.0f;
    return g;
}

} // namespace

TEST(Rivers, DrainageCountsEveryCellOnce) {
    Grid g = valley(21, 31, 30);
    const RiverMap r = g.classify(5.0);
    // Every cell drains to the pit at the valley's end: it receives the whole grid.
    EXPECT_FLOAT_EQ(r.drainage[g.at(10, 30)], float(21 * 31));
    EXPECT_FLOAT_EQ(r.drainage[g.at(0, 0)], 1.0f);
}

TEST(Rivers, ARiverEndingInAPitIsDryAndOneEndingInALakeIsSustained) {
    Grid g = valley(21, 31, 30);
    RiverMap dry = g.classify(5.0);
    EXPECT_GT(dry.river_cells, 20);
    EXPECT_EQ(dry.sustained_cells, 0);
    EXPECT_EQ(dry.dry_cells, dry.river_cells);
    EXPECT_EQ(dry.dry_end_points, 1); // the pit at (10, 30)
    EXPECT_EQ(dry.kind[g.at(10, 20)], RiverKind::Dry);

    // A lake in the pit: the same river now ends at a water body.
    for (int x = 9; x <= 11; ++x) {
        g.water[g.at(x, 30)] = 1;
        g.surface[g.at(x, 30)] = 101.5f;
    }
    RiverMap wet = g.classify(5.0);
    EXPECT_EQ(wet.dry_cells, 0);
    EXPECT_EQ(wet.dry_end_points, 0);
    EXPECT_EQ(wet.sustained_cells, wet.river_cells);
    EXPECT_EQ(wet.kind[g.at(10, 20)], RiverKind::Sustained);
    EXPECT_EQ(wet.kind[g.at(10, 30)], RiverKind::None); // the lake itself is no river
}

TEST(Rivers, AnOpenEdgeSustainsTheRiversThatLeaveByIt) {
    Grid g = valley(21, 31, 30);
    for (int x = 0; x < g.w; ++x) g.base[g.at(x, g.h - 1)] = 1; // the bottom edge drains
    const RiverMap r = g.classify(5.0);
    EXPECT_EQ(r.dry_cells, 0);
    EXPECT_EQ(r.sustained_cells, r.river_cells);
}

TEST(Rivers, ARiverComingFromALakeIsSustainedBelowItsOutflow) {
    // Two parallel valleys falling to pits at the bottom row; the left one starts at a lake whose
    // surface stands above the valley's ground below it (the lake's outflow).
    const int w = 31, h = 41;
    Grid g(w, h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const int valley_x = x < w / 2 ? 7 : 23;
            g.ground[g.at(x, y)] = 10.0f * float(std::abs(x - valley_x)) + float(h - 1 - y) + 100.0f;
        }
    for (int x = 6; x <= 8; ++x) { // the lake, rows 0-1 of the left valley
        for (int y = 0; y <= 1; ++y) {
            g.water[g.at(x, y)] = 1;
            g.surface[g.at(x, y)] = 142.0f; // above the ground of row 2 (138 at the valley floor)
        }
    }
    const RiverMap r =
        g.classify(10.0); // the side slopes drain at most 7 cells a row: only the valley floors are rivers
    EXPECT_EQ(r.kind[g.at(7, 20)], RiverKind::Sustained); // fed by the lake
    EXPECT_EQ(r.kind[g.at(23, 20)], RiverKind::Dry);      // rain only, ends in a pit
    EXPECT_EQ(r.dry_end_points, 1);
    EXPECT_GT(r.sustained_cells, 30);
    EXPECT_GT(r.dry_cells, 30);
    // Below the threshold nothing is a river.
    EXPECT_EQ(g.classify(1e9).river_cells, 0);
}
