// The particles family (seeds 000 and 002): droplets against the CPU twin droplet by droplet and
// in thousands, determinism (same seed, same bytes: in memory and through the CLI), soil
// conservation, hardness, and no NaN at the parameter ranges' extremes.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "gpu_fixture.h"
#include "particles.h"

namespace alluvium::test {
namespace {

using gpu::Field;
using gpu::Pass;

// Smooth hills (about 10 m over 30 cells) with a little noise: droplets run downhill for many
// cells before they settle.
ref::State hills(int w, int h, uint32_t seed) {
    ref::State s = randomState(w, h, seed);
    std::mt19937 rng(seed + 100);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            s.terrain[s.index(x, y)] = 20.0 + 10.0 * std::sin(x / 9.0 + seed) * std::cos(y / 7.0) +
                                       0.3 * u(rng) + 0.05 * x;
    roundToFloat(s);
    return s;
}

gpu::SimParams particleParams(int w, int h, int count, int variant = PARTICLES_MASS_TRANSFER) {
    Params params;
    params[Param::cell_size] = 2.0;
    gpu::SimParams p = toSimParams(params, w, h);
    p.model = MODEL_PARTICLES;
    p.particle_count = count;
    p.particle_seed = 7;
    p.particle_variant = variant;
    p.edge_mode = EDGE_CLOSED;
    if (variant == PARTICLES_CAPACITY) p.particle_capacity = 0.05f;
    return p;
}

// One step (both passes) at a given step index; returns terrain_next.
std::vector<float> gpuStep(gpu::Simulation& sim, int step) {
    sim.setStepIndex(step);
    sim.runPass(Pass::Particles);
    sim.runPass(Pass::ParticlesApply);
    return sim.download(Field::Terrain, true);
}

double maxAbs(const std::vector<double>& v) {
    double m = 0.0;
    for (double x : v)
        m = std::max(m, std::abs(x));
    return m;
}

class ParticlesTest : public GpuTest {};

// 64 single-droplet dispatches (step indices 0..63), both variants, each against its reference
// droplet. The float twin performs the shader's operations in the same order (the shader is
// `precise`: no fused multiply-add), so its terrain must match to the bit but for an exchange
// rounded the other way at a half-unit tie: allowed 2 units of 2^-20 m per cell. The double
// oracle differs from float by rounding (~1e-7 relative per operation, a few 1e-6 cells after 64
// iterations); where the double path passes within 1e-3 cells of a cell boundary, float may take
// the other cell and the paths part, so such droplets (margin < 1e-3) are left out of the double
// comparison (counted: about one in six with 64 iterations; at least 40 of 64 must remain). The
// others must agree to 1e-5 of the terrain's scale.
TEST_F(ParticlesTest, SingleDropletsMatchReference) {
    for (int variant : {PARTICLES_MASS_TRANSFER, PARTICLES_CAPACITY}) {
        ref::State s = hills(97, 61, 1);
        gpu::SimParams p = particleParams(s.w, s.h, 1, variant);
        gpu::Simulation sim(ctx(), s.w, s.h);
        loadState(sim, s, p);
        const double scale = maxAbs(s.terrain);
        int compared = 0, moved = 0;
        double worst_float = 0.0, worst_double = 0.0;
        for (int step = 0; step < 64; ++step) {
            const std::vector<float> got = gpuStep(sim, step);
            ref::State want_f = s, want_d = s;
            const auto trace_f = ref::particlesStep<float>(want_f, p, step);
            const auto trace_d = ref::particlesStep<double>(want_d, p, step);
            for (size_t i = 0; i < got.size(); ++i)
                worst_float = std::max(worst_float, std::abs(double(got[i]) - want_f.terrain[i]));
            if (trace_d[0].moved > 0) ++moved;
            if (trace_d[0].margin < 1e-3) continue;
            ++compared;
            worst_double = std::max(worst_double, relativeError(got, want_d.terrain) *
                                                      maxAbs(want_d.terrain) / scale);
        }
        std::printf(
            "[ %s ] %d/64 droplets compared with double, %d moved soil; max |gpu - float| %.3g m, "
            "max |gpu - double| / scale %.3g\n",
            variant == PARTICLES_MASS_TRANSFER ? "mass_transfer" : "capacity", compared, moved,
            worst_float, worst_double);
        EXPECT_LE(worst_float, 2.0 / PARTICLE_FIXED_ONE + 4e-6); // 2 units, plus one ulp of ~30 m
        EXPECT_LE(worst_double, 1e-5);
        EXPECT_GE(compared, 40);
        EXPECT_GE(moved, 32) << "droplets moved no soil: vacuous";
    }
}

// Thousands of droplets in one dispatch on odd grids: the float twin must match to 1e-5 of the
// field's scale (in practice to the bit: atomics on integers commute). Against the double
// oracle, near-tie droplets part ways, so it compares the meaningful aggregate instead: the
// total soil moved (sum |delta|) within 1e-3, and on 2-D grids 1e-5 of the scale on >= 97% of
// the cells (on 1x50 and 50x1 all 3000 droplets cross the same 50 cells, so one parted droplet
// touches a large share of them: there only the total is compared).
TEST_F(ParticlesTest, ManyDropletsMatchReference) {
    for (const GridCase& g : gridCases())
        for (uint32_t seed : {1u, 2u, 3u}) {
            ref::State s = hills(g.w, g.h, seed);
            gpu::SimParams p = particleParams(
                s.w, s.h, 3000, seed == 3 ? PARTICLES_CAPACITY : PARTICLES_MASS_TRANSFER);
            p.particle_seed = seed;
            gpu::Simulation sim(ctx(), s.w, s.h);
            loadState(sim, s, p);
            const std::vector<float> got = gpuStep(sim, int(seed));
            ref::State want_f = s, want_d = s;
            std::vector<int64_t> delta_f, delta_d;
            ref::particlesStep<float>(want_f, p, int(seed), &delta_f);
            ref::particlesStep<double>(want_d, p, int(seed), &delta_d);
            const double err_f = relativeError(got, want_f.terrain);
            const double scale = maxAbs(want_d.terrain);
            size_t close = 0;
            double moved_gpu = 0.0, moved_d = 0.0;
            for (size_t i = 0; i < got.size(); ++i) {
                close += std::abs(double(got[i]) - want_d.terrain[i]) <= 1e-5 * scale ? 1 : 0;
                moved_gpu += std::abs(double(got[i]) - s.terrain[i]);
                moved_d += std::abs(double(delta_d[i])) / PARTICLE_FIXED_ONE;
            }
            const double share = double(close) / double(got.size());
            std::printf("[ %dx%d seed %u ] vs float %.3g; vs double: %.4f of cells within 1e-5, "
                        "moved %.6g vs %.6g m\n",
                        g.w, g.h, seed, err_f, share, moved_gpu, moved_d);
            EXPECT_LE(err_f, 1e-5);
            if (g.w > 1 && g.h > 1) {
                EXPECT_GE(share, 0.97);
            }
            EXPECT_NEAR(moved_gpu, moved_d, 1e-3 * moved_d + 1e-4);
            if (g.w > 1 && g.h > 1) {
                EXPECT_GT(moved_d, 0.0) << "nothing moved: vacuous";
            }
            // The other fields carried over bit for bit.
            EXPECT_EQ(sim.download(Field::Water, true), toFloat(s.water));
            EXPECT_EQ(sim.download(Field::Sediment, true), toFloat(s.sediment));
            EXPECT_EQ(sim.download(Field::Outflow, true), toFloat(s.outflow));
        }
}

// The same seed gives the same bytes, whatever order the droplets' atomics land in; another
// seed gives another terrain.
TEST_F(ParticlesTest, SameSeedSameBytes) {
    ref::State s = hills(97, 61, 4);
    auto runWith = [&](uint32_t seed) {
        gpu::SimParams p = particleParams(s.w, s.h, 5000);
        p.particle_seed = seed;
        gpu::Simulation sim(ctx(), s.w, s.h);
        loadState(sim, s, p);
        sim.run(10);
        return sim.download(Field::Terrain);
    };
    const std::vector<float> a = runWith(3), b = runWith(3), c = runWith(4);
    ASSERT_EQ(a.size(), b.size());
    EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)), 0);
    EXPECT_NE(std::memcmp(a.data(), c.data(), a.size() * sizeof(float)), 0);
    EXPECT_NE(a, toFloat(s.terrain)) << "nothing eroded: vacuous";
}

std::string readBytes(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

TEST(ParticlesCli, SameSeedSameFile) {
    namespace fs = std::filesystem;
    const fs::path dir = fs::path(ALLUVIUM_TEST_TMP_DIR) / "particles_cli";
    fs::remove_all(dir);
    fs::create_directories(dir);
    auto run = [&](int seed, const std::string& name) {
        const fs::path out = dir / name;
        const std::string cmd =
            "MESA_SHADER_CACHE_DIR='" + (dir / "cache").string() + "' '" +
            std::string(ALLUVIUM_EXE) + "' run --model particles --size 96x64 --seed " +
            std::to_string(seed) + " --steps 20 --out '" + out.string() + "' 2>/dev/null";
        EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
        return readBytes(out);
    };
    const std::string a = run(3, "a.f32"), b = run(3, "b.f32"), c = run(5, "c.f32");
    EXPECT_EQ(a.size(), size_t(96 * 64 * 4));
    EXPECT_TRUE(a == b) << "two runs with --seed 3 differ";
    EXPECT_FALSE(a == c);
}

// Closed edges: every droplet ends on the map and drops its load, and the fixed-point sum of a
// step's changes is exactly zero, so the terrain total moves only by the one float rounding per
// changed cell per step: 1e-5 relative over 300 steps.
TEST_F(ParticlesTest, ConservesSoilWithClosedEdges) {
    for (int variant : {PARTICLES_MASS_TRANSFER, PARTICLES_CAPACITY}) {
        ref::State s = hills(97, 61, 5);
        gpu::SimParams p = particleParams(s.w, s.h, 2000, variant);
        gpu::Simulation sim(ctx(), s.w, s.h);
        loadState(sim, s, p);
        const double before = sum(sim.download(Field::Terrain));
        sim.run(300);
        const std::vector<float> b = sim.download(Field::Terrain);
        const double after = sum(b);
        std::printf("[ %s ] soil drift over 300 steps: %.3g relative\n",
                    variant == PARTICLES_MASS_TRANSFER ? "mass_transfer" : "capacity",
                    std::abs(after - before) / before);
        EXPECT_LE(std::abs(after - before) / before, 1e-5);
        EXPECT_NE(b, toFloat(s.terrain)) << "nothing eroded: vacuous";
        // The reference's integer changes sum to zero exactly (closed edges: nothing leaves).
        ref::State r = s;
        std::vector<int64_t> delta;
        ref::particlesStep<double>(r, p, 0, &delta);
        int64_t total = 0;
        for (int64_t d : delta)
            total += d;
        EXPECT_EQ(total, 0);
    }
}

// Rock (hardness 1) does not dissolve: with nothing carried there is nothing to deposit either.
TEST_F(ParticlesTest, RockDoesNotErode) {
    ref::State s = hills(64, 48, 6);
    for (double& r : s.hardness)
        r = 1.0;
    gpu::SimParams p = particleParams(s.w, s.h, 3000);
    gpu::Simulation sim(ctx(), s.w, s.h);
    loadState(sim, s, p);
    sim.run(5);
    EXPECT_EQ(sim.download(Field::Terrain), toFloat(s.terrain));
}

// The parameter ranges' extremes (the lifetime capped at 256 iterations to keep the test short),
// both variants and both edge modes: no NaN or Inf.
TEST_F(ParticlesTest, NoNanAtExtremes) {
    ref::State s = hills(64, 48, 7);
    gpu::Simulation sim(ctx(), s.w, s.h);
    int cases = 0;
    for (int corner = 0; corner < 4; ++corner)
        for (int variant : {PARTICLES_MASS_TRANSFER, PARTICLES_CAPACITY})
            for (int edge : {EDGE_CLOSED, EDGE_OPEN}) {
                Params params;
                for (Param q :
                     {Param::particle_time_step, Param::particle_density, Param::particle_friction,
                      Param::particle_evaporation, Param::particle_deposition,
                      Param::particle_softness, Param::particle_capacity, Param::particle_volume,
                      Param::particle_min_volume, Param::particle_lifetime}) {
                    const ParamInfo& info = paramInfo(q);
                    // corners: all low, all high, alternating low/high, alternating high/low
                    const bool high = corner == 1 || (corner >= 2 && ((int(q) + corner) % 2 == 0));
                    params[q] = high ? info.max : info.min;
                }
                params[Param::particle_lifetime] =
                    std::min(params[Param::particle_lifetime], 256.0);
                params[Param::cell_size] = corner == 1 ? 0.1 : 1000.0;
                gpu::SimParams p = toSimParams(params, s.w, s.h);
                p.model = MODEL_PARTICLES;
                p.particle_count = 2000;
                p.particle_variant = variant;
                p.edge_mode = edge;
                loadState(sim, s, p);
                sim.run(5);
                for (float v : sim.download(Field::Terrain))
                    ASSERT_TRUE(std::isfinite(v)) << "case " << cases;
                ++cases;
            }
    EXPECT_EQ(cases, 16);
    // No droplets: an empty dispatch, and the ground carried over unchanged.
    gpu::SimParams none = particleParams(s.w, s.h, 0);
    loadState(sim, s, none);
    sim.run(2);
    EXPECT_EQ(sim.download(Field::Terrain), toFloat(s.terrain));
}

} // namespace
} // namespace alluvium::test
