// The interactive brush: one application between simulation steps, on the simulation's current
// images, whatever the erosion model. Owns its pipelines, its scratch image and its totals.
// Headless (the viewer drives it; tests compare it with tests/reference/brush.cpp).
#pragma once
#include <array>

#include <vulkan/vulkan.h>

#include "brush_shared.h"
#include "context.h"
#include "resources.h"
#include "simulation.h"

namespace alluvium::gpu {

struct BrushTotals {
    double water_added = 0, water_removed = 0;     // m^3
    double terrain_added = 0, terrain_removed = 0; // m^3 (including the hand's)
    double hand_picked = 0, hand_dropped = 0;      // m^3: the hand holds picked - dropped
    double lava_poured = 0;                        // m^3 of lava
};

// The sum over the grid's cells of the brush's weight at (x, y): the drop spreads a volume V as
// V * weight / sum, so the hand puts back exactly what it took.
double brushWeightSum(int width, int height, float x, float y, float radius, float falloff);

class Brush {
public:
    Brush(const Context& ctx, const Simulation& sim);
    ~Brush();
    Brush(const Brush&) = delete;
    Brush& operator=(const Brush&) = delete;

    // Records one application with its barriers (compute before and after), using the images of
    // the simulation's current parity. width/height/group counts are filled in here.
    void record(VkCommandBuffer cmd, BrushParams params);
    // Records, submits and waits (tests).
    void apply(const BrushParams& params);

    // Valid once the work recorded before is complete (host-visible).
    BrushTotals totals() const;
    void resetTotals();
    // The tallies (host-visible): what the hand holds is state that undo must restore.
    const Buffer& totalsBuffer() const { return totals_; }

private:
    const Context& ctx_;
    const Simulation& sim_;
    Image scratch_;
    Buffer partials_, totals_;
    VkDescriptorSetLayout set_layout_ = VK_NULL_HANDLE;
    VkPipelineLayout layout_ = VK_NULL_HANDLE;
    VkDescriptorPool pool_ = VK_NULL_HANDLE;
    std::array<VkDescriptorSet, Simulation::kParityKeys> sets_{}; // by the simulation's parity key
    VkPipeline apply_ = VK_NULL_HANDLE, commit_ = VK_NULL_HANDLE, reduce_ = VK_NULL_HANDLE;
};

} // namespace alluvium::gpu
