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
// cells before they settle. No suspended sediment: particles_apply keeps only the part of the
// height below one ulp of the ground there.
ref::State hills(int w, int h, uint32_t seed) {
    ref::State s = randomState(w, h, seed);
    std::fill(s.sediment.begin(), s.sediment.end(), 0.0);
    std::fill(s.rain_mask.begin(), s.rain_mask.end(), 1.0); // rain everywhere: every droplet falls
    std::mt19937 rng(seed + 100);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            s.terrain[s.index(x, y)] =
                20.0 + 10.0 * std::sin(x / 9.0 + seed) * std::cos(y / 7.0) + 0.3 * u(rng) + 0.05 * x;
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
    for (double x : v) m = std::max(m, std::abs(x));
    return m;
}

class ParticlesTest : public GpuTest {};

// Mesa's lavapipe runs the shaders on the CPU with IEEE float operations, each correctly
// rounded, and honours `precise`: there the float twin reproduces the GPU to the bit. Other
// drivers may compute division and square root to within 2.5-3 ulp (as Vulkan allows) and so
// differ from it in the last bits.
bool correctlyRoundedDriver(const gpu::Context& ctx) {
    VkPhysicalDeviceDriverProperties driver{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
    VkPhysicalDeviceProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
    props.pNext = &driver;
    vkGetPhysicalDeviceProperties2(ctx.physical, &props);
    return driver.driverID == VK_DRIVER_ID_MESA_LLVMPIPE;
}

// Largest |a - b| over the cells, in metres.
double maxDifference(const std::vector<float>& a, const std::vector<double>& b) {
    double m = 0.0;
    for (size_t i = 0; i < a.size(); ++i) m = std::max(m, std::abs(double(a[i]) - b[i]));
    return m;
}

// The float rounding of b + delta: one ulp of the largest height, in metres.
double heightUlp(const std::vector<double>& terrain) {
    const float top = static_cast<float>(maxAbs(terrain));
    return double(std::nextafter(top, INFINITY) - top);
}

// 64 single-droplet dispatches (step indices 0..63), both variants, each against its CPU twins.
// A droplet's path forks between devices where a last-bit difference (another GPU's division or
// square root, float against double) sends it to another cell, so each droplet is compared up
// to where its path may fork (ref::findFork: its position within 20 times the float-double
// spread of a cell boundary, or its volume that close to the minimum): the GPU and the twins
// then run with particle_lifetime = that age. Before it every device visits the same cells and
// each exchange differs by rounding of its inputs only: allowed 1e-4 of the droplet's largest
// change of a cell, plus two ulps of the height (the new height is rounded to float). On
// lavapipe the float twin must match to the bit but for an exchange rounded the other way at a
// half-unit tie (2 units of 2^-20 m per cell, plus one ulp). A shader that loses the hardness
// factor, scales the capacity by 1.01 or the friction by 1.001 fails this on any device.
TEST_F(ParticlesTest, SingleDropletsMatchReference) {
    const bool exact = correctlyRoundedDriver(ctx());
    for (int variant : {PARTICLES_MASS_TRANSFER, PARTICLES_CAPACITY}) {
        ref::State s = hills(97, 61, 1);
        const gpu::SimParams p = particleParams(s.w, s.h, 1, variant);
        gpu::Simulation sim(ctx(), s.w, s.h);
        loadState(sim, s, p);
        const double ulp = heightUlp(s.terrain);
        int truncated = 0, moved = 0, iterations = 0;
        double worst_float = 0.0, worst_double = 0.0; // over the allowance
        for (int step = 0; step < 64; ++step) {
            // Where the whole droplet may fork.
            ref::State probe_f = s, probe_d = s;
            const int fork = ref::findFork(ref::particlesStep<float>(probe_f, p, step)[0],
                                           ref::particlesStep<double>(probe_d, p, step)[0], p)
                                 .age;
            gpu::SimParams q = p;
            q.particle_lifetime = fork;
            truncated += fork < p.particle_lifetime ? 1 : 0;
            sim.setParams(q);
            const std::vector<float> got = gpuStep(sim, step);
            ref::State want_f = s, want_d = s;
            std::vector<int64_t> delta_d;
            ref::particlesStep<float>(want_f, q, step);
            const auto trace_d = ref::particlesStep<double>(want_d, q, step, &delta_d);
            iterations += trace_d[0].iterations;
            if (trace_d[0].moved > 0) ++moved;
            double largest = 0.0; // the droplet's largest change of a cell (m)
            for (int64_t d : delta_d) largest = std::max(largest, std::abs(double(d)) / PARTICLE_FIXED_ONE);
            const double allowed = 1e-4 * largest + 2.0 * ulp;
            worst_double = std::max(worst_double, maxDifference(got, want_d.terrain) / allowed);
            worst_float = std::max(worst_float, maxDifference(got, want_f.terrain) /
                                                    (exact ? 2.0 / PARTICLE_FIXED_ONE + ulp : allowed));
        }
        std::printf("[ %s ] 64 droplets, %d cut at a possible fork, %d iterations compared, %d moved soil; "
                    "worst difference / allowance: float twin %.3g%s, double %.3g\n",
                    variant == PARTICLES_MASS_TRANSFER ? "mass_transfer" : "capacity", truncated, iterations, moved,
                    worst_float, exact ? " (bit-exact device)" : "", worst_double);
        EXPECT_LE(worst_float, 1.0);
        EXPECT_LE(worst_double, 1.0);
        EXPECT_GE(iterations, 64 * 32) << "most droplets cut short: the comparison says little";
        EXPECT_GE(moved, 32) << "droplets moved no soil: vacuous";
    }
}

// Thousands of droplets in one dispatch on odd grids (64-bit atomics from many droplets on the
// same cells), against the twins. A droplet whose path may fork (ref::findFork; 2-4 % of them)
// can go anywhere after its fork on another device, so the comparison allows, per such droplet,
// twice what the reference moves after the fork (its load there, every later exchange and its
// final drop: ref::DropletFork::uncertain; twice, for the other device's path and the
// reference's); every other droplet's exchanges must agree to 1e-4, plus one ulp of the height
// per cell (about 3 % of the moved soil in all; a gross error such as a lost hardness factor or
// an exchange at the wrong cell exceeds it, finer ones are SingleDropletsMatchReference's):
//   sum over cells |gpu - reference| <= 1e-4 moved + 2 uncertain + cells ulp.
// On lavapipe the float twin must match to 1e-5 of the field's scale (in practice to the bit:
// atomics on integers commute). The total moved soil must agree to 1e-3 plus the uncertain share.
TEST_F(ParticlesTest, ManyDropletsMatchReference) {
    const bool exact = correctlyRoundedDriver(ctx());
    for (const GridCase& g : gridCases())
        for (uint32_t seed : {1u, 2u, 3u}) {
            ref::State s = hills(g.w, g.h, seed);
            gpu::SimParams p = particleParams(s.w, s.h, 3000, seed == 3 ? PARTICLES_CAPACITY : PARTICLES_MASS_TRANSFER);
            p.particle_seed = seed;
            gpu::Simulation sim(ctx(), s.w, s.h);
            loadState(sim, s, p);
            const std::vector<float> got = gpuStep(sim, int(seed));
            ref::State want_f = s, want_d = s;
            std::vector<int64_t> delta_d;
            const auto traces_f = ref::particlesStep<float>(want_f, p, int(seed));
            const auto traces = ref::particlesStep<double>(want_d, p, int(seed), &delta_d);
            double moved = 0.0, uncertain = 0.0, l1 = 0.0, moved_gpu = 0.0, moved_d = 0.0;
            int forked = 0;
            for (size_t k = 0; k < traces.size(); ++k) {
                const ref::DropletFork fork = ref::findFork(traces_f[k], traces[k], p);
                moved += double(traces[k].moved) / PARTICLE_FIXED_ONE;
                uncertain += double(fork.uncertain) / PARTICLE_FIXED_ONE;
                forked += fork.age < p.particle_lifetime ? 1 : 0;
            }
            for (size_t i = 0; i < got.size(); ++i) {
                l1 += std::abs(double(got[i]) - want_d.terrain[i]);
                moved_gpu += std::abs(double(got[i]) - s.terrain[i]);
                moved_d += std::abs(double(delta_d[i])) / PARTICLE_FIXED_ONE;
            }
            const double allowed = 1e-4 * moved + 2.0 * uncertain + double(got.size()) * heightUlp(s.terrain);
            const double err_f = relativeError(got, want_f.terrain);
            std::printf("[ %dx%d seed %u ] %d of 3000 droplets may fork; sum |gpu - double| %.4g m of %.4g allowed "
                        "(moved %.6g m, uncertain %.4g m); vs float twin %.3g\n",
                        g.w, g.h, seed, forked, l1, allowed, moved, uncertain, err_f);
            EXPECT_LE(l1, allowed);
            if (exact) {
                EXPECT_LE(err_f, 1e-5);
            }
            EXPECT_NEAR(moved_gpu, moved_d, 1e-3 * moved_d + 2.0 * uncertain + 1e-4);
            if (g.w > 1 && g.h > 1) {
                EXPECT_GT(moved_d, 0.0) << "nothing moved: vacuous";
                EXPECT_LT(uncertain, 0.5 * moved) << "most of the soil moved after forks: the comparison says little";
            }
            // The sediment holds only what the float ground cannot (0 <= s < one ulp of the
            // ground); the other fields carried over bit for bit.
            const std::vector<float> sediment = sim.download(Field::Sediment, true);
            for (size_t i = 0; i < got.size(); ++i) {
                ASSERT_GE(sediment[i], 0.0f) << "cell " << i;
                ASSERT_LT(sediment[i], std::nextafter(std::abs(got[i]), INFINITY) - std::abs(got[i])) << "cell " << i;
            }
            EXPECT_EQ(sim.download(Field::Water, true), toFloat(s.water));
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
        const std::string cmd = "MESA_SHADER_CACHE_DIR='" + (dir / "cache").string() + "' '" +
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
// step's changes is exactly zero; particles_apply adds it in double and keeps what the float
// ground cannot hold as sediment, so ground plus sediment is conserved to double precision over
// 300 steps (1e-12 relative; the float ground alone would drift by rounding).
TEST_F(ParticlesTest, ConservesSoilWithClosedEdges) {
    for (int variant : {PARTICLES_MASS_TRANSFER, PARTICLES_CAPACITY}) {
        ref::State s = hills(97, 61, 5);
        gpu::SimParams p = particleParams(s.w, s.h, 2000, variant);
        gpu::Simulation sim(ctx(), s.w, s.h);
        loadState(sim, s, p);
        const double before = sum(sim.download(Field::Terrain)) + sum(sim.download(Field::Sediment));
        sim.run(300);
        const std::vector<float> b = sim.download(Field::Terrain);
        const double after = sum(b) + sum(sim.download(Field::Sediment));
        std::printf("[ %s ] soil drift over 300 steps: %.3g relative\n",
                    variant == PARTICLES_MASS_TRANSFER ? "mass_transfer" : "capacity",
                    std::abs(after - before) / before);
        EXPECT_LE(std::abs(after - before) / before, 1e-12);
        EXPECT_NE(b, toFloat(s.terrain)) << "nothing eroded: vacuous";
        // The reference's integer changes sum to zero exactly (closed edges: nothing leaves).
        ref::State r = s;
        std::vector<int64_t> delta;
        ref::particlesStep<double>(r, p, 0, &delta);
        int64_t total = 0;
        for (int64_t d : delta) total += d;
        EXPECT_EQ(total, 0);
    }
}

// The table's extremes: 4,000,000 droplets (its maximum) on 33x33 cells, with capacity, volume,
// softness and deposition at their maxima (each droplet living 16 iterations). On a funnel with closed edges (capacity
// variant) the droplets end in its bottom with loads of hundreds of metres, so a cell's change in one step exceeds 2048
// m, what a sum in int32 units of 2^-20 m holds (checked: before the 64-bit accumulators such runs lost up to 84,000
// times their soil); on a slope towards an open edge (mass-transfer variant) they carry their loads off the map. Ground
// plus sediment plus what left must equal what there was to 1e-9.
TEST_F(ParticlesTest, ConservesSoilAtTheTableExtremes) {
    const int n = 33;
    gpu::Simulation sim(ctx(), n, n);
    for (int variant : {PARTICLES_CAPACITY, PARTICLES_MASS_TRANSFER}) {
        const bool funnel = variant == PARTICLES_CAPACITY;
        ref::State s(n, n);
        for (int y = 0; y < n; ++y)
            for (int x = 0; x < n; ++x)
                s.terrain[s.index(x, y)] = funnel ? 100.0 + 3.0 * std::hypot(x - 16.0, y - 16.0) : 100.0 + 2.0 * x;
        roundToFloat(s);
        Params params;
        params[Param::cell_size] = 1.0;
        for (Param q : {Param::particle_count, Param::particle_capacity, Param::particle_volume,
                        Param::particle_softness, Param::particle_deposition})
            params[q] = paramInfo(q).max;
        params[Param::particle_lifetime] = 16; // the amounts at their extremes, not the droplets' age
        gpu::SimParams p = toSimParams(params, n, n);
        p.model = MODEL_PARTICLES;
        p.particle_variant = variant;
        p.edge_mode = funnel ? EDGE_CLOSED : EDGE_OPEN;
        p.particle_seed = 11;
        loadState(sim, s, p);
        const std::vector<float> start = sim.download(Field::Terrain);
        const double before = sum(start);
        sim.run(1);
        const std::vector<float> b = sim.download(Field::Terrain);
        double largest = 0.0;
        for (size_t i = 0; i < b.size(); ++i) {
            ASSERT_TRUE(std::isfinite(b[i])) << "cell " << i;
            largest = std::max(largest, std::abs(double(b[i]) - double(start[i])));
        }
        const double drained = sim.totals().acc[SLOT_SED_DRAINED]; // m^3 = m of a 1 m cell
        const double after = sum(b) + sum(sim.download(Field::Sediment));
        const double drift = std::abs(after + drained - before) / before;
        std::printf("[ %s ] largest change of a cell in one step %.4g m; carried off the map %.4g m^3; "
                    "soil drift %.3g\n",
                    funnel ? "capacity, funnel, closed edges" : "mass_transfer, slope, open edges", largest, drained,
                    drift);
        if (funnel) {
            EXPECT_GT(largest, 2048.0) << "no cell changed by more than an int32 sum holds: the test proves nothing";
        } else {
            EXPECT_GT(drained, 2048.0) << "hardly any soil left the map: the open edge is not tested";
        }
        EXPECT_LE(drift, 1e-9);
    }
}

// A device without 64-bit integer atomics on buffers (rare: every NVIDIA, AMD and Intel driver and
// lavapipe have them) cannot run the particles or the fluvial model: one clear DeviceError when
// the model's first pass is needed, not a validation error or a crash. (A copy of the context
// that says the feature is missing; nothing reaches the GPU.)
TEST_F(ParticlesTest, WithoutInt64AtomicsTheModelIsAClearDeviceError) {
    gpu::Context lacking = ctx();
    lacking.int64_atomics = false;
    gpu::Simulation sim(lacking, 9, 7);
    for (gpu::Pass pass : {Pass::Particles, Pass::ParticlesApply, Pass::FluvialDrainage}) {
        try {
            sim.runPass(pass);
            ADD_FAILURE() << gpu::passName(pass) << " ran without 64-bit atomics";
        } catch (const gpu::DeviceError& e) {
            const std::string what = e.what();
            EXPECT_NE(what.find("64-bit integer atomics"), std::string::npos) << what;
            EXPECT_NE(what.find(pass == Pass::FluvialDrainage ? "fluvial" : "particles"), std::string::npos) << what;
        }
    }
    EXPECT_TRUE(ctx().int64_atomics) << "lavapipe and the GPUs this runs on have them";
}

// Rock (hardness 1) does not dissolve: with nothing carried there is nothing to deposit either.
TEST_F(ParticlesTest, RockDoesNotErode) {
    ref::State s = hills(64, 48, 6);
    for (double& r : s.hardness) r = 1.0;
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
                for (Param q : {Param::particle_time_step, Param::particle_density, Param::particle_friction,
                                Param::particle_evaporation, Param::particle_deposition, Param::particle_softness,
                                Param::particle_capacity, Param::particle_volume, Param::particle_min_volume,
                                Param::particle_lifetime}) {
                    const ParamInfo& info = paramInfo(q);
                    // corners: all low, all high, alternating low/high, alternating high/low
                    const bool high = corner == 1 || (corner >= 2 && ((int(q) + corner) % 2 == 0));
                    params[q] = high ? info.max : info.min;
                }
                params[Param::particle_lifetime] = std::min(params[Param::particle_lifetime], 256.0);
                params[Param::cell_size] = corner == 1 ? 0.1 : 1000.0;
                gpu::SimParams p = toSimParams(params, s.w, s.h);
                p.model = MODEL_PARTICLES;
                p.particle_count = 2000;
                p.particle_variant = variant;
                p.edge_mode = edge;
                loadState(sim, s, p);
                sim.run(5);
                for (float v : sim.download(Field::Terrain)) ASSERT_TRUE(std::isfinite(v)) << "case " << cases;
                ++cases;
            }
    EXPECT_EQ(cases, 16);
    // No droplets: an empty dispatch, and the ground carried over unchanged.
    gpu::SimParams none = particleParams(s.w, s.h, 0);
    loadState(sim, s, none);
    sim.run(2);
    EXPECT_EQ(sim.download(Field::Terrain), toFloat(s.terrain));
}

// Droplets fall where it rains: one drawn on a cell of rain mask m falls with probability m. A
// mask of three equal bands (no rain, half, all): the droplets the GPU releases over 20 steps are
// the reference's, one for one (the rained total counts them; birth depends on the hash and the
// mask only), and the reference's outcomes follow the mask: of 60,000 draws none falls in the
// dry band, 1/6 fall in the half band, 1/3 in the wet one, 1/2 do not fall (chi-square, 2
// degrees of freedom: below 13.8, p = 0.001).
TEST_F(ParticlesTest, DropletsFallWhereItRains) {
    ref::State s = hills(90, 40, 3);
    for (int y = 0; y < s.h; ++y)
        for (int x = 0; x < s.w; ++x) s.rain_mask[s.index(x, y)] = x < 30 ? 0.0 : x < 60 ? 0.5 : 1.0;
    const gpu::SimParams p = particleParams(s.w, s.h, 3000);
    gpu::Simulation sim(ctx(), s.w, s.h);
    loadState(sim, s, p);
    sim.resetTotals();
    std::array<double, 4> observed{}; // fell in band 0, 1, 2; did not fall
    for (int step = 0; step < 20; ++step) {
        gpuStep(sim, step);
        ref::State r = s;
        for (const ref::DropletTrace& t : ref::particlesStep<float>(r, p, step))
            observed[t.unborn ? 3 : size_t(std::min(int(t.x0) / 30, 2))] += 1.0;
    }
    const double born = observed[0] + observed[1] + observed[2];
    const double rained = sim.totals().acc[SLOT_RAIN] / double(p.particle_volume);
    EXPECT_EQ(std::llround(rained), std::llround(born)) << "the GPU releases the reference's droplets";
    EXPECT_EQ(observed[0], 0.0) << "no droplet falls where it does not rain";
    const double n = 20.0 * 3000.0;
    const std::array<double, 3> expected = {n / 6.0, n / 3.0, n / 2.0}; // bands 1, 2; not fallen
    double chi2 = 0.0;
    for (size_t k = 0; k < 3; ++k) {
        const double o = observed[k + 1];
        chi2 += (o - expected[k]) * (o - expected[k]) / expected[k];
    }
    std::printf(
        "    of %.0f draws: %.0f / %.0f / %.0f fell in the bands, %.0f did not (expected 0 / %.0f / %.0f, %.0f); "
        "chi^2 %.2f\n",
        n, observed[0], observed[1], observed[2], observed[3], expected[0], expected[1], expected[2], chi2);
    EXPECT_LT(chi2, 13.8);
}

} // namespace
} // namespace alluvium::test
