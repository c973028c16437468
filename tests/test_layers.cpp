// Layered ground (shaders/layers.glsl): a loose layer over the bedrock, in every model. What a
// sculptor sees of it, measured: loose material on hard rock erodes as soft ground does (a deposit
// on granite re-erodes), bare hard rock resists, a loose blanket goes first and exposes the rock,
// strata step a slope into cliffs and benches, and soil is conserved with the layers on.
#include <cmath>
#include <functional>

#include "brush.h"
#include "gpu_fixture.h"

namespace alluvium::test {
namespace {

using gpu::Field;

constexpr int kW = 48, kH = 40;

// A rough ramp: 1 m a cell down to the right, with hills of a few metres (cells 4 m).
std::vector<float> roughRamp(int w, int h) {
    std::vector<float> z(size_t(w) * size_t(h));
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            z[size_t(y * w + x)] = float(60.0 - 1.0 * x + 3.0 * std::sin(0.45 * x) * std::cos(0.35 * y) +
                                         0.7 * std::sin(1.7 * x + 2.3 * y));
    return z;
}

struct Ground {
    std::vector<float> terrain, loose;
    float hardness = 0.0f;
};

struct Outcome {
    std::vector<float> terrain, loose, sediment;
};

gpu::SimParams modelParams(int model, int layers) {
    Params q;
    q[Param::enable_layers] = layers;
    q[Param::edge_mode] = EDGE_CLOSED;
    q[Param::rain_rate] = 2.0;
    q[Param::particle_count] = 400;
    q[Param::fluvial_outlets] = 0;
    q[Param::uplift_rate] = 0.0; // the fluvial model's ground moves by its streams alone
    q[Param::hillslope_diffusion] = 0.0;
    q[Param::fluvial_time_step] = 20.0; // short steps: the implicit streams far from their equilibrium
    q[Param::fluvial_deposition] = 0.0;
    gpu::SimParams p = toSimParams(q, kW, kH);
    p.model = model;
    return p;
}

Outcome runOn(const gpu::Context& ctx, const Ground& g, gpu::SimParams p, int steps) {
    gpu::Simulation sim(ctx, kW, kH);
    for (bool next : {false, true}) {
        sim.upload(Field::Terrain, g.terrain, next);
        sim.upload(Field::Loose, g.loose, next);
    }
    sim.upload(Field::Hardness, std::vector<float>(g.terrain.size(), g.hardness));
    sim.setParams(p);
    sim.resetTotals();
    sim.run(steps);
    return {sim.download(Field::Terrain), sim.download(Field::Loose), sim.download(Field::Sediment)};
}

double totalChange(const std::vector<float>& a, const std::vector<float>& b) {
    double t = 0.0;
    for (size_t i = 0; i < a.size(); ++i) t += std::abs(double(a[i]) - b[i]);
    return t;
}

class LayersTest : public GpuTest {};

// In every model: hard rock (hardness 0.9) under 50 m of loose material erodes exactly as bare
// soft rock (hardness 0) does, step for step (the loose layer's own rate, loose_erodibility 1,
// and its angle of repose set to the soft rock's talus), while bare hard rock moves far less.
TEST_F(LayersTest, LooseOnHardRockErodesAsSoftGroundAndBareHardRockResists) {
    const std::vector<float> z = roughRamp(kW, kH);
    const std::vector<float> none(z.size(), 0.0f), blanket(z.size(), 50.0f);
    for (int model = 0; model < MODEL_COUNT; ++model) {
        SCOPED_TRACE(gpu::modelName(model));
        const int steps = model == MODEL_FLUVIAL ? 5 : 40;
        gpu::SimParams layered = modelParams(model, 1), single = modelParams(model, 0);
        // The loose layer's angle of repose equal to soft rock's talus (hardness 0) in each model.
        layered.loose_repose_angle =
            model == MODEL_THERMAL ? float(std::atan(double(layered.talus_slope))) : layered.talus_angle;
        const Outcome loose_on_hard = runOn(ctx(), {z, blanket, 0.9f}, layered, steps);
        const Outcome soft = runOn(ctx(), {z, none, 0.0f}, single, steps);
        const Outcome bare_hard = runOn(ctx(), {z, none, 0.9f}, layered, steps);
        const double moved_soft = totalChange(soft.terrain, z);
        EXPECT_GT(moved_soft, 1e-3) << "nothing eroded: vacuous";
        // The thermal model's slope goes through atan and tan (an ulp of the slope).
        const double tol = model == MODEL_THERMAL ? 1e-5 : 1e-6;
        EXPECT_LE(relativeError(loose_on_hard.terrain, std::vector<double>(soft.terrain.begin(), soft.terrain.end())),
                  tol);
        const double moved_hard = totalChange(bare_hard.terrain, z);
        std::printf("[ %s ] ground moved over %d steps: soft rock %.4g m, loose on hard rock %.4g m, bare hard rock "
                    "%.4g m\n",
                    gpu::modelName(model), steps, moved_soft, totalChange(loose_on_hard.terrain, z), moved_hard);
        EXPECT_LT(moved_hard, 0.7 * moved_soft);
        for (float l : bare_hard.loose) ASSERT_GE(l, 0.0f);
    }
}

// A thin loose blanket (2 cm) on hard rock (0.9) under rain: at first the water takes the loose
// layer (its volume falls several times more than the bedrock's), then the rock shows through
// where the water runs, and from then on the rock erodes.
TEST_F(LayersTest, ALooseBlanketErodesFirstAndExposesTheRock) {
    const std::vector<float> z = roughRamp(kW, kH);
    const std::vector<float> blanket(z.size(), 0.02f);
    gpu::SimParams p = modelParams(MODEL_PIPE, 1);
    p.enable_thermal = 0; // the water's work alone
    struct Lost {
        double loose = 0.0, rock = 0.0;
        int exposed = 0;
    };
    auto lost = [&](const Outcome& o) {
        Lost l;
        for (size_t i = 0; i < z.size(); ++i) {
            l.loose += std::max(0.0, double(blanket[i]) - o.loose[i]);
            l.rock += std::max(0.0, (double(z[i]) - blanket[i]) - (double(o.terrain[i]) - o.loose[i]));
            l.exposed += o.loose[i] <= 0.0f ? 1 : 0;
        }
        return l;
    };
    const Lost early = lost(runOn(ctx(), {z, blanket, 0.9f}, p, 100));
    const Lost late = lost(runOn(ctx(), {z, blanket, 0.9f}, p, 1500));
    std::printf("[ blanket ] after 100 steps: loose eroded %.4g m, bedrock %.4g m (summed over cells), %d cells "
                "exposed; after 1500: %.4g m, %.4g m, %d of %zu exposed\n",
                early.loose, early.rock, early.exposed, late.loose, late.rock, late.exposed, z.size());
    EXPECT_GT(early.loose, 3.0 * early.rock);
    EXPECT_GT(late.exposed, 2 * early.exposed);
    EXPECT_GT(early.exposed, 0);
    EXPECT_GT(late.rock, 10.0 * early.rock);
}

// Every model with layers on, closed edges, a 30 cm regolith: ground + sediment is conserved to
// 1e-6, the loose layer never goes negative and the bedrock never rises (deposits are loose).
// The fluvial model adds rock by uplift and is left out of the balance (its report says so).
TEST_F(LayersTest, SoilBalanceClosesWithLayersInEveryModel) {
    const std::vector<float> z = roughRamp(kW, kH);
    const std::vector<float> regolith(z.size(), 0.3f);
    for (int model = 0; model < MODEL_COUNT; ++model) {
        if (model == MODEL_FLUVIAL) continue;
        SCOPED_TRACE(gpu::modelName(model));
        const Outcome o = runOn(ctx(), {z, regolith, 0.5f}, modelParams(model, 1), 300);
        double before = 0.0, after = 0.0, magnitude = 0.0, rock_rise = 0.0;
        for (size_t i = 0; i < z.size(); ++i) {
            before += z[i];
            after += double(o.terrain[i]) + o.sediment[i];
            magnitude += std::abs(z[i]);
            rock_rise = std::max(rock_rise, (double(o.terrain[i]) - o.loose[i]) - (double(z[i]) - regolith[i]));
            ASSERT_GE(o.loose[i], 0.0f);
        }
        std::printf("[ %s ] soil drift %.3g, bedrock's largest rise %.3g m\n", gpu::modelName(model),
                    std::abs(after - before) / magnitude, rock_rise);
        EXPECT_LE(std::abs(after - before) / magnitude, 1e-6);
        EXPECT_LE(rock_rise, 1e-4); // rounding of terrain - loose near 60 m
        EXPECT_NE(o.loose, regolith) << "the loose layer never changed: vacuous";
    }
}

// Strata: bands 6 m thick alternating hard and soft, on a uniform ramp under thermal and
// hydraulic erosion, step the slope: the ground's slope down the ramp varies far more along a
// row (benches and cliffs) than with the same rock at one hardness.
TEST_F(LayersTest, StrataStepTheSlope) {
    std::vector<float> z(size_t(kW) * kH);
    for (int y = 0; y < kH; ++y)
        for (int x = 0; x < kW; ++x) z[size_t(y * kW + x)] = float(120.0 - 2.5 * x + 0.05 * std::sin(1.3 * y));
    gpu::SimParams p = modelParams(MODEL_PIPE, 1);
    p.talus_angle = float(20.0 * 3.14159265358979323846 / 180.0);
    p.thermal_rate = 32.0f; // a step moves dt K / L^2 = 0.2 of half the largest excess on 4 m cells
    gpu::SimParams banded = p;
    banded.strata_contrast = 1.0f;
    banded.strata_thickness = 6.0f;
    const std::vector<float> none(z.size(), 0.0f);
    const Outcome plain = runOn(ctx(), {z, none, 0.5f}, p, 3000);
    const Outcome strata = runOn(ctx(), {z, none, 0.0f}, banded, 3000);
    // The spread of the slope along the middle rows (coefficient of variation).
    auto spread = [&](const std::vector<float>& b) {
        double sum = 0.0, sum2 = 0.0;
        int n = 0;
        for (int y = kH / 4; y < 3 * kH / 4; ++y)
            for (int x = 4; x + 5 < kW; ++x) {
                const double s = double(b[size_t(y * kW + x)]) - b[size_t(y * kW + x + 1)];
                sum += s, sum2 += s * s, ++n;
            }
        const double mean = sum / n;
        return std::sqrt(std::max(0.0, sum2 / n - mean * mean)) / std::abs(mean);
    };
    const double plain_spread = spread(plain.terrain), strata_spread = spread(strata.terrain);
    std::printf("[ strata ] slope variation along the ramp: one hardness %.3g, strata %.3g\n", plain_spread,
                strata_spread);
    EXPECT_GT(strata_spread, 2.0 * plain_spread);
    EXPECT_GT(strata_spread, 0.3);
}

// The brush on layered ground: sand lays ground and loose layer together, raise lays rock (the
// loose layer unchanged), lower takes the loose layer first and then the rock, and smoothing's
// gains are loose; with layers off the loose layer is never touched.
TEST_F(LayersTest, TheBrushLaysSandRaisesRockAndDigsLooseFirst) {
    const std::vector<float> z = roughRamp(kW, kH);
    const std::vector<float> loose0(z.size(), 0.2f);
    for (int layers : {1, 0}) {
        SCOPED_TRACE(layers ? "layers on" : "layers off");
        gpu::Simulation sim(ctx(), kW, kH);
        for (bool next : {false, true}) {
            sim.upload(Field::Terrain, z, next);
            sim.upload(Field::Loose, loose0, next);
        }
        sim.setParams(modelParams(MODEL_PIPE, layers));
        gpu::Brush brush(ctx(), sim);
        auto stroke = [&](int tool, float amount) {
            gpu::BrushParams b{};
            b.tool = tool;
            b.x = kW * 0.5f, b.y = kH * 0.5f, b.radius = 6.0f, b.falloff = 0.0f; // a flat disk
            b.amount = amount;
            b.cell_area = 16.0f;
            brush.apply(b);
            return std::pair{sim.download(Field::Terrain), sim.download(Field::Loose)};
        };
        const size_t centre = size_t(kH / 2) * kW + kW / 2;
        const auto [sand_z, sand_l] = stroke(BRUSH_TOOL_SAND, 0.5f);
        EXPECT_NEAR(sand_z[centre] - z[centre], 0.5f, 1e-5); // an ulp of ground near 60 m
        EXPECT_FLOAT_EQ(sand_l[centre], layers ? 0.7f : 0.2f);
        const auto [raise_z, raise_l] = stroke(BRUSH_TOOL_RAISE, 0.3f);
        EXPECT_NEAR(raise_z[centre] - sand_z[centre], 0.3f, 1e-5);
        EXPECT_EQ(raise_l, sand_l);
        const auto [lower_z, lower_l] = stroke(BRUSH_TOOL_LOWER, 0.5f); // within the loose layer
        EXPECT_NEAR(lower_l[centre], 0.2f, 1e-6);                   // the sand went first (or, without layers, nothing)
        const auto [dig_z, dig_l] = stroke(BRUSH_TOOL_LOWER, 1.0f); // through it, into the rock
        EXPECT_NEAR(dig_z[centre], lower_z[centre] - 1.0f, 1e-5);
        EXPECT_EQ(dig_l[centre], layers ? 0.0f : 0.2f);
        const auto [smooth_z, smooth_l] = stroke(BRUSH_TOOL_SMOOTH, 0.25f);
        double gained = 0.0, loose_gained = 0.0;
        for (size_t i = 0; i < z.size(); ++i) {
            gained += std::max(0.0, double(smooth_z[i]) - dig_z[i]);
            loose_gained += std::max(0.0, double(smooth_l[i]) - dig_l[i]);
        }
        EXPECT_GT(gained, 0.0);
        EXPECT_NEAR(loose_gained, layers ? gained : 0.0, 1e-3 * gained);
    }
}

// The bench's bytes per cell of a fused pipe step (GPUs), from the passes' rows: layered ground
// adds at most 8 (its loose layer read and written once), strata nothing, the weather at most 4
// (orographic rain reads the ground where the water update did not), and all of it nothing off.
TEST(LayersBytes, ThePipeStepMovesAtMostEightBytesMoreACellWithLayersAndFourWithTheWeather) {
    auto stepBytes = [](const std::function<void(Params&)>& set) {
        Params q;
        set(q);
        const gpu::SimParams p = toSimParams(q, 512, 512);
        double bytes = 0.0;
        for (gpu::Pass pass : gpu::modelPasses(MODEL_PIPE, gpu::PipePasses::Fused))
            bytes += gpu::passBytesPerCell(pass, p, 512, 512);
        return bytes;
    };
    const double off = stepBytes([](Params&) {});
    const double layers = stepBytes([](Params& q) { q[Param::enable_layers] = 1; });
    const double strata = stepBytes([](Params& q) {
        q[Param::enable_layers] = 1;
        q[Param::strata_contrast] = 0.8;
    });
    const double weather = stepBytes([](Params& q) {
        q[Param::rain_noise] = 1;
        q[Param::storm_count] = 4;
        q[Param::orographic] = 1;
    });
    const double shapes_only = stepBytes([](Params& q) { // the parts' shapes, with the parts off
        q[Param::strata_thickness] = 3;
        q[Param::storm_radius] = 40;
        q[Param::loose_erodibility] = 2;
    });
    std::printf(
        "[ bytes a cell, fused pipe step at 512^2 ] off %.2f, layers %.2f, layers + strata %.2f, weather %.2f\n", off,
        layers, strata, weather);
    EXPECT_LE(layers - off, 8.0);
    EXPECT_GT(layers - off, 0.0);
    EXPECT_EQ(strata, layers);
    EXPECT_LE(weather - off, 4.0);
    EXPECT_EQ(shapes_only, off);
}

} // namespace
} // namespace alluvium::test
