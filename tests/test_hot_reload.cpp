// Shader hot reload (app/viewer/hot_reload.h): a changed compute shader is compiled with
// libshaderc and its pass rebuilt (Simulation::reloadPass); a compile error is reported and the
// old pipeline keeps running.
#include <chrono>
#include <fstream>
#include <thread>

#include "gpu_fixture.h"
#include "hot_reload.h"
#include "test_util.h"

namespace alluvium::test {
namespace {

namespace fs = std::filesystem;

void writeText(const fs::path& p, const std::string& text) {
    std::ofstream(p, std::ios::binary) << text;
    // A later modification time than the watcher saw, even on coarse clocks.
    fs::last_write_time(p, fs::file_time_type::clock::now() + std::chrono::seconds(2));
}

std::string readAll(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

class HotReload : public GpuTest {};

TEST_F(HotReload, ChangedShaderRebuildsItsPassAndAnErrorKeepsTheOldOne) {
    // A copy of the shader folder's headers and of sediment_correct.comp.
    const fs::path dir = scratchDir("hot_reload");
    const fs::path src = fs::path(ALLUVIUM_SOURCE_DIR) / "shaders";
    for (const auto& e : fs::directory_iterator(src))
        if (e.path().extension() == ".h" || e.path().extension() == ".glsl")
            fs::copy_file(e.path(), dir / e.path().filename());
    const std::string original = readAll(src / "sediment_correct.comp");
    fs::copy_file(src / "sediment_correct.comp", dir / "sediment_correct.comp");
    viewer::ShaderWatcher watcher(dir);
    EXPECT_TRUE(watcher.poll().empty());

    const int w = 33, h = 17;
    gpu::Simulation sim(ctx(), w, h);
    sim.setParams(defaultParams(w, h));
    gpu::Totals totals{};
    totals.sediment_scale = 0.95f; // the correction the pass applies
    sim.setTotals(totals);
    const std::vector<float> sediment(size_t(w) * h, 1.0f);
    auto correct = [&] {
        sim.upload(gpu::Field::Sediment, sediment, true); // the pass works on the "next" sediment
        sim.runPass(gpu::Pass::SedimentCorrect);
        return sim.download(gpu::Field::Sediment, true)[5];
    };
    EXPECT_NEAR(correct(), 0.95f, 1e-6);

    // A broken edit: an error, and nothing to reload.
    writeText(dir / "sediment_correct.comp", original + "\nthis is not GLSL\n");
    std::vector<viewer::ShaderChange> changes = watcher.poll();
    ASSERT_EQ(changes.size(), 1u);
    EXPECT_EQ(changes[0].name, "sediment_correct");
    EXPECT_TRUE(changes[0].spirv.empty());
    EXPECT_NE(changes[0].error.find("sediment_correct.comp"), std::string::npos) << changes[0].error;
    EXPECT_NEAR(correct(), 0.95f, 1e-6) << "the old pipeline keeps running";

    // A working edit: the scale squared, reloaded into the running simulation.
    std::string doubled = original;
    const std::string rate = "totals.sediment_scale";
    ASSERT_NE(doubled.find(rate), std::string::npos);
    doubled.replace(doubled.find(rate), rate.size(), "totals.sediment_scale * totals.sediment_scale");
    writeText(dir / "sediment_correct.comp", doubled);
    changes = watcher.poll();
    ASSERT_EQ(changes.size(), 1u);
    ASSERT_TRUE(changes[0].error.empty()) << changes[0].error;
    ASSERT_FALSE(changes[0].spirv.empty());
    sim.reloadPass(gpu::Pass::SedimentCorrect, changes[0].spirv);
    EXPECT_NEAR(correct(), 0.9025f, 1e-6);
    EXPECT_TRUE(watcher.poll().empty());
}

// A pass of the pipe step is built once per set of the step's parts in use (gpu::stepParts): a
// reload replaces every set, and a set first needed after the reload (here the maps switched on)
// is built from the reloaded code, not from the shader folder.
TEST_F(HotReload, AReloadedPassKeepsItsCodeForStepPartsBuiltLater) {
    const fs::path dir = scratchDir("hot_reload_parts");
    const fs::path src = fs::path(ALLUVIUM_SOURCE_DIR) / "shaders";
    for (const auto& e : fs::directory_iterator(src))
        if (e.path().extension() == ".h" || e.path().extension() == ".glsl")
            fs::copy_file(e.path(), dir / e.path().filename());
    std::string edited = readAll(src / "water_velocity.comp");
    const std::string store = "imageStore(velocity_img, c, vec4(v, 0.0, 0.0));";
    ASSERT_NE(edited.find(store), std::string::npos);
    edited.replace(edited.find(store), store.size(), "imageStore(velocity_img, c, vec4(7.0, 0.0, 0.0, 0.0));");
    writeText(dir / "water_velocity.comp", edited);
    const viewer::ShaderChange c = viewer::compileComputeShader(dir / "water_velocity.comp");
    ASSERT_TRUE(c.error.empty()) << c.error;

    const int w = 33, h = 17;
    gpu::Simulation sim(ctx(), w, h);
    gpu::SimParams params = defaultParams(w, h);
    params.record_maps = 0;
    sim.setParams(params);
    auto velocity = [&] {
        sim.runPass(gpu::Pass::WaterVelocity);
        return sim.download(gpu::Field::Velocity)[2 * 40];
    };
    EXPECT_EQ(velocity(), 0.0f); // still water
    const uint32_t before = sim.builtStepParts();
    sim.reloadPass(gpu::Pass::WaterVelocity, c.spirv);
    EXPECT_EQ(velocity(), 7.0f);
    params.record_maps = 1;
    sim.setParams(params);
    EXPECT_EQ(velocity(), 7.0f);
    EXPECT_NE(sim.builtStepParts(), before); // another set of parts, built after the reload
}

TEST(HotReloadCompile, EveryComputeShaderOfTheSourceTreeCompiles) {
    const fs::path src = fs::path(ALLUVIUM_SOURCE_DIR) / "shaders";
    int count = 0;
    for (const auto& e : fs::directory_iterator(src)) {
        if (e.path().extension() != ".comp") continue;
        const viewer::ShaderChange c = viewer::compileComputeShader(e.path());
        EXPECT_TRUE(c.error.empty()) << e.path() << ": " << c.error;
        EXPECT_FALSE(c.spirv.empty()) << e.path();
        ++count;
    }
    EXPECT_GT(count, 10);
}

} // namespace
} // namespace alluvium::test
