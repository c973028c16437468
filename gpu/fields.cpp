// The fields' images (gpu/fields.h): created from their rows at their initial values, bound by
// their rows' slots, and moved whole to and from the host.
#include "fields.h"

#include <cassert>

namespace alluvium::gpu {

namespace {

// No two fields share a slot, and none takes a buffer's.
constexpr bool slotsAreDistinct() {
    for (int i = 0; i < kFieldCount; ++i) {
        const uint32_t a = kFieldTable[size_t(i)].binding, a_end = a + fieldSlots(Field(i));
        if (a < B_BUFFER_COUNT) return false;
        for (int j = i + 1; j < kFieldCount; ++j) {
            const uint32_t b = kFieldTable[size_t(j)].binding, b_end = b + fieldSlots(Field(j));
            if (a < b_end && b < a_end) return false;
        }
    }
    return true;
}
static_assert(slotsAreDistinct(), "field_table.h: two rows share a binding slot, or one takes a buffer's");
static_assert(FIELD_BINDING_FIRST >= B_BUFFER_COUNT, "the fields' slots come after the buffers'");

bool present(FieldSize size, bool split, bool direct_passes) {
    switch (size) {
    case FieldSize::Grid: return true;
    case FieldSize::GridUnlessSplit: return !split;
    case FieldSize::DirectPasses: return direct_passes;
    }
    return true;
}

// Channels xy and zw of a 4-channel field, and back.
void splitChannels(const std::vector<float>& data, std::vector<float>& xy, std::vector<float>& zw) {
    const size_t cells = data.size() / 4;
    xy.resize(2 * cells);
    zw.resize(2 * cells);
    for (size_t i = 0; i < cells; ++i) {
        xy[2 * i] = data[4 * i];
        xy[2 * i + 1] = data[4 * i + 1];
        zw[2 * i] = data[4 * i + 2];
        zw[2 * i + 1] = data[4 * i + 3];
    }
}

} // namespace

bool splitsWideFields(const Context& ctx, int width, int height) {
    // One rgba32f image, with room for the driver's alignment padding.
    const uint64_t bytes = uint64_t(width) * uint64_t(height) * 16u;
    return ctx.max_allocation_bytes > 0 && bytes + bytes / 64 > ctx.max_allocation_bytes;
}

int fieldChannels(Field f) { return fieldInfo(f).channels; }
const char* fieldName(Field f) { return fieldInfo(f).name; }
int fieldTexelBytes(Field f) { return static_cast<int>(formatTexelBytes(fieldInfo(f).format)); }
bool fieldIsDerived(Field f) { return fieldInfo(f).kept == FieldKept::Derived; }

uint64_t fieldBytesPerCell() {
    uint64_t bytes = 0;
    for (const FieldInfo& f : kFieldTable)
        bytes += uint64_t(f.channels) * 4u * (f.layout == FieldLayout::Single ? 1u : 2u);
    return bytes;
}

FieldImages::FieldImages(const Context& ctx, int width, int height, bool split, bool direct_passes)
    : ctx_(ctx), width_(width), height_(height), split_(split) {
    const auto w = static_cast<uint32_t>(width), h = static_cast<uint32_t>(height);
    try {
        createStorageImage(unused_rgba_, ctx, 1, 1, VK_FORMAT_R32G32B32A32_SFLOAT);
        createStorageImage(unused_rg_, ctx, 1, 1, VK_FORMAT_R32G32_SFLOAT);
        for (int i = 0; i < kFieldCount; ++i) {
            const Field f = Field(i);
            const FieldInfo& info = fieldInfo(f);
            const int halves = isPingPong(f) ? 2 : 1;
            const bool whole = present(info.size, split, direct_passes);
            for (int half = 0; half < halves; ++half) {
                if (info.layout == FieldLayout::PingPongSplit && split) {
                    createStorageImage(images_[size_t(i)][size_t(half)], ctx, w, h, VK_FORMAT_R32G32_SFLOAT);
                    createStorageImage(split_zw_[size_t(i)][size_t(half)], ctx, w, h, VK_FORMAT_R32G32_SFLOAT);
                } else {
                    createStorageImage(images_[size_t(i)][size_t(half)], ctx, whole ? w : 1, whole ? h : 1,
                                       info.format);
                }
            }
        }
        reset();
    } catch (...) {
        release();
        throw;
    }
}

FieldImages::~FieldImages() { release(); }

void FieldImages::reset() {
    VkCommandBuffer cmd = beginOneShot(ctx_);
    memoryBarrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_MEMORY_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                  VK_ACCESS_TRANSFER_WRITE_BIT);
    const VkImageSubresourceRange all{VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    for (int i = 0; i < kFieldCount; ++i) {
        const float v = kFieldTable[size_t(i)].initial;
        const VkClearColorValue value{{v, v, v, v}};
        for (auto* set : {&images_, &split_zw_})
            for (const Image& img : (*set)[size_t(i)])
                if (img.image) vkCmdClearColorImage(cmd, img.image, VK_IMAGE_LAYOUT_GENERAL, &value, 1, &all);
    }
    memoryBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                  VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT);
    endOneShot(ctx_, cmd);
}

void FieldImages::release() {
    for (auto* set : {&images_, &split_zw_})
        for (auto& halves : *set)
            for (Image& img : halves) destroyImage(img, ctx_);
    destroyImage(unused_rgba_, ctx_);
    destroyImage(unused_rg_, ctx_);
}

const Image& FieldImages::image(Field f, int half, int part) const {
    const size_t i = static_cast<size_t>(f), h = isPingPong(f) ? static_cast<size_t>(half) : 0;
    return part == 1 && split_ && fieldInfo(f).layout == FieldLayout::PingPongSplit ? split_zw_[i][h] : images_[i][h];
}

std::vector<const Image*> FieldImages::images(Field f, int half) const {
    if (split_ && fieldInfo(f).layout == FieldLayout::PingPongSplit) return {&image(f, half, 0), &image(f, half, 1)};
    return {&image(f, half)};
}

void FieldImages::upload(Field f, int half, const std::vector<float>& data) {
    assert(data.size() == size_t(width_) * size_t(height_) * size_t(fieldChannels(f)));
    if (split_ && fieldInfo(f).layout == FieldLayout::PingPongSplit) {
        std::vector<float> xy, zw;
        splitChannels(data, xy, zw);
        uploadImage(ctx_, image(f, half, 0), xy.data(), xy.size() * sizeof(float));
        uploadImage(ctx_, image(f, half, 1), zw.data(), zw.size() * sizeof(float));
        return;
    }
    uploadImage(ctx_, image(f, half), data.data(), data.size() * sizeof(float));
}

std::vector<float> FieldImages::download(Field f, int half) const {
    const size_t cells = size_t(width_) * size_t(height_);
    std::vector<float> data(cells * size_t(fieldChannels(f)));
    if (split_ && fieldInfo(f).layout == FieldLayout::PingPongSplit) {
        std::vector<float> xy(2 * cells), zw(2 * cells);
        downloadImage(ctx_, image(f, half, 0), xy.data(), xy.size() * sizeof(float));
        downloadImage(ctx_, image(f, half, 1), zw.data(), zw.size() * sizeof(float));
        for (size_t i = 0; i < cells; ++i) {
            data[4 * i] = xy[2 * i];
            data[4 * i + 1] = xy[2 * i + 1];
            data[4 * i + 2] = zw[2 * i];
            data[4 * i + 3] = zw[2 * i + 1];
        }
        return data;
    }
    downloadImage(ctx_, image(f, half), data.data(), data.size() * sizeof(float));
    return data;
}

void FieldImages::describe(VkDescriptorSet set, int key, DescriptorWrites& writes) const {
    auto bind = [&](uint32_t slot, const Image& img) { writes.image(set, slot, img.view); };
    for (int i = 0; i < kFieldCount; ++i) {
        const Field f = Field(i);
        const FieldInfo& info = fieldInfo(f);
        const uint32_t slot = info.binding;
        if (info.layout == FieldLayout::Single) {
            bind(slot, image(f, 0));
            continue;
        }
        const int cur = (key >> fieldPingPongBit(f)) & 1, next = cur ^ 1;
        const bool split = split_ && info.layout == FieldLayout::PingPongSplit;
        bind(slot, split ? unused_rgba_ : image(f, cur));
        bind(slot + 1, split ? unused_rgba_ : image(f, next));
        if (info.layout != FieldLayout::PingPongSplit) continue;
        bind(slot + 2, split ? image(f, cur, 0) : unused_rg_);
        bind(slot + 3, split ? image(f, cur, 1) : unused_rg_);
        bind(slot + 4, split ? image(f, next, 0) : unused_rg_);
        bind(slot + 5, split ? image(f, next, 1) : unused_rg_);
    }
}

} // namespace alluvium::gpu
