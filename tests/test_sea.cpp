// The sea: the ocean is the ground under the sea's surface connected to an open edge;
// it appears at once, holds still water at its surface, follows the tide, and rivers that reach
// it drop their sediment. And the equilibrium water table (seed 003): flat lakes, the table
// climbing into the ground beside them.
#include <cstdio>

#include "gpu_fixture.h"
#include "groundwater.h"
#include "models/sea.h"

namespace alluvium::test {
namespace {

using gpu::Field;

class SeaTest : public GpuTest {};

// 64 x 40 cells of 4 m: the sea floor (-6 m) along the left edge; a lagoon (-4 m) joined to it by
// a channel (-2 m); beside it, a basin (-3 m) behind a ridge whose top is at +2 m; land at +5 m
// elsewhere.
// Only the left edge is low: the other edges are land.
struct Coast {
    int w = 64, h = 40;
    ref::State s{64, 40};
    Coast() {
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                double b = 5.0;
                if (x < 14)
                    b = -6.0;
                else if (x < 30 && y >= 18 && y < 22)
                    b = -2.0; // the channel
                else if (x >= 30 && x < 40 && y >= 12 && y < 28)
                    b = -4.0; // the lagoon
                else if (x >= 40 && x < 52 && y >= 10 && y < 30)
                    b = (x == 40 || x == 51 || y == 10 || y == 29) ? 2.0 : -3.0;
                s.terrain[s.index(x, y)] = b;
            }
    }
    bool lagoon(int x, int y) const { return x >= 30 && x < 40 && y >= 12 && y < 28; }
    bool basin(int x, int y) const { return x >= 41 && x < 51 && y >= 11 && y < 29; }
};

Params seaParams() {
    Params q;
    q[Param::edge_mode] = EDGE_OPEN;
    q[Param::rain_rate] = 0.0;
    q[Param::evaporation_rate] = 0.0;
    q[Param::enable_sea] = 1;
    q[Param::sea_level] = 0.0;
    q[Param::enable_erosion] = 0; // the ground stays as built (the river test turns erosion on)
    q[Param::enable_thermal] = 0;
    return q;
}

// Switching the sea on fills every ocean cell in the first step, and raising sea_level fills the
// new ones at once; the basin behind the ridge fills only when the sea tops the ridge. The water
// the sea brings is counted.
TEST_F(SeaTest, SettingTheSeaFillsEveryOceanCellAtOnce) {
    Coast c;
    Params q = seaParams();
    auto sim = std::make_unique<gpu::Simulation>(ctx(), c.w, c.h);
    loadState(*sim, c.s, toSimParams(q, c.w, c.h));
    for (double level : {0.0, 1.0, 3.0}) {
        SCOPED_TRACE(level);
        q[Param::sea_level] = level;
        sim->setParams(toSimParams(q, c.w, c.h));
        const double before = sum(sim->download(Field::Water)) * 16.0;
        const double from_sea = sim->totals().acc[SLOT_SEA_IN];
        sim->run(1);
        const std::vector<float> d = sim->download(Field::Water);
        double filled = 0.0;
        int wrong = 0;
        for (int y = 0; y < c.h; ++y)
            for (int x = 0; x < c.w; ++x) {
                const double b = c.s.terrain[c.s.index(x, y)];
                const bool ocean = b < level && (!c.basin(x, y) || level > 2.0);
                const double want = ocean ? level - b : 0.0;
                if (std::abs(d[c.s.index(x, y)] - want) > 1e-4) ++wrong;
                filled += want * 16.0;
            }
        EXPECT_EQ(wrong, 0) << "spill in the basin " << sim->download(Field::SeaSpill)[c.s.index(50, 20)] << " water "
                            << d[c.s.index(50, 20)] << " commits " << gpu::seaControl(sim->sea()).commits;
        EXPECT_NEAR(sim->totals().acc[SLOT_SEA_IN] - from_sea, filled - before, 1e-4 * filled);
    }
}

// A lagoon joined to the sea by a channel, its still water 1.5 m above the sea: it is ocean, so
// it is at sea level after a step and stays still; the basin behind the ridge, also 1.5 m high,
// keeps its water. The water let into the sea is counted.
TEST_F(SeaTest, LakeConnectedToTheSeaSettlesToSeaLevel) {
    Coast c;
    for (int y = 0; y < c.h; ++y)
        for (int x = 0; x < c.w; ++x) {
            const size_t i = c.s.index(x, y);
            const double b = c.s.terrain[i];
            if (b < 0.0) c.s.water[i] = (c.lagoon(x, y) || c.basin(x, y) || (x >= 14 && x < 30)) ? 1.5 - b : -b;
        }
    const Params q = seaParams();
    auto sim = std::make_unique<gpu::Simulation>(ctx(), c.w, c.h);
    loadState(*sim, c.s, toSimParams(q, c.w, c.h));
    sim->run(300);
    const std::vector<float> d = sim->download(Field::Water), v = sim->download(Field::Velocity);
    double lagoon_worst = 0.0, basin_worst = 0.0, speed = 0.0, excess = 0.0;
    for (int y = 0; y < c.h; ++y)
        for (int x = 0; x < c.w; ++x) {
            const size_t i = c.s.index(x, y);
            const double surface = c.s.terrain[i] + d[i];
            if (c.lagoon(x, y)) lagoon_worst = std::max(lagoon_worst, std::abs(surface));
            if (c.basin(x, y)) basin_worst = std::max(basin_worst, std::abs(surface - 1.5));
            if (c.lagoon(x, y) || (x >= 14 && x < 30 && c.s.terrain[i] < 0.0)) excess += 1.5 * 16.0;
            speed = std::max(speed, double(std::hypot(v[2 * i], v[2 * i + 1])));
        }
    std::printf("[ lagoon ] surface off sea level by %.3g m, the basin off its level by %.3g m, "
                "max speed %.3g m/s\n",
                lagoon_worst, basin_worst, speed);
    EXPECT_LE(lagoon_worst, 1e-4);
    EXPECT_LE(basin_worst, 1e-4);
    EXPECT_LE(speed, 1e-4);
    EXPECT_NEAR(sim->totals().acc[SLOT_SEA_OUT] - sim->totals().acc[SLOT_SEA_IN], excess, 1e-4 * excess);
}

// A beach sloping from -4 m to +4 m: the tide (1 m, 60 s) drives the water surface at the shore at
// its period and amplitude (within 5%), and the intertidal ground is wet at high tide, dry at low.
TEST_F(SeaTest, TideDrivesTheShore) {
    const int w = 64, h = 6;
    ref::State s(w, h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) s.terrain[s.index(x, y)] = -4.0 + 8.0 * x / (w - 1);
    Params q = seaParams();
    q[Param::tide_amplitude] = 1.0;
    q[Param::tide_period] = 60.0;
    auto sim = std::make_unique<gpu::Simulation>(ctx(), w, h);
    loadState(*sim, s, toSimParams(q, w, h));
    const int shore = 20;      // ground -1.46 m: under water at every tide
    const int intertidal = 35; // ground +0.44 m
    std::vector<double> level, times, wet;
    for (int k = 0; k < 180; ++k) { // three periods, every second
        sim->run(10);
        const std::vector<float> d = sim->download(Field::Water);
        level.push_back(s.terrain[s.index(shore, 3)] + d[s.index(shore, 3)]);
        wet.push_back(d[s.index(intertidal, 3)]);
        times.push_back(sim->simTime());
    }
    const auto [lo, hi] = std::minmax_element(level.begin(), level.end());
    const double amplitude = 0.5 * (*hi - *lo);
    // The period: the mean spacing of the upward crossings of the mean level.
    std::vector<double> up;
    for (size_t k = 1; k < level.size(); ++k)
        if (level[k - 1] < 0.0 && level[k] >= 0.0)
            up.push_back(times[k - 1] + (times[k] - times[k - 1]) * (0.0 - level[k - 1]) / (level[k] - level[k - 1]));
    ASSERT_GE(up.size(), 2u);
    const double period = (up.back() - up.front()) / double(up.size() - 1);
    const double wet_high = *std::max_element(wet.begin(), wet.end()),
                 wet_low = *std::min_element(wet.begin(), wet.end());
    std::printf("[ tide ] amplitude %.4f m (1), period %.3f s (60); intertidal depth %.3f .. %.3f m\n", amplitude,
                period, wet_low, wet_high);
    EXPECT_NEAR(amplitude, 1.0, 0.05);
    EXPECT_NEAR(period, 60.0, 3.0);
    EXPECT_GT(wet_high, 0.3);
    EXPECT_LT(wet_low, 0.05);
}

// A river from a spring on a plane sloping into the sea: it erodes its course and drops its load
// where it meets the still sea, so the ground near its mouth gains more than the same length of
// its course upstream (the erosion and deposition maps).
TEST_F(SeaTest, RiverDropsItsLoadAtTheMouth) {
    const int w = 96, h = 40;
    ref::State s(w, h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) s.terrain[s.index(x, y)] = 12.0 - 18.0 * x / (w - 1) + 0.02 * std::abs(y - 20);
    Params q = seaParams();
    q[Param::record_maps] = 1;
    q[Param::enable_erosion] = 1;
    auto sim = std::make_unique<gpu::Simulation>(ctx(), w, h);
    loadState(*sim, s, toSimParams(q, w, h));
    sim->setSprings({{4.5f, 20.5f, 1.5f, 1.0f}});
    sim->run(4000);
    const std::vector<float> wear = sim->download(Field::Wear);
    const int shore = int(std::lround(12.0 / 18.0 * (w - 1))); // the ground at sea level
    // The net change of the ground (deposited - eroded, m summed over the cells) over 8 columns
    // from 3 cells above the shore into the sea, and over 8 columns of the river's course 30 cells
    // upstream.
    auto net = [&](int x0) {
        double sum = 0.0, deposited = 0.0;
        for (int y = 0; y < h; ++y)
            for (int x = x0; x < x0 + 8; ++x) {
                const size_t i = s.index(x, y);
                sum += wear[2 * i + 1] - wear[2 * i];
                deposited += wear[2 * i + 1];
            }
        return std::pair{sum, deposited};
    };
    const auto [mouth, mouth_deposited] = net(shore - 3);
    const auto [upstream, upstream_deposited] = net(shore - 33);
    double eroded = 0.0;
    for (size_t i = 0; i < wear.size(); i += 2) eroded += wear[i];
    std::printf("[ delta ] net deposition at the mouth %.4g m (deposited %.4g), 30 cells upstream "
                "%.4g m (deposited "
                "%.4g); eroded in all %.4g m; into the sea %.4g m^3\n",
                mouth, mouth_deposited, upstream, upstream_deposited, eroded, sim->totals().acc[SLOT_SEA_OUT]);
    EXPECT_GT(eroded, 1.0);
    EXPECT_GT(mouth, 0.3);
    EXPECT_GT(mouth, upstream + 0.3);
    EXPECT_GT(mouth_deposited, upstream_deposited);
    EXPECT_GT(sim->totals().acc[SLOT_SEA_OUT], 0.0);
}

// The equilibrium water table on an island of 61 x 61 cells: a cone whose foot is in the sea all
// round, with a caldera whose rim, 8 cells from the centre, is at 18 m and whose floor is at 6 m.
struct Island {
    int n = 61;
    ref::State s{61, 61};
    Island() {
        for (int y = 0; y < n; ++y)
            for (int x = 0; x < n; ++x) {
                const double r = std::hypot(x - 30.0, y - 30.0);
                s.terrain[s.index(x, y)] = r < 8.0 ? 18.0 - 1.5 * (8.0 - r) : 26.0 - r;
                s.aquifer_base[s.index(x, y)] = -40.0;
            }
    }
    Params params(double capillarity, double internal, bool sea = false) const {
        Params q;
        q[Param::enable_sea] = sea ? 1 : 0; // without: the outlet edges hold the table at their ground
        q[Param::sea_level] = 0.0;
        q[Param::table_tension_ground] = 20.0;
        q[Param::fluvial_outlets] = 0; // all edges
        q[Param::table_capillarity] = capillarity;
        q[Param::table_internal] = internal;
        q[Param::table_iterations] = 3000;
        return q;
    }
    // The lake's spill surface, and its cells (the spill surface above the ground).
    double spill(const gpu::Context& ctx) const {
        gpu::Simulation sim(ctx, n, n);
        Params q = params(0.0, 0.0);
        gpu::SimParams p = toSimParams(q, n, n);
        p.model = MODEL_FLUVIAL;
        loadState(sim, s, p);
        sim.updateSeaSpill();
        return sim.download(Field::SeaSpill)[s.index(30, 30)];
    }
    std::vector<bool> lakeCells(const gpu::Context& ctx) const {
        gpu::Simulation sim(ctx, n, n);
        gpu::SimParams p = toSimParams(params(0.0, 0.0), n, n);
        p.model = MODEL_FLUVIAL;
        loadState(sim, s, p);
        sim.updateSeaSpill();
        const std::vector<float> w = sim.download(Field::SeaSpill);
        std::vector<bool> lake(w.size());
        for (size_t i = 0; i < w.size(); ++i) lake[i] = w[i] > float(s.terrain[i]);
        return lake;
    }
    // The table and the lake level (the mean over the lake cells).
    std::vector<float> run(const gpu::Context& ctx, const Params& q, double* lake_level, double* lake_span) const {
        gpu::Simulation sim(ctx, n, n);
        loadState(sim, s, toSimParams(q, n, n));
        sim.upload(Field::AquiferBase, toFloat(s.aquifer_base));
        const uint32_t moving = sim.computeWaterTable(int(q[Param::table_iterations]));
        std::vector<float> t = sim.download(Field::WaterTable);
        double lo = 1e30, hi = -1e30, total = 0.0;
        int cells = 0;
        for (int y = 0; y < n; ++y)
            for (int x = 0; x < n; ++x)
                if (std::hypot(x - 30.0, y - 30.0) < 7.5) {
                    const double v = t[s.index(x, y)];
                    lo = std::min(lo, v), hi = std::max(hi, v), total += v, ++cells;
                }
        *lake_level = total / cells;
        *lake_span = hi - lo;
        std::printf("[ water table ] capillarity %g, internal %g: lake at %.5f m, flat to %.3g m; "
                    "%u cells still moving\n",
                    q[Param::table_capillarity], q[Param::table_internal], *lake_level, *lake_span, moving);
        return t;
    }
};

// Lakes come out flat (to 1e-4 m), and the table climbs into the ground beside them: the rise
// capillarity adds is positive at the shore and decreases away from it.
TEST_F(SeaTest, WaterTableLakesFlatAndCapillaryRise) {
    Island island;
    double level = 0.0, span = 0.0, level0 = 0.0, span0 = 0.0;
    const std::vector<float> wet = island.run(ctx(), island.params(10.0, 0.0), &level, &span);
    const std::vector<float> dry = island.run(ctx(), island.params(0.0, 0.0), &level0, &span0);
    EXPECT_LE(span, 1e-4);
    EXPECT_LE(span0, 1e-4);
    const double spill = island.spill(ctx());
    EXPECT_NEAR(level0, spill, 1e-3); // without capillarity, at its spill surface
    EXPECT_NEAR(level, spill, 0.01);
    // Along the ray east of the centre from the rim outward: the capillary rise.
    std::vector<double> rise;
    for (int x = 38; x < 46; ++x) rise.push_back(double(wet[island.s.index(x, 30)]) - dry[island.s.index(x, 30)]);
    std::printf("[ water table ] capillary rise east of the rim:");
    for (double r : rise) std::printf(" %.4f", r);
    std::printf(" m\n");
    EXPECT_GT(rise.front(), 0.05);
    for (size_t k = 1; k < rise.size(); ++k) EXPECT_LT(rise[k], rise[k - 1]) << k;
    EXPECT_GT(wet[island.s.index(38, 30)], level + 0.1); // above the lake beside it (the rim)
}

// With capillarity off and a strong internal potential, the table beside the lake lies at the
// lake's level and nowhere in the ground above it.
TEST_F(SeaTest, WaterTableWithoutCapillarityLiesAtTheLakeLevel) {
    Island island;
    double level = 0.0, span = 0.0;
    const std::vector<float> t = island.run(ctx(), island.params(0.0, 20.0), &level, &span);
    EXPECT_LE(span, 1e-4);
    const std::vector<bool> lake = island.lakeCells(ctx());
    double beside = 0.0, above = -1e30;
    int contacts = 0;
    for (int y = 1; y + 1 < island.n; ++y)
        for (int x = 1; x + 1 < island.n; ++x) {
            const size_t i = island.s.index(x, y);
            if (lake[i]) continue;
            above = std::max(above, double(t[i]) - level);
            const bool contact = lake[i - 1] || lake[i + 1] || lake[i - size_t(island.n)] || lake[i + size_t(island.n)];
            if (contact) beside = std::max(beside, std::abs(double(t[i]) - level)), ++contacts;
        }
    EXPECT_GT(contacts, 20);
    std::printf("[ water table ] no capillarity: beside the lake off its level by %.3g m, highest "
                "above it %.3g m\n",
                beside, above);
    EXPECT_LE(beside, 1e-4);
    EXPECT_LE(above, 1e-4);
}

} // namespace
} // namespace alluvium::test
