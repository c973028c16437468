// Splat (weight) maps for the engines' terrain materials, from what the simulation left: eight
// weights a cell that sum to one, as two RGBA 8-bit PNGs (splat0: rock, loose, deposits, wet;
// splat1: riverbed, vegetation, snow, lava) and splat.json naming the channels.
//
// Each cover takes its share of what the covers above it left (c the cover's 0..1):
//   lava        molten lava, 5 cm and deeper: all of it
//   snow        10 cm of snow and deeper
//   wet         standing or running water, 5 cm and deeper
//   riverbed    where the flow concentrated (the flow map's log mask from 0.35 to 0.8 of its top)
//   vegetation  its density, not on cliffs
//   deposits    ground raised by deposition over erosion, full from 0.2 m, not on cliffs
//   loose       the loose layer, full from 0.3 m (without layered ground: all the ground that is
//               not cliff, the soil an artist paints there), not on cliffs
//   rock        what is left: bare bedrock, cliffs (slopes over 31 degrees lose the soft covers,
//               all of them by 50)
// so each weight is at least 0 and they sum to one before rounding; after it exactly 255.
#pragma once

#include <array>
#include <filesystem>
#include <string>
#include <vector>

namespace alluvium {

constexpr int kSplatChannels = 8;
// The channels in file order: splat0 R G B A, then splat1 R G B A.
extern const std::array<const char*, kSplatChannels> kSplatNames;

// What the weights are built from, each width * height (empty: none, a cover of 0).
struct SplatInputs {
    int width = 0, height = 0;
    double cell_size = 1.0;
    std::vector<float> ground;      // m (the slopes)
    std::vector<float> water_depth; // m
    std::vector<float> flow;        // m^3 through the cell since the start
    std::vector<float> eroded;      // m since the start
    std::vector<float> deposited;   // m since the start
    std::vector<float> loose;       // m
    bool layered = false;           // the loose layer is simulated (enable_layers)
    std::vector<float> vegetation;  // density 0..1
    std::vector<float> snow;        // m deep
    std::vector<float> lava;        // m deep
};

// kSplatChannels weights a cell (cell-major: cell i's at [i * kSplatChannels ...]), each >= 0,
// summing to 1 within float rounding.
std::vector<float> splatWeights(const SplatInputs& in);

// The weights as 8-bit samples that sum to exactly 255 a cell: each rounded down, then the
// units left go to the largest remainders (the first channel on ties).
std::vector<uint8_t> quantiseSplat(const std::vector<float>& weights);

// Writes dir/splat0.png, dir/splat1.png (RGBA 8-bit) and dir/splat.json (the channels, the
// rules, how each engine takes them). Atomic, like every output.
void writeSplatMaps(const std::filesystem::path& dir, int width, int height, const std::vector<float>& weights);

} // namespace alluvium
