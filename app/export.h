// `run --out-maps`: the simulation's final state as the maps texturing tools use (app/io/maps.h).
#pragma once
#include <filesystem>
#include <functional>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/maps.h"
#include "simulation.h"

namespace alluvium {

// Where the maps' fields come from: a simulation's downloads (mapFields(sim)), or fields that
// rank 0 of a split run holds already (gathered, or computed on the host).
struct MapFields {
    int width = 0, height = 0;
    gpu::SimParams params;                               // porosity, snow density, cell size, layers
    std::function<std::vector<float>(gpu::Field)> field; // the whole grid's, fieldChannels floats a cell
};
MapFields mapFields(const gpu::Simulation& sim);
// The fields exportMaps reads.
std::vector<gpu::Field> mapFieldList();

// Writes water_depth, sediment, hardness, flow (with a log mask), erosion, deposition, velocity
// (u, v; a speed mask), height, lake_depth (m) and drainage_area (m^2, with a log mask) into dir,
// plus dir/maps.exr. The last two are those of the last fluvial analysis: call
// sim.fluvialAnalyse() first for the final terrain's. And the water table: water_table (m) and
// groundwater_depth (m below the ground, 0 where the table is at or above it): the groundwater's
// live table (liveWaterTable), or `water_table` when given (the equilibrium table of `alluvium
// watertable`), and `extra` layers after them (the watertable's `rivers`). And the splat maps
// built from them (io/splat.h: splat0.png, splat1.png, splat.json). Throws InputError if a file
// cannot be written.
void exportMaps(const MapFields& fields, const std::filesystem::path& dir,
                const std::vector<float>* water_table = nullptr, std::vector<MapLayer> extra = {});
inline void exportMaps(const gpu::Simulation& sim, const std::filesystem::path& dir,
                       const std::vector<float>* water_table = nullptr, std::vector<MapLayer> extra = {}) {
    exportMaps(mapFields(sim), dir, water_table, std::move(extra));
}

// The groundwater's table (m): base + g / porosity, or the ground where the pores are full.
std::vector<float> liveWaterTable(const MapFields& fields);
inline std::vector<float> liveWaterTable(const gpu::Simulation& sim) { return liveWaterTable(mapFields(sim)); }

} // namespace alluvium
