// The one parameter table: name, group (the pass it belongs to), default, range, unit and
// meaning. The CLI (--set), presets and the viewer panel read this table; nothing repeats it.
#pragma once
#include <array>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "shared.h"

namespace alluvium {

// The rows are shaders/param_table.h's P rows (its E rows are the engine's fields of the block).
#define ALLUVIUM_PARAM_ENUM(name, ...) name,
#define ALLUVIUM_SKIP_ENGINE(...)
enum class Param : int { ALLUVIUM_PARAMETER_BLOCK(ALLUVIUM_PARAM_ENUM, ALLUVIUM_SKIP_ENGINE) count };
#undef ALLUVIUM_PARAM_ENUM
inline constexpr int kParamCount = static_cast<int>(Param::count);

struct ParamInfo {
    const char* name;
    const char* group;
    double default_value;
    double min;
    double max;
    const char* unit;
    double to_si;
    char kind; // 'f' a number, 'b' on/off, 'e' a choice (names in `unit`)
    const char* meaning;
    const char* choices; // a choice's names with their block values, as the row gives them
};
// A choice's names ("closed", "open"), and the block value of its `index`th name (its own value
// where the row gives one, else the index).
std::vector<std::string> choiceNames(const ParamInfo& info);
int choiceValue(const ParamInfo& info, int index);

const std::array<ParamInfo, kParamCount>& paramTable();
// The parameters as listings show them: grouped by `group` (groups in the order they first
// appear in the table), each group in the table's order.
const std::vector<Param>& paramsByGroup();
const ParamInfo& paramInfo(Param p);
// nullptr if the name is unknown.
const ParamInfo* findParam(std::string_view name, Param* index = nullptr);

// Bad user input (unknown name, unparsable or out-of-range value): one line, exit code 2.
struct ParamError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Values in the table's units, defaults from the table.
struct Params {
    std::array<double, kParamCount> values;
    Params();
    double operator[](Param p) const { return values[static_cast<int>(p)]; }
    double& operator[](Param p) { return values[static_cast<int>(p)]; }
    // Parses "name=value" or (name, value); validates name, syntax and range. Throws ParamError.
    void set(std::string_view assignment);
    void set(std::string_view name, std::string_view value);
    // Value as the user would type it ("open", "on", "0.05").
    std::string format(Param p) const;
};

// Why `p` has no effect with these values under the model `model` (its name), or "" when it acts:
// its group's on/off switch (the group's enable_* row, e.g. enable_sea for sea_level) is off, or
// its group belongs to another model ("fluvial: model"). The panel greys such rows and the CLI
// says so of a --set, so that no parameter is ignored silently.
std::string whyInactive(const Params& values, Param p, std::string_view model);

// Groundwater flow sub-steps per step from the parameters (even: 2 .. GROUNDWATER_MAX_SUBSTEPS).
int groundwaterSubsteps(const Params& params);

// Converts to the SI block the shaders read. Grid size and workgroup counts are filled in.
gpu::SimParams toSimParams(const Params& params, int width, int height);

} // namespace alluvium
