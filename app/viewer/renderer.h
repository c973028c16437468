// Draws the simulation straight from its storage images: a bounded grid mesh for the ground and
// one for the water, and a one-invocation compute pass that finds the point under the mouse.
// Owns the render pass (colour + depth), the framebuffers of its targets and the per-frame
// uniform and pick buffers. The caller owns the command buffers, the frames and the targets.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include <vulkan/vulkan.h>

#include "context.h"
#include "render_shared.h"
#include "resources.h"
#include "simulation.h"

namespace alluvium::viewer {

// The C++ mirror of FrameBlock in shaders/render.glsl (std140: vec4s and one mat4).
struct FrameUniforms {
    float view_proj[16];
    float camera_pos[4];
    float sun_dir[4];
    float brush[4];
    float grid[4];
    float mesh[4];
    float overlay[4];
    float ray_origin[4];
    float ray_dir[4];
    float relief[4];
    float storms[4];  // the weather's storms (storms.glsl): time (s), radius (cells), intensity, speed (cells/s)
    float storms2[4]; // ... wind direction (radians), lifetime (s), count, seed
    float ground[4];  // x: layered ground on (the loose layer drawn as sand); y: snow on (drawn by its
                      // depth, not by altitude); z: the snow's depth per m of its water; w: vegetation
                      // on (grass drawn by its density)
    float lava[4];    // x: lava on (drawn glowing by its temperature)
};

// The sunlight's check (surface_sun_check.comp, surface_sun_control.comp; std430, as render.glsl).
struct SunControl {
    uint32_t dispatch[3];
    uint32_t changed, valid, recomputed, pad[2];
    float sun_dir[4], grid[4];
    float lakes, pad2[3];
};
static_assert(sizeof(SunControl) == 80 && offsetof(SunControl, valid) == SUN_CONTROL_VALID * 4);

struct PickResult {
    float x = 0, y = 0, height = 0; // cells, cells, metres
    bool hit = false;
};

// A colour image the viewer renders into when there is no window (or for --offscreen).
using ColorTarget = gpu::Image;
void createColorTarget(ColorTarget& t, const gpu::Context& ctx, VkFormat format, VkExtent2D extent);
void destroyColorTarget(ColorTarget& t, const gpu::Context& ctx);

// Whether a drawn grid of x by y vertices (the skirt's ring not counted) has buffers one storage
// binding of max_range bytes (maxStorageBufferRange) holds: (x + 2)(y + 2) vertices of 16 bytes,
// and the water's indices, 24 bytes for each of the (x + 1)(y + 1) quads that may be wet.
bool meshFits(uint64_t x, uint64_t y, uint64_t max_range);
// The largest square grid that fits (2363 at lavapipe's 128 MiB, 13376 at 4 GiB - 1).
uint32_t meshSideLimit(uint64_t max_range);
// The drawn grid's vertices a side at most, by device (MESH_MAX*, render_shared.h), within
// meshSideLimit.
uint32_t defaultMeshSide(const gpu::Context& ctx);
// The drawn grid of a simulation of grid_w x grid_h cells: at most mesh_side vertices a side
// (`view --mesh`; 0: defaultMeshSide, 1 counts as 2), never more than the cells. Throws
// InputError (one line) if its buffers do not fit (meshFits); the viewer asks before it opens
// anything, the Renderer again.
VkExtent2D drawnMesh(const gpu::Context& ctx, int grid_w, int grid_h, uint32_t mesh_side);

class Renderer {
public:
    // final_layout: PRESENT_SRC_KHR for a swapchain, TRANSFER_SRC_OPTIMAL for offscreen images.
    // mesh_side: the drawn grid's vertices a side at most, as drawnMesh (which may throw, before
    // anything is created). keeps_sunlight: frames may keep the sunlight (recordPrepare's
    // check_sun), at 8 bytes a cell of memory; a renderer that draws only after steps (the
    // time-lapse) has no use for it.
    Renderer(const gpu::Context& ctx, const gpu::Simulation& sim, VkFormat color_format, VkImageLayout final_layout,
             uint32_t frames_in_flight, uint32_t mesh_side = 0, bool keeps_sunlight = true);
    ~Renderer();
    Renderer(const Renderer&) = delete;
    Renderer& operator=(const Renderer&) = delete;

    VkRenderPass renderPass() const { return render_pass_; }
    VkFormat colorFormat() const { return color_format_; }
    // (Re)creates the depth image and one framebuffer per view; waits for the device first.
    void setTargets(const std::vector<VkImageView>& views, VkExtent2D extent);
    VkExtent2D extent() const { return extent_; }
    // Vertices per side of the drawn grid (without the skirt).
    uint32_t meshX() const { return mesh_x_; }
    uint32_t meshY() const { return mesh_y_; }

    // The block the next frame in slot `frame` reads (host-visible; the slot's fence must have
    // signalled).
    FrameUniforms& uniforms(uint32_t frame);
    // The pick written by the last frame recorded in slot `frame` (after its fence).
    PickResult pick(uint32_t frame) const;
    // The drawn ground's lowest and highest height in that frame (resets them for the next).
    std::optional<std::pair<float, float>> takeGroundRange(uint32_t frame);
    // Whether the last frame in slot `frame` saw a NaN/Inf in the drawn grid; clears the flag
    // for the slot's next frame (call after its fence, before recording it).
    bool takeNonFinite(uint32_t frame);

    // Compute writes of the simulation -> the draw's and the pick's reads.
    static void barrierSimulationToDraw(VkCommandBuffer cmd);
    // The previous frame's reads -> the simulation's writes (write after read).
    static void barrierDrawToSimulation(VkCommandBuffer cmd);

    void recordPick(VkCommandBuffer cmd, uint32_t frame);
    // The mesh's heights and the wet quads' triangles (surface_prepare.comp), and the sunlight
    // per cell (surface_sun.comp), with the barriers the drawing needs; after the simulation's
    // steps, before beginScene. check_sun (frames that ran no step): the sunlight is computed
    // only if a cell's ground or water, the sun, the grid's scale or the lakes' drawing changed
    // since the last such frame (surface_sun_check.comp reads 16 bytes a cell; the sunlight
    // marches 30 samples of 4 cells each); else it is computed, as every frame that steps needs.
    void recordPrepare(VkCommandBuffer cmd, uint32_t frame, bool check_sun = false);
    // The checks' block: the last sunlight dispatch and the sunlight passes the checks found
    // necessary since the Renderer was made (tests; after the frame's fence).
    SunControl sunControl() const;
    // The sunlight per cell, row by row (tests; waits for the device).
    std::vector<float> sunlight() const;
    // Begins the render pass on target `target`, clears, draws ground and (if water) water.
    void beginScene(VkCommandBuffer cmd, uint32_t frame, uint32_t target, bool water);
    // Begins a pass on target `target` that keeps what the scene drew: the panel drawn after a
    // copy of the scene alone (a recording without the panel). Compatible with renderPass();
    // end it with endScene.
    void beginOverlay(VkCommandBuffer cmd, uint32_t target);
    void endScene(VkCommandBuffer cmd);

private:
    // The constructor's parts, in its order.
    void createRenderPasses(VkImageLayout final_layout);
    void createLayouts();
    void createImageSets();
    void createFrameResources();
    void createMeshIndices();
    void createPipelines();
    void recordSun(VkCommandBuffer cmd, bool check);

    const gpu::Context& ctx_;
    const gpu::Simulation& sim_;
    VkFormat color_format_;
    uint32_t frames_;
    bool keeps_sunlight_;
    VkExtent2D extent_{};
    uint32_t mesh_x_ = 0, mesh_y_ = 0, index_count_ = 0;

    VkRenderPass render_pass_ = VK_NULL_HANDLE;
    VkRenderPass overlay_pass_ = VK_NULL_HANDLE; // colour loaded, not cleared
    std::vector<VkFramebuffer> framebuffers_;
    ColorTarget depth_;
    VkDescriptorSetLayout image_layout_ = VK_NULL_HANDLE, frame_layout_ = VK_NULL_HANDLE;
    VkPipelineLayout pipeline_layout_ = VK_NULL_HANDLE;
    VkDescriptorPool pool_ = VK_NULL_HANDLE;
    VkDescriptorSet image_sets_[gpu::Simulation::kParityKeys] = {};
    gpu::Image unused_rgba_, unused_rg_; // bound to the outflow layout the simulation does not use
    std::vector<VkDescriptorSet> frame_sets_;
    std::vector<gpu::Buffer> uniform_buffers_, pick_buffers_;
    std::vector<gpu::Buffer> vertex_buffers_, water_index_buffers_, water_draw_buffers_; // per frame
    gpu::Buffer index_buffer_;
    VkPipeline terrain_pipeline_ = VK_NULL_HANDLE, water_pipeline_ = VK_NULL_HANDLE;
    VkPipeline pick_pipeline_ = VK_NULL_HANDLE, prepare_pipeline_ = VK_NULL_HANDLE, sun_pipeline_ = VK_NULL_HANDLE;
    VkPipeline sun_check_pipeline_ = VK_NULL_HANDLE, sun_control_pipeline_ = VK_NULL_HANDLE;
    gpu::Image sun_;          // sunlight per cell (surface_sun.comp), bound in both image sets
    gpu::Image sun_seen_;     // ground and water per cell at the last check (surface_sun_check.comp);
                              // none without keeps_sunlight (unused_rg_ is bound)
    gpu::Buffer sun_control_; // SunControl, host-visible, bound in every frame set
};

} // namespace alluvium::viewer
