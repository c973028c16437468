// The fluvial model (seed 003), its iteration: the implicit stream-power update against
// its double reference; the steady state of uniform uplift against the stream-power law; switching
// with the pipe model on the same state; its buffers, bound whole and allocated only once the model
// is used. Filling, routing and accumulation: test_fluvial.cpp; the fixture: fluvial_fixture.h.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "fluvial.h"
#include "fluvial_fixture.h"
#include "gpu_fixture.h"

namespace alluvium::test {
namespace {

// Every fluvial buffer is bound whole: none is above 8 bytes a cell, so a 4096 x 4096 grid binds
// each within 128 MiB (lavapipe's maxStorageBufferRange; GPUs allow 4 GiB), and a grid whose
// buffer would not bind is refused with a DeviceError, not a validation error.
TEST_F(Fluvial, BuffersBindWithinTheDevicesRange) {
    EXPECT_LE(gpu::fluvialLargestBuffer(4096, 4096), uint64_t(128) << 20);
    // 8 bytes a cell of the tiles the grid covers (the ring nodes are per tile).
    for (const GridCase c : {GridCase{4095, 4097}, GridCase{1, 50}, GridCase{403, 344}})
        EXPECT_LE(gpu::fluvialLargestBuffer(c.w, c.h), uint64_t(8) * WG_SIZE * ((c.w + 15) / 16) * ((c.h + 15) / 16));
    const uint64_t range = ctx().properties.limits.maxStorageBufferRange;
    // The largest square grid this device's memory holds binds too.
    int side = 64;
    while (gpu::simulationBytes(side + 64, side + 64) + gpu::fluvialBytes(side + 64, side + 64) <=
           ctx().device_local_bytes)
        side += 64;
    EXPECT_LE(gpu::fluvialLargestBuffer(side, side), range) << side << "x" << side;
}

// The fluvial buffers (about 60 bytes a cell) exist only once that model is used: a pipe-model
// simulation never allocates them and simulationBytes leaves them out; the first switch to the
// fluvial model allocates them. A grid whose buffers would not bind, or not fit in the device's
// memory, is refused at that switch with one clear DeviceError (exit status 3 in the commands),
// and the simulation goes on with the model it had.
TEST_F(Fluvial, BuffersAreAllocatedOnlyWhenTheModelIsUsed) {
    const int w = 67, h = 45;
    const std::vector<float> z = pittedTerrain(w, h, 7);
    EXPECT_GE(gpu::fluvialBytes(w, h), uint64_t(w) * h * 56);
    gpu::SimParams pipe = params(w, h);
    pipe.model = MODEL_PIPE;
    auto sim = make(z, w, h, pipe);
    sim->run(2);
    EXPECT_FALSE(sim->fluvial().allocated());
    EXPECT_TRUE(sim->fluvial().keys().empty());
    EXPECT_EQ(sim->fluvial().hostControl().converged, 0u);
    sim->setParams(params(w, h));
    EXPECT_TRUE(sim->fluvial().allocated());
    sim->run(1);
    EXPECT_EQ(sim->fluvial().hostControl().converged, 1u);
    EXPECT_EQ(sim->fluvial().receivers().size(), size_t(w) * h);
    sim->setParams(pipe); // back to the pipe model: the buffers stay for the next switch
    sim->run(1);
    EXPECT_TRUE(sim->fluvial().allocated());

    auto refused = [&](const gpu::Context& limited, const char* expect) {
        gpu::Simulation s(limited, w, h);
        s.upload(Field::Terrain, z);
        s.setParams(pipe);
        s.run(1);
        try {
            s.setParams(params(w, h));
            ADD_FAILURE() << "the fluvial model was allowed: " << expect;
        } catch (const gpu::DeviceError& e) {
            const std::string what = e.what();
            EXPECT_NE(what.find("fluvial model"), std::string::npos) << what;
            EXPECT_NE(what.find(expect), std::string::npos) << what;
            EXPECT_EQ(what.find('\n'), std::string::npos) << what;
        }
        EXPECT_FALSE(s.fluvial().allocated());
        EXPECT_EQ(s.params().model, MODEL_PIPE);
        s.run(1); // the pipe model goes on
        EXPECT_TRUE(s.fluvial().keys().empty());
    };
    gpu::Context narrow = ctx(); // shares the device; only the limit differs
    narrow.properties.limits.maxStorageBufferRange = uint32_t(gpu::fluvialLargestBuffer(w, h) - 4);
    refused(narrow, "binds at most");
    gpu::Context small = ctx();
    small.device_local_bytes =
        gpu::simulationBytes(w, h, gpu::resolvePartialsPerGroup(ctx())) + gpu::fluvialBytes(w, h) / 2;
    refused(small, "MiB of GPU memory");
}

// One whole iteration (fill, route, accumulate, implicit erosion, diffusion) against the double
// reference, on rough random ground with random hardness and uplift maps, odd sizes.
TEST_F(Fluvial, IterationMatchesTheReference) {
    struct Case {
        int w, h;
        float n, diffusion_m2_per_yr, deposition;
        int outlets; // fluvial_outlets choice: a 1-wide grid with every side open is all outlet
    };
    const Case cases[] = {{97, 61, 1.0f, 0.0f, 0.0f, 0}, {97, 61, 1.0f, 0.0f, 0.5f, 0}, {63, 65, 1.5f, 0.0f, 2.0f, 0},
                          {1, 50, 1.0f, 0.0f, 0.5f, 3},  {50, 1, 1.0f, 0.0f, 0.0f, 1},  {45, 39, 1.0f, 5.0f, 0.3f, 0},
                          {45, 39, 0.7f, 0.5f, 0.0f, 4}};
    uint32_t seed = 100;
    for (const Case& c : cases) {
        SCOPED_TRACE(::testing::Message()
                     << c.w << "x" << c.h << " n " << c.n << " D " << c.diffusion_m2_per_yr << " G " << c.deposition);
        std::mt19937 rng(++seed);
        std::uniform_real_distribution<float> u(0.0f, 1.0f);
        const std::vector<float> z = pittedTerrain(c.w, c.h, seed);
        std::vector<float> hardness(z.size()), uplift(z.size());
        for (size_t i = 0; i < z.size(); ++i) hardness[i] = u(rng), uplift[i] = 2.0f * u(rng);
        Params table;
        table[Param::cell_size] = 10.0;
        table[Param::stream_power_n] = c.n;
        table[Param::stream_power_k] = 1e-4;
        table[Param::hillslope_diffusion] = c.diffusion_m2_per_yr;
        table[Param::fluvial_outlets] = c.outlets;
        table[Param::fluvial_deposition] = c.deposition;
        gpu::SimParams p = toSimParams(table, c.w, c.h);
        p.model = MODEL_FLUVIAL;
        auto sim = make(z, c.w, c.h, p);
        sim->upload(Field::Hardness, hardness);
        sim->upload(Field::Uplift, uplift);
        sim->run(1);
        EXPECT_EQ(sim->fluvial().hostControl().converged, 1u);
        const std::vector<float> gpu_z = sim->download(Field::Terrain);

        ref::FluvialGrid g{c.w, c.h, p.fluvial_outlets};
        const ref::Fill f = ref::fillPriorityFlood(g, z);
        const std::vector<uint32_t> rcv = ref::receivers(g, f);
        const std::vector<uint64_t> acc = ref::accumulate(rcv, ref::rainWeights(std::vector<float>(z.size(), 1.0f)));
        const std::vector<double> want = ref::fluvialErode(g, {&z, &hardness, &uplift}, f, rcv, acc, p);
        // Relative to the change (the heights themselves are ~10 m, the change ~1 m).
        double change = 0.0, err = 0.0;
        for (size_t i = 0; i < z.size(); ++i) {
            change = std::max(change, std::abs(want[i] - z[i]));
            err = std::max(err, std::abs(double(gpu_z[i]) - want[i]));
        }
        EXPECT_GT(change, 0.1);
        // With deposition, each cell's eroded volume is a difference of float heights (one ulp of
        // ~10 m is 1e-6 m) and the sediment passing a cell sums those over its upstream area.
        const double tolerance = c.deposition > 0.0f ? 1e-4 : 1e-5;
        EXPECT_LT(err / change, tolerance) << "max error " << err << " m of a change up to " << change << " m";
        // Sediment is never created: what the cells kept is at most what the stream power eroded.
        const std::vector<float> wear = sim->download(Field::Wear);
        double eroded = 0.0, deposited = 0.0;
        for (size_t i = 0; i < z.size(); ++i) eroded += wear[2 * i], deposited += wear[2 * i + 1];
        if (c.deposition > 0.0f) {
            EXPECT_GT(deposited, 0.0);
            EXPECT_LE(deposited, eroded * (1.0 + 1e-5));
        } else {
            EXPECT_EQ(deposited, 0.0);
        }
    }
}

// Uniform uplift on rough random ground until nothing changes (|dz/dt| < 1e-3 U): then
// U = K A^m S^n everywhere, so on log-log axes slope against drainage area is a line of
// exponent -m/n through the steepness (U/K)^(1/n). Fitted on the cells with A >= 20 cells.
TEST_F(Fluvial, SteadyStateFollowsTheStreamPowerLaw) {
    const int w = 81, h = 67;
    const double L = 10.0, U_mm = 1.0, K = 1e-4, m = 0.4;
    Params table;
    table[Param::cell_size] = L;
    table[Param::uplift_rate] = U_mm;
    table[Param::stream_power_k] = K;
    table[Param::stream_power_m] = m;
    table[Param::stream_power_n] = 1.0;
    table[Param::fluvial_time_step] = 20000.0;
    table[Param::hillslope_diffusion] = 0.0; // the law is that of stream power alone
    table[Param::fluvial_deposition] = 0.0;
    gpu::SimParams p = toSimParams(table, w, h);
    p.model = MODEL_FLUVIAL;
    std::vector<float> z = pittedTerrain(w, h, 5);
    auto sim = make(z, w, h, p);
    const double U_dt = U_mm * 1e-3 * table[Param::fluvial_time_step];
    double change = INFINITY;
    int iterations = 0;
    while (change >= 1e-3 * U_dt && iterations < 3000) {
        sim->run(25);
        iterations += 25;
        const std::vector<float> before = sim->download(Field::Terrain);
        sim->run(1);
        ++iterations;
        z = sim->download(Field::Terrain);
        change = 0.0;
        for (size_t i = 0; i < z.size(); ++i) change = std::max(change, double(std::abs(z[i] - before[i])));
    }
    ASSERT_LT(change, 1e-3 * U_dt) << "no steady state after " << iterations << " iterations";
    sim->fluvialAnalyse();
    const std::vector<uint32_t> rcv = sim->fluvial().receivers();
    const std::vector<float> area = sim->download(Field::Drainage);
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    int count = 0;
    for (uint32_t i = 0; i < rcv.size(); ++i) {
        if (rcv[i] == i || area[i] < 20.0 * L * L) continue;
        const int dx = int(rcv[i] % w) - int(i % w), dy = int(rcv[i] / w) - int(i / w);
        const double slope = (double(z[i]) - z[rcv[i]]) / (std::hypot(dx, dy) * L);
        ASSERT_GT(slope, 0.0);
        const double x = std::log(area[i]), y = std::log(slope);
        sx += x, sy += y, sxx += x * x, sxy += x * y, ++count;
    }
    ASSERT_GT(count, 50);
    const double exponent = (count * sxy - sx * sy) / (count * sxx - sx * sx);
    const double steepness = std::exp((sy - exponent * sx) / count);
    const double want_steepness = (U_mm * 1e-3) / K; // (U/K)^(1/n), both per year
    std::printf("steady state after %d iterations: %d cells, exponent %.5f (want %.2f), steepness %.5f (want %.5f)\n",
                iterations, count, exponent, -m, steepness, want_steepness);
    EXPECT_NEAR(exponent, -m, 0.02);
    EXPECT_NEAR(steepness / want_steepness, 1.0, 0.05);
}

// Fast-forward with the fluvial model, then detail with the pipe model, on the same state: the
// pipe model's water and sediment wait unchanged through fluvial iterations, nothing turns NaN.
TEST_F(Fluvial, SwitchesWithThePipeModelOnTheSameState) {
    const int w = 61, h = 47;
    ref::State s = randomState(w, h, 3);
    gpu::SimParams p = defaultParams(w, h);
    gpu::Simulation sim(ctx(), w, h);
    loadState(sim, s, p);
    sim.run(20);
    const std::vector<float> water = sim.download(Field::Water), sediment = sim.download(Field::Sediment);
    const std::vector<float> ground = sim.download(Field::Terrain);
    p.model = MODEL_FLUVIAL;
    sim.setParams(p);
    sim.run(3);
    EXPECT_EQ(sim.download(Field::Water), water);
    EXPECT_EQ(sim.download(Field::Sediment), sediment);
    const std::vector<float> carved = sim.download(Field::Terrain);
    EXPECT_NE(carved, ground);
    p.model = MODEL_PIPE;
    sim.setParams(p);
    sim.run(20);
    for (Field f : {Field::Terrain, Field::Water, Field::Sediment})
        for (float v : sim.download(f)) ASSERT_TRUE(std::isfinite(v)) << fieldName(f);
}

} // namespace
} // namespace alluvium::test
