// The fluvial model's water bodies (issue 12, seed 003): the sea as base level. Cells below
// sea_level that reach an outlet through cells below it are ocean: outlets of the routing, their
// ground neither eroded nor raised, the sediment reaching them gone (sediment_out).
#include <gtest/gtest.h>

#include <cmath>

#include "gpu_fixture.h"
#include "test_util.h"

namespace alluvium::test {
namespace {

using gpu::Field;

class Lakes : public GpuTest {
protected:
    std::unique_ptr<gpu::Simulation> make(const std::vector<float>& z, int w, int h, const gpu::SimParams& p) {
        auto sim = std::make_unique<gpu::Simulation>(ctx(), w, h);
        sim->upload(Field::Terrain, z);
        sim->upload(Field::Terrain, z, true);
        sim->setParams(p);
        return sim;
    }
};

// A plane rising from x = 0 (the outlet edge) at 0.5 m a cell, 8 m below the sea at the edge, with
// a pit in the sea floor and, inland, a depression whose floor lies below the sea behind the
// plane's rising ground (not ocean: it reaches the sea only over land above it).
struct Coast {
    int w = 60, h = 31;
    std::vector<float> z;
    Coast() : z(size_t(w) * h) {
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) z[size_t(y * w + x)] = 0.5f * float(x) - 8.0f + 0.125f * float((x * 7 + y * 3) % 4);
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
    const std::vector<uint32_t> rcv = sim->fluvialReceivers();
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

} // namespace
} // namespace alluvium::test
