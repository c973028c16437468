// The `alluvium` subcommands. Each returns the process exit code; user errors are thrown as
// InputError / ParamError (exit 2), device failures as gpu::DeviceError (exit 3) and a broken
// installation as gpu::InstallError (exit 4).
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "pipeline.h"
#include "setup.h"

namespace alluvium {

struct DeviceOptions {
    int device = -1;        // --device N
    bool validation = false; // --validation
};

// Owns the Vulkan context for one command, so every exit path releases it.
struct ScopedContext {
    gpu::Context ctx;
    explicit ScopedContext(const DeviceOptions& d) {
        gpu::shaderDirectory(); // a broken installation is one line (InstallError) before the GPU starts
        gpu::ContextOptions options;
        options.device_index = d.device;
        options.validation = d.validation;
        gpu::createContext(ctx, options);
    }
    ~ScopedContext() { gpu::destroyContext(ctx); }
    ScopedContext(const ScopedContext&) = delete;
    ScopedContext& operator=(const ScopedContext&) = delete;
};

struct RunOptions {
    TerrainOptions terrain;
    int steps = 2000;
    std::vector<std::string> sets;
    std::string preset;
    std::string out;
    std::string report;
    std::string model; // pipe | thermal | olsen | particles | musgrave | simple | fluvial; empty: pipe, or the session's
    std::string save_session; // --save-session FILE: the state after the run (app/session.h)
    std::string load_session; // --load-session FILE: resume instead of --in / procedural
    std::string out_maps;     // --out-maps DIR: export maps after the run (app/io/maps.h)
    std::string out_mesh;     // --out-mesh FILE.obj|.gltf: the terrain mesh (app/io/mesh.h)
    std::size_t mesh_triangles = 200000; // --mesh-triangles N: target of the simplification
};

struct ConvertOptions {
    TerrainOptions terrain; // --in, --size, --height-range, --channel, --cell-size
    std::string out;
};

struct FillOptions {
    TerrainOptions terrain; // --in (or procedural), --size, --height-range, --channel, --cell-size, --seed
    std::vector<std::string> sets; // fluvial_outlets=...
    std::string preset;
    std::string out;
    std::string report;
    std::string out_maps;   // --out-maps DIR: lake depth and drainage area (and the other maps)
};

struct BenchOptions {
    std::string sizes = "256,512,1024";
    int steps = 50;
    bool json = false;
    std::vector<std::string> sets;
    std::string preset;
    std::string model = "pipe";
};

int runCommand(const RunOptions& options, const DeviceOptions& device);
int benchCommand(const BenchOptions& options, const DeviceOptions& device);
int paramsCommand(bool json);
int presetsCommand();
int convertCommand(const ConvertOptions& options); // no Vulkan context
int fillCommand(const FillOptions& options, const DeviceOptions& device);

} // namespace alluvium
