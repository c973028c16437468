// Seed 003's rule for the rivers of a water table: "Only rivers ending or coming from a water
// body are sustainable, all the others just deposit at their end-point." Given the ground and the
// water bodies the equilibrium table holds (lakes, the sea) and the edges where water leaves,
// classify every river cell (a cell draining at least `min_cells` cells) as sustained or dry.
#pragma once

#include <cstdint>
#include <vector>

namespace alluvium {

enum class RiverKind : uint8_t { None = 0, Dry = 1, Sustained = 2 };

struct RiverMap {
    std::vector<RiverKind> kind;   // per cell
    std::vector<float> drainage;   // cells draining through each cell, itself included
    long long river_cells = 0;     // drainage >= min_cells, outside water bodies
    long long sustained_cells = 0; // of those, ending at or coming from a water body (or an open edge)
    long long dry_cells = 0;       // the others
    long long dry_end_points = 0;  // the pits where dry rivers end and drop their load
};

// ground: heights (m), row-major; surface: the water surface where water_body is set (the table
// there), ignored elsewhere; base_level: cells where water leaves the map (open edges). Routing is
// steepest descent on the ground (8 neighbours, drop over distance); a water-body cell ends every
// path; a cell is fed by a water body when a neighbouring water-body cell's surface is above its
// ground (a lake's outflow), and feeding follows the paths downstream. Deterministic; O(cells log
// cells).
RiverMap classifyRivers(const std::vector<float>& ground, const std::vector<float>& surface,
                        const std::vector<uint8_t>& water_body, const std::vector<uint8_t>& base_level, int width,
                        int height, double min_cells);

} // namespace alluvium
