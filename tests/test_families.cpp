// The thermal and Olsen families (seed 001) on the shared state: GPU vs reference, mass
// conservation, convergence to the talus slope, Olsen's plateaus-and-cliffs, model switching.
#include <cstdio>

#include "gpu_fixture.h"
#include "grid_models.h"

namespace alluvium::test {
namespace {

using gpu::Field;
using gpu::Pass;

gpu::SimParams familyParams(int w, int h, int model, int neighbourhood) {
    gpu::SimParams p = defaultParams(w, h);
    p.model = model;
    p.talus_neighbourhood = neighbourhood;
    return p;
}

// Largest slope excess over the talus, over the neighbourhood's pairs.
double maxExcess(const std::vector<float>& b, int w, int h, double cell, double talus, int hood) {
    static constexpr int dx[8] = {-1, 1, 0, 0, -1, 1, -1, 1};
    static constexpr int dy[8] = {0, 0, -1, 1, -1, -1, 1, 1};
    double worst = -INFINITY;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            for (int k = 0; k < 8; ++k) {
                if (hood == NEIGHBOURS_VON_NEUMANN && k >= 4) continue;
                if (hood == NEIGHBOURS_ROTATED && k < 4) continue;
                const int nx = x + dx[k], ny = y + dy[k];
                if (nx < 0 || ny < 0 || nx >= w || ny >= h) continue;
                const double dist = (k < 4 ? 1.0 : std::sqrt(2.0)) * cell;
                const double slope = (b[size_t(y * w + x)] - b[size_t(ny * w + nx)]) / dist;
                worst = std::max(worst, slope - talus);
            }
    return worst;
}

struct FamilyCase {
    GridCase grid;
    uint32_t seed;
    int model;
};

std::vector<FamilyCase> familyCases() {
    std::vector<FamilyCase> cases;
    for (int model : {MODEL_THERMAL, MODEL_OLSEN})
        for (const GridCase& g : gridCases())
            for (uint32_t seed : {1u, 2u, 3u}) cases.push_back({g, seed, model});
    return cases;
}

std::string familyName(const ::testing::TestParamInfo<FamilyCase>& info) {
    return std::string(gpu::modelName(info.param.model)) + "_" + std::to_string(info.param.grid.w) + "x" +
           std::to_string(info.param.grid.h) + "_seed" + std::to_string(info.param.seed) +
           (info.param.seed == 3 ? "_layers" : "");
}

class FamilyPassTest : public GpuTest, public ::testing::WithParamInterface<FamilyCase> {};

// Seeds pick the neighbourhood: 1 von Neumann, 2 rotated (diagonals), 3 Moore on layered ground.
TEST_P(FamilyPassTest, MatchesReference) {
    const FamilyCase& c = GetParam();
    ref::State s = randomState(c.grid.w, c.grid.h, c.seed);
    gpu::SimParams p = familyParams(s.w, s.h, c.model, int(c.seed) - 1);
    p.enable_layers = c.seed == 3 ? 1 : 0;
    gpu::Simulation sim(ctx(), s.w, s.h);
    loadState(sim, s, p);
    sim.run(1); // talus_outflow (each cell's transfer rate), talus_gather
    ref::State want = s;
    ref::talusOutflow(want, p);
    ref::talusGather(want, p);
    const std::vector<float> b = sim.download(Field::Terrain);
    EXPECT_LE(relativeError(b, want.terrain), 1e-5);
    EXPECT_LE(looseErrorOverGround(sim.download(Field::Loose), want.loose, want.terrain), 1e-5);
    // Mass-exact up to float rounding; only the ground's half changed, the other fields are the
    // same images with the same bits.
    EXPECT_LE(std::abs(sum(b) - sum(toFloat(s.terrain))), double(b.size()) * 8.0 * 1.2e-7);
    EXPECT_EQ(sim.download(Field::Water), toFloat(s.water));
    EXPECT_EQ(sim.download(Field::Sediment), toFloat(s.sediment));
    EXPECT_EQ(sim.download(Field::Outflow), toFloat(s.outflow));
    double moved = 0.0;
    for (const auto& a : want.thermal_axis) moved += a[0] + a[1] + a[2] + a[3];
    for (const auto& a : want.thermal_diag) moved += a[0] + a[1] + a[2] + a[3];
    if (c.grid.w > 1 && c.grid.h > 1) {
        EXPECT_GT(moved, 0.0) << "nothing moved: vacuous";
    }
}

INSTANTIATE_TEST_SUITE_P(RandomFields, FamilyPassTest, ::testing::ValuesIn(familyCases()), familyName);

class FamilyTest : public GpuTest {};

// Rough random ground, every neighbourhood: enough iterations leave no slope steeper than the
// talus slope by more than 1e-4.
TEST_F(FamilyTest, ThermalConvergesToTalus) {
    for (int hood : {NEIGHBOURS_VON_NEUMANN, NEIGHBOURS_ROTATED, NEIGHBOURS_MOORE}) {
        ref::State s = randomState(64, 48, 40u + uint32_t(hood));
        gpu::SimParams p = familyParams(s.w, s.h, MODEL_THERMAL, hood);
        gpu::Simulation sim(ctx(), s.w, s.h);
        loadState(sim, s, p);
        const double before = sum(sim.download(Field::Terrain));
        const double start = maxExcess(toFloat(s.terrain), s.w, s.h, p.cell_size, p.talus_slope, hood);
        int steps = 0;
        double excess = start;
        while (excess > 1e-4 && steps < 4000) {
            sim.run(100);
            steps += 100;
            excess = maxExcess(sim.download(Field::Terrain), s.w, s.h, p.cell_size, p.talus_slope, hood);
        }
        const double after = sum(sim.download(Field::Terrain));
        std::printf("[ thermal, %s ] max slope excess %.3g -> %.3g after %d steps; mass change %.3g\n",
                    hood == 0   ? "von Neumann"
                    : hood == 1 ? "rotated"
                                : "Moore",
                    start, excess, steps, std::abs(after - before) / before);
        EXPECT_LE(excess, 1e-4);
        EXPECT_LE(std::abs(after - before) / before, 1e-6);
    }
}

// Rough ground (3 m of noise) with a 40 m cliff across it: Olsen's erosion flattens the gentle ground
// (the share of cells at or below the talus slope grows) and leaves the cliff standing.
TEST_F(FamilyTest, OlsenFlattensAndKeepsCliffs) {
    const int w = 96, h = 64;
    ref::State s(w, h);
    std::mt19937 rng(5);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    const double cell = 1.0, cliff = 40.0;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) s.terrain[s.index(x, y)] = (x >= w / 2 ? cliff : 0.0) + 3.0 * u(rng);
    roundToFloat(s);
    gpu::SimParams p = familyParams(w, h, MODEL_OLSEN, NEIGHBOURS_MOORE);
    p.cell_size = float(cell);
    p.olsen_talus_slope = 2.0f; // the cliff (40 m over one cell) is far steeper than twice this
    gpu::Simulation sim(ctx(), w, h);
    loadState(sim, s, p);
    auto flatShare = [&](const std::vector<float>& b) {
        int flat = 0;
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                double steepest = 0.0;
                for (int dy = -1; dy <= 1; ++dy)
                    for (int dx = -1; dx <= 1; ++dx) {
                        const int nx = x + dx, ny = y + dy;
                        if ((dx == 0 && dy == 0) || nx < 0 || ny < 0 || nx >= w || ny >= h) continue;
                        const double slope =
                            (b[size_t(y * w + x)] - b[size_t(ny * w + nx)]) / (std::hypot(dx, dy) * cell);
                        steepest = std::max(steepest, slope);
                    }
                flat += steepest <= 0.5 ? 1 : 0;
            }
        return double(flat) / (w * h);
    };
    // The cliff's height: the plateau's level minus the base's, each the mean of an 8-cell band
    // beside the cliff line (single edge cells gather what slides toward them).
    auto cliffHeight = [&](const std::vector<float>& b) {
        double top = 0.0, bottom = 0.0;
        for (int y = 0; y < h; ++y)
            for (int k = 0; k < 8; ++k) {
                top += b[size_t(y * w + w / 2 + k)];
                bottom += b[size_t(y * w + w / 2 - 1 - k)];
            }
        return (top - bottom) / (8.0 * h);
    };
    const std::vector<float> b0 = sim.download(Field::Terrain);
    sim.run(50);
    const std::vector<float> b1 = sim.download(Field::Terrain);
    std::printf("[ olsen ] share of cells with slope <= 0.5: %.3f -> %.3f; cliff %.3f m -> %.3f m\n", flatShare(b0),
                flatShare(b1), cliffHeight(b0), cliffHeight(b1));
    EXPECT_GT(flatShare(b1), flatShare(b0) + 0.2);
    EXPECT_NEAR(cliffHeight(b1), cliffHeight(b0), 0.01 * cliffHeight(b0));
    EXPECT_NEAR(sum(b1), sum(b0), 1e-6 * sum(b0));
}

// Pipe, then thermal, then pipe again on one Simulation: the terrain carries over, the thermal
// steps change only the ground, and nothing blows up.
TEST_F(FamilyTest, SwitchingModelsKeepsTheState) {
    ref::State s = randomState(64, 48, 9);
    gpu::SimParams pipe = defaultParams(s.w, s.h);
    gpu::Simulation sim(ctx(), s.w, s.h);
    loadState(sim, s, pipe);
    sim.run(30);
    const std::vector<float> water = sim.download(Field::Water);
    const std::vector<float> sediment = sim.download(Field::Sediment);
    const std::vector<float> terrain = sim.download(Field::Terrain);

    gpu::SimParams thermal = pipe;
    thermal.model = MODEL_THERMAL;
    sim.setParams(thermal);
    sim.run(5);
    EXPECT_EQ(sim.download(Field::Water), water);
    EXPECT_EQ(sim.download(Field::Sediment), sediment);
    const std::vector<float> after = sim.download(Field::Terrain);
    EXPECT_NE(after, terrain) << "thermal did nothing: vacuous";
    EXPECT_NEAR(sum(after), sum(terrain), 1e-6 * sum(terrain));

    // The reference, started from the GPU's state, agrees with the five thermal steps.
    ref::State r = s;
    r.terrain = toDouble(terrain);
    for (int i = 0; i < 5; ++i) {
        ref::talusOutflow(r, thermal);
        ref::thermalGather(r);
    }
    EXPECT_LE(relativeError(after, r.terrain), 1e-5);

    // Through every other family and back to the pipe model: soil is conserved across each
    // switch (the grid models keep their water and sediment on the map) and nothing blows up.
    for (int model : {MODEL_OLSEN, MODEL_MUSGRAVE, MODEL_SIMPLE, MODEL_PIPE}) {
        gpu::SimParams next = pipe;
        next.model = model;
        next.edge_mode = EDGE_CLOSED;
        const double soil = sum(sim.download(Field::Terrain)) + sum(sim.download(Field::Sediment));
        sim.setParams(next);
        sim.run(20);
        const double soil_after = sum(sim.download(Field::Terrain)) + sum(sim.download(Field::Sediment));
        EXPECT_NEAR(soil_after, soil, 1e-6 * soil) << gpu::modelName(model);
        for (Field f : {Field::Terrain, Field::Water, Field::Sediment})
            for (float v : sim.download(f)) ASSERT_TRUE(std::isfinite(v)) << gpu::modelName(model);
    }
}

// Musgrave (seed 000) and simple (seed 001): each pass against the reference on random fields.
struct GridModelCase {
    GridCase grid;
    uint32_t seed;
    int model;
};

std::vector<GridModelCase> gridModelCases() {
    std::vector<GridModelCase> cases;
    for (int model : {MODEL_MUSGRAVE, MODEL_SIMPLE})
        for (const GridCase& g : gridCases())
            for (uint32_t seed : {1u, 2u, 3u}) cases.push_back({g, seed, model});
    return cases;
}

std::string gridModelName(const ::testing::TestParamInfo<GridModelCase>& info) {
    return std::string(gpu::modelName(info.param.model)) + "_" + std::to_string(info.param.grid.w) + "x" +
           std::to_string(info.param.grid.h) + "_seed" + std::to_string(info.param.seed) +
           (info.param.seed == 3 ? "_layers" : "");
}

class GridModelPassTest : public GpuTest, public ::testing::WithParamInterface<GridModelCase> {};

TEST_P(GridModelPassTest, MatchesReference) {
    const GridModelCase& c = GetParam();
    ref::State cur = randomState(c.grid.w, c.grid.h, c.seed);
    gpu::SimParams p = defaultParams(cur.w, cur.h);
    p.model = c.model;
    p.enable_layers = c.seed == 3 ? 1 : 0; // seed 3 on layered ground
    gpu::Simulation sim(ctx(), cur.w, cur.h);
    loadState(sim, cur, p);
    ref::State next = cur;
    const bool musgrave = c.model == MODEL_MUSGRAVE;
    sim.runPass(musgrave ? Pass::MusgraveTransfer : Pass::SimpleTransfer);
    if (musgrave)
        ref::musgraveTransfer(cur, next, p, 0);
    else
        ref::simpleTransfer(cur, next, p);
    const double tol = 1e-5;
    EXPECT_LE(relativeError(sim.download(Field::Scratch), flatten(next.scratch)), tol) << "moves";
    if (musgrave) {
        EXPECT_LE(relativeError(sim.download(Field::ThermalAxis), flatten(next.thermal_axis)), tol);
        EXPECT_LE(relativeError(sim.download(Field::ThermalDiag), flatten(next.thermal_diag)), tol);
    }
    EXPECT_LE(relativeError(sim.download(Field::Water, true), next.water), tol) << "kept water";
    sim.runPass(musgrave ? Pass::MusgraveApply : Pass::SimpleApply);
    if (musgrave)
        ref::musgraveApply(next, p);
    else
        ref::simpleApply(cur, next, p);
    EXPECT_LE(relativeError(sim.download(Field::Terrain, true), next.terrain), tol);
    EXPECT_LE(relativeError(sim.download(Field::Water, true), next.water), tol);
    if (p.enable_layers) {
        EXPECT_LE(looseErrorOverGround(sim.download(Field::Loose, true), next.loose, next.terrain), tol);
    }
    // Sediment is exchanged with the float ground exactly (grid_models.glsl): where the GPU's
    // float amount and the reference's double round the ground to neighbouring floats, the
    // sediment differs by one ulp of the ground. Allowed on top of 1e-5 of the field's scale.
    const std::vector<float> sed = sim.download(Field::Sediment, true);
    double scale = 0.0, err = 0.0, ground = 0.0;
    for (size_t i = 0; i < sed.size(); ++i) {
        scale = std::max(scale, std::abs(next.sediment[i]));
        err = std::max(err, std::abs(sed[i] - next.sediment[i]));
        ground = std::max(ground, std::abs(next.terrain[i]));
    }
    EXPECT_LE(err, tol * scale + (std::nextafter(float(ground), INFINITY) - float(ground)));
    EXPECT_EQ(sim.download(Field::Outflow, true), toFloat(cur.outflow));
    double moved = 0.0;
    for (const auto& m : next.scratch) moved += m[0];
    if (c.grid.w * c.grid.h > 1) {
        EXPECT_GT(moved, 0.0) << "no water moved: vacuous";
    }
}

INSTANTIATE_TEST_SUITE_P(RandomFields, GridModelPassTest, ::testing::ValuesIn(gridModelCases()), gridModelName);

// Many steps of each grid model on a generated-like rough terrain: soil (ground + sediment) is
// conserved to float rounding, water only changes by rain and evaporation, no NaN, and the
// ground actually changed.
TEST_F(FamilyTest, GridModelsConserveSoil) {
    for (int model : {MODEL_MUSGRAVE, MODEL_SIMPLE}) {
        ref::State s = randomState(80, 56, 21);
        for (double& v : s.water) v = 0.0;
        for (double& v : s.sediment) v = 0.0;
        gpu::SimParams p = defaultParams(s.w, s.h);
        p.model = model;
        gpu::Simulation sim(ctx(), s.w, s.h);
        loadState(sim, s, p);
        const double soil0 = sum(sim.download(Field::Terrain)) + sum(sim.download(Field::Sediment));
        sim.run(300);
        const std::vector<float> b = sim.download(Field::Terrain);
        const double soil1 = sum(b) + sum(sim.download(Field::Sediment));
        double changed = 0.0;
        for (size_t i = 0; i < b.size(); ++i) changed += std::abs(b[i] - float(s.terrain[i]));
        std::printf("[ %s, 300 steps ] soil drift %.3g, mean |dz| %.3g m\n", gpu::modelName(model),
                    std::abs(soil1 - soil0) / soil0, changed / double(b.size()));
        EXPECT_LE(std::abs(soil1 - soil0) / soil0, 1e-5);
        EXPECT_GT(changed / double(b.size()), 1e-3);
        for (Field f : {Field::Terrain, Field::Water, Field::Sediment})
            for (float v : sim.download(f)) ASSERT_TRUE(std::isfinite(v));
    }
}

} // namespace
} // namespace alluvium::test
