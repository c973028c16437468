// Snapshots of the whole state on the GPU (gpu/snapshot.h): a snapshot restored equals
// the state it was taken from, bit for bit, for every model, after the simulation ran on; what
// runs after a restore equals what ran after the snapshot the first time; unchanged tiles are
// shared; the memory budget holds and the oldest snapshots go first.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>

#include "brush.h"
#include "gpu_fixture.h"
#include "setup.h"
#include "snapshot.h"

namespace alluvium::test {
namespace {

using gpu::Field;

// Every non-derived field (cur half), the totals and the host's part, as downloaded.
struct State {
    std::map<Field, std::vector<float>> fields;
    gpu::Totals totals{};
    int step = 0;
    int substeps = 1;
    double sim_time = 0.0; // the tide's clock
    std::vector<gpu::Spring> springs;
    gpu::SimParams params{};
    uint64_t digest = 0;
};

State capture(const gpu::Simulation& sim) {
    State s;
    for (int i = 0; i < int(Field::Count); ++i)
        if (!gpu::fieldIsDerived(Field(i))) s.fields[Field(i)] = sim.download(Field(i));
    s.totals = sim.totals();
    s.step = sim.stepIndex();
    s.substeps = sim.substeps();
    s.sim_time = sim.simTime();
    s.springs = sim.springs();
    s.params = sim.params();
    // The digest's order (snapshot.h), from what was downloaded; stateDigest() is checked
    // against it below.
    gpu::StateHasher h;
    for (const auto& [f, values] : s.fields) h.add(values.data(), values.size() * 4);
    h.add(&s.totals, sizeof s.totals);
    const int64_t step = s.step;
    h.add(&step, sizeof step);
    h.add(&s.sim_time, sizeof s.sim_time);
    const int32_t substeps = s.substeps;
    h.add(&substeps, sizeof substeps);
    const auto count = uint32_t(s.springs.size());
    h.add(&count, sizeof count);
    h.add(s.springs.data(), s.springs.size() * sizeof(gpu::Spring));
    gpu::SimParams hashed = s.params; // less the workgroup counts (the device's shape, not the state)
    hashed.group_count_x = hashed.group_count_y = hashed.tile_count_x = hashed.tile_count_y = 0;
    hashed.partials_per_group = hashed.subgroup_partials_at = 0;
    // The whole grid's size; the block of a split grid (its origin on) is not state.
    hashed.width = hashed.full_width;
    hashed.height = hashed.full_height;
    h.add(&hashed, offsetof(gpu::SimParams, origin_x));
    s.digest = h.value();
    return s;
}

void expectBitEqual(const State& a, const State& b, const std::string& what) {
    ASSERT_EQ(a.fields.size(), b.fields.size());
    for (const auto& [f, values] : a.fields) {
        const std::vector<float>& other = b.fields.at(f);
        ASSERT_EQ(values.size(), other.size());
        EXPECT_EQ(std::memcmp(values.data(), other.data(), values.size() * 4), 0)
            << what << ": field " << gpu::fieldName(f);
    }
    EXPECT_EQ(std::memcmp(&a.totals, &b.totals, sizeof a.totals), 0) << what << ": totals";
    EXPECT_EQ(a.step, b.step) << what;
    EXPECT_EQ(a.substeps, b.substeps) << what;
    EXPECT_EQ(a.sim_time, b.sim_time) << what;
    ASSERT_EQ(a.springs.size(), b.springs.size()) << what;
    EXPECT_EQ(std::memcmp(a.springs.data(), b.springs.data(), a.springs.size() * sizeof(gpu::Spring)), 0) << what;
    EXPECT_EQ(std::memcmp(&a.params, &b.params, sizeof a.params), 0) << what << ": parameters";
    EXPECT_EQ(a.digest, b.digest) << what << ": digest";
}

// Records `work` into one command buffer, submits it and waits; then tells the store.
template <typename F> void submit(const gpu::Context& ctx, gpu::SnapshotStore& store, uint64_t& submission, F&& work) {
    VkCommandBuffer cmd = gpu::beginOneShot(ctx);
    work(cmd, ++submission);
    gpu::endOneShot(ctx, cmd);
    store.completed(submission);
}

struct ModelCase {
    int model;
    int steps; // before the first snapshot, and again between
};

std::unique_ptr<gpu::Simulation> makeSim(const gpu::Context& ctx, int model, int w, int h) {
    auto sim = std::make_unique<gpu::Simulation>(ctx, w, h);
    Params table;
    table[Param::rain_rate] = 2.0;
    table[Param::edge_mode] = EDGE_OPEN;
    table[Param::record_maps] = 1; // the wear and flow accumulators move too
    table[Param::particle_count] = 300;
    // Layered ground under a regolith, strata and a storm: the loose layer moves in every model.
    table[Param::enable_layers] = 1;
    table[Param::regolith_depth] = 0.3;
    table[Param::strata_contrast] = 0.5;
    table[Param::storm_count] = 1;
    table[Param::storm_radius] = 60.0;
    TerrainOptions t;
    t.size = std::to_string(w) + "x" + std::to_string(h);
    t.seed = 5;
    InitialTerrain initial = prepareTerrain(t, table[Param::cell_size]);
    if (model == MODEL_PIPE) { // groundwater, a sea with a tide, snow and lava move their fields too
        const auto [lo, hi] = std::minmax_element(initial.terrain.heights.begin(), initial.terrain.heights.end());
        table[Param::enable_snow] = 1;
        table[Param::enable_lava] = 1;
        table[Param::lava_eruption_rate] = 50.0;
        table[Param::snowfall_rate] = 5.0;
        table[Param::lapse_rate] = 100.0;
        table[Param::air_temperature] = 0.1 * (*lo + 0.6 * (*hi - *lo)); // snow on the upper 40 %
        table[Param::enable_groundwater] = 1;
        table[Param::enable_sea] = 1;
        table[Param::sea_level] = *lo + 0.3 * (*hi - *lo);
        table[Param::tide_amplitude] = 0.5;
        table[Param::tide_period] = 7.0;
    }
    loadInitialState(*sim, initial, table);
    gpu::SimParams p = toSimParams(table, w, h);
    p.model = model;
    sim->setParams(p);
    sim->setSprings({{10.5f, 9.0f, 3.0f, 0.5f}});
    sim->resetTotals();
    return sim;
}

class HistoryTest : public GpuTest {};

// For every model, on a grid whose sides are not multiples of a tile: a snapshot, more steps,
// another snapshot sharing the first one's unchanged tiles, more steps; then each restored
// equals, field by field and bit for bit, the state it was taken from, and so does its digest
// computed from the pool; and the steps run after a restore give the state they gave the first
// time. Also with the 4-channel outflow kept as two images (a lowered allocation limit), and
// in both modes (blocks compared and shared on the GPU, or all copied).
TEST_F(HistoryTest, RestoreIsBitExactForEveryModelAfterRunningOn) {
    const int w = 71, h = 61; // not multiples of a tile; the split limit stays above the springs buffer (64 KiB)
    for (gpu::SnapshotMode mode : {gpu::SnapshotMode::Compare, gpu::SnapshotMode::Copy})
        for (int model = 0; model < MODEL_COUNT; ++model)
            for (bool split : {false, true}) {
                if (split && model != MODEL_PIPE && model != MODEL_FLUVIAL && model != MODEL_PARTICLES) continue;
                SCOPED_TRACE(std::string(gpu::modelName(model)) + (split ? ", split outflow, " : ", ") +
                             gpu::snapshotModeName(mode));
                gpu::Context low = ctx(); // shares the device; only the limit differs
                if (split) low.max_allocation_bytes = uint64_t(w) * h * 16u;
                auto sim = makeSim(low, model, w, h);
                ASSERT_EQ(sim->splitWide(), split);
                gpu::Brush brush(ctx(), *sim);
                const std::vector<const gpu::Buffer*> extra = {&brush.totalsBuffer()};
                gpu::SnapshotStore store(ctx(), *sim, extra, gpu::SnapshotStore::minimumBudget(*sim, extra) * 2, mode);
                ASSERT_EQ(store.mode(), mode);
                const int steps = model == MODEL_FLUVIAL ? 2 : 12;
                uint64_t submission = 0;
                std::vector<int> dropped;

                sim->run(steps);
                // The hand holds ground when the first snapshot is taken: its tallies are state.
                gpu::BrushParams pick{};
                pick.tool = BRUSH_TOOL_PICK_UP;
                pick.x = 20, pick.y = 15, pick.radius = 6, pick.falloff = 1, pick.cell_area = 16, pick.amount = 0.5f;
                brush.apply(pick);
                const State first = capture(*sim);
                EXPECT_EQ(gpu::stateDigest(*sim), first.digest);
                const gpu::BrushTotals first_brush = brush.totals();
                int a = -1, b = -1;
                submit(ctx(), store, submission,
                       [&](VkCommandBuffer cmd, uint64_t n) { a = store.recordStore(cmd, -1, n, dropped); });
                ASSERT_GE(a, 0);
                EXPECT_EQ(store.newBytes(a), int64_t(store.blocksPerSnapshot()) * 1024) << "the first shares nothing";

                sim->run(steps);
                sim->setSprings({{30.5f, 20.0f, 2.0f, 0.25f}});
                const State second = capture(*sim);
                submit(ctx(), store, submission,
                       [&](VkCommandBuffer cmd, uint64_t n) { b = store.recordStore(cmd, a, n, dropped); });
                ASSERT_GE(b, 0);
                // The hardness, the rain mask and the uplift map did not change: their tiles are shared
                // (when compared; copied, every block is new).
                EXPECT_GT(store.newBytes(b), 0);
                if (mode == gpu::SnapshotMode::Compare) {
                    EXPECT_LT(store.newBytes(b), store.newBytes(a));
                } else {
                    EXPECT_EQ(store.newBytes(b), store.newBytes(a));
                }

                sim->run(steps);
                brush.apply(pick);
                const State third = capture(*sim);
                EXPECT_NE(third.digest, second.digest);
                EXPECT_NE(third.fields.at(Field::Loose), second.fields.at(Field::Loose)) << "the loose layer";
                if (model == MODEL_PIPE) { // the groundwater, the tide and the snow moved
                    EXPECT_NE(third.fields.at(Field::Groundwater), second.fields.at(Field::Groundwater));
                    EXPECT_NE(third.fields.at(Field::Snow), second.fields.at(Field::Snow));
                    // Lava is off in the split layout (its outflow image needs 16 bytes a cell).
                    if (split) {
                        EXPECT_EQ(third.fields.at(Field::Lava), second.fields.at(Field::Lava));
                    } else {
                        EXPECT_NE(third.fields.at(Field::Lava), second.fields.at(Field::Lava));
                    }
                    EXPECT_NE(third.sim_time, second.sim_time);
                }
                const std::vector<uint64_t> digests = store.digests({a, b});
                EXPECT_EQ(digests[0], first.digest) << "the digest from the pool";
                EXPECT_EQ(digests[1], second.digest);

                submit(ctx(), store, submission,
                       [&](VkCommandBuffer cmd, uint64_t n) { store.recordRestore(cmd, a, n); });
                expectBitEqual(first, capture(*sim), "the first restored");
                EXPECT_EQ(brush.totals().hand_picked, first_brush.hand_picked);
                // What follows a restore is what followed the snapshot.
                sim->run(steps);
                sim->setSprings({{30.5f, 20.0f, 2.0f, 0.25f}});
                expectBitEqual(second, capture(*sim), "the steps after the first, run again");

                submit(ctx(), store, submission,
                       [&](VkCommandBuffer cmd, uint64_t n) { store.recordRestore(cmd, b, n); });
                expectBitEqual(second, capture(*sim), "the second restored");
                sim->run(steps);
                brush.apply(pick);
                expectBitEqual(third, capture(*sim), "the steps after the second, run again");
                EXPECT_TRUE(dropped.empty());
            }
}

// A long session with a small budget: 60 snapshots, each while the one before is still in
// flight (as in the viewer, two frames in flight). The device memory stays that of the budget,
// what is held never exceeds it, the oldest go first, and the newest still restore exactly. A
// lowered buffer limit spreads the pool over several buffers (as lavapipe's 128 MiB binding
// range does a large budget).
TEST_F(HistoryTest, SmallBudgetHoldsAndDropsTheOldestFirst) {
    for (gpu::SnapshotMode mode : {gpu::SnapshotMode::Compare, gpu::SnapshotMode::Copy}) {
        SCOPED_TRACE(gpu::snapshotModeName(mode));
        const int w = 40, h = 40;
        auto sim = makeSim(ctx(), MODEL_PIPE, w, h);
        const std::vector<const gpu::Buffer*> extra;
        const uint64_t budget =
            gpu::SnapshotStore::minimumBudget(*sim, extra) + gpu::SnapshotStore::fullBytes(*sim, extra);
        gpu::Context low = ctx(); // shares the device; only the limit differs
        low.max_allocation_bytes = 128 * 1024;
        gpu::SnapshotStore store(low, *sim, extra, budget, mode);
        EXPECT_LE(store.allocatedBytes(), budget);
        EXPECT_GE(store.poolBuffers(), 3u);
        uint64_t submission = 0;
        std::vector<int> all_dropped, taken;
        std::vector<State> states;
        VkCommandBuffer in_flight = VK_NULL_HANDLE;
        for (int i = 0; i < 60; ++i) {
            sim->run(3);
            states.push_back(capture(*sim));
            VkCommandBuffer cmd = gpu::beginOneShot(ctx());
            std::vector<int> dropped;
            const int id = store.recordStore(cmd, taken.empty() ? -1 : taken.back(), ++submission, dropped);
            ASSERT_GE(id, 0) << "snapshot " << i;
            taken.push_back(id);
            for (int d : dropped) {
                // The oldest held first, and never one in flight.
                EXPECT_TRUE(all_dropped.empty() || d > all_dropped.back());
                EXPECT_LT(d, id - 2); // id - 1 is in flight, and id - 2 is its base
                all_dropped.push_back(d);
            }
            // Ended but not yet known to the store: the previous submission is "in flight".
            gpu::endOneShot(ctx(), cmd);
            if (in_flight != VK_NULL_HANDLE) store.completed(submission - 1);
            in_flight = cmd;
            EXPECT_LE(store.bytesHeld(), budget) << "snapshot " << i;
            const std::vector<int> held = store.heldIds();
            ASSERT_FALSE(held.empty());
            // What is held is the newest, contiguous: everything older was dropped.
            EXPECT_EQ(held.back(), id);
            EXPECT_EQ(size_t(held.back() - held.front() + 1), held.size());
            if (!all_dropped.empty()) {
                EXPECT_EQ(held.front(), all_dropped.back() + 1);
            }
        }
        store.completed(submission);
        EXPECT_GT(all_dropped.size(), 20u) << "the budget holds a few snapshots, not 60";
        const std::vector<int> held = store.heldIds();
        EXPECT_GE(held.size(), 2u);
        const std::vector<uint64_t> digests = store.digests(held);
        for (size_t k = 0; k < held.size(); ++k)
            EXPECT_EQ(digests[k], states[size_t(held[k])].digest) << "snapshot " << held[k];
        uint64_t done = submission;
        submit(ctx(), store, done, [&](VkCommandBuffer cmd, uint64_t n) { store.recordRestore(cmd, held.front(), n); });
        expectBitEqual(states[size_t(held.front())], capture(*sim), "the oldest held, restored");
    }
}

TEST_F(HistoryTest, DigestFollowsEveryPartOfTheState) {
    auto sim = makeSim(ctx(), MODEL_PIPE, 20, 20);
    const uint64_t d0 = gpu::stateDigest(*sim);
    EXPECT_EQ(gpu::stateDigest(*sim), d0);
    EXPECT_EQ(gpu::digestText(0x0123456789abcdefull), "0123456789abcdef");
    std::vector<float> water = sim->download(Field::Water);
    water[17] = std::nextafter(water[17], 1.0f);
    sim->upload(Field::Water, water);
    const uint64_t d1 = gpu::stateDigest(*sim);
    EXPECT_NE(d1, d0) << "one ulp of one cell";
    std::vector<float> uplift = sim->download(Field::Uplift);
    uplift[0] = 2.0f;
    sim->upload(Field::Uplift, uplift);
    const uint64_t d2 = gpu::stateDigest(*sim);
    EXPECT_NE(d2, d1);
    sim->setStepIndex(sim->stepIndex() + 1);
    const uint64_t d3 = gpu::stateDigest(*sim);
    EXPECT_NE(d3, d2);
    gpu::Totals t = sim->totals();
    t.acc[SLOT_RAIN] += 1.0;
    sim->setTotals(t);
    EXPECT_NE(gpu::stateDigest(*sim), d3);
}

} // namespace
} // namespace alluvium::test
