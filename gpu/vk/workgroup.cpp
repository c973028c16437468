#include "workgroup.h"

#include <algorithm>
#include <cstdlib>

namespace alluvium::gpu {

const std::vector<WorkgroupShape>& workgroupShapes() {
    static const std::vector<WorkgroupShape> shapes = {{8, 32}, {16, 16}, {32, 8}, {64, 4}};
    return shapes;
}

std::string workgroupShapeName(WorkgroupShape s) { return std::to_string(s.x) + "x" + std::to_string(s.y); }

std::optional<WorkgroupShape> parseWorkgroupShape(const std::string& text) {
    for (const WorkgroupShape& s : workgroupShapes())
        if (text == workgroupShapeName(s)) return s;
    return std::nullopt;
}

bool deviceRunsShape(const Context& ctx, WorkgroupShape s, SharedBytesOf shared_bytes) {
    const VkPhysicalDeviceLimits& l = ctx.properties.limits;
    const std::vector<WorkgroupShape>& known = workgroupShapes();
    return std::find(known.begin(), known.end(), s) != known.end() && uint32_t(s.x) <= l.maxComputeWorkGroupSize[0] &&
           uint32_t(s.y) <= l.maxComputeWorkGroupSize[1] && uint32_t(kTileCells) <= l.maxComputeWorkGroupInvocations &&
           shared_bytes(s) <= l.maxComputeSharedMemorySize;
}

uint32_t subgroupSize(const Context& ctx) {
    VkPhysicalDeviceSubgroupProperties subgroup{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
    VkPhysicalDeviceProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
    props.pNext = &subgroup;
    vkGetPhysicalDeviceProperties2(ctx.physical, &props);
    return subgroup.subgroupSize;
}

WorkgroupShape resolveWorkgroupShape(const Context& ctx, WorkgroupShape asked, SharedBytesOf shared_bytes) {
    if (!asked.automatic()) {
        if (!deviceRunsShape(ctx, asked, shared_bytes))
            throw DeviceError(ctx.device_name + " cannot run " + workgroupShapeName(asked) +
                              " workgroups (its workgroup size or shared memory limits)");
        return asked;
    }
    if (const char* env = std::getenv("ALLUVIUM_WORKGROUP"); env && *env) {
        const std::optional<WorkgroupShape> s = parseWorkgroupShape(env);
        if (!s) throw DeviceError(std::string("ALLUVIUM_WORKGROUP='") + env + "' is not 8x32, 16x16, 32x8 or 64x4");
        return resolveWorkgroupShape(ctx, *s, shared_bytes);
    }
    const WorkgroupShape square{16, 16}, wide{64, 4};
    if (ctx.properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU)
        return deviceRunsShape(ctx, wide, shared_bytes) ? wide : square;
    const int x = int(std::clamp<uint32_t>(subgroupSize(ctx), 16u, 64u));
    const WorkgroupShape rows{x, kTileCells / x};
    return deviceRunsShape(ctx, rows, shared_bytes) ? rows : square;
}

uint32_t resolvePartialsPerGroup(const Context& ctx) {
    const uint32_t subgroup = subgroupSize(ctx);
    const uint32_t per_group = subgroup >= 4 && kTileCells % subgroup == 0 ? kTileCells / subgroup : 1;
    if (const char* env = std::getenv("ALLUVIUM_PARTIALS"); env && *env) {
        const std::string mode = env;
        if (mode == "workgroup") return 1;
        if (mode == "subgroup") {
            // A GPU may compile a pipeline for another subgroup size than it reports (Intel's 8,
            // 16 or 32): the partials' layout would not match. CPU drivers keep theirs.
            if (ctx.properties.deviceType != VK_PHYSICAL_DEVICE_TYPE_CPU)
                throw DeviceError("ALLUVIUM_PARTIALS=subgroup is for CPU drivers; " + ctx.device_name + " is a GPU");
            return per_group;
        }
        throw DeviceError("ALLUVIUM_PARTIALS='" + mode + "' is not 'workgroup' or 'subgroup'");
    }
    return ctx.properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU ? per_group : 1;
}

} // namespace alluvium::gpu
