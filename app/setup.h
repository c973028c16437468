// What `run`, `bench` (and later the viewer) share: the starting terrain from a file or the
// generator, the parameters from defaults, a preset and --set, and the report totals.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/heightmap.h"
#include "params.h"
#include "simulation.h"

namespace alluvium {

struct TerrainOptions {
    std::string in;           // empty: procedural
    std::string size;         // "WxH" (required for .f32; procedural size)
    std::string height_range; // "LO:HI" (PNG)
    std::string channel;      // EXR channel (--channel); empty: the first
    double cell_size = 0.0;   // 0: from the table / preset
    uint64_t seed = 1;
    std::string terrain;      // the procedural terrain's shape (--terrain); empty: the preset's, else carved
    std::string rain_mask;    // --rain-mask FILE: where it rains, 0 (none) .. 1 (rain_rate)
    std::string hardness_map; // --hardness-map FILE: the bedrock's hardness, 0 (soft) .. 1 (rock)
    double hardness = -1.0;   // < 0: strata for procedural, 0.25 for files
};

struct InitialTerrain {
    Heightmap terrain;
    std::vector<float> hardness;
    std::vector<float> rain_mask; // --rain-mask, else the terrain shape's (empty: rain everywhere)
    // The other processes of a split run hold none of the fields (rank 0 read them and scatters
    // them as they are uploaded), only whether rank 0 has a rain mask.
    bool mask_on_root = false;
    bool hasRainMask() const { return !rain_mask.empty() || mask_on_root; }
};

// "WxH", throws InputError naming `option` (the command-line option the text came from).
void parseSize(const std::string& text, int& width, int& height, const std::string& option = "--size");
// One line on stderr for each --set that has no effect (whyInactive): its part is off, or it
// belongs to another model than `model`.
void noteInactiveSets(const Params& params, const std::vector<std::string>& sets, int model);
// An image of the grid's size holding 0 .. 1 (black .. white; float formats as they are): the rain
// mask, a hardness map. `option` names it in messages, `holds` says what it holds.
std::vector<float> loadUnitMap(const std::string& path, int width, int height, const std::string& option,
                               const std::string& holds);
InitialTerrain prepareTerrain(const TerrainOptions& options, double cell_size);
// The size of a procedural terrain (no --in) given by --size, known before it is made: the checks
// of what a grid needs come before the seconds its making takes. False when not known so.
bool generatedSize(const TerrainOptions& options, int& width, int& height);

// --out (a heightmap format) and --report (.json) of the commands that write a heightmap and a
// report (fill, watertable): extensions and a writable folder, checked before the GPU starts.
void checkHeightmapAndReport(const std::string& out, const std::string& report, const std::string& out_maps = "");
// The outputs a command was given, {option, path} (empty paths: not given): two that name the
// same file or folder (the heightmap's sidecar included) are refused in one line (InputError)
// before anything runs, since the one written last would silently replace the other.
void checkDistinctOutputs(const std::vector<std::pair<std::string, std::string>>& outputs);
// fill and watertable: their --out and --report checked before the GPU starts, then the
// parameters and the terrain (prepareTerrainAndParams).
// A split run's other processes (rank 0 read the input): they take rank 0's parameters, the
// grid's size, whether it has a rain mask (never the fields) and `extra` (what the command adds).
// Every process calls it, within agree().
void shareInput(Params& params, InitialTerrain& initial, nlohmann::json& extra);
InitialTerrain prepareAnalysis(const std::string& out, const std::string& report, const std::string& out_maps,
                               const TerrainOptions& terrain, const std::string& preset,
                               const std::vector<std::string>& sets, Params& params);
// The defaults (or `base`: a session's), then the preset, then --cell-size, then each --set in order.
Params buildParams(const std::string& preset, double cell_size, const std::vector<std::string>& sets,
                   const Params& base = Params());
// The parameters (as buildParams) and the starting terrain of --in / --size / --seed ...; a file
// that carries its cell size (.asc) gives it unless --cell-size was set.
InitialTerrain prepareTerrainAndParams(const TerrainOptions& terrain, const std::string& preset,
                                       const std::vector<std::string>& sets, Params& params);
// Every field at its initial value (its row in shaders/field_table.h), then the terrain, the
// hardness, and the aquifer: its base aquifer_thickness below the ground and its water table
// initial_table_depth below it (groundwater, from `params`).
void loadInitialState(gpu::Simulation& sim, const InitialTerrain& initial, const Params& params = Params());
// Field `f` of the whole grid as loadInitialState leaves it (fieldChannels floats a cell): what a
// split process's rank 0 writes for a state it never uploaded to one device.
std::vector<float> initialField(gpu::Field f, const InitialTerrain& initial, const Params& params);
// The aquifer of a ground (loadInitialState): its base and the groundwater (m of water) of a
// water table initial_table_depth below the ground.
void initialAquifer(const std::vector<float>& ground, const Params& params, std::vector<float>& base,
                    std::vector<float>& groundwater);

// Volumes (m^3) of the state, summed in double precision, and the non-finite cells.
struct StateSums {
    double water = 0.0, terrain = 0.0, sediment = 0.0;
    double groundwater = 0.0;    // in the ground's pores
    double loose = 0.0;          // layered ground: the loose layer (part of `terrain`)
    double snow = 0.0;           // snow, as the water it holds
    double lava = 0.0;           // lava's volume (m^3)
    double soil_magnitude = 0.0; // sum of |ground| + |sediment| (m^3): the scale of the soil drift
    long long nan_cells = 0;
};
StateSums sumState(const gpu::Simulation& sim, double cell_size);

} // namespace alluvium
