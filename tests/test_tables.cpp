// The engine's tables against what the compiled shaders declare: the parameter block's layout
// (shaders/param_table.h gives C++ and GLSL one list; std430 must lay it out as C++ does), the
// fields' images (shaders/field_table.h: every binding a pass declares is a field's slot of the
// field's format, or a buffer), the pass table (a shader per row, what the row says it needs) and
// the model table.
#include <gtest/gtest.h>

#include <cstddef>
#include <set>
#include <string>

#include "models/model.h"
#include "params.h"
#include "passes.h"
#include "pipeline.h"
#include "spirv_module.h"

namespace alluvium::test {
namespace {

using gpu::Field;
using gpu::Pass;

Module shaderModule(Pass pass) { return Module(gpu::loadShader(gpu::passName(pass))); }

// The C++ block's fields, in the rows' order: offset and whether each is a float.
struct CppMember {
    size_t offset;
    bool is_float;
};
std::vector<CppMember> cppMembers() {
    std::vector<CppMember> members;
#define ALLUVIUM_MEMBER_Float(name) members.push_back({offsetof(gpu::SimParams, name), true});
#define ALLUVIUM_MEMBER_Int(name) members.push_back({offsetof(gpu::SimParams, name), false});
#define ALLUVIUM_MEMBER_None(name)
#define ALLUVIUM_MEMBER_P(name, group, def, lo, hi, unit, to_si, kind, block, meaning) ALLUVIUM_MEMBER_##block(name)
#define ALLUVIUM_MEMBER_E(type, name, meaning)                                                                         \
    members.push_back({offsetof(gpu::SimParams, name), std::string(#type) == "float"});
    ALLUVIUM_PARAMETER_BLOCK(ALLUVIUM_MEMBER_P, ALLUVIUM_MEMBER_E)
    return members;
}

TEST(Tables, TheParameterBlockHasTheSameLayoutInGlslAndCpp) {
    const std::vector<CppMember> cpp = cppMembers();
    ASSERT_EQ(cpp.size() * 4, sizeof(gpu::SimParams)) << "every field of the block is 4 bytes";
    int checked = 0;
    for (int i = 0; i < gpu::kPassCount; ++i) {
        const Module m = shaderModule(Pass(i));
        const std::vector<uint32_t> bindings = m.bindings();
        if (std::find(bindings.begin(), bindings.end(), uint32_t(B_PARAMS)) == bindings.end()) continue;
        SCOPED_TRACE(gpu::passName(Pass(i)));
        const std::vector<Module::Member> glsl = m.nestedMembers(B_PARAMS);
        ASSERT_EQ(glsl.size(), cpp.size());
        for (size_t k = 0; k < cpp.size(); ++k) {
            EXPECT_EQ(glsl[k].offset, cpp[k].offset) << "member " << k;
            EXPECT_EQ(glsl[k].is_float, cpp[k].is_float) << "member " << k;
            EXPECT_EQ(glsl[k].bits, 32u) << "member " << k;
        }
        ++checked;
    }
    EXPECT_GT(checked, 20) << "the passes that read the parameter block";
}

uint32_t spirvFormat(VkFormat format) {
    switch (format) {
    case VK_FORMAT_R32_SFLOAT: return Module::kImageFormatR32f;
    case VK_FORMAT_R32G32_SFLOAT: return Module::kImageFormatRg32f;
    case VK_FORMAT_R32G32B32A32_SFLOAT: return Module::kImageFormatRgba32f;
    default: return 0;
    }
}

// The format a slot of descriptor set 0 holds, from the field table; 0 for a buffer's slot.
uint32_t slotFormat(uint32_t slot) {
    for (int i = 0; i < gpu::kFieldCount; ++i) {
        const gpu::FieldInfo& f = gpu::fieldInfo(Field(i));
        if (slot < f.binding || slot >= f.binding + gpu::fieldSlots(Field(i))) continue;
        return slot - f.binding >= 2 ? Module::kImageFormatRg32f : spirvFormat(f.format); // the split halves
    }
    return 0;
}

TEST(Tables, EveryPassDeclaresTheFieldsImagesAsTheirRowsSay) {
    std::set<uint32_t> seen;
    for (int i = 0; i < gpu::kPassCount; ++i) {
        SCOPED_TRACE(gpu::passName(Pass(i)));
        const Module m = shaderModule(Pass(i));
        for (uint32_t binding : m.bindings()) {
            const std::optional<uint32_t> format = m.imageFormat(binding);
            if (binding < B_BUFFER_COUNT) {
                EXPECT_FALSE(format.has_value()) << "binding " << binding << " is a buffer's slot";
                continue;
            }
            ASSERT_TRUE(format.has_value()) << "binding " << binding << " is no field's image";
            EXPECT_EQ(*format, slotFormat(binding)) << "binding " << binding;
            seen.insert(binding);
        }
    }
    EXPECT_GE(seen.size(), size_t(gpu::kFieldCount)) << "the passes declare every field";
}

TEST(Tables, EveryPassRowNeedsWhatItsShaderUses) {
    std::set<std::string> names;
    for (int i = 0; i < gpu::kPassCount; ++i) {
        const Pass pass = Pass(i);
        SCOPED_TRACE(gpu::passName(pass));
        EXPECT_TRUE(names.insert(gpu::passName(pass)).second) << "two rows name one shader";
        const Module m = shaderModule(pass);
        const unsigned needs = gpu::passInfo(pass).needs;
        EXPECT_TRUE(!m.hasCapability(Module::kCapabilityInt64Atomics) || (needs & gpu::kInt64));
        EXPECT_TRUE(!(needs & gpu::kStepParts) || m.hasSpecId(SPEC_STEP_PARTS));
        EXPECT_TRUE(!(needs & gpu::kSumRows) || m.hasSpecId(SPEC_SUM_ROWS));
        EXPECT_TRUE(gpu::passInfo(pass).dispatch != gpu::Dispatch::Grid || m.hasSpecId(SPEC_WG_X));
        for (const gpu::Access& a : gpu::passInfo(pass).accesses) EXPECT_NE(a.mode, 0u);
    }
}

TEST(Tables, TheModelTableIsInModelOrderAndNamesItsPasses) {
    ASSERT_EQ(gpu::models().size(), size_t(MODEL_COUNT));
    std::set<std::string> names;
    for (const gpu::Model* m : gpu::models()) {
        SCOPED_TRACE(m->name);
        EXPECT_EQ(&gpu::model(m->id), m);
        EXPECT_TRUE(names.insert(m->name).second);
        EXPECT_EQ(gpu::modelFromName(m->name), m->id);
        EXPECT_FALSE(m->writes.empty());
        EXPECT_FALSE(m->timed.empty());
        EXPECT_TRUE(m->phases.empty() || m->phases.size() == m->timed.size());
        for (Field f : m->writes) EXPECT_TRUE(gpu::isPingPong(f)) << gpu::fieldName(f);
    }
    EXPECT_EQ(gpu::modelFromName("no such model"), -1);
    EXPECT_NE(gpu::modelList().find("fluvial"), std::string::npos);
}

} // namespace
} // namespace alluvium::test
