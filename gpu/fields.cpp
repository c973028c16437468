// The simulation's fields: their table (channels, format, whether they ping-pong, whether a
// session saves them), the images that hold them, and whole-field transfers to and from the host.
#include <algorithm>
#include <cassert>
#include <vector>

#include "simulation.h"

namespace alluvium::gpu {

namespace {

struct FieldInfo {
    const char* name;
    int channels;
    VkFormat format;
    bool ping_pong;
    bool derived; // rewritten before it is read, or derived from other state: not saved
};

constexpr std::array<FieldInfo, static_cast<size_t>(Field::Count)> kFields = {{
    {"terrain", 1, VK_FORMAT_R32_SFLOAT, true, false},
    {"water", 1, VK_FORMAT_R32_SFLOAT, true, false},
    {"sediment", 1, VK_FORMAT_R32_SFLOAT, true, false},
    {"outflow", 4, VK_FORMAT_R32G32B32A32_SFLOAT, true, false},
    {"velocity", 2, VK_FORMAT_R32G32_SFLOAT, false, false},
    {"hardness", 1, VK_FORMAT_R32_SFLOAT, false, false},
    {"thermal_axis", 4, VK_FORMAT_R32G32B32A32_SFLOAT, false, true},
    {"thermal_diag", 4, VK_FORMAT_R32G32B32A32_SFLOAT, false, true},
    {"rain_mask", 1, VK_FORMAT_R32_SFLOAT, false, false},
    {"wear", 2, VK_FORMAT_R32G32_SFLOAT, false, false},
    {"flow", 1, VK_FORMAT_R32_SFLOAT, false, false},
    {"scratch", 4, VK_FORMAT_R32G32B32A32_SFLOAT, false, true},
    {"lake", 1, VK_FORMAT_R32_SFLOAT, false, false},
    {"drainage", 1, VK_FORMAT_R32_SFLOAT, false, false},
    {"uplift", 1, VK_FORMAT_R32_SFLOAT, false, false},
    {"water_mid", 1, VK_FORMAT_R32_SFLOAT, false, true},
    {"spring_rate", 1, VK_FORMAT_R32_SFLOAT, false, true},
    {"eroded", 2, VK_FORMAT_R32G32_SFLOAT, false, true},
    {"thermal_rate", 2, VK_FORMAT_R32G32_SFLOAT, false, true},
    {"groundwater", 1, VK_FORMAT_R32_SFLOAT, false, false},
    {"aquifer_base", 1, VK_FORMAT_R32_SFLOAT, false, false},
    {"groundwater_mid", 1, VK_FORMAT_R32_SFLOAT, false, true},
    {"groundwater_head", 2, VK_FORMAT_R32G32_SFLOAT, false, true},
    {"seepage", 1, VK_FORMAT_R32_SFLOAT, false, false},
    {"water_table", 1, VK_FORMAT_R32_SFLOAT, false, false},
    {"sea_spill", 1, VK_FORMAT_R32_SFLOAT, false, false},
    {"relax_a", 1, VK_FORMAT_R32_SFLOAT, false, false},
    {"relax_b", 1, VK_FORMAT_R32_SFLOAT, false, false},
}};

const FieldInfo& info(Field f) { return kFields[static_cast<size_t>(f)]; }

} // namespace

int fieldPingPongBit(Field f) {
    switch (f) {
    case Field::Terrain: return 0;
    case Field::Water: return 1;
    case Field::Sediment: return 2;
    case Field::Outflow: return 3;
    default: return -1;
    }
}

int fieldChannels(Field f) { return info(f).channels; }
const char* fieldName(Field f) { return info(f).name; }
int fieldTexelBytes(Field f) { return static_cast<int>(formatTexelBytes(info(f).format)); }
bool fieldIsDerived(Field f) { return info(f).derived; }

uint64_t fieldBytesPerCell() {
    uint64_t bytes = 0;
    for (const FieldInfo& f : kFields) bytes += uint64_t(f.channels) * 4u * (f.ping_pong ? 2u : 1u);
    return bytes;
}

void Simulation::createFields() {
    const auto w = static_cast<uint32_t>(width_), h = static_cast<uint32_t>(height_);
    auto field = [&](Image& img, Field f) { createStorageImage(img, ctx_, w, h, info(f).format); };
    for (size_t i = 0; i < 2; ++i) {
        field(terrain_[i], Field::Terrain);
        field(water_[i], Field::Water);
        field(sediment_[i], Field::Sediment);
        if (split_wide_) {
            createStorageImage(outflow_xy_[i], ctx_, w, h, VK_FORMAT_R32G32_SFLOAT);
            createStorageImage(outflow_zw_[i], ctx_, w, h, VK_FORMAT_R32G32_SFLOAT);
        } else {
            field(outflow_[i], Field::Outflow);
        }
    }
    createStorageImage(unused_rgba_, ctx_, 1, 1, VK_FORMAT_R32G32B32A32_SFLOAT);
    createStorageImage(unused_rg_, ctx_, 1, 1, VK_FORMAT_R32G32_SFLOAT);
    field(velocity_, Field::Velocity);
    field(hardness_, Field::Hardness);
    // The musgrave and simple models' per-step transfer images; in the split layout those models
    // are not available yet (recordStep refuses them).
    for (auto [img, f] : {std::pair{&thermal_axis_, Field::ThermalAxis}, std::pair{&thermal_diag_, Field::ThermalDiag},
                          std::pair{&scratch_, Field::Scratch}}) {
        if (split_wide_)
            createStorageImage(*img, ctx_, 1, 1, info(f).format);
        else
            field(*img, f);
    }
    field(rain_mask_, Field::RainMask);
    field(wear_, Field::Wear);
    field(flow_, Field::Flow);
    field(lake_, Field::Lake);
    field(drainage_, Field::Drainage);
    field(uplift_, Field::Uplift);
    field(water_mid_, Field::WaterMid);
    field(spring_rate_, Field::SpringRate);
    // The pipe step's direct passes only; the thermal rate also serves the thermal and olsen models.
    if (pipe_passes_ == PipePasses::Direct)
        field(eroded_, Field::Eroded);
    else
        createStorageImage(eroded_, ctx_, 1, 1, info(Field::Eroded).format);
    field(thermal_rate_, Field::ThermalRate);
    field(groundwater_, Field::Groundwater);
    field(aquifer_base_, Field::AquiferBase);
    field(groundwater_mid_, Field::GroundwaterMid);
    field(groundwater_head_, Field::GroundwaterHead);
    field(seepage_, Field::Seepage);
    field(water_table_, Field::WaterTable);
    field(sea_spill_, Field::SeaSpill);
    field(relax_a_, Field::RelaxA);
    field(relax_b_, Field::RelaxB);
    upload(Field::RainMask, std::vector<float>(size_t(w) * h, 1.0f));
    upload(Field::Uplift, std::vector<float>(size_t(w) * h, 1.0f));
    // Nothing is ocean until the first spill relaxation, which starts from "unreached"; no
    // groundwater until the host puts some (setup.cpp's loadInitialState).
    for (Field f : {Field::SeaSpill, Field::RelaxA, Field::RelaxB})
        upload(f, std::vector<float>(size_t(w) * h, float(SEA_UNREACHED)));
    for (Image* img : {&groundwater_, &groundwater_mid_, &aquifer_base_, &seepage_, &water_table_}) {
        const std::vector<float> zeros(size_t(w) * h, 0.0f);
        uploadImage(ctx_, *img, zeros.data(), zeros.size() * sizeof(float));
    }
}

void Simulation::destroyFields() {
    for (size_t i = 0; i < 2; ++i)
        for (Image* img : {&terrain_[i], &water_[i], &sediment_[i], &outflow_[i], &outflow_xy_[i], &outflow_zw_[i]})
            destroyImage(*img, ctx_);
    for (Image* img : {&velocity_, &hardness_, &thermal_axis_, &thermal_diag_, &rain_mask_, &wear_, &flow_, &scratch_,
                       &lake_, &drainage_, &uplift_, &water_mid_, &spring_rate_, &eroded_, &thermal_rate_, &unused_rgba_, &unused_rg_,
                       &groundwater_, &aquifer_base_, &groundwater_mid_, &groundwater_head_, &seepage_, &water_table_, &sea_spill_, &relax_a_,
                       &relax_b_})
        destroyImage(*img, ctx_);
}

const Image& Simulation::currentImage(Field f, int key, int part) const {
    const int bit = fieldPingPongBit(f);
    const int half = bit < 0 ? 0 : (key >> bit) & 1;
    if (f == Field::Outflow && split_wide_) return (part == 0 ? outflow_xy_ : outflow_zw_)[size_t(half)];
    return fieldImage(f, half);
}

const Image& Simulation::fieldImage(Field f, int half) const {
    const int bit = fieldPingPongBit(f);
    if (bit < 0) return image(f, false);
    return image(f, (((parity_ >> bit) & 1) ^ half) != 0);
}

const Image& Simulation::image(Field f, bool next) const {
    const int bit = fieldPingPongBit(f);
    const size_t i = static_cast<size_t>((bit < 0 ? 0 : (parity_ >> bit) & 1) ^ (next ? 1 : 0));
    switch (f) {
    case Field::Terrain: return terrain_[i];
    case Field::Water: return water_[i];
    case Field::Sediment: return sediment_[i];
    case Field::Outflow: return outflow_[i];
    case Field::Velocity: return velocity_;
    case Field::Hardness: return hardness_;
    case Field::ThermalAxis: return thermal_axis_;
    case Field::ThermalDiag: return thermal_diag_;
    case Field::RainMask: return rain_mask_;
    case Field::Wear: return wear_;
    case Field::Flow: return flow_;
    case Field::Scratch: return scratch_;
    case Field::Lake: return lake_;
    case Field::Drainage: return drainage_;
    case Field::Uplift: return uplift_;
    case Field::WaterMid: return water_mid_;
    case Field::SpringRate: return spring_rate_;
    case Field::Eroded: return eroded_;
    case Field::ThermalRate: return thermal_rate_;
    case Field::Groundwater: return groundwater_;
    case Field::AquiferBase: return aquifer_base_;
    case Field::GroundwaterMid: return groundwater_mid_;
    case Field::GroundwaterHead: return groundwater_head_;
    case Field::Seepage: return seepage_;
    case Field::WaterTable: return water_table_;
    case Field::SeaSpill: return sea_spill_;
    case Field::RelaxA: return relax_a_;
    case Field::RelaxB: return relax_b_;
    case Field::Count: break;
    }
    assert(false);
    return terrain_[0];
}

std::vector<const Image*> Simulation::fieldImages(Field f, bool next) const {
    const int key = parity_ ^ (next ? kAllPingPong : 0);
    if (f == Field::Outflow && split_wide_) return {&currentImage(f, key, 0), &currentImage(f, key, 1)};
    return {&currentImage(f, key)};
}

void Simulation::upload(Field f, const std::vector<float>& data, bool next) {
    assert(data.size() == size_t(width_) * size_t(height_) * size_t(fieldChannels(f)));
    if (f == Field::Outflow && split_wide_) {
        // Channels xy and zw into their own images.
        const size_t cells = size_t(width_) * size_t(height_);
        std::vector<float> xy(2 * cells), zw(2 * cells);
        for (size_t i = 0; i < cells; ++i) {
            xy[2 * i] = data[4 * i];
            xy[2 * i + 1] = data[4 * i + 1];
            zw[2 * i] = data[4 * i + 2];
            zw[2 * i + 1] = data[4 * i + 3];
        }
        const size_t half = size_t(((parity_ >> fieldPingPongBit(Field::Outflow)) & 1) ^ (next ? 1 : 0));
        uploadImage(ctx_, outflow_xy_[half], xy.data(), xy.size() * sizeof(float));
        uploadImage(ctx_, outflow_zw_[half], zw.data(), zw.size() * sizeof(float));
        return;
    }
    if (f == Field::RainMask)
        rain_uniform_ = std::all_of(data.begin(), data.end(), [](float v) { return v == 1.0f; });
    if (f == Field::Terrain) sea_dirty_ = true; // a new ground: a new spill surface for the sea
    uploadImage(ctx_, image(f, next), data.data(), data.size() * sizeof(float));
    if (f == Field::RainMask) setParams(params_);
}

std::vector<float> Simulation::download(Field f, bool next) const {
    requireSettled("download");
    const size_t cells = size_t(width_) * size_t(height_);
    std::vector<float> data(cells * size_t(fieldChannels(f)));
    if (f == Field::Outflow && split_wide_) {
        std::vector<float> xy(2 * cells), zw(2 * cells);
        const size_t half = size_t(((parity_ >> fieldPingPongBit(Field::Outflow)) & 1) ^ (next ? 1 : 0));
        downloadImage(ctx_, outflow_xy_[half], xy.data(), xy.size() * sizeof(float));
        downloadImage(ctx_, outflow_zw_[half], zw.data(), zw.size() * sizeof(float));
        for (size_t i = 0; i < cells; ++i) {
            data[4 * i] = xy[2 * i];
            data[4 * i + 1] = xy[2 * i + 1];
            data[4 * i + 2] = zw[2 * i];
            data[4 * i + 3] = zw[2 * i + 1];
        }
        return data;
    }
    downloadImage(ctx_, image(f, next), data.data(), data.size() * sizeof(float));
    return data;
}

} // namespace alluvium::gpu
