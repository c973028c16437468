// Reading what the checks of compiled shaders need from a SPIR-V module: its bindings, the images'
// formats, the parameter block's layout, capabilities and specialization constants, and whether
// a pass touches a binding or a parameter (tests/test_step_parts_spirv.cpp, test_tables.cpp).
#pragma once
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "shared.h"

namespace alluvium::test {

// The few facts of a module the checks need, read from its instructions.
class Module {
public:
    explicit Module(const std::vector<uint32_t>& words) {
        if (words.size() < 5 || words[0] != 0x07230203u) ADD_FAILURE() << "not SPIR-V";
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
            if (in.op == kOpTypeImage && w.size() >= 8) image_format_[w[0]] = w[7];
            if ((in.op == kOpTypeInt || in.op == kOpTypeFloat) && w.size() >= 2) scalar_[w[0]] = {in.op, w[1]};
            if (in.op == kOpCapability && !w.empty()) capabilities_.insert(w[0]);
            if (in.op == kOpDecorate && w.size() >= 3 && w[1] == kSpecId) spec_ids_.insert(w[2]);
        }
    }

    // The bindings of descriptor set 0 the module declares.
    std::vector<uint32_t> bindings() const {
        std::vector<uint32_t> out;
        for (const auto& [binding, var] : binding_var_) out.push_back(binding);
        return out;
    }
    // The storage format of the image at `binding` (SPIR-V's ImageFormat), or nullopt if it is
    // not an image.
    std::optional<uint32_t> imageFormat(uint32_t binding) const {
        const uint32_t type = pointee_.at(var_type_.at(binding_var_.at(binding)));
        const auto format = image_format_.find(type);
        if (format == image_format_.end()) return std::nullopt;
        return format->second;
    }
    // The members of the struct the block at `binding` holds as its first member (the parameter
    // block's SimParams): each one's offset, and whether it is a float, with its width in bits.
    struct Member {
        uint32_t offset;
        bool is_float;
        uint32_t bits;
    };
    std::vector<Member> nestedMembers(uint32_t binding) const {
        const uint32_t block = pointee_.at(var_type_.at(binding_var_.at(binding)));
        const uint32_t nested = struct_members_.at(block).at(0);
        std::vector<Member> members;
        const std::vector<uint32_t>& types = struct_members_.at(nested);
        for (uint32_t m = 0; m < types.size(); ++m) {
            const auto offset = offsets_.find({nested, m});
            const auto scalar = scalar_.find(types[m]);
            if (offset == offsets_.end() || scalar == scalar_.end()) return {};
            members.push_back({offset->second, scalar->second.first == kOpTypeFloat, scalar->second.second});
        }
        return members;
    }
    bool hasCapability(uint32_t capability) const { return capabilities_.count(capability) != 0; }
    bool hasSpecId(uint32_t id) const { return spec_ids_.count(id) != 0; }

    static constexpr uint32_t kImageFormatRgba32f = 1, kImageFormatR32f = 3, kImageFormatRg32f = 6;
    static constexpr uint32_t kCapabilityInt64Atomics = 12;

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
                if (w.size() == 4)
                    whole_chains.insert(w[1]); // &p
                else if (constants_.at(w[4]) == member)
                    return true;
            }
            if (in.op == kOpLoad && w.size() >= 3 && whole_chains.count(w[2])) whole_values.insert(w[1]);
            if ((in.op == kOpCopyLogical || in.op == kOpCopyObject) && w.size() >= 3 && whole_values.count(w[2]))
                whole_values.insert(w[1]);
            if (in.op == kOpCompositeExtract && w.size() >= 4 && whole_values.count(w[2]) && w[3] == member)
                return true;
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
    static constexpr uint32_t kOpCapability = 17, kOpTypeInt = 21, kOpTypeFloat = 22, kOpTypeImage = 25, kSpecId = 1;
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
    std::map<uint32_t, uint32_t> image_format_;
    std::map<uint32_t, std::pair<uint32_t, uint32_t>> scalar_; // opcode, width
    std::set<uint32_t> capabilities_, spec_ids_;
};

} // namespace alluvium::test
