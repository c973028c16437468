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

std::vector<float> liveWaterTable(const gpu::Simulation& sim) {
    const std::vector<float> g = sim.download(gpu::Field::Groundwater), base = sim.download(gpu::Field::AquiferBase),
                             ground = sim.download(gpu::Field::Terrain);
    const double porosity = std::max(double(sim.params().porosity), 1e-6);
    std::vector<float> table(g.size());
    for (std::size_t i = 0; i < g.size(); ++i) {
        const double capacity = porosity * std::max(double(ground[i]) - base[i], 0.0);
        table[i] = double(g[i]) < capacity ? float(base[i] + g[i] / porosity) : ground[i];
    }
    return table;
}

namespace {

// The splat maps' inputs, from the layers exportMaps built.
SplatInputs splatInputs(const gpu::Simulation& sim, const std::vector<MapLayer>& layers) {
    SplatInputs in;
    in.width = sim.width();
    in.height = sim.height();
    in.cell_size = sim.params().cell_size;
    in.layered = sim.params().enable_layers != 0;
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

void exportMaps(const gpu::Simulation& sim, const std::filesystem::path& dir, const std::vector<float>* water_table,
                std::vector<MapLayer> extra) {
    const std::size_t cells = std::size_t(sim.width()) * std::size_t(sim.height());
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
    add("water_depth", sim.download(gpu::Field::Water), "m");
    add("sediment", sim.download(gpu::Field::Sediment), "m");
    add("hardness", sim.download(gpu::Field::Hardness), "1");
    add("rain", sim.download(gpu::Field::RainMask), "x rain_rate"); // where it rains (--rain-mask, the brush)
    // Flow spans orders of magnitude (rills to rivers): the log mask shows the whole network.
    add("flow", sim.download(gpu::Field::Flow), "m^3").log_mask = true;
    // Wear holds (eroded, deposited) metres per cell since the start.
    const std::vector<float> wear = sim.download(gpu::Field::Wear);
    std::vector<float> eroded(cells), deposited(cells);
    for (std::size_t i = 0; i < cells; ++i) {
        eroded[i] = wear[2 * i];
        deposited[i] = wear[2 * i + 1];
    }
    add("erosion", std::move(eroded), "m");
    add("deposition", std::move(deposited), "m");
    MapLayer& velocity = add("velocity", sim.download(gpu::Field::Velocity), "m/s");
    velocity.components = {"u", "v"};
    velocity.mask_name = "speed";
    add("height", sim.download(gpu::Field::Terrain), "m").mask_from_min = true;
    // Layered ground: the loose layer's thickness, and the bedrock's top under it.
    std::vector<float> loose = sim.download(gpu::Field::Loose), bedrock = sim.download(gpu::Field::Terrain);
    for (std::size_t i = 0; i < cells; ++i) bedrock[i] -= loose[i];
    add("loose_thickness", std::move(loose), "m");
    add("bedrock", std::move(bedrock), "m").mask_from_min = true;
    // Snow: how deep it lies (the field holds its water; 1000 / snow_density times as deep).
    std::vector<float> snow = sim.download(gpu::Field::Snow);
    for (float& v : snow) v *= 1000.0f / sim.params().snow_density;
    add("snow", std::move(snow), "m");
    // Vegetation: its density (a splat map's weight).
    const std::vector<float> vegetation = sim.download(gpu::Field::Vegetation);
    std::vector<float> density(vegetation.size() / 2);
    for (std::size_t i = 0; i < density.size(); ++i) density[i] = vegetation[2 * i];
    add("vegetation", std::move(density), "1");
    // Lava: how deep it flows.
    const std::vector<float> lava = sim.download(gpu::Field::Lava);
    std::vector<float> lava_depth(lava.size() / 2);
    for (std::size_t i = 0; i < lava_depth.size(); ++i) lava_depth[i] = lava[2 * i];
    add("lava", std::move(lava_depth), "m");
    add("lake_depth", sim.download(gpu::Field::Lake), "m");
    add("drainage_area", sim.download(gpu::Field::Drainage), "m^2").log_mask = true;
    std::vector<float> table = water_table ? *water_table : liveWaterTable(sim);
    const std::vector<float> ground = sim.download(gpu::Field::Terrain);
    std::vector<float> depth(cells);
    for (std::size_t i = 0; i < cells; ++i) depth[i] = std::max(ground[i] - table[i], 0.0f);
    add("water_table", std::move(table), "m").mask_from_min = true;
    add("groundwater_depth", std::move(depth), "m");
    for (MapLayer& layer : extra) layers.push_back(std::move(layer));
    writeMaps(dir, sim.width(), sim.height(), layers);
    writeSplatMaps(dir, sim.width(), sim.height(), splatWeights(splatInputs(sim, layers)));
}

} // namespace alluvium
