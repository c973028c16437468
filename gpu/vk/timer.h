// GPU timestamps for `alluvium bench`: one query pool, written in recording order, read back
// as milliseconds since the first timestamp.
#pragma once
#include <cstdint>
#include <vector>

#include <vulkan/vulkan.h>

#include "context.h"

namespace alluvium::gpu {

struct GpuTimer {
    VkQueryPool pool = VK_NULL_HANDLE;
    uint32_t capacity = 0;
    uint32_t used = 0;       // timestamps written since the last resetTimer
    double period_ns = 1.0;  // nanoseconds per tick (limits.timestampPeriod)
    uint32_t valid_bits = 0; // meaningful low bits of a tick count (queue family property)
};

// A pool of `capacity` timestamps; throws DeviceError if the queue cannot write timestamps.
void createTimer(GpuTimer& t, const Context& ctx, uint32_t capacity);
// Destroys the pool and resets `t`.
void destroyTimer(GpuTimer& t, const Context& ctx);
// Records a reset of every query (required before they are written again); used = 0.
void resetTimer(GpuTimer& t, VkCommandBuffer cmd);
// Records a timestamp after `stage` of all earlier commands; returns its query index.
uint32_t writeTimestamp(GpuTimer& t, VkCommandBuffer cmd,
                        VkPipelineStageFlagBits stage = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT);
// Waits for the `used` timestamps and returns each in ms relative to query 0.
std::vector<double> readTimestampsMs(const GpuTimer& t, const Context& ctx);

} // namespace alluvium::gpu
