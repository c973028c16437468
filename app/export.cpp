// run --out-maps: the final state of a gpu::Simulation as MapLayers for writeMaps (app/io/maps.h).
#include "export.h"
#include "report.h"

#include <algorithm>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "io/maps.h"
#include "io/splat.h"

namespace alluvium {

MapFields mapFields(const gpu::Simulation& sim) {
    return {sim.width(), sim.height(), sim.params(), [&sim](gpu::Field f) { return sim.download(f); }};
}

std::vector<gpu::Field> mapFieldList() {
    using gpu::Field;
    return {Field::Water,    Field::Sediment, Field::Hardness,    Field::RainMask,   Field::Flow,       Field::Wear,
            Field::Velocity, Field::Terrain,  Field::Loose,       Field::Snow,       Field::Vegetation, Field::Lava,
            Field::Lake,     Field::Drainage, Field::Groundwater, Field::AquiferBase};
}

std::vector<float> liveWaterTable(const MapFields& fields) {
    const std::vector<float> g = fields.field(gpu::Field::Groundwater), base = fields.field(gpu::Field::AquiferBase),
                             ground = fields.field(gpu::Field::Terrain);
    const double porosity = std::max(double(fields.params.porosity), 1e-6);
    std::vector<float> table(g.size());
    for (std::size_t i = 0; i < g.size(); ++i) {
        const double capacity = porosity * std::max(double(ground[i]) - base[i], 0.0);
        table[i] = double(g[i]) < capacity ? float(base[i] + g[i] / porosity) : ground[i];
    }
    return table;
}

namespace {

// The splat maps' inputs, from the layers exportMaps built.
SplatInputs splatInputs(const MapFields& fields, const std::vector<MapLayer>& layers) {
    SplatInputs in;
    in.width = fields.width;
    in.height = fields.height;
    in.cell_size = fields.params.cell_size;
    in.layered = fields.params.enable_layers != 0;
    auto take = [&](const char* name, std::vector<float>& into) {
        for (const MapLayer& l : layers)
            if (l.name == name) into = l.data;
    };
    take("height", in.ground);
    take("water_depth", in.water_depth);
    take("flow", in.flow);
    take("erosion", in.eroded);
    take("deposition", in.deposited);
    take("loose_thickness", in.loose);
    take("vegetation", in.vegetation);
    take("snow", in.snow);
    take("lava", in.lava);
    return in;
}

} // namespace

void exportMaps(const MapFields& fields, const std::filesystem::path& dir, const std::vector<float>* water_table,
                std::vector<MapLayer> extra) {
    const std::size_t cells = std::size_t(fields.width) * std::size_t(fields.height);
    std::vector<MapLayer> layers;
    layers.reserve(14);
    auto add = [&](std::string name, std::vector<float> data, std::string unit) -> MapLayer& {
        MapLayer layer;
        layer.name = std::move(name);
        layer.data = std::move(data);
        layer.unit = std::move(unit);
        layers.push_back(std::move(layer));
        return layers.back();
    };
    add("water_depth", fields.field(gpu::Field::Water), "m");
    add("sediment", fields.field(gpu::Field::Sediment), "m");
    add("hardness", fields.field(gpu::Field::Hardness), "1");
    add("rain", fields.field(gpu::Field::RainMask), "x rain_rate"); // where it rains (--rain-mask, the brush)
    // Flow spans orders of magnitude (rills to rivers): the log mask shows the whole network.
    add("flow", fields.field(gpu::Field::Flow), "m^3").log_mask = true;
    // Wear holds (eroded, deposited) metres per cell since the start.
    const std::vector<float> wear = fields.field(gpu::Field::Wear);
    std::vector<float> eroded(cells), deposited(cells);
    for (std::size_t i = 0; i < cells; ++i) {
        eroded[i] = wear[2 * i];
        deposited[i] = wear[2 * i + 1];
    }
    add("erosion", std::move(eroded), "m");
    add("deposition", std::move(deposited), "m");
    MapLayer& velocity = add("velocity", fields.field(gpu::Field::Velocity), "m/s");
    velocity.components = {"u", "v"};
    velocity.mask_name = "speed";
    add("height", fields.field(gpu::Field::Terrain), "m").mask_from_min = true;
    // Layered ground: the loose layer's thickness, and the bedrock's top under it.
    std::vector<float> loose = fields.field(gpu::Field::Loose), bedrock = fields.field(gpu::Field::Terrain);
    for (std::size_t i = 0; i < cells; ++i) bedrock[i] -= loose[i];
    add("loose_thickness", std::move(loose), "m");
    add("bedrock", std::move(bedrock), "m").mask_from_min = true;
    // Snow: how deep it lies (the field holds its water; 1000 / snow_density times as deep).
    std::vector<float> snow = fields.field(gpu::Field::Snow);
    for (float& v : snow) v *= 1000.0f / fields.params.snow_density;
    add("snow", std::move(snow), "m");
    // Vegetation: its density (a splat map's weight).
    const std::vector<float> vegetation = fields.field(gpu::Field::Vegetation);
    std::vector<float> density(vegetation.size() / 2);
    for (std::size_t i = 0; i < density.size(); ++i) density[i] = vegetation[2 * i];
    add("vegetation", std::move(density), "1");
    // Lava: how deep it flows.
    const std::vector<float> lava = fields.field(gpu::Field::Lava);
    std::vector<float> lava_depth(lava.size() / 2);
    for (std::size_t i = 0; i < lava_depth.size(); ++i) lava_depth[i] = lava[2 * i];
    add("lava", std::move(lava_depth), "m");
    add("lake_depth", fields.field(gpu::Field::Lake), "m");
    add("drainage_area", fields.field(gpu::Field::Drainage), "m^2").log_mask = true;
    std::vector<float> table = water_table ? *water_table : liveWaterTable(fields);
    const std::vector<float> ground = fields.field(gpu::Field::Terrain);
    std::vector<float> depth(cells);
    for (std::size_t i = 0; i < cells; ++i) depth[i] = std::max(ground[i] - table[i], 0.0f);
    add("water_table", std::move(table), "m").mask_from_min = true;
    add("groundwater_depth", std::move(depth), "m");
    for (MapLayer& layer : extra) layers.push_back(std::move(layer));
    writeMaps(dir, fields.width, fields.height, layers);
    writeSplatMaps(dir, fields.width, fields.height, splatWeights(splatInputs(fields, layers)));
}

} // namespace alluvium
