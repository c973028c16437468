// The `alluvium` subcommands. Each returns the process exit code; user errors are thrown as
// InputError / ParamError (exit 2), device failures as gpu::DeviceError (exit 3) and a broken
// installation as gpu::InstallError (exit 4).
#pragma once
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "pipeline.h"
#include "processes.h"
#include "setup.h"

namespace alluvium {

struct DeviceOptions {
    int device = -1;         // --device N
    bool validation = false; // --validation
};

// Owns the Vulkan context for one command, so every exit path releases it.
struct ScopedContext {
    gpu::Context ctx;
    explicit ScopedContext(const DeviceOptions& d) {
        gpu::shaderDirectory(); // a broken installation is one line (InstallError) before the GPU starts
        gpu::ContextOptions options;
        options.device_index = d.device;
        options.spread_rank = processes().node_rank; // one device each, in turn, on each machine
        options.validation = d.validation;
        // Under mpirun a device every process lacks alike (--device 7) is one line, not one a
        // process; a process whose device alone fails names itself; none is left waiting.
        std::string why;
        try {
            gpu::createContext(ctx, options);
        } catch (const gpu::DeviceError& e) {
            if (processes().size <= 1) throw;
            why = e.what();
        }
        try {
            agree([&] {
                if (!why.empty()) throw gpu::SplitError(why);
            });
        } catch (...) {
            if (why.empty()) gpu::destroyContext(ctx);
            throw;
        }
    }
    ~ScopedContext() { gpu::destroyContext(ctx); }
    ScopedContext(const ScopedContext&) = delete;
    ScopedContext& operator=(const ScopedContext&) = delete;
};

// alluvium run --timelapse DIR --every N: the terrain drawn offscreen every N steps.
struct TimelapseOptions {
    std::string dir;               // --timelapse DIR: DIR/frame-000000.png, ... and DIR/timelapse.mp4
    int every = 100;               // --every N: frames at steps 0, N, 2N, ... of this run
    std::string size = "1280x720"; // --timelapse-size WxH (even)
    bool water = true;             // --timelapse-no-water: the ground alone
    int fps = 30;                  // --timelapse-fps: the video's frame rate
};

// What receives the state at the timelapse's steps. The viewer's offscreen renderer implements
// it (app/viewer/timelapse.h); main.cpp passes its factory, so this library needs no viewer.
class TimelapseSink {
public:
    virtual ~TimelapseSink() = default;
    // The state after `step` steps of this run; throws InputError when a frame cannot be written.
    virtual void frame(long long step) = 0;
    // Writes what is queued and finishes the video; false (having said why) if it failed.
    virtual bool finish() = 0;
    // For the report: the folder, the frames written, the video (null if none).
    virtual nlohmann::json summary() const = 0;
};
using TimelapseFactory = std::function<std::unique_ptr<TimelapseSink>(gpu::Context&, gpu::Simulation&,
                                                                      const TimelapseOptions&, const Params&)>;

struct RunOptions {
    TerrainOptions terrain;
    int steps = 2000;
    std::vector<std::string> sets;
    std::string preset;
    std::string out;
    std::string report;
    std::string
        model; // pipe | thermal | olsen | particles | musgrave | simple | fluvial; empty: pipe, or the session's
    std::string save_session;            // --save-session FILE: the state after the run (app/session.h)
    std::string load_session;            // --load-session FILE: resume instead of --in / procedural
    std::string out_maps;                // --out-maps DIR: export maps after the run (app/io/maps.h)
    std::string out_mesh;                // --out-mesh FILE.obj|.gltf: the terrain mesh (app/io/mesh.h)
    std::size_t mesh_triangles = 200000; // --mesh-triangles N: target of the simplification
    TimelapseOptions timelapse;          // --timelapse DIR --every N ...
};

struct ConvertOptions {
    TerrainOptions terrain; // --in, --size, --height-range, --channel, --cell-size
    std::string out;
};

struct ExportOptions {
    TerrainOptions terrain; // --in, --size, --height-range, --channel, --cell-size
    std::string engine;     // --for unreal|unity|godot
    std::string out;
    int side = 0;      // --side N: one of the engine's sizes; 0: the smallest that holds the grid
    std::string tiles; // --tiles CxR: that many tiles of the side instead of one map
    int overlap = 1;   // --overlap K: samples neighbouring tiles share
};

struct FillOptions {
    TerrainOptions terrain;        // --in (or procedural), --size, --height-range, --channel, --cell-size, --seed
    std::vector<std::string> sets; // fluvial_outlets=...
    std::string preset;
    std::string out;
    std::string report;
    std::string out_maps; // --out-maps DIR: lake depth and drainage area (and the other maps)
};

struct WatertableOptions {
    TerrainOptions terrain;        // --in (or procedural), --size, --height-range, --channel, --cell-size, --seed
    std::vector<std::string> sets; // table_*, fluvial_outlets, enable_sea, sea_level, porosity, ...
    std::string preset;
    std::string out; // the table as a heightmap (m)
    std::string report;
    std::string out_maps; // --out-maps DIR: water_table, groundwater_depth and the other maps
    // A river drains at least this area (seed 003's flow threshold): --river-area in m^2, or
    // --river-cells in cells of the grid; 0 when not given (default: 1600 m^2, at least 4 cells).
    double river_area = 0.0, river_cells = 0.0;
};

struct BenchOptions {
    std::string sizes = "256,512,1024";
    int steps = 50;
    bool json = false;
    std::vector<std::string> sets;
    std::string preset;
    std::string model = "pipe";
    // The grid passes' workgroup shape: "auto" (the device's), one shape ("32x8"), or "all"
    // (every shape the device runs, compared size by size).
    std::string workgroup = "auto";
};

// `timelapse` draws the frames of --timelapse (main.cpp: the viewer's renderer).
int runCommand(const RunOptions& options, const DeviceOptions& device, const TimelapseFactory& timelapse = {});
int benchCommand(const BenchOptions& options, const DeviceOptions& device);
int paramsCommand(bool json);
int presetsCommand();
int convertCommand(const ConvertOptions& options); // no Vulkan context
int exportCommand(const ExportOptions& options);   // no Vulkan context
int fillCommand(const FillOptions& options, const DeviceOptions& device);
// Seed 003's equilibrium water table.
int watertableCommand(const WatertableOptions& options, const DeviceOptions& device);

} // namespace alluvium
