#include "pipeline.h"

#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <system_error>

namespace alluvium::gpu {

namespace {

// True if `dir` exists and holds at least one .spv file (a folder that merely exists, such as
// an unrelated "shaders" folder next to an installed binary, is not enough).
bool holdsSpirv(const std::filesystem::path& dir) {
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec)) return false;
    for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
        if (it->path().extension() == ".spv") return true;
    return false;
}

} // namespace

std::filesystem::path shaderDirectory() {
    if (const char* env = std::getenv("ALLUVIUM_SHADER_DIR"); env && *env) return env;
    std::error_code ec;
    const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        const std::filesystem::path dir = exe.parent_path();
        if (holdsSpirv(dir / "shaders")) return dir / "shaders";
        if (holdsSpirv(dir.parent_path() / "shaders")) return dir.parent_path() / "shaders";
    }
#ifdef ALLUVIUM_BUILD_SHADER_DIR
    return ALLUVIUM_BUILD_SHADER_DIR;
#else
    return !ec ? exe.parent_path() / "shaders" : std::filesystem::path("shaders");
#endif
}

std::vector<uint32_t> loadSpirv(const std::filesystem::path& path) {
    const std::string prefix = "cannot read shader '" + path.string() + "': ";
    std::ifstream file(path, std::ios::binary | std::ios::ate);
    if (!file)
        throw std::runtime_error(prefix +
                                 "file not found (rebuild, or set ALLUVIUM_SHADER_DIR to the "
                                 "folder holding the .spv files)");
    const std::streamoff size = file.tellg();
    if (size <= 0 || size % 4 != 0)
        throw std::runtime_error(prefix + "size " + std::to_string(size) +
                                 " bytes is not a positive multiple of 4, not SPIR-V");
    std::vector<uint32_t> code(static_cast<size_t>(size) / 4);
    file.seekg(0);
    if (!file.read(reinterpret_cast<char*>(code.data()), size))
        throw std::runtime_error(prefix + "read error");
    constexpr uint32_t kSpirvMagic = 0x07230203;
    if (code[0] != kSpirvMagic) throw std::runtime_error(prefix + "bad SPIR-V magic number");
    return code;
}

VkShaderModule createShaderModule(const Context& ctx, const std::vector<uint32_t>& code) {
    VkShaderModuleCreateInfo info{};
    info.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
    info.codeSize = code.size() * sizeof(uint32_t);
    info.pCode = code.data();
    VkShaderModule module = VK_NULL_HANDLE;
    VK_CHECK(vkCreateShaderModule(ctx.device, &info, nullptr, &module));
    return module;
}

VkPipeline createComputePipeline(const Context& ctx, VkPipelineLayout layout, VkShaderModule module,
                                 const VkSpecializationInfo* spec) {
    VkComputePipelineCreateInfo info{};
    info.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
    info.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
    info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    info.stage.module = module;
    info.stage.pName = "main";
    info.stage.pSpecializationInfo = spec;
    info.layout = layout;
    VkPipeline pipeline = VK_NULL_HANDLE;
    VK_CHECK(vkCreateComputePipelines(ctx.device, VK_NULL_HANDLE, 1, &info, nullptr, &pipeline));
    return pipeline;
}

} // namespace alluvium::gpu
