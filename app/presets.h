// Presets: JSON files {"description": "...", "model": "fluvial", "params": {"name": value, ...}}
// ("model" optional: a name of the model table, used when --model is not given), by NAME from the
// user's directory ($XDG_CONFIG_HOME/alluvium/presets, else ~/.config/alluvium/presets) first,
// then assets/presets/, or any path (FILE.json). Values are in the table's units; unknown keys
// are an error.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "params.h"

namespace alluvium {

// The folder holding the built-in presets/: $ALLUVIUM_ASSET_DIR if set; else
// <exe dir>/../share/alluvium (installed); else, from the build tree, the source tree's assets/.
// Empty if none holds a presets/ folder (a broken installation).
std::filesystem::path assetDirectory();
std::string assetSearchText(); // where assetDirectory() looked, for messages
// Empty when neither $XDG_CONFIG_HOME (absolute) nor $HOME is set.
std::filesystem::path userPresetDirectory();

struct PresetInfo {
    std::string name;
    std::string description; // "(unreadable: ...)" for a broken file
    std::filesystem::path path;
    bool user = false;     // from userPresetDirectory(), else built in
    bool shadowed = false; // a built-in preset hidden by a user preset of the same name
};
// Every preset file, sorted by name; a user preset before a built-in one of the same name.
std::vector<PresetInfo> listPresets();
std::vector<std::string> presetNames(); // the names --preset accepts, sorted, no repeats
// Applies the preset named `name_or_path` to `params`; returns the model it names ("" if none) and
// sets *terrain to the procedural terrain it names ("" if none). Throws InputError (unknown
// preset, bad JSON, unknown key, model or terrain) or ParamError (bad value).
std::string applyPreset(Params& params, const std::string& name_or_path, std::string* terrain = nullptr);
// The model a preset names ("" if none, or no preset).
std::string presetModel(const std::string& name_or_path);
// The procedural terrain a preset starts from ("" if none, or no preset).
std::string presetTerrain(const std::string& name_or_path);

} // namespace alluvium
