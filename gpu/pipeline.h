// Shader loading and compute pipelines. SPIR-V is built by glslc into the build folder and
// installed next to the executable, so the lookup below finds it in both places.
#pragma once
#include <cstdint>
#include <filesystem>
#include <vector>

#include <vulkan/vulkan.h>

#include "context.h"

namespace alluvium::gpu {

// Where the .spv files are: $ALLUVIUM_SHADER_DIR, else <exe dir>/shaders, else
// <exe dir>/../shaders (each only if it holds .spv files), else the build tree's shader folder.
std::filesystem::path shaderDirectory();

// Reads a SPIR-V file; throws std::runtime_error("cannot read shader '<path>' ...") if it is
// missing, empty, not a multiple of 4 bytes or lacks the SPIR-V magic number.
std::vector<uint32_t> loadSpirv(const std::filesystem::path& path);

// Wraps SPIR-V words in a module; destroy it with vkDestroyShaderModule once pipelines exist.
VkShaderModule createShaderModule(const Context& ctx, const std::vector<uint32_t>& code);

// A compute pipeline with entry point "main"; `spec` selects a variant of the shader.
VkPipeline createComputePipeline(const Context& ctx, VkPipelineLayout layout, VkShaderModule module,
                                 const VkSpecializationInfo* spec = nullptr);

} // namespace alluvium::gpu
