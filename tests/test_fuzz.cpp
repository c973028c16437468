// The parameter fuzz (fuzz_cases.h), in process: per model, 10 random parameter sets within the
// table's ranges (30 % of the values exactly at a range end, a fixed seed), 200 steps each (30
// fluvial iterations) on a small grid of odd size, from the procedural terrain `alluvium run`
// makes. Each run must end with no NaN or Inf in any field, soil drift <= 1e-5 and the water
// budget <= 1e-5 (every model but fluvial keeps both), judged on the same report `run` writes.
// A failure prints the command line that reproduces it. scripts/fuzz draws the same way, without
// the ctest's limit on droplets (fuzz_cases.h), as long as wanted.
#include <cstdio>
#include <cstdlib>

#include "fuzz_cases.h"
#include "gpu_fixture.h"
#include "report.h"
#include "setup.h"

namespace alluvium::test {
namespace {

constexpr uint64_t kFuzzSeed = 20240514;
constexpr int kSetsPerModel = 5;
constexpr int kSteps = 200;
// A fluvial iteration is a whole fill, routing, accumulation and implicit erosion over
// geological time: 30 of them (up to 30 million years) keep this model's share of the test's
// time about twice that of the others.
constexpr int kFluvialIterations = 30;

class FuzzTest : public GpuTest, public ::testing::WithParamInterface<int> {};

TEST_P(FuzzTest, RandomParameterSetsStayFiniteAndConserve) {
    const int model = GetParam();
    std::mt19937_64 rng(kFuzzSeed + uint64_t(model));
    int passed = 0;
    for (int k = 0; k < kSetsPerModel; ++k) {
        const fuzz::Case c =
            fuzz::drawCase(rng, model, 0, 0, model == MODEL_FLUVIAL ? kFluvialIterations : kSteps, true);
        const std::string reproduce = fuzz::commandLine(c, "alluvium", "out.f32", "report.json");
        if (std::getenv("ALLUVIUM_FUZZ_VERBOSE")) std::printf("%s\n", reproduce.c_str()), std::fflush(stdout);
        TerrainOptions terrain;
        terrain.size = std::to_string(c.width) + "x" + std::to_string(c.height);
        terrain.seed = c.seed;
        const Params params = buildParams("", 0.0, c.sets);
        const double cell_size = params[Param::cell_size];
        const InitialTerrain initial = prepareTerrain(terrain, cell_size);
        gpu::Simulation sim(ctx(), c.width, c.height);
        loadInitialState(sim, initial, params); // the aquifer from its parameters, as `run` does
        gpu::SimParams p = toSimParams(params, c.width, c.height);
        p.model = model;
        p.particle_seed = static_cast<uint32_t>(c.seed); // as `run` does
        sim.setParams(p);
        const StateSums before = sumState(sim, cell_size);
        sim.run(c.steps);
        const StateSums after = sumState(sim, cell_size);
        const nlohmann::json report = makeReport(sim, before, after, c.steps, 0.0, cell_size);
        const fuzz::Verdict v = fuzz::judge(report, model);
        std::printf("[ %s %d ] %dx%d: nan cells %lld, soil drift %.3g, water budget %.3g\n", gpu::modelName(model), k,
                    c.width, c.height, v.nan_cells, v.drift, v.budget);
        EXPECT_EQ(v.nan_cells, 0) << "non-finite cells; reproduce with:\n  " << reproduce;
        EXPECT_FALSE(v.drift_bad) << "soil drift " << v.drift << " > 1e-5; reproduce with:\n  " << reproduce;
        EXPECT_FALSE(v.budget_bad) << "water budget error " << v.budget << " > 1e-5; reproduce with:\n  " << reproduce;
        std::fflush(stdout);
        passed += v.ok() ? 1 : 0;
    }
    std::printf("[ %s ] %d of %d parameter sets passed\n", gpu::modelName(model), passed, kSetsPerModel);
}

INSTANTIATE_TEST_SUITE_P(Models, FuzzTest, ::testing::Range(0, MODEL_COUNT),
                         [](const ::testing::TestParamInfo<int>& model) {
                             return std::string(gpu::modelName(model.param));
                         });

} // namespace
} // namespace alluvium::test
