// Presets: JSON files {"description": "...", "params": {"name": value, ...}} in assets/presets/
// (by NAME) or any path (FILE). Values are in the table's units; unknown keys are an error.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "params.h"

namespace alluvium {

std::filesystem::path assetDirectory(); // $ALLUVIUM_ASSET_DIR, else the source tree's assets/
std::vector<std::string> presetNames();
// Applies the preset named `name_or_path` to `params`. Throws InputError (unknown preset, bad
// JSON, unknown key) or ParamError (bad value).
void applyPreset(Params& params, const std::string& name_or_path);

} // namespace alluvium
