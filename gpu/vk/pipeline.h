// Shader loading and compute pipelines. SPIR-V is built by glslc into the build folder and
// installed under <prefix>/share/alluvium/shaders; the lookup below finds it relative to the
// running executable, so an installed tree can be moved anywhere.
#pragma once
#include <cstdint>
#include <deque>
#include <filesystem>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <vector>

#include <vulkan/vulkan.h>

#include "context.h"

namespace alluvium::gpu {

// A missing or unreadable installation (shaders, presets); what() is one line for the user.
// The CLI exits with status 4.
struct InstallError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// The folder of the running executable (/proc/self/exe); empty if it cannot be read.
std::filesystem::path executableDirectory();
// True when the running executable lies inside the build tree it was built in: only then are
// the build tree's own folders (compiled-in paths) used as fallbacks, so a copied or installed
// binary never picks up a stale build tree by accident.
bool runningFromBuildTree();

// Where the .spv files are: $ALLUVIUM_SHADER_DIR if set; else the first of
// <exe dir>/../share/alluvium/shaders (installed), <exe dir>/shaders, <exe dir>/../shaders (the
// build tree, bundles) that holds .spv files; else, from the build tree, its shader folder.
// Throws InstallError naming the places it looked if none does.
std::filesystem::path shaderDirectory();

// Reads a SPIR-V file; throws InstallError("cannot read shader '<path>' ...") if it is missing,
// empty, not a multiple of 4 bytes or lacks the SPIR-V magic number.
std::vector<uint32_t> loadSpirv(const std::filesystem::path& path);

// The SPIR-V of the shader `name`: shaderDirectory() / "<name>.spv" (loadSpirv's errors).
std::vector<uint32_t> loadShader(const std::string& name);

// Wraps SPIR-V words in a module; destroy it with vkDestroyShaderModule once pipelines exist.
VkShaderModule createShaderModule(const Context& ctx, const std::vector<uint32_t>& code);
// A module of the shader `name` (loadShader).
VkShaderModule loadShaderModule(const Context& ctx, const std::string& name);

// A descriptor set layout of `count` bindings.
VkDescriptorSetLayout createSetLayout(const Context& ctx, const VkDescriptorSetLayoutBinding* bindings, uint32_t count);
// A pool for `max_sets` descriptor sets holding, in all, the descriptors of `sizes`.
VkDescriptorPool createDescriptorPool(const Context& ctx, uint32_t max_sets,
                                      std::initializer_list<VkDescriptorPoolSize> sizes);
// `count` sets of one layout from `pool`, into out[0 .. count).
void allocateSets(const Context& ctx, VkDescriptorPool pool, VkDescriptorSetLayout layout, uint32_t count,
                  VkDescriptorSet* out);

// Descriptor writes gathered, then applied in one vkUpdateDescriptorSets; the infos they point
// to live as long as the writer.
class DescriptorWrites {
public:
    // A storage image (in GENERAL, its layout for life) at `binding` of `set`.
    void image(VkDescriptorSet set, uint32_t binding, VkImageView view);
    // A buffer: its `range` bytes from the start, as a storage (or `type`) buffer.
    void buffer(VkDescriptorSet set, uint32_t binding, VkBuffer buffer, VkDeviceSize range = VK_WHOLE_SIZE,
                VkDescriptorType type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER);
    // An array of whole storage buffers at one binding.
    void buffers(VkDescriptorSet set, uint32_t binding, const std::vector<VkBuffer>& array);
    void apply(const Context& ctx);

private:
    VkWriteDescriptorSet& write(VkDescriptorSet set, uint32_t binding, VkDescriptorType type, uint32_t count);
    std::deque<VkDescriptorImageInfo> images_;
    std::deque<VkDescriptorBufferInfo> buffers_;
    std::deque<std::vector<VkDescriptorBufferInfo>> arrays_; // each contiguous, as an array binding needs
    std::vector<VkWriteDescriptorSet> writes_;
};

// The layout of compute pipelines over one descriptor set with `push_bytes` of push constants.
VkPipelineLayout createComputeLayout(const Context& ctx, VkDescriptorSetLayout set_layout, uint32_t push_bytes);

// A compute pipeline with entry point "main"; `spec` selects a variant of the shader.
VkPipeline createComputePipeline(const Context& ctx, VkPipelineLayout layout, VkShaderModule module,
                                 const VkSpecializationInfo* spec = nullptr);
// The same from SPIR-V words (the module lives only as long as the call).
VkPipeline createComputePipeline(const Context& ctx, VkPipelineLayout layout, const std::vector<uint32_t>& code,
                                 const VkSpecializationInfo* spec = nullptr);
// The compute pipeline of the shader `name` (loadShader): how every compute pass is loaded.
VkPipeline loadComputePipeline(const Context& ctx, VkPipelineLayout layout, const std::string& name,
                               const VkSpecializationInfo* spec = nullptr);

// Destroys a compute user's pipelines, then its descriptor pool (and with it the sets), pipeline
// layout and set layout; null handles are skipped, as Vulkan allows.
void destroyCompute(const Context& ctx, std::initializer_list<VkPipeline> pipelines, VkDescriptorPool pool,
                    VkPipelineLayout layout, VkDescriptorSetLayout set_layout);

} // namespace alluvium::gpu
