#include "presets.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>

#include "io/errors.h"
#include "io/input_file.h"
#include "io/terrain_gen.h"
#include "models/model.h"
#include "pipeline.h"

namespace alluvium {

std::vector<std::filesystem::path> assetCandidates() {
    if (const char* env = std::getenv("ALLUVIUM_ASSET_DIR"); env && *env) return {env};
    std::vector<std::filesystem::path> candidates;
    if (const std::filesystem::path exe = gpu::executableDirectory(); !exe.empty())
        candidates.push_back(exe.parent_path() / "share" / "alluvium"); // installed: bin/../share/alluvium
    if (gpu::runningFromBuildTree()) candidates.emplace_back(ALLUVIUM_SOURCE_ASSET_DIR);
    return candidates;
}

std::filesystem::path assetDirectory() {
    std::error_code ec;
    for (const std::filesystem::path& dir : assetCandidates())
        if (std::filesystem::is_directory(dir / "presets", ec)) return dir;
    return {};
}

std::string assetSearchText() {
    std::string looked;
    for (const std::filesystem::path& dir : assetCandidates())
        looked += (looked.empty() ? "" : ", ") + (dir / "presets").lexically_normal().string();
    return looked.empty() ? "nowhere: the executable's location is unknown" : looked;
}

namespace {

namespace fs = std::filesystem;

std::vector<fs::path> presetFiles(const fs::path& dir) {
    std::vector<fs::path> files;
    std::error_code ec;
    if (dir.empty()) return files;
    for (const auto& entry : fs::directory_iterator(dir, ec))
        if (entry.path().extension() == ".json" && entry.is_regular_file(ec)) files.push_back(entry.path()); // no FIFOs
    std::sort(files.begin(), files.end());
    return files;
}

std::string describe(const fs::path& path) {
    std::ifstream in(path);
    try {
        const nlohmann::json doc = nlohmann::json::parse(in);
        if (doc.is_object() && doc.contains("description") && doc["description"].is_string())
            return doc["description"].get<std::string>();
        return "";
    } catch (const nlohmann::json::exception&) {
        return "(unreadable: not valid JSON)";
    }
}

} // namespace

fs::path userPresetDirectory() {
    // XDG Base Directory: a relative $XDG_CONFIG_HOME is invalid and ignored.
    if (const char* xdg = std::getenv("XDG_CONFIG_HOME"); xdg && *xdg && fs::path(xdg).is_absolute())
        return fs::path(xdg) / "alluvium" / "presets";
    if (const char* home = std::getenv("HOME"); home && *home)
        return fs::path(home) / ".config" / "alluvium" / "presets";
    return {};
}

std::vector<PresetInfo> listPresets() {
    std::vector<PresetInfo> list;
    for (const fs::path& p : presetFiles(userPresetDirectory()))
        list.push_back({p.stem().string(), describe(p), p, true, false});
    const size_t user_count = list.size();
    const fs::path assets = assetDirectory();
    for (const fs::path& p : assets.empty() ? std::vector<fs::path>{} : presetFiles(assets / "presets")) {
        PresetInfo info{p.stem().string(), describe(p), p, false, false};
        for (size_t i = 0; i < user_count; ++i)
            if (list[i].name == info.name) info.shadowed = true;
        list.push_back(std::move(info));
    }
    std::stable_sort(list.begin(), list.end(),
                     [](const PresetInfo& a, const PresetInfo& b) { return a.name < b.name; });
    return list;
}

std::vector<std::string> presetNames() {
    std::vector<std::string> names;
    for (const PresetInfo& p : listPresets()) names.push_back(p.name);
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    return names;
}

std::string applyPreset(Params& params, const std::string& name_or_path, std::string* terrain) {
    fs::path path = name_or_path;
    if (path.extension() != ".json") {
        // By name: the user's directory first, then the built-in presets.
        const fs::path assets = assetDirectory();
        path = assets.empty() ? fs::path() : assets / "presets" / (name_or_path + ".json");
        const fs::path user_dir = userPresetDirectory();
        std::error_code ec;
        if (!user_dir.empty() && name_or_path.find('/') == std::string::npos &&
            fs::is_regular_file(user_dir / (name_or_path + ".json"), ec))
            path = user_dir / (name_or_path + ".json");
        else if (assets.empty())
            throw gpu::InstallError("unknown preset '" + name_or_path +
                                    "': the installation is incomplete, its built-in "
                                    "presets are missing (looked in " +
                                    assetSearchText() + ")");
    }
    std::error_code ec;
    if (fs::exists(path, ec)) requireRegularFile(path, "preset"); // a folder or FIFO: say so, never hang
    std::ifstream in(path);
    if (!in) {
        std::string known;
        for (const std::string& n : presetNames()) known += (known.empty() ? "" : ", ") + n;
        throw InputError("unknown preset '" + name_or_path + "' (presets: " + known + ")");
    }
    nlohmann::json doc;
    try {
        doc = nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception& e) {
        throw InputError("preset '" + path.string() + "' is not valid JSON: " + e.what());
    }
    if (!doc.is_object()) throw InputError("preset '" + path.string() + "' must be a JSON object");
    for (const auto& [key, value] : doc.items())
        if (key != "description" && key != "params" && key != "model" && key != "terrain")
            throw InputError("preset '" + path.string() + "': unknown key '" + key + "'");
    std::string model;
    if (doc.contains("model")) {
        if (!doc["model"].is_string() || !gpu::findModel(doc["model"].get<std::string>()))
            throw InputError("preset '" + path.string() + "': \"model\" must be one of " + gpu::modelList());
        model = doc["model"].get<std::string>();
    }
    if (doc.contains("terrain")) {
        if (!doc["terrain"].is_string() || !terrainShapeFromName(doc["terrain"].get<std::string>()))
            throw InputError("preset '" + path.string() + "': \"terrain\" must be one of " + terrainShapeList());
        if (terrain) *terrain = doc["terrain"].get<std::string>();
    }
    if (!doc.contains("params")) return model;
    if (!doc["params"].is_object()) throw InputError("preset '" + path.string() + "': \"params\" must be an object");
    for (const auto& [key, value] : doc["params"].items()) {
        if (!findParam(key)) throw InputError("preset '" + path.string() + "': unknown parameter '" + key + "'");
        if (value.is_string())
            params.set(key, value.get<std::string>());
        else if (value.is_number() || value.is_boolean())
            params.set(key, value.is_boolean() ? (value.get<bool>() ? "on" : "off") : value.dump());
        else
            throw InputError("preset '" + path.string() + "': parameter '" + key + "' must be a number");
    }
    return model;
}

std::string presetModel(const std::string& name_or_path) {
    if (name_or_path.empty()) return "";
    Params ignored;
    return applyPreset(ignored, name_or_path);
}

std::string presetTerrain(const std::string& name_or_path) {
    if (name_or_path.empty()) return "";
    Params ignored;
    std::string terrain;
    applyPreset(ignored, name_or_path, &terrain);
    return terrain;
}

} // namespace alluvium
