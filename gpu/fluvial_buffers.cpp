// The fluvial model's buffers (about 60 bytes a cell): their sizes, allocated the first time the
// model is used (with the checks that keep a grid too large for them to one clean line), bound
// into every descriptor set, and given back.
#include <algorithm>
#include <cstring>
#include <string>

#include "simulation.h"

namespace alluvium::gpu {

namespace {

uint64_t blockCount(int width, int height) { return uint64_t((width + 1) / 2) * uint64_t((height + 1) / 2); }

// The fluvial model's buffers, in the order the constructor creates them: per cell, per basin
// block (one per 2 x 2 cells: pits are never neighbours), per tile and per ring node (RING_CELLS
// per tile). None is above 8 bytes a cell, so a 4096 x 4096 grid binds each in 128 MiB.
struct FluvialBufferSize {
    uint64_t bytes;
    const char* what;
};
std::array<FluvialBufferSize, 14> fluvialBufferSizes(int width, int height) {
    const uint64_t cells = uint64_t(width) * uint64_t(height), blocks = blockCount(width, height);
    const uint64_t tiles = uint64_t(groupsCovering(width, FLUVIAL_TILE)) * groupsCovering(height, FLUVIAL_TILE);
    const uint64_t ring = tiles * RING_CELLS;
    return {{{cells * 4, "filled levels"},
             {2 * cells * 4, "steps across flats"},
             {cells * 4, "receivers"},
             {cells * 8, "drainage accumulation"},
             {cells * 4, "erosion targets"},
             {cells * 8, "implicit erosion maps"},
             {3 * tiles * 4, "tile lists"},
             {cells * 4, "basin labels"},
             {2 * cells * 4, "basin edges"},
             {6 * blocks * 4, "basin graph"},
             {blocks * 8, "basin passes"},
             {8 * blocks * 4, "basin lists and lakes"},
             {6 * ring * 4, "tile crossings"},
             {4 * ring * 8, "values at tile crossings"}}};
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

void Simulation::bindFluvialBuffers() {
    const std::pair<uint32_t, const Buffer*> bindings[] = {
        {B_FLUVIAL_LEVEL, &fluvial_level_}, {B_FLUVIAL_STEPS, &fluvial_steps_},     {B_FLUVIAL_LABEL, &fluvial_label_},
        {B_FLUVIAL_EDGES, &fluvial_edges_}, {B_FLUVIAL_BASIN, &fluvial_basin_},     {B_FLUVIAL_BEST, &fluvial_best_},
        {B_FLUVIAL_LISTS, &fluvial_lists_}, {B_FLUVIAL_RING, &fluvial_ring_},       {B_FLUVIAL_RING_VAL, &fluvial_ring_val_},
        {B_FLUVIAL_RCV, &fluvial_rcv_},     {B_FLUVIAL_ACC, &fluvial_acc_},         {B_FLUVIAL_ANC, &fluvial_anc_},
        {B_FLUVIAL_AB, &fluvial_ab_},       {B_FLUVIAL_CONTROL, &fluvial_control_}, {B_FLUVIAL_TILES, &fluvial_tiles_}};
    std::vector<VkDescriptorBufferInfo> infos;
    infos.reserve(std::size(bindings));
    for (const auto& [binding, buf] : bindings)
        infos.push_back({fluvial_allocated_ ? buf->buffer : unused_buffer_.buffer, 0, VK_WHOLE_SIZE});
    std::vector<VkWriteDescriptorSet> writes;
    for (VkDescriptorSet set : sets_)
        for (size_t k = 0; k < std::size(bindings); ++k) {
            VkWriteDescriptorSet wr{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
            wr.dstSet = set;
            wr.dstBinding = bindings[k].first;
            wr.descriptorCount = 1;
            wr.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
            wr.pBufferInfo = &infos[k];
            writes.push_back(wr);
        }
    vkUpdateDescriptorSets(ctx_.device, static_cast<uint32_t>(writes.size()), writes.data(), 0, nullptr);
}

void Simulation::allocateFluvial() {
    if (fluvial_allocated_) return;
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
            throw DeviceError(grid + " needs " + std::to_string(b.bytes >> 20) + " MiB for the fluvial model's " + b.what +
                              "; " + ctx_.device_name + " binds at most " + std::to_string(max_range >> 20) +
                              " MiB in one storage buffer");
        if (ctx_.max_allocation_bytes > 0 && b.bytes > ctx_.max_allocation_bytes)
            throw DeviceError(grid + " needs " + std::to_string(b.bytes >> 20) + " MiB for the fluvial model's " + b.what +
                              "; " + ctx_.device_name + " allocates at most " +
                              std::to_string(ctx_.max_allocation_bytes >> 20) + " MiB at once");
    }
    const uint64_t need = simulationBytes(width_, height_, partials_per_group_) + fluvialBytes(width_, height_);
    if (ctx_.device_local_bytes > 0 && need > ctx_.device_local_bytes)
        throw DeviceError(grid + " needs " + std::to_string(need >> 20) + " MiB of GPU memory with the fluvial model's " +
                          std::to_string(fluvialBytes(width_, height_) >> 20) + " MiB of buffers; " + ctx_.device_name +
                          " has " + std::to_string(ctx_.device_local_bytes >> 20) + " MiB");
    vkDeviceWaitIdle(ctx_.device); // the descriptor sets change: no step may be in flight
    const VkBufferUsageFlags storage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    Buffer* const fluvial[] = {&fluvial_level_, &fluvial_steps_, &fluvial_rcv_,   &fluvial_acc_,   &fluvial_anc_,
                               &fluvial_ab_,    &fluvial_tiles_, &fluvial_label_, &fluvial_edges_, &fluvial_basin_,
                               &fluvial_best_,  &fluvial_lists_, &fluvial_ring_,  &fluvial_ring_val_};
    static_assert(std::size(fluvial) == std::tuple_size_v<decltype(sizes)>);
    try {
        for (size_t k = 0; k < sizes.size(); ++k) createBuffer(*fluvial[k], ctx_, sizes[k].bytes, storage, false);
        // The control lives in device memory (every round's passes update its counters with
        // atomics; in host memory each would cross the bus); each step ends with a copy for the host.
        createBuffer(fluvial_control_, ctx_, sizeof(FluvialControl), storage | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT, false);
        createBuffer(fluvial_control_host_, ctx_, sizeof(FluvialControl), 0, true);
    } catch (...) {
        destroyFluvialBuffers(); // what was allocated goes back: the simulation is as it was
        throw;
    }
    std::memset(fluvial_control_host_.mapped, 0, sizeof(FluvialControl));
    VkCommandBuffer cmd = beginOneShot(ctx_);
    vkCmdFillBuffer(cmd, fluvial_control_.buffer, 0, VK_WHOLE_SIZE, 0);
    endOneShot(ctx_, cmd);
    fluvial_allocated_ = true;
    bindFluvialBuffers();
}

void Simulation::destroyFluvialBuffers() {
    for (Buffer* b : {&fluvial_level_, &fluvial_steps_, &fluvial_rcv_, &fluvial_acc_, &fluvial_anc_, &fluvial_ab_,
                      &fluvial_control_, &fluvial_control_host_, &fluvial_tiles_, &fluvial_label_, &fluvial_edges_,
                      &fluvial_basin_, &fluvial_best_, &fluvial_lists_, &fluvial_ring_, &fluvial_ring_val_})
        destroyBuffer(*b, ctx_);
}

} // namespace alluvium::gpu
