// The fluvial model's buffers (models/fluvial.h): their sizes, allocated the first time the model
// is used (with the checks that keep a grid too large for them to one clean line), bound into
// every descriptor set, read back for the host, and given back.
#include <algorithm>
#include <cstring>
#include <string>

#include "fluvial.h"
#include "pipeline.h"

namespace alluvium::gpu {

namespace {

uint64_t blockCount(int width, int height) { return uint64_t((width + 1) / 2) * uint64_t((height + 1) / 2); }

// The buffers, in the order of FluvialState's members: per cell, per basin block (one per 2 x 2
// cells: pits are never neighbours), per tile and per ring node (RING_CELLS per tile). None is
// above 8 bytes a cell, so a 4096 x 4096 grid binds each in 128 MiB.
struct FluvialBufferSize {
    uint64_t bytes;
    const char* what;
    uint32_t binding;
};
std::array<FluvialBufferSize, 14> fluvialBufferSizes(int width, int height) {
    const uint64_t cells = uint64_t(width) * uint64_t(height), blocks = blockCount(width, height);
    const uint64_t tiles = uint64_t(groupsCovering(width, FLUVIAL_TILE)) * groupsCovering(height, FLUVIAL_TILE);
    const uint64_t ring = tiles * RING_CELLS;
    return {{{cells * 4, "filled levels", B_FLUVIAL_LEVEL},
             {2 * cells * 4, "steps across flats", B_FLUVIAL_STEPS},
             {cells * 4, "receivers", B_FLUVIAL_RCV},
             {cells * 8, "drainage accumulation", B_FLUVIAL_ACC},
             {cells * 4, "erosion targets", B_FLUVIAL_ANC},
             {cells * 8, "implicit erosion maps", B_FLUVIAL_AB},
             {3 * tiles * 4, "tile lists", B_FLUVIAL_TILES},
             {cells * 4, "basin labels", B_FLUVIAL_LABEL},
             {2 * cells * 4, "basin edges", B_FLUVIAL_EDGES},
             {6 * blocks * 4, "basin graph", B_FLUVIAL_BASIN},
             {blocks * 8, "basin passes", B_FLUVIAL_BEST},
             {8 * blocks * 4, "basin lists and lakes", B_FLUVIAL_LISTS},
             {6 * ring * 4, "tile crossings", B_FLUVIAL_RING},
             {4 * ring * 8, "values at tile crossings", B_FLUVIAL_RING_VAL}}};
}

} // namespace

uint64_t fluvialBytes(int width, int height) {
    uint64_t bytes = 2 * sizeof(FluvialControl); // on the device, and its host-visible copy
    for (const FluvialBufferSize& b : fluvialBufferSizes(width, height)) bytes += b.bytes;
    return bytes;
}

uint64_t fluvialLargestBuffer(int width, int height) {
    uint64_t largest = 0;
    for (const FluvialBufferSize& b : fluvialBufferSizes(width, height)) largest = std::max(largest, b.bytes);
    return largest;
}

FluvialState::FluvialState(const Context& ctx, int width, int height) : ctx_(ctx), width_(width), height_(height) {
    createBuffer(unused_, ctx, sizeof(FluvialControl),
                 VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT, false);
    VkCommandBuffer cmd = beginOneShot(ctx);
    vkCmdFillBuffer(cmd, unused_.buffer, 0, VK_WHOLE_SIZE, 0);
    endOneShot(ctx, cmd);
}

FluvialState::~FluvialState() {
    release();
    destroyBuffer(unused_, ctx_);
}

void FluvialState::release() {
    for (Buffer* b : {&level_, &steps_, &rcv_, &acc_, &anc_, &ab_, &tiles_, &label_, &edges_, &basin_, &best_, &lists_,
                      &ring_, &ring_val_, &control_, &control_host_})
        destroyBuffer(*b, ctx_);
}

void FluvialState::bind(const std::array<VkDescriptorSet, kParityKeys>& sets) const {
    const Buffer* const buffers[] = {&level_, &steps_, &rcv_,   &acc_,  &anc_,   &ab_,   &tiles_,
                                     &label_, &edges_, &basin_, &best_, &lists_, &ring_, &ring_val_};
    const auto sizes = fluvialBufferSizes(width_, height_);
    std::vector<std::pair<uint32_t, VkBuffer>> bindings;
    for (size_t k = 0; k < sizes.size(); ++k) bindings.emplace_back(sizes[k].binding, buffers[k]->buffer);
    bindings.emplace_back(B_FLUVIAL_CONTROL, control_.buffer);
    DescriptorWrites writes;
    for (VkDescriptorSet set : sets)
        for (const auto& [binding, buffer] : bindings)
            writes.buffer(set, binding, allocated_ ? buffer : unused_.buffer);
    writes.apply(ctx_);
}

void FluvialState::allocate(uint64_t other_bytes, const std::array<VkDescriptorSet, kParityKeys>& sets) {
    if (allocated_) return;
    const std::string grid = "a " + std::to_string(width_) + "x" + std::to_string(height_) + " grid";
    const uint64_t cells = uint64_t(width_) * uint64_t(height_);
    // Cell indices << 4 (edge lists) must fit in 32 bits, coordinates in 16 bits (cell lists).
    if (cells >= (uint64_t(1) << 28) || width_ > 65535 || height_ > 65535)
        throw DeviceError(grid + " has too many cells for the fluvial model (at most 2^28 - 1, 65535 a side)");
    // Every buffer is bound whole: none may exceed the device's range for one binding (128 MiB
    // on lavapipe) nor its largest allocation.
    const uint64_t max_range = ctx_.properties.limits.maxStorageBufferRange;
    const auto sizes = fluvialBufferSizes(width_, height_);
    for (const FluvialBufferSize& b : sizes) {
        if (b.bytes > max_range)
            throw DeviceError(grid + " needs " + std::to_string(b.bytes >> 20) + " MiB for the fluvial model's " +
                              b.what + "; " + ctx_.device_name + " binds at most " + std::to_string(max_range >> 20) +
                              " MiB in one storage buffer");
        if (ctx_.max_allocation_bytes > 0 && b.bytes > ctx_.max_allocation_bytes)
            throw DeviceError(grid + " needs " + std::to_string(b.bytes >> 20) + " MiB for the fluvial model's " +
                              b.what + "; " + ctx_.device_name + " allocates at most " +
                              std::to_string(ctx_.max_allocation_bytes >> 20) + " MiB at once");
    }
    const uint64_t need = other_bytes + fluvialBytes(width_, height_);
    if (ctx_.device_local_bytes > 0 && need > ctx_.device_local_bytes)
        throw DeviceError(grid + " needs " + std::to_string(need >> 20) +
                          " MiB of GPU memory with the fluvial model's " +
                          std::to_string(fluvialBytes(width_, height_) >> 20) + " MiB of buffers; " + ctx_.device_name +
                          " has " + std::to_string(ctx_.device_local_bytes >> 20) + " MiB");
    vkDeviceWaitIdle(ctx_.device); // the descriptor sets change: no step may be in flight
    Buffer* const buffers[] = {&level_, &steps_, &rcv_,   &acc_,  &anc_,   &ab_,   &tiles_,
                               &label_, &edges_, &basin_, &best_, &lists_, &ring_, &ring_val_};
    try {
        for (size_t k = 0; k < sizes.size(); ++k)
            createBuffer(*buffers[k], ctx_, sizes[k].bytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, false);
        // The control lives in device memory (every round's passes update its counters with
        // atomics; in host memory each would cross the bus); each step ends with a copy for the host.
        createBuffer(control_, ctx_, sizeof(FluvialControl),
                     VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT, false);
        createBuffer(control_host_, ctx_, sizeof(FluvialControl), 0, true);
    } catch (...) {
        release(); // what was allocated goes back: the simulation is as it was
        throw;
    }
    std::memset(control_host_.mapped, 0, sizeof(FluvialControl));
    VkCommandBuffer cmd = beginOneShot(ctx_);
    vkCmdFillBuffer(cmd, control_.buffer, 0, VK_WHOLE_SIZE, 0);
    endOneShot(ctx_, cmd);
    allocated_ = true;
    bind(sets);
}

VkBuffer FluvialState::control() const { return control_.buffer; }

void FluvialState::recordReadback(StepRecorder& rec) const {
    const VkBufferCopy region{0, 0, sizeof(FluvialControl)};
    vkCmdCopyBuffer(rec.cmd(), control_.buffer, control_host_.buffer, 1, &region);
    memoryBarrier(rec.cmd(), VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                  VK_ACCESS_HOST_READ_BIT);
    rec.barrier(); // later steps' control passes write the control again
}

FluvialControl FluvialState::hostControl() const {
    FluvialControl c{};
    if (!allocated_) return c; // the model never ran
    std::memcpy(&c, control_host_.mapped, sizeof c);
    return c;
}

std::vector<uint64_t> FluvialState::keys() const {
    if (!allocated_) return {};
    const size_t n = size_t(width_) * size_t(height_);
    std::vector<uint32_t> level(n), steps(n);
    downloadBuffer(ctx_, level_, level.data(), n * sizeof(uint32_t));
    downloadBuffer(ctx_, steps_, steps.data(), n * sizeof(uint32_t),
                   VkDeviceSize(hostControl().flat_parity) * n * sizeof(uint32_t));
    std::vector<uint64_t> keys(n);
    for (size_t i = 0; i < n; ++i) keys[i] = (uint64_t(level[i]) << 32) | steps[i];
    return keys;
}

uint32_t orderedFloatBits(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    if (u == 0x80000000u) u = 0u; // -0 counts as +0
    return (u & 0x80000000u) != 0u ? ~u : (u | 0x80000000u);
}

float fromOrderedFloatBits(uint32_t o) {
    const uint32_t u = (o & 0x80000000u) != 0u ? (o & 0x7FFFFFFFu) : ~o;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

bool isOutletCell(int x, int y, int width, int height, int outlets) {
    return ((outlets & OUTLET_LEFT) && x == 0) || ((outlets & OUTLET_RIGHT) && x == width - 1) ||
           ((outlets & OUTLET_TOP) && y == 0) || ((outlets & OUTLET_BOTTOM) && y == height - 1);
}

std::vector<uint32_t> FluvialState::levels() const {
    if (!allocated_) return {};
    std::vector<uint32_t> level(size_t(width_) * size_t(height_));
    downloadBuffer(ctx_, level_, level.data(), level.size() * sizeof(uint32_t));
    return level;
}

std::vector<uint32_t> FluvialState::basins() const {
    if (!allocated_) return {};
    std::vector<uint32_t> v(size_t(width_) * size_t(height_));
    downloadBuffer(ctx_, label_, v.data(), v.size() * sizeof(uint32_t));
    for (uint32_t& b : v) b &= LABEL_INDEX;
    return v;
}

std::vector<uint32_t> FluvialState::spills() const {
    if (!allocated_) return {};
    const size_t blocks = blockCount(width_, height_);
    std::vector<uint32_t> basin(2 * blocks);
    downloadBuffer(ctx_, basin_, basin.data(), basin.size() * sizeof(uint32_t));
    std::vector<uint32_t> spill(blocks);
    for (size_t b = 0; b < blocks; ++b) spill[b] = basin[b] == FLUVIAL_OCEAN ? basin[blocks + b] : FLUVIAL_NONE;
    return spill;
}

std::vector<uint32_t> FluvialState::receivers() const {
    if (!allocated_) return {};
    std::vector<uint32_t> v(size_t(width_) * size_t(height_));
    downloadBuffer(ctx_, rcv_, v.data(), v.size() * sizeof(uint32_t));
    // Stored as the neighbour's index in the shaders' order (RCV_SELF: itself).
    static constexpr int kDx[8] = {-1, 0, 1, -1, 1, -1, 0, 1}, kDy[8] = {-1, -1, -1, 0, 0, 1, 1, 1};
    for (size_t i = 0; i < v.size(); ++i)
        if (v[i] < RCV_SELF)
            v[i] = uint32_t(int64_t(i) + kDy[v[i]] * int64_t(width_) + kDx[v[i]]);
        else
            v[i] = uint32_t(i);
    return v;
}

std::vector<uint64_t> FluvialState::accumulation() const {
    if (!allocated_) return {};
    std::vector<uint64_t> v(size_t(width_) * size_t(height_));
    downloadBuffer(ctx_, acc_, v.data(), v.size() * sizeof(uint64_t));
    return v;
}

void FluvialState::uploadLakes(const std::vector<uint32_t>& sections) {
    // The lists buffer's sections LAKE_LEVEL, LAKE_SINK, LAKE_VOLUME and LAKE_SEDIMENT, after its
    // four lists.
    const size_t blocks = blockCount(width_, height_);
    uploadBuffer(ctx_, lists_, sections.data(), sections.size() * sizeof(uint32_t),
                 VkDeviceSize(4 * blocks * sizeof(uint32_t)));
}

} // namespace alluvium::gpu
