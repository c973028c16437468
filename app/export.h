// `run --out-maps`: the simulation's final state as the maps texturing tools use (app/io/maps.h).
#pragma once
#include <filesystem>

#include "simulation.h"

namespace alluvium {

// Downloads the fields and writes water_depth, sediment, hardness, flow (with a log mask),
// erosion, deposition, velocity (u, v; a speed mask) and height into dir, plus dir/maps.exr.
// Throws InputError if a file cannot be written.
void exportMaps(const gpu::Simulation& sim, const std::filesystem::path& dir);

} // namespace alluvium
