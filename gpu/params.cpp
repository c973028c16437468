#include "params.h"

#include <algorithm>
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

// Index of `text` among the '|'-separated names in info.unit, or -1.
static int choiceIndex(const ParamInfo& info, std::string_view text) {
    std::string_view names = info.unit;
    for (int i = 0;; ++i) {
        const size_t bar = names.find('|');
        if (names.substr(0, bar) == text) return i;
        if (bar == std::string_view::npos) return -1;
        names.remove_prefix(bar + 1);
    }
}

static std::string choiceName(const ParamInfo& info, int index) {
    std::string_view names = info.unit;
    for (int i = 0; i < index && names.find('|') != std::string_view::npos; ++i)
        names.remove_prefix(names.find('|') + 1);
    return std::string(names.substr(0, names.find('|')));
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
    const int choice = info->kind == 'e' ? choiceIndex(*info, text) : -1;
    if (choice >= 0) {
        value = choice;
    } else if (info->kind == 'b' && (text == "on" || text == "true" || text == "off" ||
                                     text == "false")) {
        value = (text == "on" || text == "true") ? 1.0 : 0.0;
    } else {
        const char* first = text.data();
        const char* last = text.data() + text.size();
        auto [ptr, ec] = std::from_chars(first, last, value);
        if (ec != std::errc() || ptr != last || text.empty() || !std::isfinite(value) ||
            (info->kind != 'f' && value != std::floor(value)))
            throw ParamError(info->kind == 'f'
                                 ? "parameter '" + std::string(name) + "': '" + std::string(text) +
                                       "' is not a number"
                                 : "parameter '" + std::string(name) + "' takes " +
                                       (info->kind == 'e' ? std::string(info->unit) : "on|off") +
                                       ", got '" + std::string(text) + "'");
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
    if (info.kind == 'e') return choiceName(info, static_cast<int>(std::lround(v)));
    if (info.kind == 'b') return v >= 0.5 ? "on" : "off";
    return formatNumber(v);
}

int fluvialOutletBits(int choice) {
    static constexpr int bits[] = {OUTLET_LEFT | OUTLET_RIGHT | OUTLET_TOP | OUTLET_BOTTOM,
                                   OUTLET_LEFT, OUTLET_RIGHT, OUTLET_TOP, OUTLET_BOTTOM,
                                   OUTLET_LEFT | OUTLET_RIGHT, OUTLET_TOP | OUTLET_BOTTOM};
    return bits[std::clamp(choice, 0, 6)];
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

gpu::SimParams toSimParams(const Params& params, int width, int height) {
    auto si = [&](Param p) { return static_cast<float>(params[p] * paramInfo(p).to_si); };
    auto flag = [&](Param p) { return params[p] >= 0.5 ? 1 : 0; };
    gpu::SimParams s{};
    s.width = width;
    s.height = height;
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
    s.rain_uniform = 1; // the simulation knows its rain mask and sets this
    s.record_maps = flag(Param::record_maps);
    s.model = MODEL_PIPE;
    s.talus_slope = si(Param::talus_slope);
    s.olsen_talus_slope = si(Param::olsen_talus_slope);
    s.talus_fraction = si(Param::talus_fraction);
    s.talus_neighbourhood = static_cast<int>(params[Param::talus_neighbourhood]);
    s.musgrave_rain_amount = si(Param::musgrave_rain_amount);
    s.musgrave_rain_interval = static_cast<int>(std::lround(params[Param::musgrave_rain_interval]));
    s.musgrave_capacity = si(Param::musgrave_capacity);
    s.musgrave_softness = si(Param::musgrave_softness);
    s.musgrave_deposition = si(Param::musgrave_deposition);
    s.musgrave_evaporation = si(Param::musgrave_evaporation);
    s.simple_rain_amount = si(Param::simple_rain_amount);
    s.simple_solubility = si(Param::simple_solubility);
    s.simple_evaporation = si(Param::simple_evaporation);
    s.simple_capacity = si(Param::simple_capacity);
    s.particle_count = static_cast<int>(std::lround(params[Param::particle_count]));
    s.particle_variant = static_cast<int>(params[Param::particle_variant]);
    s.particle_seed = 1;
    s.particle_lifetime = static_cast<int>(std::lround(params[Param::particle_lifetime]));
    s.particle_time_step = si(Param::particle_time_step);
    s.particle_density = si(Param::particle_density);
    s.particle_friction = si(Param::particle_friction);
    s.particle_evaporation = si(Param::particle_evaporation);
    s.particle_deposition = si(Param::particle_deposition);
    s.particle_softness = si(Param::particle_softness);
    s.particle_capacity = si(Param::particle_capacity);
    s.particle_volume = si(Param::particle_volume);
    s.particle_min_volume = si(Param::particle_min_volume);
    s.uplift_rate = si(Param::uplift_rate);
    s.stream_power_k = si(Param::stream_power_k);
    s.stream_power_m = si(Param::stream_power_m);
    s.stream_power_n = si(Param::stream_power_n);
    s.hillslope_diffusion = si(Param::hillslope_diffusion);
    s.fluvial_dt = si(Param::fluvial_time_step);
    s.fluvial_outlets = fluvialOutletBits(static_cast<int>(params[Param::fluvial_outlets]));
    s.fluvial_deposition = si(Param::fluvial_deposition);
    s.fluvial_flat_rounds = static_cast<int>(std::lround(params[Param::fluvial_flat_rounds]));
    s.enable_groundwater = flag(Param::enable_groundwater);
    s.infiltration_rate = si(Param::infiltration_rate);
    s.porosity = si(Param::porosity);
    s.hydraulic_conductivity = si(Param::hydraulic_conductivity);
    s.groundwater_substeps = groundwaterSubsteps(params);
    s.enable_sea = flag(Param::enable_sea);
    s.sea_level = si(Param::sea_level);
    s.tide_amplitude = si(Param::tide_amplitude);
    s.tide_period = si(Param::tide_period);
    s.sea_damping = si(Param::sea_damping);
    s.table_tension_air = si(Param::table_tension_air);
    s.table_tension_ground = si(Param::table_tension_ground);
    s.table_internal = si(Param::table_internal);
    s.table_gravity = si(Param::table_gravity);
    s.table_capillarity = si(Param::table_capillarity);
    s.lake_evaporation = si(Param::lake_evaporation);
    s.fluvial_rainfall = si(Param::fluvial_rainfall);
    return s;
}

} // namespace alluvium
