// The lakes and drainage of a grid split over processes (mpirun): the fill (gpu/fill_split.h) and
// the routing and accumulation (gpu/drainage_split.h) of each process's block on its own device
// and on the host, gathered to rank 0. `alluvium fill` and the maps of a split run use it; it
// equals one device's fluvial analysis (Simulation::fluvialAnalyse) to the bit.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "context.h"
#include "export.h"
#include "params.h"

namespace alluvium {

struct SplitAnalysis {
    // Rank 0 alone: the whole grid's W (ordered float bits; FLUVIAL_NONE where no outlet reaches
    // a cell), lake depth (m) and drainage area (m^2).
    std::vector<uint32_t> level;
    std::vector<float> lake, area;
    double seconds = 0.0;  // the whole analysis, on rank 0
    nlohmann::json report; // the report's "processes": blocks, graphs, bytes, the slowest process's times
    std::string how;       // one line's end: "split over N processes: ..."
};

// Every process calls it at once. `terrain`, `rain`: the whole grid's heights and rain mask on
// rank 0 (the others' are not read; `has_rain`: whether rank 0 has a mask, on every process);
// `params`: the run's (the outlets, the sea, the cell size) on a `width` x `height` grid.
SplitAnalysis analyseSplit(const gpu::Context& ctx, const Params& params, int width, int height,
                           const std::vector<float>& terrain, const std::vector<float>& rain, bool has_rain);

// A split run's maps: the fields exportMaps reads, gathered to rank 0, and (`analyse`) the lakes
// and drainage of the final heights (analyseSplit) in place of the fields'. `terrain`: the final
// heights when rank 0 has gathered them already (they are not gathered again; they must outlive
// the maps), else null. Every process calls it at once, all with or all without `terrain`.
struct SplitMaps {
    std::map<gpu::Field, std::vector<float>> fields; // rank 0
    const std::vector<float>* terrain = nullptr;     // rank 0: the final heights, held by the caller
    bool analysed = false;
    SplitAnalysis analysis;
    MapFields source(const gpu::SimParams& whole) const; // rank 0: what exportMaps reads
};
SplitMaps gatherSplitMaps(const gpu::Simulation& sim, const gpu::Context& ctx, const Params& params, int width,
                          int height, bool analyse = true, const std::vector<float>* terrain = nullptr);
// The blocks of analyseSplit on a `width` x `height` grid over this run's processes; throws the
// SplitError analyseSplit would (a grid too small for them), to be said before the GPU starts.
gpu::BlockGrid analysisBlocks(int width, int height);
// A split run's maps analyse the final heights on a simulation of this process's analysis block
// beside the run's (`held` GPU bytes): throws the DeviceError that would end the run there if
// that does not fit the device, so it is said before the run, not after it.
void checkAnalysisFits(const gpu::Context& ctx, uint64_t held, int width, int height);

} // namespace alluvium
