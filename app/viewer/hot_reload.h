// Shader hot reload: watches the source folder's compute shaders and, when one changes,
// compiles it with libshaderc (includes resolved in that folder) and hands the SPIR-V over. A
// compile error is kept as a message; whoever owns the pipeline keeps the old one.
#pragma once
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace alluvium::viewer {

struct ShaderChange {
    std::string name;            // file stem, e.g. "outflow_flux"
    std::vector<uint32_t> spirv; // empty if it failed to compile
    std::string error;           // the compiler's message, if it failed
};

class ShaderWatcher {
public:
    // Watches dir/*.comp; no-op if dir does not exist (an installed build without sources).
    explicit ShaderWatcher(std::filesystem::path dir);
    // Files whose modification time changed since the last call, compiled.
    std::vector<ShaderChange> poll();
    const std::filesystem::path& directory() const { return dir_; }

private:
    std::filesystem::path dir_;
    std::map<std::string, std::filesystem::file_time_type> seen_;
};

// The shader sources the viewer watches: $ALLUVIUM_SHADER_SOURCE_DIR if set, else the source
// tree's shaders/ when the viewer runs from its build tree; empty (hot reload off) in an
// installed or copied build, which has no sources to edit.
std::filesystem::path hotReloadDirectory();

// Compiles one GLSL compute shader file to SPIR-V for Vulkan 1.2 (tests use it too).
ShaderChange compileComputeShader(const std::filesystem::path& file);

} // namespace alluvium::viewer
