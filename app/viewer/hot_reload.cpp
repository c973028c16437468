#include "hot_reload.h"

#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>

#include <shaderc/shaderc.hpp>

#include "pipeline.h"

namespace alluvium::viewer {

namespace {

std::string readText(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// #include "x" resolves next to the including file (all shaders live in one folder).
class Includer : public shaderc::CompileOptions::IncluderInterface {
public:
    explicit Includer(std::filesystem::path dir) : dir_(std::move(dir)) {}
    shaderc_include_result* GetInclude(const char* requested, shaderc_include_type, const char*, size_t) override {
        auto* r = new Result;
        r->path = (dir_ / requested).string();
        r->text = readText(r->path);
        if (r->text.empty()) r->path.clear(); // shaderc: an empty name means "not found"
        r->result.source_name = r->path.c_str();
        r->result.source_name_length = r->path.size();
        r->result.content = r->path.empty() ? "cannot open the included file" : r->text.c_str();
        r->result.content_length = r->path.empty() ? 29 : r->text.size();
        r->result.user_data = r;
        return &r->result;
    }
    void ReleaseInclude(shaderc_include_result* data) override { delete static_cast<Result*>(data->user_data); }

private:
    struct Result {
        shaderc_include_result result;
        std::string path, text;
    };
    std::filesystem::path dir_;
};

} // namespace

ShaderChange compileComputeShader(const std::filesystem::path& file) {
    ShaderChange change;
    change.name = file.stem().string();
    const std::string source = readText(file);
    if (source.empty()) {
        change.error = "cannot read " + file.string();
        return change;
    }
    shaderc::Compiler compiler;
    shaderc::CompileOptions options;
    options.SetTargetEnvironment(shaderc_target_env_vulkan, shaderc_env_version_vulkan_1_2);
    options.SetOptimizationLevel(shaderc_optimization_level_performance);
    options.SetIncluder(std::make_unique<Includer>(file.parent_path()));
    const shaderc::SpvCompilationResult result =
        compiler.CompileGlslToSpv(source, shaderc_compute_shader, file.string().c_str(), options);
    if (result.GetCompilationStatus() != shaderc_compilation_status_success) {
        change.error = result.GetErrorMessage();
        return change;
    }
    change.spirv.assign(result.cbegin(), result.cend());
    return change;
}

std::filesystem::path hotReloadDirectory() {
    if (const char* env = std::getenv("ALLUVIUM_SHADER_SOURCE_DIR"); env && *env) return env;
    return gpu::runningFromBuildTree() ? std::filesystem::path(ALLUVIUM_SOURCE_SHADER_DIR) : std::filesystem::path();
}

ShaderWatcher::ShaderWatcher(std::filesystem::path dir) : dir_(std::move(dir)) { poll(); }

std::vector<ShaderChange> ShaderWatcher::poll() {
    std::vector<ShaderChange> changes;
    std::error_code ec;
    if (!std::filesystem::is_directory(dir_, ec)) return changes;
    const bool first = seen_.empty();
    for (const auto& entry : std::filesystem::directory_iterator(dir_, ec)) {
        if (entry.path().extension() != ".comp") continue;
        const auto time = entry.last_write_time(ec);
        if (ec) continue;
        auto [it, inserted] = seen_.emplace(entry.path().stem().string(), time);
        if (!inserted && it->second == time) continue;
        it->second = time;
        if (!first && !inserted) changes.push_back(compileComputeShader(entry.path()));
    }
    return changes;
}

} // namespace alluvium::viewer
