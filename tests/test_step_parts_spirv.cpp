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

#include "simulation.h"
#include "pipeline.h"
#include "shared.h"

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
    opt.RegisterPass(spvtools::CreateSetSpecConstantDefaultValuePass({{SPEC_STEP_PARTS, std::to_string(parts)},
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

// The few facts of a module the checks need, read from its instructions.
class Module {
public:
    explicit Module(const std::vector<uint32_t>& words) {
        for (size_t i = 5; i < words.size();) {
            const uint32_t count = words[i] >> 16, op = words[i] & 0xFFFFu;
            if (count == 0 || i + count > words.size()) {
                ADD_FAILURE() << "malformed SPIR-V at word " << i;
                break;
            }
            insts_.push_back({op, std::vector<uint32_t>(words.begin() + i + 1, words.begin() + i + count)});
            i += count;
        }
        for (const Inst& in : insts_) {
            const auto& w = in.operands;
            if (in.op == kOpDecorate && w.size() >= 3 && w[1] == kBinding) binding_var_[w[2]] = w[0];
            if (in.op == kOpMemberDecorate && w.size() >= 4 && w[2] == kOffset) offsets_[{w[0], w[1]}] = w[3];
            if (in.op == kOpConstant && w.size() >= 3) constants_[w[1]] = w[2];
            if (in.op == kOpTypePointer && w.size() >= 3) pointee_[w[0]] = w[2];
            if (in.op == kOpVariable && w.size() >= 2) var_type_[w[1]] = w[0];
            if (in.op == kOpTypeStruct && !w.empty()) struct_members_[w[0]] = {w.begin() + 1, w.end()};
        }
    }

    // Whether the variable of `binding` is loaded, indexed or has a texel pointer taken.
    bool usesBinding(uint32_t binding) const {
        const auto var = binding_var_.find(binding);
        if (var == binding_var_.end()) return false;
        for (const Inst& in : insts_)
            if (isPointerUse(in.op) && in.operands.size() >= 3 && in.operands[2] == var->second) return true;
        return false;
    }

    // Whether the parameter at `offset` of SimParams (the block at B_PARAMS holds one SimParams,
    // `p`) is read: through an access chain to it, or from a whole `p` loaded (and copied, as
    // glslang does to pass it to slotActive) and taken apart. A whole `p` used otherwise fails.
    bool readsParam(size_t offset) const {
        const auto var = binding_var_.find(B_PARAMS);
        if (var == binding_var_.end()) return false;
        const uint32_t block = pointee_.at(var_type_.at(var->second));
        const uint32_t params = struct_members_.at(block).at(0);
        uint32_t member = UINT32_MAX;
        for (const auto& [key, off] : offsets_)
            if (key.first == params && off == offset) member = key.second;
        EXPECT_NE(member, UINT32_MAX) << "no member of SimParams at offset " << offset;
        std::set<uint32_t> whole_chains, whole_values;
        for (const Inst& in : insts_) {
            const auto& w = in.operands;
            if (isPointerUse(in.op) && in.op != kOpLoad && w.size() >= 3 && whole_chains.count(w[2])) {
                ADD_FAILURE() << "&p used by opcode " << in.op << ": extend readsParam";
                return true;
            }
            if ((in.op == kOpAccessChain || in.op == kOpInBoundsAccessChain) && w.size() >= 4 && w[2] == var->second) {
                if (w.size() == 4) whole_chains.insert(w[1]); // &p
                else if (constants_.at(w[4]) == member) return true;
            }
            if (in.op == kOpLoad && w.size() >= 3 && whole_chains.count(w[2])) whole_values.insert(w[1]);
            if ((in.op == kOpCopyLogical || in.op == kOpCopyObject) && w.size() >= 3 && whole_values.count(w[2]))
                whole_values.insert(w[1]);
            if (in.op == kOpCompositeExtract && w.size() >= 4 && whole_values.count(w[2]) && w[3] == member) return true;
            if (in.op == kOpStore || in.op == kOpFunctionCall || in.op == kOpPhi || in.op == kOpCompositeInsert ||
                in.op == kOpSelect || in.op == kOpReturnValue)
                for (uint32_t id : w)
                    if (whole_values.count(id)) {
                        ADD_FAILURE() << "a whole p used by opcode " << in.op << ": extend readsParam";
                        return true;
                    }
        }
        return false;
    }

private:
    static constexpr uint32_t kOpTypeStruct = 30, kOpTypePointer = 32, kOpConstant = 43, kOpVariable = 59,
                              kOpImageTexelPointer = 60, kOpLoad = 61, kOpAccessChain = 65, kOpInBoundsAccessChain = 66,
                              kOpPtrAccessChain = 67, kOpDecorate = 71, kOpMemberDecorate = 72,
                              kOpCompositeExtract = 81, kOpCopyObject = 83, kBinding = 33, kOffset = 35,
                              kOpFunctionCall = 57, kOpStore = 62, kOpCompositeInsert = 82, kOpSelect = 169,
                              kOpPhi = 245, kOpReturnValue = 254, kOpCopyLogical = 400;
    static bool isPointerUse(uint32_t op) {
        return op == kOpLoad || op == kOpAccessChain || op == kOpInBoundsAccessChain || op == kOpPtrAccessChain ||
               op == kOpImageTexelPointer || op == kOpCopyObject;
    }
    struct Inst {
        uint32_t op;
        std::vector<uint32_t> operands;
    };
    std::vector<Inst> insts_;
    std::map<uint32_t, uint32_t> binding_var_, constants_, pointee_, var_type_;
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> offsets_;
    std::map<uint32_t, std::vector<uint32_t>> struct_members_;
};

// Without a part, no pass loads its images or reads its parameter; with every part, some pass
// does (so the search finds what it looks for). With none, no pass touches any of them.
TEST(StepPartsCode, APartLeftOutIsNotInThePassesCode) {
    std::map<std::string, int> used_with_all;
    const std::vector<Pass> passes = passesWithParts();
    ASSERT_EQ(passes.size(), 5u);
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
