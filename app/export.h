// `run --out-maps`: the simulation's final state as the maps texturing tools use (app/io/maps.h).
#pragma once
#include <filesystem>

#include <nlohmann/json.hpp>

#include "simulation.h"

namespace alluvium {

// Downloads the fields and writes water_depth, sediment, hardness, flow (with a log mask),
// erosion, deposition, velocity (u, v; a speed mask), height, and the fluvial analysis of the
// final terrain, lake_depth (m) and drainage_area (m^2, with a log mask), into dir, plus
// dir/maps.exr. Runs that analysis (fill, routing, accumulation) first. Throws InputError if a
// file cannot be written.
void exportMaps(gpu::Simulation& sim, const std::filesystem::path& dir);

// The fluvial analysis of the current terrain, for reports: lake volume, cells and deepest lake,
// largest drainage area, fill sweeps. Runs it (fill to its fixed point, route, accumulate).
nlohmann::json fluvialSummary(gpu::Simulation& sim, double cell_size);

} // namespace alluvium
