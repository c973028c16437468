#include "presets.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>

#include "io/errors.h"

namespace alluvium {

std::filesystem::path assetDirectory() {
    if (const char* env = std::getenv("ALLUVIUM_ASSET_DIR"); env && *env) return env;
    return ALLUVIUM_SOURCE_ASSET_DIR;
}

std::vector<std::string> presetNames() {
    std::vector<std::string> names;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(assetDirectory() / "presets", ec))
        if (entry.path().extension() == ".json") names.push_back(entry.path().stem().string());
    std::sort(names.begin(), names.end());
    return names;
}

void applyPreset(Params& params, const std::string& name_or_path) {
    std::filesystem::path path = name_or_path;
    if (path.extension() != ".json") path = assetDirectory() / "presets" / (name_or_path + ".json");
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
        if (key != "description" && key != "params")
            throw InputError("preset '" + path.string() + "': unknown key '" + key + "'");
    if (!doc.contains("params")) return;
    if (!doc["params"].is_object())
        throw InputError("preset '" + path.string() + "': \"params\" must be an object");
    for (const auto& [key, value] : doc["params"].items()) {
        if (!findParam(key))
            throw InputError("preset '" + path.string() + "': unknown parameter '" + key + "'");
        if (value.is_string())
            params.set(key, value.get<std::string>());
        else if (value.is_number() || value.is_boolean())
            params.set(key, value.is_boolean() ? (value.get<bool>() ? "on" : "off") : value.dump());
        else
            throw InputError("preset '" + path.string() + "': parameter '" + key + "' must be a number");
    }
}

} // namespace alluvium
