#include "params.h"

#include <charconv>
#include <cmath>
#include <sstream>

namespace alluvium {

const std::array<ParamInfo, kParamCount>& paramTable() {
    static const std::array<ParamInfo, kParamCount> table = {{
#define ALLUVIUM_ROW(name, group, def, lo, hi, unit, to_si, kind, meaning)                         \
    ParamInfo{#name, group, def, lo, hi, unit, to_si, kind, meaning},
        ALLUVIUM_PARAMS(ALLUVIUM_ROW)
#undef ALLUVIUM_ROW
    }};
    return table;
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

Params::Params() {
    for (int i = 0; i < kParamCount; ++i) values[static_cast<size_t>(i)] = paramTable()[static_cast<size_t>(i)].default_value;
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
    if (!info)
        throw ParamError("unknown parameter '" + std::string(name) +
                         "' (alluvium params lists them)");
    double value = 0.0;
    if (info->kind == 'e' && (text == "closed" || text == "open")) {
        value = text == "open" ? EDGE_OPEN : EDGE_CLOSED;
    } else if (info->kind == 'b' && (text == "on" || text == "true" || text == "off" ||
                                     text == "false")) {
        value = (text == "on" || text == "true") ? 1.0 : 0.0;
    } else {
        const char* first = text.data();
        const char* last = text.data() + text.size();
        auto [ptr, ec] = std::from_chars(first, last, value);
        if (ec != std::errc() || ptr != last || text.empty() || !std::isfinite(value))
            throw ParamError("parameter '" + std::string(name) + "': '" + std::string(text) +
                             "' is not a number");
        if (info->kind != 'f' && value != std::floor(value))
            throw ParamError("parameter '" + std::string(name) + "' takes " +
                             (info->kind == 'e' ? "closed|open" : "on|off") + ", got '" +
                             std::string(text) + "'");
    }
    if (value < info->min || value > info->max)
        throw ParamError("parameter '" + std::string(name) + "' = " + std::string(text) +
                         " is out of range [" + formatNumber(info->min) + ", " +
                         formatNumber(info->max) + "] " + info->unit);
    (*this)[p] = value;
}

std::string Params::format(Param p) const {
    const ParamInfo& info = paramInfo(p);
    const double v = (*this)[p];
    if (info.kind == 'e') return v >= 0.5 ? "open" : "closed";
    if (info.kind == 'b') return v >= 0.5 ? "on" : "off";
    return formatNumber(v);
}

gpu::SimParams toSimParams(const Params& params, int width, int height) {
    auto si = [&](Param p) { return static_cast<float>(params[p] * paramInfo(p).to_si); };
    auto flag = [&](Param p) { return params[p] >= 0.5 ? 1 : 0; };
    gpu::SimParams s{};
    s.width = width;
    s.height = height;
    s.group_count_x = (width + WG_X - 1) / WG_X;
    s.group_count_y = (height + WG_Y - 1) / WG_Y;
    s.cell_size = si(Param::cell_size);
    s.dt = si(Param::time_step);
    s.gravity = si(Param::gravity);
    s.edge_mode = flag(Param::edge_mode) ? EDGE_OPEN : EDGE_CLOSED;
    s.rain_rate = si(Param::rain_rate);
    s.evaporation_rate = si(Param::evaporation_rate);
    s.flux_damping = si(Param::flux_damping);
    s.manning_n = si(Param::manning_n);
    s.dry_depth = si(Param::dry_depth);
    s.sediment_capacity = si(Param::sediment_capacity);
    s.capacity_depth = si(Param::capacity_depth);
    s.min_tilt = si(Param::min_tilt);
    s.dissolve_rate = si(Param::dissolve_rate);
    s.deposit_rate = si(Param::deposit_rate);
    s.thermal_rate = si(Param::thermal_rate);
    s.talus_angle = si(Param::talus_angle);
    s.talus_hardness_gain = si(Param::talus_hardness_gain);
    s.enable_flow = flag(Param::enable_flow);
    s.enable_erosion = flag(Param::enable_erosion);
    s.enable_transport = flag(Param::enable_transport);
    s.enable_thermal = flag(Param::enable_thermal);
    s.enable_evaporation = flag(Param::enable_evaporation);
    s.spring_count = 0;
    s.brush_tool = BRUSH_NONE;
    return s;
}

} // namespace alluvium
