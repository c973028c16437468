// alluvium params / presets: the parameter table and the preset list.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "presets.h"

namespace alluvium {

int paramsCommand(bool json) {
    const Params defaults;
    if (json) {
        nlohmann::json table = nlohmann::json::array();
        for (int i = 0; i < kParamCount; ++i) {
            const ParamInfo& p = paramTable()[size_t(i)];
            table.push_back({{"name", p.name}, {"group", p.group}, {"default", p.default_value},
                             {"min", p.min}, {"max", p.max}, {"unit", p.unit},
                             {"kind", p.kind == 'e' ? "closed|open" : p.kind == 'b' ? "on|off" : "number"},
                             {"meaning", p.meaning}});
        }
        std::printf("%s\n", table.dump(2).c_str());
        return 0;
    }
    std::printf("%-20s %-12s %10s %10s %10s  %-10s %s\n", "name", "group", "default", "min", "max", "unit", "meaning");
    for (int i = 0; i < kParamCount; ++i) {
        const ParamInfo& p = paramTable()[size_t(i)];
        std::printf("%-20s %-12s %10s %10g %10g  %-10s %s\n", p.name, p.group,
                    defaults.format(static_cast<Param>(i)).c_str(), p.min, p.max, p.unit, p.meaning);
    }
    return 0;
}

int presetsCommand() {
    for (const std::string& name : presetNames()) std::printf("%s\n", name.c_str());
    return 0;
}

} // namespace alluvium
