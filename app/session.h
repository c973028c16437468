// Sessions: the whole state of a simulation at a step boundary, saved to one file so a run can
// stop and resume bit for bit (`alluvium run --save-session / --load-session`).
//
// File format (version 2), all integers and floats little-endian:
//   offset 0   16 bytes  magic "ALLUVIUM-SESSION"
//   offset 16  u32       format version (2; version 1 held thermal_rate as a rate per second on
//                        its cells, read as the diffusivity rate x cell_size^2); a newer
//                        version is refused
//   offset 20  u32       N, the length of the JSON header
//   offset 24  N bytes   JSON header: {"model", "width", "height", "steps", "params" {name: value
//                        in the table's units}, "springs" [{x, y, radius, rate_per_cell}],
//                        "totals" {"acc" [TOTAL_SLOTS doubles; older files 16, 21, 23 or 26],
//                                  "sediment_scale", "max_speed", "step_wave", "max_cfl",
//                                  "substeps" (these three since the CFL sub-steps), "max_froude"},
//                        "initial_sums" {water, terrain, sediment} (m^3, for the report),
//                        "arrays" [{"name", "channels"}]} (order of the arrays in the body)
//   then       float32   each array in turn, width x height x channels, row-major
//   last       u64       FNV-1a 64 of every byte from offset 24 (header and arrays) to here
// The arrays are the "cur" half of every state field (terrain, water, sediment, outflow,
// velocity, hardness, rain_mask, and any later accumulator field) plus "initial_terrain" (the
// terrain before the first step, for a reset). Loading checks everything and throws InputError.
#pragma once
#include <cstddef>
#include <filesystem>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "params.h"
#include "setup.h"
#include "simulation.h"

namespace alluvium {

inline constexpr uint32_t kSessionVersion = 2;
inline constexpr long long kMaxSessionSteps = 2147483647; // the GPU's 32-bit step index
inline constexpr size_t kMaxSessionSprings = 4096;        // what the simulation holds

struct Session {
    std::string model = "pipe";
    int width = 0, height = 0;
    long long steps = 0;   // steps run since the initial terrain
    double sim_time = 0.0; // simulated seconds (the tide's clock)
    // Where the sea's spill relaxation stands: its half, whether it starts over or
    // must run to its end, and its control block, so that a resumed run equals a straight one.
    int sea_half = 0;
    bool sea_dirty = true, sea_restart = true;
    gpu::SeaControl sea_control{};
    Params params;
    std::vector<gpu::Spring> springs;
    gpu::Totals totals{};
    int substeps = 1;       // the pipe model's CFL sub-steps in force (the rest of their block of steps)
    StateSums initial_sums; // of the initial state: the budgets of the report start here
    std::vector<float> initial_terrain;
    std::vector<std::pair<gpu::Field, std::vector<float>>> fields; // cur halves
};

// The fields a session stores: every one but the thermal scratch images.
std::vector<gpu::Field> sessionFields();

// Downloads the state of `sim` (between steps).
Session captureSession(const gpu::Simulation& sim, const Params& params, std::vector<float> initial_terrain,
                       const StateSums& initial_sums, long long steps);
// Uploads the fields into the cur halves, the springs, the totals and the parameters (the
// session's, sessionSimParams: a split simulation's band must hold their step too).
void restoreSession(gpu::Simulation& sim, const Session& session);
gpu::SimParams sessionSimParams(const Session& session);
// All of a session but its arrays, as the file's header holds it; and back, every field listed
// in the same order with no values (the other processes of a split run: rank 0 holds them).
nlohmann::json sessionHeader(const Session& session);
Session sessionFromHeader(const nlohmann::json& header);

// The session's parameters, then the preset, then --cell-size (if > 0), then each --set.
Params sessionParams(const Session& session, const std::string& preset, double cell_size,
                     const std::vector<std::string>& sets);

std::vector<std::byte> encodeSession(const Session& session);
// `what` names the source in messages. Throws InputError.
Session decodeSession(std::span<const std::byte> bytes, const std::string& what);

void saveSession(const std::filesystem::path& path, const Session& session); // atomic
// Whether a path names a session file (.alluvium or .session), for the viewer's saves.
inline bool isSessionPath(const std::filesystem::path& path) {
    return path.extension() == ".alluvium" || path.extension() == ".session";
}
Session loadSession(const std::filesystem::path& path);

// The container's byte helpers (little-endian integers, FNV-1a 64 checksum), for tools and
// tests that build or patch session files.
namespace session_bytes {
uint64_t fnv1a64(const std::byte* data, size_t n);
void putU32(std::vector<std::byte>& out, uint32_t v);
void putU64(std::vector<std::byte>& out, uint64_t v);
uint64_t getLE(const std::byte* p, int bytes);
} // namespace session_bytes

} // namespace alluvium
