// The grid passes' workgroup shape (gpu/workgroup.h) is chosen per device: 64x4 on lavapipe,
// 32x8 on NVIDIA, 64x4 on AMD, 16x16 where subgroups are 16 or narrower. Whatever the shape, a
// cell computes the same numbers: the direct passes read their neighbours from images, the
// fused pipe pass computes its halo with the code of the owned cells, the fluvial model keeps its
// own 16x16 tiles and the droplets their one-dimensional dispatch. Only the grouping of the
// step's double-precision sums follows the shape.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "gpu_fixture.h"
#include "test_util.h"

namespace alluvium::test {
namespace {

using gpu::Field;
using gpu::WorkgroupShape;

class WorkgroupTest : public GpuTest {};

struct ModelCase {
    const char* name;
    int model;
    gpu::PipePasses passes;
};

// The state after `steps` steps of one model from a generated terrain on a grid that no shape
// tiles evenly (97 = 12 x 8 + 1 = 6 x 16 + 1 ..., 61 = 15 x 4 + 1 ...): every shape has partial
// workgroups at the right and bottom edges.
struct Result {
    std::vector<std::vector<float>> fields;
    gpu::Totals totals{};
    uint32_t partials_per_group = 0;
};

const std::vector<Field>& comparedFields() {
    static const std::vector<Field> fields = {Field::Terrain,  Field::Water,    Field::Sediment, Field::Outflow,
                                              Field::Velocity, Field::Wear,     Field::Flow,     Field::Groundwater,
                                              Field::Seepage,  Field::Drainage, Field::Lake};
    return fields;
}

// `varied_rain`: a rain mask of 0.5 .. 1.5 (a smooth pattern), so every cell's rain differs and
// the order in which the sums are added shows in their last bits.
Result runModel(const gpu::Context& ctx, const ModelCase& m, WorkgroupShape shape, int steps,
                bool varied_rain = false) {
    constexpr int w = 97, h = 61;
    ref::State s = generatedState(w, h, 5, 4.0);
    Params params;
    params[Param::rain_rate] = 0.5;
    params[Param::edge_mode] = EDGE_OPEN;
    params[Param::record_maps] = 1;
    if (m.model == MODEL_PIPE) { // the groundwater's and the sea's passes too: a fifth of the ground is sea
        std::vector<double> sorted = s.terrain;
        std::nth_element(sorted.begin(), sorted.begin() + sorted.size() / 5, sorted.end());
        params[Param::enable_groundwater] = 1;
        params[Param::enable_sea] = 1;
        params[Param::sea_level] = sorted[sorted.size() / 5];
    }
    gpu::SimParams p = toSimParams(params, w, h);
    p.model = m.model;
    gpu::Simulation sim(ctx, w, h, m.passes, shape);
    EXPECT_EQ(sim.workgroupShape(), shape);
    loadState(sim, s, p);
    if (varied_rain) {
        std::vector<float> mask(size_t(w) * h);
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) mask[size_t(y) * w + x] = float(1.0 + 0.5 * std::sin(0.37 * x + 0.23 * y * y));
        sim.upload(Field::RainMask, mask);
    }
    sim.run(steps);
    Result r;
    for (Field f : comparedFields()) r.fields.push_back(sim.download(f));
    r.totals = sim.totals();
    r.partials_per_group = sim.partialsPerGroup();
    return r;
}

// Every model, every shape this device runs, 30 steps each, against 16x16: every field bit for
// bit. The totals are sums of the same per-cell doubles grouped by workgroup, so they agree to
// the rounding of a double sum (1e-12 relative); the pipe step's sediment correction is a float
// factor computed from such sums and is the same float.
TEST_F(WorkgroupTest, EveryShapeComputesTheSameSteps) {
    const std::vector<ModelCase> models = {
        {"pipe (fused)", MODEL_PIPE, gpu::PipePasses::Fused},  {"pipe (direct)", MODEL_PIPE, gpu::PipePasses::Direct},
        {"thermal", MODEL_THERMAL, gpu::PipePasses::Auto},     {"olsen", MODEL_OLSEN, gpu::PipePasses::Auto},
        {"musgrave", MODEL_MUSGRAVE, gpu::PipePasses::Auto},   {"simple", MODEL_SIMPLE, gpu::PipePasses::Auto},
        {"particles", MODEL_PARTICLES, gpu::PipePasses::Auto}, {"fluvial", MODEL_FLUVIAL, gpu::PipePasses::Auto}};
    std::vector<WorkgroupShape> shapes;
    for (const WorkgroupShape& s : gpu::workgroupShapes())
        if (gpu::deviceRunsShape(ctx(), s)) shapes.push_back(s);
    ASSERT_GE(shapes.size(), 2u) << "the device runs fewer than two shapes";
    for (const ModelCase& m : models) {
        SCOPED_TRACE(m.name);
        const int steps = m.model == MODEL_FLUVIAL ? 4 : 30;
        const Result base = runModel(ctx(), m, {16, 16}, steps);
        for (const WorkgroupShape& shape : shapes) {
            if (shape == WorkgroupShape{16, 16}) continue;
            SCOPED_TRACE(gpu::workgroupShapeName(shape));
            const Result r = runModel(ctx(), m, shape, steps);
            int identical = 0;
            for (size_t f = 0; f < comparedFields().size(); ++f) {
                const bool same = r.fields[f] == base.fields[f];
                identical += same ? 1 : 0;
                EXPECT_TRUE(same) << gpu::fieldName(comparedFields()[f]) << " differs";
            }
            for (int slot = 0; slot < TOTAL_SLOTS; ++slot)
                EXPECT_LE(relativeError(r.totals.acc[slot], base.totals.acc[slot]), 1e-12) << "slot " << slot;
            EXPECT_EQ(r.totals.sediment_scale, base.totals.sediment_scale);
            std::printf("[ %s, %s vs 16x16, %d steps ] %d of %zu fields bit-identical\n", m.name,
                        gpu::workgroupShapeName(shape).c_str(), steps, identical, comparedFields().size());
        }
    }
}

// The device's choice is one of the shapes and runs here; a shape is named "WxH" and only the
// four are accepted; ALLUVIUM_WORKGROUP picks one for every simulation.
TEST_F(WorkgroupTest, TheDeviceChoosesAShapeItRuns) {
    const WorkgroupShape chosen = gpu::resolveWorkgroupShape(ctx()); // (or ALLUVIUM_WORKGROUP's)
    EXPECT_TRUE(gpu::deviceRunsShape(ctx(), chosen)) << gpu::workgroupShapeName(chosen);
    EXPECT_EQ(chosen.x * chosen.y, WG_SIZE);
    if (ctx().properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU && !std::getenv("ALLUVIUM_WORKGROUP")) {
        // measured fastest on lavapipe
        EXPECT_EQ(chosen, (WorkgroupShape{64, 4}));
    }
    std::printf("[ workgroup ] subgroup size %u: %s\n", gpu::subgroupSize(ctx()),
                gpu::workgroupShapeName(chosen).c_str());

    for (const WorkgroupShape& s : gpu::workgroupShapes()) {
        EXPECT_EQ(gpu::parseWorkgroupShape(gpu::workgroupShapeName(s)), s);
        EXPECT_LE(gpu::fusedSharedBytes(s), 32768u) << gpu::workgroupShapeName(s); // Vulkan's guaranteed minimum
    }
    for (const char* bad : {"", "16", "12x12", "16x8", "256x1", "x", "16x16x1", " 16x16"})
        EXPECT_FALSE(gpu::parseWorkgroupShape(bad).has_value()) << "'" << bad << "'";
    EXPECT_THROW(gpu::resolveWorkgroupShape(ctx(), {128, 2}), gpu::DeviceError);

    {
        // (The variable, if the suite runs with it set, is put back afterwards.)
        const ScopedEnv env("ALLUVIUM_WORKGROUP", "32x8");
        EXPECT_EQ(gpu::resolveWorkgroupShape(ctx()), (WorkgroupShape{32, 8}));
        gpu::Simulation sim(ctx(), 33, 9);
        EXPECT_EQ(sim.workgroupShape(), (WorkgroupShape{32, 8}));
        EXPECT_EQ(gpu::foldLevelSizes(33, 9, sim.workgroupShape()).at(0), 2u * 2u);
    }
    {
        const ScopedEnv env("ALLUVIUM_WORKGROUP", "12x12");
        EXPECT_THROW(gpu::resolveWorkgroupShape(ctx()), gpu::DeviceError);
    }
}

// The step's sums as CPU drivers make them (one partial per subgroup, no barrier, then
// reduce_subgroups) and as GPUs do (each workgroup folds its subgroups in shared memory): the
// same doubles added in the same order, so every total is the same to the last bit, and so is
// every field (the sediment correction follows the totals). The pipe model in both forms, with
// groundwater and a sea (their exchange pass produces sums too), and the musgrave and simple
// models (their rain and evaporation sums, grid_models.glsl), on the device's shape and 16x16,
// under a varied rain mask. (Musgrave's and simple's sums of floats of like size are exact in
// double here, whatever the order: for them this tests that each subgroup's sum is where
// grid_totals reads it.) ALLUVIUM_PARTIALS picks the kind.
TEST_F(WorkgroupTest, SubgroupPartialsSumExactlyAsWorkgroupPartials) {
    if (ctx().properties.deviceType != VK_PHYSICAL_DEVICE_TYPE_CPU) {
        const ScopedEnv env("ALLUVIUM_PARTIALS", "subgroup");
        EXPECT_THROW(gpu::resolvePartialsPerGroup(ctx()), gpu::DeviceError);
        GTEST_SKIP() << "sums per subgroup are CPU drivers' (a GPU keeps one per workgroup)";
    }
    const uint32_t per_subgroup = WG_SIZE / gpu::subgroupSize(ctx());
    ASSERT_GT(per_subgroup, 1u) << "subgroups as wide as a workgroup: nothing to compare";
    for (const WorkgroupShape& shape : {gpu::resolveWorkgroupShape(ctx()), WorkgroupShape{16, 16}})
        for (const ModelCase& m : {ModelCase{"pipe (fused)", MODEL_PIPE, gpu::PipePasses::Fused},
                                   ModelCase{"pipe (direct)", MODEL_PIPE, gpu::PipePasses::Direct},
                                   ModelCase{"musgrave", MODEL_MUSGRAVE, gpu::PipePasses::Auto},
                                   ModelCase{"simple", MODEL_SIMPLE, gpu::PipePasses::Auto}}) {
            SCOPED_TRACE(std::string(m.name) + ", " + gpu::workgroupShapeName(shape));
            Result by_workgroup, by_subgroup;
            {
                const ScopedEnv env("ALLUVIUM_PARTIALS", "workgroup");
                EXPECT_EQ(gpu::resolvePartialsPerGroup(ctx()), 1u);
                by_workgroup = runModel(ctx(), m, shape, 30, true);
            }
            {
                const ScopedEnv env("ALLUVIUM_PARTIALS", "subgroup");
                EXPECT_EQ(gpu::resolvePartialsPerGroup(ctx()), per_subgroup);
                by_subgroup = runModel(ctx(), m, shape, 30, true);
            }
            EXPECT_EQ(by_workgroup.partials_per_group, 1u);
            EXPECT_EQ(by_subgroup.partials_per_group, per_subgroup);
            for (size_t f = 0; f < comparedFields().size(); ++f)
                EXPECT_TRUE(by_subgroup.fields[f] == by_workgroup.fields[f])
                    << gpu::fieldName(comparedFields()[f]) << " differs";
            int moving = 0;
            for (int slot = 0; slot < TOTAL_SLOTS; ++slot) {
                EXPECT_EQ(by_subgroup.totals.acc[slot], by_workgroup.totals.acc[slot]) << "slot " << slot;
                moving += by_workgroup.totals.acc[slot] != 0.0 ? 1 : 0;
            }
            // the pipe model's sums; musgrave's and simple's rain and evaporation
            EXPECT_GE(moving, m.model == MODEL_PIPE ? 8 : 2) << "too few totals moved to tell the two apart";
            EXPECT_EQ(by_subgroup.totals.max_speed, by_workgroup.totals.max_speed);
            EXPECT_EQ(by_subgroup.totals.step_wave, by_workgroup.totals.step_wave);
            EXPECT_EQ(by_subgroup.totals.sediment_scale, by_workgroup.totals.sediment_scale);
            std::printf("[ %s, %s ] %u partials per workgroup vs 1: %d totals moved, all equal\n", m.name,
                        gpu::workgroupShapeName(shape).c_str(), per_subgroup, moving);
        }
    {
        // Where the subgroups' partials would not fit one allocation (here lowered to 64 KiB), a
        // simulation keeps one per workgroup.
        const ScopedEnv env("ALLUVIUM_PARTIALS", "subgroup");
        gpu::Context low = ctx(); // shares the device; only the limit differs
        low.max_allocation_bytes = 64 * 1024;
        EXPECT_EQ(gpu::Simulation(low, 97, 61).partialsPerGroup(), 1u);
        EXPECT_EQ(gpu::Simulation(ctx(), 97, 61).partialsPerGroup(), per_subgroup);
    }
    const ScopedEnv env("ALLUVIUM_PARTIALS", "some");
    EXPECT_THROW(gpu::resolvePartialsPerGroup(ctx()), gpu::DeviceError);
}

} // namespace
} // namespace alluvium::test
