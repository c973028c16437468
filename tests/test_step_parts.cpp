// The pipe step's passes are built with only the optional parts the parameters turn on (rain
// mask, springs, sea, maps, open edges, layers, strata, weather: STEP_* in shared.h,
// gpu::stepParts), because a CPU driver runs both sides of every branch. Leaving a part out must
// change nothing: each of the 32 combinations of the first five, and 5 of the ground's and the
// weather's, in both pass forms, runs 15 steps against a simulation whose passes have every part
// (STEP_ALL, testing the parameters as before), and every field and total must be the same bits.
#include <bit>
#include <functional>

#include "gpu_fixture.h"

namespace alluvium::test {
namespace {

using gpu::Field;

// One combination of the parameters behind the parts; `parts` is what gpu::stepParts must say.
struct PartsCase {
    bool open_edges, rain_mask, springs, sea, maps, layers, strata, weather;
    uint32_t parts;
};

PartsCase partsCase(uint32_t parts) {
    return {(parts & STEP_OPEN_EDGES) != 0, (parts & STEP_RAIN_MASK) != 0, (parts & STEP_SPRINGS) != 0,
            (parts & STEP_SEA) != 0,        (parts & STEP_MAPS) != 0,      (parts & STEP_LAYERS) != 0,
            (parts & STEP_STRATA) != 0,     (parts & STEP_WEATHER) != 0,   parts};
}

std::string partsName(const ::testing::TestParamInfo<uint32_t>& info) {
    const PartsCase c = partsCase(info.param);
    std::string name;
    for (auto [on, part] :
         {std::pair{c.open_edges, "OpenEdges"}, std::pair{c.rain_mask, "RainMask"}, std::pair{c.springs, "Springs"},
          std::pair{c.sea, "Sea"}, std::pair{c.maps, "Maps"}, std::pair{c.layers, "Layers"},
          std::pair{c.strata, "Strata"}, std::pair{c.weather, "Weather"}})
        if (on) name += part;
    if (info.param & STEP_VEGETATION) name += "Vegetation";
    return name.empty() ? "None" : name;
}

std::unique_ptr<gpu::Simulation> partsSim(const gpu::Context& ctx, const ref::State& s, const PartsCase& c,
                                          gpu::PipePasses passes, bool with_parts) {
    Params q;
    q[Param::rain_rate] = 0.5;
    q[Param::edge_mode] = c.open_edges ? EDGE_OPEN : EDGE_CLOSED;
    q[Param::record_maps] = c.maps ? 1 : 0;
    q[Param::enable_sea] = c.sea ? 1 : 0;
    q[Param::sea_level] = 6.0; // randomState's ground is 5 .. 8 m: a sea over part of it
    q[Param::enable_layers] = c.layers ? 1 : 0;
    q[Param::strata_contrast] = c.strata ? 0.8 : 0.0;
    q[Param::strata_thickness] = 0.5;
    q[Param::strata_tilt] = 10.0;
    q[Param::rain_noise] = c.weather ? 0.5 : 0.0;
    q[Param::storm_count] = c.weather ? 2 : 0;
    q[Param::storm_radius] = 80.0;
    q[Param::orographic] = c.weather ? 0.5 : 0.0;
    q[Param::enable_vegetation] = (c.parts & STEP_VEGETATION) != 0 ? 1 : 0;
    auto sim = std::make_unique<gpu::Simulation>(ctx, s.w, s.h, passes);
    sim->setPassesWithParts(with_parts);
    loadState(*sim, s, toSimParams(q, s.w, s.h));
    if (!c.rain_mask) sim->upload(Field::RainMask, std::vector<float>(size_t(s.w) * s.h, 1.0f));
    if (c.springs) sim->setSprings({{20.5f, 30.25f, 3.0f, 0.05f}, {70.75f, 10.5f, 1.5f, 0.1f}});
    return sim;
}

class StepPartsTest : public GpuTest {};
class StepPartsCombinationTest : public GpuTest, public ::testing::WithParamInterface<uint32_t> {};

TEST_P(StepPartsCombinationTest, PassesWithOnlyTheirPartsAreBitIdentical) {
    const ref::State s = randomState(97, 61, 23);
    const PartsCase c = partsCase(GetParam());
    for (gpu::PipePasses passes : {gpu::PipePasses::Fused, gpu::PipePasses::Direct}) {
        SCOPED_TRACE(gpu::pipePassesName(passes));
        auto parts = partsSim(ctx(), s, c, passes, true);
        auto every = partsSim(ctx(), s, c, passes, false);
        EXPECT_EQ(gpu::stepParts(parts->params()), c.parts);
        parts->run(15);
        every->run(15);
        EXPECT_EQ(parts->builtStepParts(), c.parts);
        EXPECT_EQ(every->builtStepParts(), STEP_ALL);
        for (Field f : {Field::Terrain, Field::Water, Field::Sediment, Field::Velocity, Field::Outflow, Field::Loose}) {
            const std::vector<float> a = parts->download(f), b = every->download(f);
            EXPECT_TRUE(a == b) << gpu::fieldName(f);
            EXPECT_NE(a, std::vector<float>(a.size(), a[0])) << gpu::fieldName(f) << " never changed";
        }
        if (c.maps) {
            for (Field f : {Field::Wear, Field::Flow})
                EXPECT_TRUE(parts->download(f) == every->download(f)) << gpu::fieldName(f);
        }
        const gpu::Totals a = parts->totals(), b = every->totals();
        for (int slot = 0; slot < TOTAL_SLOTS; ++slot) EXPECT_EQ(a.acc[slot], b.acc[slot]) << "slot " << slot;
        // Each part the case turns on moved something the sums see (a sea needs an open edge).
        EXPECT_GT(a.acc[SLOT_RAIN], 0.0);
        if (c.springs) {
            EXPECT_GT(a.acc[SLOT_SPRING], 0.0);
        }
        if (c.open_edges) {
            EXPECT_GT(a.acc[SLOT_DRAINED_WATER], 0.0);
        }
        if (c.sea && c.open_edges) {
            EXPECT_NE(a.acc[SLOT_SEA_IN] + a.acc[SLOT_SEA_OUT], 0.0);
        }
    }
}

// The first five parts: none, each alone, every pair and all five (a part's code touches at most
// one other's: the sea and open edges, springs and the rain mask; every pair covers each such
// meeting); the ground's two (layers, strata) alone and together, the weather alone, vegetation
// alone, and all of them.
const uint32_t kFirstFive = STEP_RAIN_MASK | STEP_SPRINGS | STEP_SEA | STEP_MAPS | STEP_OPEN_EDGES;
std::vector<uint32_t> noneOnesPairsAndAll() {
    std::vector<uint32_t> cases;
    for (uint32_t parts = 0; parts <= kFirstFive; ++parts)
        if (std::popcount(parts) <= 2 || parts == kFirstFive) cases.push_back(parts);
    return cases;
}
INSTANTIATE_TEST_SUITE_P(Pairs, StepPartsCombinationTest, ::testing::ValuesIn(noneOnesPairsAndAll()), partsName);
INSTANTIATE_TEST_SUITE_P(Ground, StepPartsCombinationTest,
                         ::testing::Values(STEP_LAYERS, STEP_STRATA, STEP_LAYERS | STEP_STRATA, STEP_WEATHER,
                                           STEP_VEGETATION, STEP_ALL),
                         partsName);

// The parts follow the parameters the GPU holds: switching a part on builds the passes anew
// with it, and off again goes back to the pipelines without it; through the switches, the same
// bits as passes with every part.
TEST_F(StepPartsTest, PartsFollowTheUploadedParameters) {
    const ref::State s = randomState(64, 64, 29);
    const PartsCase c = partsCase(0);
    auto sim = partsSim(ctx(), s, c, gpu::PipePasses::Auto, true);
    auto every = partsSim(ctx(), s, c, gpu::PipePasses::Auto, false);
    EXPECT_EQ(sim->builtStepParts(), STEP_ALL); // nothing uploaded yet
    auto both = [&](const std::function<void(gpu::Simulation&)>& f) { f(*sim), f(*every); };
    both([](gpu::Simulation& m) { m.run(2); });
    EXPECT_EQ(sim->builtStepParts(), 0u);
    gpu::SimParams q = sim->params();
    q.record_maps = 1;
    q.edge_mode = EDGE_OPEN;
    both([&](gpu::Simulation& m) { m.setParams(q); });
    EXPECT_EQ(sim->builtStepParts(), 0u); // until the next submission uploads them
    both([](gpu::Simulation& m) { m.run(2); });
    EXPECT_EQ(sim->builtStepParts(), STEP_MAPS | STEP_OPEN_EDGES);
    EXPECT_NE(sim->download(Field::Flow), std::vector<float>(size_t(s.w) * s.h, 0.0f)); // the maps ran
    both([](gpu::Simulation& m) { m.setSprings({{30.5f, 20.25f, 2.0f, 0.05f}}); });
    both([](gpu::Simulation& m) { m.run(2); });
    EXPECT_EQ(sim->builtStepParts(), STEP_MAPS | STEP_OPEN_EDGES | STEP_SPRINGS);
    q = sim->params();
    q.record_maps = 0;
    both([&](gpu::Simulation& m) { m.setParams(q); });
    both([](gpu::Simulation& m) { m.run(2); });
    EXPECT_EQ(sim->builtStepParts(), STEP_OPEN_EDGES | STEP_SPRINGS);
    for (Field f : {Field::Terrain, Field::Water, Field::Sediment, Field::Velocity, Field::Outflow, Field::Flow})
        EXPECT_TRUE(sim->download(f) == every->download(f)) << gpu::fieldName(f);
    const gpu::Totals a = sim->totals(), b = every->totals();
    for (int slot = 0; slot < TOTAL_SLOTS; ++slot) EXPECT_EQ(a.acc[slot], b.acc[slot]) << "slot " << slot;
    EXPECT_GT(a.acc[SLOT_SPRING], 0.0);
}

} // namespace
} // namespace alluvium::test
