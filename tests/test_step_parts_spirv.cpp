// The step's parts are really compiled out. test_step_parts shows that passes built without a
// part compute the same bits; this shows that they no longer touch it, which is what the parts
// are for (a CPU driver runs both sides of every branch, so a part that is off but still compiled
// in costs its loads; README, Speed). Each pass with parts is specialised as a CPU driver gets it
// (STEP_PARTS, per-subgroup partials, 4 rows of cells in the passes with rows), its constants
// folded, its loops unrolled and its dead code removed by SPIRV-Tools' optimizer, and the SPIR-V
// left is searched: without a part, no load of that part's images, and in the direct passes (what
// CPU drivers run) no read of the parameter that turns it on. The fused pass (what GPUs run, where
// a branch not taken costs little) is held to the images only: SPIRV-Tools leaves its sums' loop
// rolled, so their test of each slot's parameter (slotActive) stays, where a driver that unrolls
// it folds it away as in the direct passes.
#include <gtest/gtest.h>

#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <spirv-tools/optimizer.hpp>

#include "pipeline.h"
#include "shared.h"
#include "simulation.h"
#include "spirv_module.h"

namespace alluvium::test {
namespace {

using gpu::Field;
using gpu::Pass;

uint32_t binding(Field f) { return gpu::fieldInfo(f).binding; }

// What a part reads: its images (bindings) and the parameter that turns it on.
struct PartUse {
    uint32_t part;
    const char* name;
    std::vector<uint32_t> bindings;
    size_t param_offset; // in SimParams
};

const std::vector<PartUse>& partUses() {
    static const std::vector<PartUse> uses = {
        {STEP_RAIN_MASK, "rain mask", {binding(Field::RainMask)}, offsetof(gpu::SimParams, rain_uniform)},
        {STEP_SPRINGS, "springs", {binding(Field::SpringRate)}, offsetof(gpu::SimParams, spring_count)},
        {STEP_SEA, "sea", {binding(Field::SeaSpill)}, offsetof(gpu::SimParams, enable_sea)},
        {STEP_MAPS, "maps", {binding(Field::Wear), binding(Field::Flow)}, offsetof(gpu::SimParams, record_maps)},
        {STEP_OPEN_EDGES, "open edges", {}, offsetof(gpu::SimParams, edge_mode)},
        {STEP_VEGETATION, "vegetation", {binding(Field::Vegetation)}, offsetof(gpu::SimParams, enable_vegetation)},
    };
    return uses;
}

std::vector<Pass> passesWithParts() {
    std::vector<Pass> passes;
    for (int i = 0; i < gpu::kPassCount; ++i)
        if (gpu::passHasStepParts(Pass(i))) passes.push_back(Pass(i));
    return passes;
}

// The pass's SPIR-V with STEP_PARTS = parts, as a CPU driver builds it, folded, unrolled and
// without dead code.
std::vector<uint32_t> specialised(Pass pass, uint32_t parts) {
    const std::vector<uint32_t> code =
        gpu::loadSpirv(gpu::shaderDirectory() / (std::string(gpu::passName(pass)) + ".spv"));
    spvtools::Optimizer opt(SPV_ENV_VULKAN_1_2);
    std::string messages;
    opt.SetMessageConsumer([&](spv_message_level_t, const char*, const spv_position_t&, const char* m) {
        messages += std::string(m) + "\n";
    });
    opt.RegisterPass(
        spvtools::CreateSetSpecConstantDefaultValuePass({{SPEC_STEP_PARTS, std::to_string(parts)},
                                                         {SPEC_SUBGROUP_PARTIALS, "true"},
                                                         {SPEC_SUM_ROWS, std::to_string(gpu::cpuSumRows(pass))}}));
    opt.RegisterPass(spvtools::CreateFreezeSpecConstantValuePass());
    opt.RegisterPass(spvtools::CreateFoldSpecConstantOpAndCompositePass());
    opt.RegisterPerformancePasses();
    opt.RegisterPass(spvtools::CreateLoopUnrollPass(true));
    opt.RegisterPerformancePasses();
    std::vector<uint32_t> out;
    EXPECT_TRUE(opt.Run(code.data(), code.size(), &out)) << gpu::passName(pass) << ": " << messages;
    return out;
}

// Without a part, no pass loads its images or reads its parameter; with every part, some pass
// does (so the search finds what it looks for). With none, no pass touches any of them.
TEST(StepPartsCode, APartLeftOutIsNotInThePassesCode) {
    std::map<std::string, int> used_with_all;
    const std::vector<Pass> passes = passesWithParts();
    ASSERT_EQ(passes.size(), 8u);
    for (Pass pass : passes) {
        SCOPED_TRACE(gpu::passName(pass));
        const bool direct = pass != Pass::ErosionTransportThermalEvaporation;
        const Module all(specialised(pass, STEP_ALL)), none(specialised(pass, 0u));
        for (const PartUse& use : partUses()) {
            SCOPED_TRACE(use.name);
            const Module without(specialised(pass, STEP_ALL & ~use.part));
            for (uint32_t b : use.bindings) {
                used_with_all[std::string(use.name) + ", binding " + std::to_string(b)] += all.usesBinding(b);
                EXPECT_FALSE(without.usesBinding(b)) << "binding " << b;
                EXPECT_FALSE(none.usesBinding(b)) << "binding " << b;
            }
            used_with_all[std::string(use.name) + ", its parameter"] += all.readsParam(use.param_offset);
            if (direct) {
                EXPECT_FALSE(without.readsParam(use.param_offset));
                EXPECT_FALSE(none.readsParam(use.param_offset));
            }
        }
    }
    for (const auto& [what, count] : used_with_all) EXPECT_GT(count, 0) << what << ": no pass reads it with every part";
}

} // namespace
} // namespace alluvium::test
