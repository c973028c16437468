// The grid passes' workgroup shape, chosen per device. Every grid pass runs WG_SIZE (256)
// invocations per workgroup, one per cell of a tile of x by y cells; the shape is a
// specialization of each pipeline (SPEC_WG_X, SPEC_WG_Y in shaders/shared.h). What a cell
// computes does not depend on the shape (the fused pipe pass computes its halo with the owned
// cells' code), only the grouping of the step's double-precision sums does.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "context.h"

namespace alluvium::gpu {

struct WorkgroupShape {
    int x = 0, y = 0; // 0 x 0: choose for the device (resolveWorkgroupShape)
    bool automatic() const { return x == 0 && y == 0; }
    bool operator==(const WorkgroupShape&) const = default;
};

// The shapes a grid pass accepts: 8x32, 16x16, 32x8, 64x4.
const std::vector<WorkgroupShape>& workgroupShapes();
std::string workgroupShapeName(WorkgroupShape s); // "32x8"
// "WxH" naming one of workgroupShapes(); nullopt for anything else.
std::optional<WorkgroupShape> parseWorkgroupShape(const std::string& text);
// Shared memory the fused pipe pass needs with this shape (its tile, rings and sums).
uint32_t fusedSharedBytes(WorkgroupShape s);
// Whether the device runs this shape (workgroup size limits, shared memory for the fused pass).
bool deviceRunsShape(const Context& ctx, WorkgroupShape s);
// The subgroup size the device reports (VkPhysicalDeviceSubgroupProperties).
uint32_t subgroupSize(const Context& ctx);

// The shape for `asked`: itself when set (DeviceError if the device cannot run it); otherwise
// ALLUVIUM_WORKGROUP=WxH when set, else the device's: one subgroup spans one row of the tile
// (x = the subgroup size, at least 16 and at most 64: 16x16 for subgroups of 8 or 16, 32x8 on
// NVIDIA's 32, 64x4 on AMD's 64), so a subgroup's loads of a field are one contiguous run and its
// neighbours above and below are rows its own workgroup reads too. CPU drivers run a workgroup's
// invocations in SIMD batches one after another, where the shape changes little (lavapipe at
// 512^2: within 3 % for every shape): 16x16.
WorkgroupShape resolveWorkgroupShape(const Context& ctx, WorkgroupShape asked = {});

// Workgroups (or tiles) of `tile` cells that cover `cells` cells.
inline uint32_t groupsCovering(int cells, int tile) {
    return static_cast<uint32_t>((cells + tile - 1) / tile);
}

} // namespace alluvium::gpu
