// The simulation's fields, from their rows in shaders/field_table.h (which the shaders declare
// their images from): the Field enum, each field's table entry, and the images that hold them.
// A new field is a row there; its images, bindings, sessions, snapshots and digests follow.
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "pipeline.h"
#include "resources.h"
#include "shared.h"
// (after shared.h: rows use its constants)
#include "field_table.h"

namespace alluvium::gpu {

enum class Field {
#define ALLUVIUM_FIELD_ENUM(Enum, ...) Enum,
    ALLUVIUM_FIELDS(ALLUVIUM_FIELD_ENUM)
#undef ALLUVIUM_FIELD_ENUM
        Count
};
inline constexpr int kFieldCount = static_cast<int>(Field::Count);

enum class FieldLayout { Single, PingPong, PingPongSplit };
enum class FieldKept { State, Derived };
enum class FieldSize { Grid, GridUnlessSplit, DirectPasses };

struct FieldInfo {
    const char* name;
    int channels;
    VkFormat format;
    FieldLayout layout;
    FieldKept kept;
    FieldSize size;
    float initial;
    uint32_t binding; // the first of its slots in descriptor set 0
    const char* meaning;
};

#define ALLUVIUM_VK_FORMAT_r32f VK_FORMAT_R32_SFLOAT
#define ALLUVIUM_VK_FORMAT_rg32f VK_FORMAT_R32G32_SFLOAT
#define ALLUVIUM_VK_FORMAT_rgba32f VK_FORMAT_R32G32B32A32_SFLOAT
inline constexpr std::array<FieldInfo, kFieldCount> kFieldTable = {{
#define ALLUVIUM_FIELD_ROW(Enum, name, channels, format, layout, kept, size, initial, binding, meaning)                \
    {#name,                                                                                                            \
     channels,                                                                                                         \
     ALLUVIUM_VK_FORMAT_##format,                                                                                      \
     FieldLayout::layout,                                                                                              \
     FieldKept::kept,                                                                                                  \
     FieldSize::size,                                                                                                  \
     float(initial),                                                                                                   \
     binding,                                                                                                          \
     meaning},
    ALLUVIUM_FIELDS(ALLUVIUM_FIELD_ROW)
#undef ALLUVIUM_FIELD_ROW
}};

constexpr const FieldInfo& fieldInfo(Field f) { return kFieldTable[static_cast<size_t>(f)]; }
constexpr bool isPingPong(Field f) { return fieldInfo(f).layout != FieldLayout::Single; }
// Binding slots a field takes: one image, a pair, or a pair and its split halves.
constexpr uint32_t fieldSlots(Field f) {
    switch (fieldInfo(f).layout) {
    case FieldLayout::Single: return 1;
    case FieldLayout::PingPong: return 2;
    case FieldLayout::PingPongSplit: return 6;
    }
    return 1;
}
// Descriptor set 0's slots: the buffers (shared.h's B_*), then every field's.
constexpr uint32_t bindingCount() {
    uint32_t count = B_BUFFER_COUNT;
    for (int i = 0; i < kFieldCount; ++i)
        count = std::max(count, kFieldTable[size_t(i)].binding + fieldSlots(Field(i)));
    return count;
}
// The bit of a ping-pong field in a simulation's parity key (its order among them); -1 for a
// field with one image.
constexpr int fieldPingPongBit(Field f) {
    if (!isPingPong(f)) return -1;
    int bit = 0;
    for (int i = 0; i < static_cast<int>(f); ++i) bit += isPingPong(Field(i)) ? 1 : 0;
    return bit;
}
constexpr int pingPongFieldCount() {
    int n = 0;
    for (int i = 0; i < kFieldCount; ++i) n += isPingPong(Field(i)) ? 1 : 0;
    return n;
}
// Each ping-pong field has its own current half: a key of those bits picks one combination.
inline constexpr int kParityKeys = 1 << pingPongFieldCount();
inline constexpr int kAllPingPong = kParityKeys - 1;

// Whether a W x H grid keeps its 4-channel fields as two rg32f images each, because one rgba32f
// image would exceed the device's largest allocation (ctx.max_allocation_bytes).
bool splitsWideFields(const Context& ctx, int width, int height);

int fieldChannels(Field f);
const char* fieldName(Field f);
// Bytes per cell of one image of the field (both halves of a ping-pong pair count separately).
int fieldTexelBytes(Field f);
// Rewritten before it is read, or derived from other state: not part of a saved session.
bool fieldIsDerived(Field f);
// Bytes per cell of all the fields' images together (both halves of each ping-pong pair).
uint64_t fieldBytesPerCell();

// The images of every field of a W x H grid, at their initial values. A 4-channel ping-pong
// field whose one image would exceed the device's largest allocation is kept as two rg32f
// images a half (`split`). Slots a layout leaves unused are bound to 1x1 stand-ins, so every
// binding of a descriptor set stays valid.
class FieldImages {
public:
    FieldImages(const Context& ctx, int width, int height, bool split, bool direct_passes);
    ~FieldImages();
    FieldImages(const FieldImages&) = delete;
    FieldImages& operator=(const FieldImages&) = delete;

    bool split() const { return split_; }
    // Every image (both halves) back to its row's initial value.
    void reset();
    // Field f's image holding half `half` (0 or 1 of a pair; 0 for a single image); `part` 1:
    // the zw image of a split field (part 0 its xy).
    const Image& image(Field f, int half, int part = 0) const;
    // The images holding half `half` of f: one, or two for a split field (xy, then zw).
    std::vector<const Image*> images(Field f, int half) const;
    // Whole transfers of a half, row-major floats with fieldChannels() per cell.
    void upload(Field f, int half, const std::vector<float>& data);
    std::vector<float> download(Field f, int half) const;
    // Appends the writes that bind every field's images to `set`, the current halves those of
    // `key` (bit fieldPingPongBit of a ping-pong field: the half its "cur" slot binds).
    void describe(VkDescriptorSet set, int key, DescriptorWrites& writes) const;

private:
    void release();

    const Context& ctx_;
    int width_, height_;
    bool split_;
    // Per field and half: its image (a split field's xy image), and a split field's zw image.
    std::array<std::array<Image, 2>, kFieldCount> images_{};
    std::array<std::array<Image, 2>, kFieldCount> split_zw_{};
    Image unused_rgba_, unused_rg_;
};

} // namespace alluvium::gpu
