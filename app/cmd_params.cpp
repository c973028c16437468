// alluvium params / presets: the parameter table and the preset list.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "pipeline.h"
#include "presets.h"

namespace alluvium {

int paramsCommand(bool json) {
    const Params defaults;
    if (json) {
        nlohmann::json table = nlohmann::json::array();
        for (const ParamInfo& p : paramTable())
            table.push_back({{"name", p.name},
                             {"group", p.group},
                             {"default", p.default_value},
                             {"min", p.min},
                             {"max", p.max},
                             {"unit", p.unit},
                             {"kind", p.kind == 'e'   ? p.unit
                                      : p.kind == 'b' ? "on|off"
                                                      : "number"},
                             {"meaning", p.meaning}});
        std::printf("%s\n", table.dump(2).c_str());
        return 0;
    }
    std::printf("%-20s %-12s %10s %10s %10s  %-10s %s\n", "name", "group", "default", "min", "max", "unit", "meaning");
    for (Param param : paramsByGroup()) {
        const ParamInfo& p = paramInfo(param);
        std::printf("%-20s %-12s %10s %10g %10g  %-10s %s\n", p.name, p.group, defaults.format(param).c_str(), p.min,
                    p.max, p.unit, p.meaning);
    }
    return 0;
}

int presetsCommand() {
    // One name per line (scripts can read the names alone), then its description and where it
    // comes from. --preset NAME takes a user preset over a built-in one of the same name.
    if (assetDirectory().empty())
        throw gpu::InstallError("the installation is incomplete: the built-in presets are missing (looked in " +
                                assetSearchText() + ")");
    for (const PresetInfo& p : listPresets()) {
        std::printf("%s\n    %s\n    %s: %s\n", p.name.c_str(), p.description.c_str(),
                    p.user       ? "user"
                    : p.shadowed ? "built-in, overridden by the user preset"
                                 : "built-in",
                    p.path.string().c_str());
    }
    return 0;
}

} // namespace alluvium
