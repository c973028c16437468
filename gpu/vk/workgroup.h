// The grid passes' workgroup shape, chosen per device. Every grid pass runs over tiles of
// kTileCells (256, WG_SIZE in shaders/shared.h) cells, x by y, one invocation per cell (on CPU drivers the pipe step's
// three passes with sums run 4 cells per invocation over the same tile: shaders/partials.glsl); the shape is a
// specialization of each pipeline (SPEC_WG_X, SPEC_WG_Y in shaders/shared.h). What a cell computes does not depend on
// the shape (the fused pipe pass computes its halo with the owned cells' code), only the grouping of the step's
// double-precision sums does.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "context.h"

namespace alluvium::gpu {

// Cells of a grid pass's tile (shaders/shared.h's WG_SIZE; gpu/passes.cpp checks they agree).
inline constexpr int kTileCells = 256;

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
// Shared memory a pass needs per workgroup with a shape (the caller's most demanding pass).
using SharedBytesOf = uint32_t (*)(WorkgroupShape);
// Whether this is one of workgroupShapes() and the device runs it (workgroup size limits, and
// the shared memory `shared_bytes` asks of it).
bool deviceRunsShape(const Context& ctx, WorkgroupShape s, SharedBytesOf shared_bytes);
// The subgroup size the device reports (VkPhysicalDeviceSubgroupProperties).
uint32_t subgroupSize(const Context& ctx);

// The shape for `asked`: itself when set (DeviceError if the device cannot run it); otherwise
// ALLUVIUM_WORKGROUP=WxH when set (DeviceError if it names no shape this device runs), else the
// device's. GPUs: one subgroup spans one row of the tile (x = the reported subgroup size, at least
// 16 and at most 64: 32x8 where it is 32, as on NVIDIA and Intel's Mesa driver; 64x4 on AMD,
// whose drivers report 64; 16x16 for 8 or 16), so a subgroup's loads of a field are one
// contiguous run and the rows above and below, which its neighbour reads touch, are read by its
// own workgroup. Not measured on a GPU yet. CPU drivers: 64x4. lavapipe runs a workgroup's
// invocations in SIMD batches of 8 along a row, one batch after another; at 512^2 the pipe step
// took 38-40 ms with 64x4 against 44-53 with 16x16 and 50-54 with 8x32.
WorkgroupShape resolveWorkgroupShape(const Context& ctx, WorkgroupShape asked, SharedBytesOf shared_bytes);

// Partials of the step's sums per workgroup and slot (shaders/partials.glsl). 1 on GPUs: each
// workgroup folds its subgroups' sums in shared memory, after a barrier. On CPU drivers, the
// subgroups of its tile (WG_SIZE / subgroup size: 32 on lavapipe; a pass with 4 rows per
// invocation fills 8 and writes 0 to the others), each written without a barrier, and
// folded in the same order by a pass of their own (reduce_subgroups.comp): the totals are bit
// for bit the same either way. A barrier makes lavapipe run the whole pass as coroutines: at
// 512^2 the pipe step took 39.1-40.0 ms with it, 35.3-37.1 ms this way. The Simulation keeps 1
// where the subgroups' partials would not fit one binding. ALLUVIUM_PARTIALS=workgroup|subgroup
// overrides (subgroup on CPU drivers only: a GPU may run a pipeline with another subgroup size
// than it reports; DeviceError for anything else).
uint32_t resolvePartialsPerGroup(const Context& ctx);

// Workgroups (or tiles) of `tile` cells that cover `cells` cells.
inline uint32_t groupsCovering(int cells, int tile) { return static_cast<uint32_t>((cells + tile - 1) / tile); }

} // namespace alluvium::gpu
