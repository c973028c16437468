// The viewer's brush (gpu/brush.h) against its double-precision twin (tests/reference/brush.cpp)
// on random fields of odd and square sizes, every tool; and the hand, which must put back
// exactly what it took, and smoothing, which must keep the ground's volume.
#include <algorithm>
#include <memory>

#include "brush.h"
#include "brush_reference.h"
#include "gpu_fixture.h"

namespace alluvium::test {
namespace {

constexpr double kTolerance = 1e-5;
using gpu::Field;

struct BrushCase {
    GridCase grid;
    int tool;
};

std::string caseName(const ::testing::TestParamInfo<BrushCase>& info) {
    return std::to_string(info.param.grid.w) + "x" + std::to_string(info.param.grid.h) + "_tool" +
           std::to_string(info.param.tool);
}

std::vector<BrushCase> allCases() {
    std::vector<BrushCase> cases;
    for (GridCase g : {GridCase{64, 64}, GridCase{97, 61}, GridCase{1, 50}})
        for (int tool : {BRUSH_TOOL_ADD_WATER, BRUSH_TOOL_REMOVE_WATER, BRUSH_TOOL_RAISE, BRUSH_TOOL_LOWER,
                         BRUSH_TOOL_SMOOTH, BRUSH_TOOL_FLATTEN, BRUSH_TOOL_HARDNESS, BRUSH_TOOL_PICK_UP,
                         BRUSH_TOOL_DROP, BRUSH_TOOL_UPLIFT, BRUSH_TOOL_RAIN})
            cases.push_back({g, tool});
    return cases;
}

gpu::BrushParams brushAt(int w, int h, int tool) {
    gpu::BrushParams p{};
    p.tool = tool;
    p.x = float(w) * 0.43f;
    p.y = float(h) * 0.57f;
    p.radius = std::max(2.5f, float(std::min(w, h)) * 0.3f);
    p.falloff = 0.7f;
    p.amount = tool == BRUSH_TOOL_SMOOTH ? 0.2f : 0.3f;
    p.target = tool == BRUSH_TOOL_HARDNESS ? 0.9f
               : tool == BRUSH_TOOL_UPLIFT ? 3.0f
               : tool == BRUSH_TOOL_RAIN   ? 0.2f
                                           : 40.0f;
    p.cell_area = 16.0f;
    return p;
}

class BrushTest : public GpuTest, public ::testing::WithParamInterface<BrushCase> {};

TEST_P(BrushTest, MatchesReference) {
    const BrushCase& c = GetParam();
    ref::State state = randomState(c.grid.w, c.grid.h, 7u + uint32_t(c.tool));
    gpu::Simulation sim(ctx(), c.grid.w, c.grid.h);
    loadState(sim, state, defaultParams(c.grid.w, c.grid.h));
    gpu::Brush brush(ctx(), sim);
    ref::BrushFields f{c.grid.w,
                       c.grid.h,
                       state.terrain,
                       state.water,
                       state.hardness,
                       std::vector<double>(state.terrain.size(), 1.0),
                       toDouble(sim.download(Field::RainMask))};
    ref::BrushSums sums{};
    if (c.tool == BRUSH_TOOL_DROP) { // something in the hand first
        const gpu::BrushParams pick = brushAt(c.grid.w, c.grid.h, BRUSH_TOOL_PICK_UP);
        brush.apply(pick);
        ref::applyBrush(f, pick, sums);
    }
    gpu::BrushParams p = brushAt(c.grid.w, c.grid.h, c.tool);
    if (c.tool == BRUSH_TOOL_DROP)
        p.amount =
            float(1.0 / (p.cell_area * gpu::brushWeightSum(c.grid.w, c.grid.h, p.x + 3, p.y, p.radius, p.falloff)));
    if (c.tool == BRUSH_TOOL_DROP) p.x += 3;
    brush.apply(p);
    ref::applyBrush(f, p, sums);
    EXPECT_LE(relativeError(sim.download(Field::Terrain), f.terrain), kTolerance);
    EXPECT_LE(relativeError(sim.download(Field::Water), f.water), kTolerance);
    EXPECT_LE(relativeError(sim.download(Field::Hardness), f.hardness), kTolerance);
    EXPECT_LE(relativeError(sim.download(Field::Uplift), f.uplift), kTolerance);
    EXPECT_LE(relativeError(sim.download(Field::RainMask), f.rain), kTolerance);
    const gpu::BrushTotals t = brush.totals();
    EXPECT_LE(relativeError(t.water_added, sums[BRUSH_WATER_ADDED]), kTolerance);
    EXPECT_LE(relativeError(t.water_removed, sums[BRUSH_WATER_REMOVED]), kTolerance);
    EXPECT_LE(relativeError(t.terrain_added, sums[BRUSH_TERRAIN_ADDED]), kTolerance);
    EXPECT_LE(relativeError(t.terrain_removed, sums[BRUSH_TERRAIN_REMOVED]), kTolerance);
    EXPECT_LE(relativeError(t.hand_picked, sums[BRUSH_HAND_PICKED]), kTolerance);
    EXPECT_LE(relativeError(t.hand_dropped, sums[BRUSH_HAND_DROPPED]), kTolerance);
    EXPECT_EQ(ctx().validation_errors->load(), 0);
}

INSTANTIATE_TEST_SUITE_P(Tools, BrushTest, ::testing::ValuesIn(allCases()), caseName);

// A random state on a w x h grid, its simulation and a brush on it.
class BrushMass : public GpuTest {
protected:
    void start(int w, int h, uint32_t seed) {
        state = randomState(w, h, seed);
        sim = std::make_unique<gpu::Simulation>(ctx(), w, h);
        loadState(*sim, state, defaultParams(w, h));
        brush = std::make_unique<gpu::Brush>(ctx(), *sim);
    }
    ref::State state{1, 1};
    std::unique_ptr<gpu::Simulation> sim;
    std::unique_ptr<gpu::Brush> brush;
};

TEST_F(BrushMass, SmoothingKeepsTheGroundVolume) {
    const int w = 61, h = 47;
    start(w, h, 11u);
    const double before = sum(sim->download(Field::Terrain));
    gpu::BrushParams p = brushAt(w, h, BRUSH_TOOL_SMOOTH);
    p.x = 2.0f; // across the edge: the edge is closed
    for (int i = 0; i < 5; ++i) brush->apply(p);
    EXPECT_LE(relativeError(sum(sim->download(Field::Terrain)), before), 1e-6);
}

// A strength and a long frame can ask for more smoothing than explicit diffusion takes at once
// (0.25): the brush splits it into equal applications, as its reference does; the result stays
// within the ground's old extremes (no checkerboard) and keeps its volume.
TEST_F(BrushMass, StrongSmoothingIsSplitIntoStableApplications) {
    const int w = 37, h = 29;
    start(w, h, 3u);
    const std::vector<float> before = sim->download(Field::Terrain);
    ref::BrushFields f{
        w, h, state.terrain, state.water, state.hardness, std::vector<double>(state.terrain.size(), 1.0)};
    ref::BrushSums sums{};
    gpu::BrushParams p = brushAt(w, h, BRUSH_TOOL_SMOOTH);
    p.amount = 3.1f; // 13 applications
    brush->apply(p);
    ref::applyBrush(f, p, sums);
    const std::vector<float> after = sim->download(Field::Terrain);
    EXPECT_LE(relativeError(after, f.terrain), kTolerance);
    EXPECT_LE(relativeError(sum(after), sum(before)), 1e-6);
    const auto [lo, hi] = std::minmax_element(before.begin(), before.end());
    for (float v : after) {
        EXPECT_GE(v, *lo - 1e-4f);
        EXPECT_LE(v, *hi + 1e-4f);
    }
}

TEST_F(BrushMass, TheHandPutsBackWhatItTook) {
    const int w = 80, h = 70;
    start(w, h, 5u);
    const double cell_area = 16.0;
    const double before = sum(sim->download(Field::Terrain)) * cell_area;
    gpu::BrushParams pick = brushAt(w, h, BRUSH_TOOL_PICK_UP);
    for (int i = 0; i < 3; ++i) brush->apply(pick);
    const double held = brush->totals().hand_picked;
    EXPECT_GT(held, 0.0);
    // Drop it elsewhere, spread by the brush's weights: volume V over the weight sum.
    gpu::BrushParams drop = brushAt(w, h, BRUSH_TOOL_DROP);
    drop.x = 20.5f;
    drop.y = 15.0f;
    drop.amount = float(1.0 / (cell_area * gpu::brushWeightSum(w, h, drop.x, drop.y, drop.radius, drop.falloff)));
    brush->apply(drop);
    const gpu::BrushTotals t = brush->totals();
    EXPECT_LE(relativeError(t.hand_dropped, held), 1e-6);
    EXPECT_LE(relativeError(sum(sim->download(Field::Terrain)) * cell_area, before), 1e-6);
}

} // namespace
} // namespace alluvium::test
