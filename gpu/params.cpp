#include "params.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <sstream>

namespace alluvium {

#define ALLUVIUM_KIND_Number 'f'
#define ALLUVIUM_KIND_Switch 'b'
#define ALLUVIUM_KIND_Choice 'e'

// A choice's names without their values ("all=15|left=1" -> "all|left"): its unit as listings
// show it.
static std::string withoutValues(std::string_view text) {
    std::string out;
    for (size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '=')
            while (i + 1 < text.size() && text[i + 1] != '|') ++i;
        else
            out += text[i];
    }
    return out;
}

const std::array<ParamInfo, kParamCount>& paramTable() {
    static const std::array<std::string, kParamCount> units = {{
#define ALLUVIUM_UNIT(name, group, def, lo, hi, unit, ...) withoutValues(unit),
        ALLUVIUM_PARAMETER_BLOCK(ALLUVIUM_UNIT, ALLUVIUM_SKIP_ENGINE)
#undef ALLUVIUM_UNIT
    }};
    static const std::array<ParamInfo, kParamCount> table = [] {
        std::array<ParamInfo, kParamCount> rows = {{
#define ALLUVIUM_ROW(name, group, def, lo, hi, unit, to_si, kind, block, meaning)                                      \
    ParamInfo{#name, group, def, lo, hi, unit, to_si, ALLUVIUM_KIND_##kind, meaning, unit},
            ALLUVIUM_PARAMETER_BLOCK(ALLUVIUM_ROW, ALLUVIUM_SKIP_ENGINE)
#undef ALLUVIUM_ROW
        }};
        for (size_t i = 0; i < rows.size(); ++i) rows[i].unit = units[i].c_str();
        return rows;
    }();
    return table;
}

const std::vector<Param>& paramsByGroup() {
    static const std::vector<Param> order = [] {
        std::vector<Param> out;
        std::vector<std::string_view> groups;
        for (const ParamInfo& p : paramTable())
            if (std::find(groups.begin(), groups.end(), p.group) == groups.end()) groups.push_back(p.group);
        for (std::string_view group : groups)
            for (int i = 0; i < kParamCount; ++i)
                if (paramTable()[size_t(i)].group == group) out.push_back(Param(i));
        return out;
    }();
    return order;
}

const ParamInfo& paramInfo(Param p) { return paramTable()[static_cast<size_t>(p)]; }

const ParamInfo* findParam(std::string_view name, Param* index) {
    const auto& table = paramTable();
    for (size_t i = 0; i < table.size(); ++i) {
        if (name == table[i].name) {
            if (index) *index = static_cast<Param>(i);
            return &table[i];
        }
    }
    return nullptr;
}

std::string whyInactive(const Params& values, Param p, std::string_view model) {
    const ParamInfo& info = paramInfo(p);
    const std::string_view group = info.group;
    if (group.ends_with(" model")) {
        // The models that read it lead its meaning: "fluvial model: ...", "thermal/olsen models: ...".
        std::string_view owners = info.meaning;
        owners = owners.substr(0, std::min(owners.find(':'), owners.find(',')));
        owners = owners.substr(0, owners.find(' '));
        bool mine = false;
        for (size_t at = 0; at <= owners.size();) {
            const size_t slash = std::min(owners.find('/', at), owners.size());
            mine = mine || owners.substr(at, slash - at) == model;
            at = slash + 1;
        }
        if (!mine)
            return "it belongs to the " + std::string(owners) + " model" +
                   (owners.find('/') != std::string_view::npos ? "s" : "") + ", and the model is " + std::string(model);
    }
    // The strata's shape means nothing while they are off.
    if (group == "strata" && p != Param::strata_contrast && values[Param::strata_contrast] == 0.0)
        return "strata_contrast is 0";
    // The weather's parts: each one's shape, while the part is off.
    const std::string_view name = info.name;
    const double storms = values[Param::storm_count], orographic = values[Param::orographic];
    if (name.starts_with("rain_noise_") && values[Param::rain_noise] == 0.0) return "rain_noise is 0";
    if (name.starts_with("storm_") && p != Param::storm_count && storms == 0.0) return "storm_count is 0";
    if (name.starts_with("orographic_") && orographic == 0.0) return "orographic is 0";
    if (p == Param::wind_direction && storms == 0.0 && orographic == 0.0) return "no storms and no orographic rain";
    // Snow lies on the pipe model's water; its seasons and sun, each while it is on.
    if (group == "snow" && model != "pipe")
        return "snow runs in the pipe model, and the model is " + std::string(model);
    if (p == Param::season_period && values[Param::season_amplitude] == 0.0) return "season_amplitude is 0";
    if ((p == Param::sun_azimuth || p == Param::sun_elevation) && values[Param::sun_melt] == 0.0)
        return "sun_melt is 0";
    if (group == "lava" && model != "pipe")
        return "lava flows in the pipe model, and the model is " + std::string(model);
    // Vegetation grows in the pipe model; its roots drink from a water table only with groundwater.
    if (group == "vegetation" && model != "pipe")
        return "vegetation grows in the pipe model, and the model is " + std::string(model);
    if (p == Param::vegetation_root_depth && values[Param::enable_groundwater] == 0.0)
        return "enable_groundwater is off";
    const auto& table = paramTable();
    for (size_t i = 0; i < table.size(); ++i) {
        const ParamInfo& other = table[i];
        if (other.kind != 'b' || std::string_view(other.name).rfind("enable_", 0) != 0 || group != other.group ||
            &other == &info)
            continue;
        if (values.values[i] == 0.0) return std::string(other.name) + " is off";
    }
    return "";
}

Params::Params() {
    for (int i = 0; i < kParamCount; ++i)
        values[static_cast<size_t>(i)] = paramTable()[static_cast<size_t>(i)].default_value;
}

std::vector<std::string> choiceNames(const ParamInfo& info) {
    std::vector<std::string> names;
    std::string_view rest = info.unit;
    while (true) {
        const size_t bar = rest.find('|');
        names.emplace_back(rest.substr(0, bar));
        if (bar == std::string_view::npos) return names;
        rest.remove_prefix(bar + 1);
    }
}

int choiceValue(const ParamInfo& info, int index) {
    std::string_view rest = info.choices;
    for (int i = 0; i < index && rest.find('|') != std::string_view::npos; ++i) rest.remove_prefix(rest.find('|') + 1);
    const std::string_view item = rest.substr(0, rest.find('|'));
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos) return index;
    int value = 0;
    std::from_chars(item.data() + eq + 1, item.data() + item.size(), value);
    return value;
}

// Index of `text` among a choice's names, or -1.
static int choiceIndex(const ParamInfo& info, std::string_view text) {
    const std::vector<std::string> names = choiceNames(info);
    for (size_t i = 0; i < names.size(); ++i)
        if (names[i] == text) return static_cast<int>(i);
    return -1;
}

static std::string formatNumber(double v) {
    std::ostringstream out;
    out.precision(9);
    out << v;
    return out.str();
}

void Params::set(std::string_view assignment) {
    const size_t eq = assignment.find('=');
    if (eq == std::string_view::npos || eq == 0)
        throw ParamError("expected name=value, got '" + std::string(assignment) + "'");
    set(assignment.substr(0, eq), assignment.substr(eq + 1));
}

void Params::set(std::string_view name, std::string_view text) {
    Param p{};
    const ParamInfo* info = findParam(name, &p);
    if (!info) throw ParamError("unknown parameter '" + std::string(name) + "' (alluvium params lists them)");
    double value = 0.0;
    const int choice = info->kind == 'e' ? choiceIndex(*info, text) : -1;
    if (choice >= 0) {
        value = choice;
    } else if (info->kind == 'b' && (text == "on" || text == "true" || text == "off" || text == "false")) {
        value = (text == "on" || text == "true") ? 1.0 : 0.0;
    } else {
        const char* first = text.data();
        const char* last = text.data() + text.size();
        auto [ptr, ec] = std::from_chars(first, last, value);
        if (ec != std::errc() || ptr != last || text.empty() || !std::isfinite(value) ||
            (info->kind != 'f' && value != std::floor(value)))
            throw ParamError(info->kind == 'f'
                                 ? "parameter '" + std::string(name) + "': '" + std::string(text) + "' is not a number"
                                 : "parameter '" + std::string(name) + "' takes " +
                                       (info->kind == 'e' ? std::string(info->unit) : "on|off") + ", got '" +
                                       std::string(text) + "'");
    }
    if (value < info->min || value > info->max)
        throw ParamError("parameter '" + std::string(name) + "' = " + std::string(text) + " is out of range [" +
                         formatNumber(info->min) + ", " + formatNumber(info->max) + "] " + info->unit);
    (*this)[p] = value;
}

std::string Params::format(Param p) const {
    const ParamInfo& info = paramInfo(p);
    const double v = (*this)[p];
    if (info.kind == 'e') {
        const std::vector<std::string> names = choiceNames(info);
        return names[size_t(std::clamp(static_cast<int>(std::lround(v)), 0, static_cast<int>(names.size()) - 1))];
    }
    if (info.kind == 'b') return v >= 0.5 ? "on" : "off";
    return formatNumber(v);
}

int groundwaterSubsteps(const Params& params) {
    // Explicit Dupuit flow is stable while each face moves at most 1/8 of the head difference
    // per sub-step (groundwater_head.comp): dt K h / (porosity L^2) <= 1/8, with h the aquifer's
    // thickness. Beyond GROUNDWATER_MAX_SUBSTEPS the face conductance is capped instead.
    const double dt = params[Param::time_step], cell = params[Param::cell_size];
    const double k = params[Param::hydraulic_conductivity], phi = params[Param::porosity];
    const double h = std::max(params[Param::aquifer_thickness], 1.0);
    const double n = std::ceil(8.0 * dt * k * h / (phi * cell * cell));
    return gpu::evenGroundwaterSubsteps(static_cast<int>(std::clamp(n, 1.0, double(GROUNDWATER_MAX_SUBSTEPS))));
}

// The block value of a parameter: its SI value, or an integer (a switch's 0 or 1, a choice's
// value, a count rounded).
static float blockFloat(const Params& params, Param p) { return static_cast<float>(params[p] * paramInfo(p).to_si); }
static int blockInt(const Params& params, Param p) {
    const ParamInfo& info = paramInfo(p);
    if (info.kind == 'b') return params[p] >= 0.5 ? 1 : 0;
    if (info.kind == 'e') return choiceValue(info, static_cast<int>(params[p]));
    return static_cast<int>(std::lround(params[p] * info.to_si));
}

gpu::SimParams toSimParams(const Params& params, int width, int height) {
    gpu::SimParams s{};
#define ALLUVIUM_TO_BLOCK_Float(name) s.name = blockFloat(params, Param::name);
#define ALLUVIUM_TO_BLOCK_Int(name) s.name = blockInt(params, Param::name);
#define ALLUVIUM_TO_BLOCK_None(name)
#define ALLUVIUM_TO_BLOCK(name, group, def, lo, hi, unit, to_si, kind, block, meaning) ALLUVIUM_TO_BLOCK_##block(name)
    ALLUVIUM_PARAMETER_BLOCK(ALLUVIUM_TO_BLOCK, ALLUVIUM_SKIP_ENGINE)
#undef ALLUVIUM_TO_BLOCK
    // The engine's fields: the simulation fills in the workgroups, the rain mask's uniformity and
    // the springs; a run sets the model and the droplets' seed.
    s.width = width;
    s.height = height;
    s.rain_uniform = 1;
    s.model = MODEL_PIPE;
    s.particle_seed = 1;
    s.groundwater_substeps = groundwaterSubsteps(params);
    return s;
}

} // namespace alluvium
