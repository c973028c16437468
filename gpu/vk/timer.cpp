#include "timer.h"

#include <string>

namespace alluvium::gpu {

void createTimer(GpuTimer& t, const Context& ctx, uint32_t capacity) {
    ALLUVIUM_ASSERT(capacity > 0);
    uint32_t count = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(ctx.physical, &count, nullptr);
    std::vector<VkQueueFamilyProperties> families(count);
    vkGetPhysicalDeviceQueueFamilyProperties(ctx.physical, &count, families.data());
    ALLUVIUM_ASSERT(ctx.queue_family < count);
    const uint32_t valid_bits = families[ctx.queue_family].timestampValidBits;
    if (valid_bits == 0) throw DeviceError(ctx.device_name + " cannot write GPU timestamps on its compute queue");

    t = GpuTimer{};
    VkQueryPoolCreateInfo info{};
    info.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO;
    info.queryType = VK_QUERY_TYPE_TIMESTAMP;
    info.queryCount = capacity;
    VK_CHECK(vkCreateQueryPool(ctx.device, &info, nullptr, &t.pool));
    t.capacity = capacity;
    t.period_ns = static_cast<double>(ctx.properties.limits.timestampPeriod);
    t.valid_bits = valid_bits;
}

void destroyTimer(GpuTimer& t, const Context& ctx) {
    if (t.pool) vkDestroyQueryPool(ctx.device, t.pool, nullptr);
    t = GpuTimer{};
}

void resetTimer(GpuTimer& t, VkCommandBuffer cmd) {
    vkCmdResetQueryPool(cmd, t.pool, 0, t.capacity);
    t.used = 0;
}

uint32_t writeTimestamp(GpuTimer& t, VkCommandBuffer cmd, VkPipelineStageFlagBits stage) {
    ALLUVIUM_ASSERT(t.used < t.capacity);
    vkCmdWriteTimestamp(cmd, stage, t.pool, t.used);
    return t.used++;
}

std::vector<double> readTimestampsMs(const GpuTimer& t, const Context& ctx) {
    // Nothing written: WAIT_BIT on a never-written query would block forever.
    if (t.used == 0) return {};
    std::vector<uint64_t> ticks(t.used);
    VK_CHECK(vkGetQueryPoolResults(ctx.device, t.pool, 0, t.used, ticks.size() * sizeof(uint64_t), ticks.data(),
                                   sizeof(uint64_t), VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
    // Bits above valid_bits are undefined; masking the difference also handles a counter
    // that wrapped between the first and a later timestamp.
    const uint64_t mask = t.valid_bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << t.valid_bits) - 1;
    std::vector<double> ms(t.used);
    for (uint32_t i = 0; i < t.used; ++i) {
        const uint64_t delta = ((ticks[i] & mask) - (ticks[0] & mask)) & mask;
        ms[i] = static_cast<double>(delta) * t.period_ns * 1e-6;
    }
    return ms;
}

} // namespace alluvium::gpu
