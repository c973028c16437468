// The fluvial model's lakes that balance evaporation (seed 003), solved on the host
// (the basin graph is small: one node a basin): from the basins of the GPU's descent, the
// merge tree of the basin graph (Kruskal in increasing pass height), then the water top-down: a
// component C with total inflow Q (rain on its catchment plus what spills into it) reaches the
// level h iff A_C(h) E <= Q, A_C(h) the area of its cells below h. A component that reaches its
// exit pass is full there and spills the surplus Q - A_C(pass) E across it; one that does not is
// a closed lake at the level whose area balances its inflow (or, below its lowest internal pass,
// its sub-basins are solved apart, the full one spilling into the other).
#pragma once
#include <cstdint>
#include <limits>
#include <vector>

namespace alluvium::gpu {

struct LakeSolve {
    // Per basin block (the pit's 2x2 block, as the GPU names basins): the water level as ordered
    // float bits (W = max(z, level)), FLUVIAL_NONE where no basin is named by the block.
    std::vector<uint32_t> level;
    // Per basin block: the pit cell of a basin under a closed lake (the lake's sink), else
    // FLUVIAL_NONE.
    std::vector<uint32_t> sink;
    // Per basin block of a closed lake: the lake's volume in the basin, in metres times cells
    // (sum of level - z over its cells below the level); a dry pan (no cell below the level):
    // the room on its pit up to the basin's exit. 0 elsewhere.
    std::vector<double> volume;
    int closed_lakes = 0;      // closed lakes (a lake over several basins counts once)
    uint64_t closed_cells = 0; // cells under them (ground below their level)
    int basins = 0;            // basins (not the ocean)
};

// width x height cells; z the ground; labels each cell's basin block or FLUVIAL_OCEAN (resolved,
// as the GPU's fill leaves them); inflow, per cell, the rain it receives; evaporation, what a
// cell of lake loses (same unit, > 0). Heights compare as floats; levels are always a cell's
// height or a pass height, so W is exact. With a sea (sea_level; -infinity: none), basins that
// reach the ocean below the sea level are the sea's, filled as without evaporation (their cells
// below it are ocean, base level).
LakeSolve solveLakes(int width, int height, const std::vector<float>& z, const std::vector<uint32_t>& labels,
                     const std::vector<double>& inflow, double evaporation,
                     float sea_level = -std::numeric_limits<float>::infinity());

} // namespace alluvium::gpu
