// Helpers of test_fluvial*.cpp: rough pitted terrain and the Fluvial fixture (params, simulations).
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include "fluvial.h"
#include "gpu_fixture.h"
#include "test_util.h"

namespace alluvium::test {
namespace {

using gpu::Field;

class Fluvial : public GpuTest {
protected:
    gpu::SimParams params(int w, int h, int outlets_choice = 0) {
        Params table;
        table[Param::cell_size] = 10.0;
        table[Param::fluvial_outlets] = outlets_choice;
        gpu::SimParams p = toSimParams(table, w, h);
        p.model = MODEL_FLUVIAL;
        return p;
    }
    // GPU fill, receivers and accumulation equal the reference's, bit for bit.
    void expectExact(const std::vector<float>& z, int w, int h, int outlets_choice,
                     const std::vector<float>& rain = {}) {
        const gpu::SimParams p = params(w, h, outlets_choice);
        auto sim = make(z, w, h, p);
        if (!rain.empty()) sim->upload(Field::RainMask, rain);
        sim->fluvialAnalyse();
        ref::FluvialGrid g{w, h, p.fluvial_outlets};
        const ref::Fill f = ref::fillPriorityFlood(g, z);
        const std::vector<uint64_t> keys = sim->fluvial().keys();
        size_t key_mismatch = 0, first = SIZE_MAX;
        for (size_t i = 0; i < keys.size(); ++i) {
            const uint64_t want = f.steps[i] == 0xFFFFFFFFu ? ~0ull : ref::fillKey(f.level[i], f.steps[i]);
            if (keys[i] != want && key_mismatch++ == 0) first = i;
        }
        EXPECT_EQ(key_mismatch, 0u) << "first at cell " << first;
        const std::vector<uint32_t> rcv = ref::receivers(g, f);
        EXPECT_EQ(sim->fluvial().receivers(), rcv);
        const std::vector<uint64_t> acc =
            ref::accumulate(rcv, ref::rainWeights(rain.empty() ? std::vector<float>(z.size(), 1.0f) : rain));
        EXPECT_EQ(sim->fluvial().accumulation(), acc);
        const std::vector<float> lake = sim->download(Field::Lake);
        for (size_t i = 0; i < z.size(); ++i)
            if (f.steps[i] != 0xFFFFFFFFu) {
                ASSERT_EQ(lake[i], std::max(f.level[i] - z[i], 0.0f)) << i;
            }
    }
};

} // namespace
} // namespace alluvium::test
