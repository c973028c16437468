#include "setup.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

#include "io/atomic_file.h"
#include "io/errors.h"
#include "io/heightmap.h"
#include "io/input_file.h"
#include "io/terrain_gen.h"
#include "models/model.h"
#include "presets.h"
#include "processes.h"

namespace alluvium {

namespace {

double parseNumber(std::string_view text, const std::string& what) {
    double v = 0.0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || ptr != text.data() + text.size() || text.empty() || !std::isfinite(v))
        throw InputError(what + ": '" + std::string(text) + "' is not a number");
    return v;
}

} // namespace

void parseSize(const std::string& text, int& width, int& height, const std::string& option) {
    const size_t x = text.find('x');
    if (x == std::string::npos) throw InputError(option + ": expected WxH, got '" + text + "'");
    const double w = parseNumber(std::string_view(text).substr(0, x), option);
    const double h = parseNumber(std::string_view(text).substr(x + 1), option);
    if (w < 1 || h < 1 || w != std::floor(w) || h != std::floor(h) || w > kMaxGridSide || h > kMaxGridSide)
        throw InputError(option + ": '" + text + "' must be two whole numbers in 1.." + std::to_string(kMaxGridSide));
    width = static_cast<int>(w);
    height = static_cast<int>(h);
}

std::vector<float> loadUnitMap(const std::string& path, int width, int height, const std::string& option,
                               const std::string& holds) {
    // Painted in an image editor: black 0, white 1, whatever a sidecar says.
    LoadOptions load;
    load.has_height_range = true;
    load.range_lo = 0.0;
    load.range_hi = 1.0;
    if (isRawHeightmap(path)) { // headerless: the grid's size
        load.width = width;
        load.height = height;
    }
    const Heightmap mask = loadHeightmap(path, load);
    const std::string name = option + " '" + displayPath(path) + "'";
    if (mask.width != width || mask.height != height)
        throw InputError(name + " is " + std::to_string(mask.width) + "x" + std::to_string(mask.height) +
                         "; the grid is " + std::to_string(width) + "x" + std::to_string(height));
    for (size_t i = 0; i < mask.heights.size(); ++i)
        if (!(mask.heights[i] >= 0.0f && mask.heights[i] <= 1.0f))
            throw InputError(name + ": cell (" + std::to_string(i % size_t(width)) + ", " +
                             std::to_string(i / size_t(width)) + ") is " + std::to_string(mask.heights[i]) + "; " +
                             holds);
    return mask.heights;
}

InitialTerrain prepareTerrain(const TerrainOptions& o, double cell_size) {
    InitialTerrain initial;
    int w = 256, h = 256;
    if (!o.size.empty()) parseSize(o.size, w, h);
    if (!o.in.empty() && !o.terrain.empty())
        throw InputError("--terrain makes a procedural terrain; it cannot go with --in");
    if (o.in.empty()) {
        if (!o.height_range.empty() || !o.channel.empty())
            throw InputError(std::string(o.height_range.empty() ? "--channel" : "--height-range") +
                             " applies to an input file (--in), not to the procedural terrain");
        const std::optional<TerrainShape> shape = terrainShapeFromName(o.terrain.empty() ? "carved" : o.terrain);
        if (!shape) throw InputError("--terrain: unknown terrain '" + o.terrain + "' (" + terrainShapeList() + ")");
        GeneratedTerrain g = generateTerrain(w, h, o.seed, cell_size, *shape);
        initial.terrain = std::move(g.terrain);
        initial.hardness = std::move(g.hardness);
        initial.rain_mask = std::move(g.rain); // the shape's own rain, unless --rain-mask gives one
    } else {
        LoadOptions load;
        if (!o.size.empty()) {
            load.width = w;
            load.height = h;
        }
        if (!o.height_range.empty()) {
            const size_t colon = o.height_range.find(':', 1);
            if (colon == std::string::npos)
                throw InputError("--height-range: expected LO:HI, got '" + o.height_range + "'");
            load.has_height_range = true;
            load.range_lo = parseNumber(std::string_view(o.height_range).substr(0, colon), "--height-range");
            load.range_hi = parseNumber(std::string_view(o.height_range).substr(colon + 1), "--height-range");
            checkHeightValue(load.range_lo, "--height-range LO");
            checkHeightValue(load.range_hi, "--height-range HI");
            if (load.range_hi < load.range_lo)
                throw InputError("--height-range: HI must not be below LO in '" + o.height_range + "'");
        }
        load.channel = o.channel;
        initial.terrain = loadHeightmap(o.in, load);
        if (initial.terrain.nodata_filled > 0)
            std::fprintf(stderr, "alluvium: filled %lld NODATA cells\n", initial.terrain.nodata_filled);
        initial.hardness.assign(initial.terrain.heights.size(), 0.25f);
    }
    if (!o.rain_mask.empty())
        initial.rain_mask = loadUnitMap(o.rain_mask, initial.terrain.width, initial.terrain.height, "--rain-mask",
                                        "a rain mask holds 0 (no rain) .. 1 (rain_rate)");
    if (!o.hardness_map.empty()) {
        if (o.hardness >= 0.0) throw InputError("--hardness-map and --hardness both set the hardness: give one");
        initial.hardness = loadUnitMap(o.hardness_map, initial.terrain.width, initial.terrain.height, "--hardness-map",
                                       "a hardness map holds 0 (soft) .. 1 (rock)");
    }
    if (o.hardness >= 0.0) {
        if (o.hardness > 1.0) throw InputError("--hardness must be in [0, 1]");
        initial.hardness.assign(initial.terrain.heights.size(), static_cast<float>(o.hardness));
    }
    return initial;
}

bool generatedSize(const TerrainOptions& o, int& width, int& height) {
    if (!o.in.empty() || o.size.empty()) return false;
    parseSize(o.size, width, height);
    return true;
}

void checkDistinctOutputs(const std::vector<std::pair<std::string, std::string>>& outputs) {
    std::vector<std::pair<std::string, std::filesystem::path>> seen;
    for (const auto& [option, path] : outputs) {
        if (path.empty()) continue;
        std::error_code ec;
        std::filesystem::path where = std::filesystem::weakly_canonical(std::filesystem::absolute(path, ec), ec);
        if (ec) where = std::filesystem::absolute(path, ec).lexically_normal();
        for (const auto& [other, there] : seen)
            if (there == where)
                throw InputError(option + " '" + displayPath(path) + "' is also " + other +
                                 ": each output needs a path of its own");
        seen.emplace_back(option, where);
    }
}

void checkHeightmapAndReport(const std::string& out, const std::string& report, const std::string& out_maps) {
    if (!isHeightmapExtension(out))
        throw InputError("--out '" + displayPath(out) +
                         "': unsupported extension (use .png, .r16, .raw, .f32, .r32, .exr, .tif, .tiff or .asc)");
    if (!report.empty() && std::filesystem::path(report).extension() != ".json")
        throw InputError("--report '" + displayPath(report) + "': unsupported extension (use .json)");
    checkWritableLocation(out, "--out"); // a read-only folder, found before the GPU runs
    if (!report.empty()) checkWritableLocation(report, "--report");
    checkDistinctOutputs({{"--out", out},
                          {"the sidecar of --out", writesSidecar(out) ? out + ".json" : ""},
                          {"--report", report},
                          {"--out-maps", out_maps}});
}

Params buildParams(const std::string& preset, double cell_size, const std::vector<std::string>& sets,
                   const Params& base) {
    Params params = base;
    if (!preset.empty()) applyPreset(params, preset);
    if (cell_size > 0.0) {
        char text[32];
        std::snprintf(text, sizeof text, "%.17g", cell_size); // exact: to_string keeps 6 decimals
        params.set("cell_size", text);
    }
    for (const std::string& s : sets) params.set(s);
    return params;
}

void noteInactiveSets(const Params& params, const std::vector<std::string>& sets, int model) {
    std::vector<Param> noted;
    for (const std::string& assignment : sets) {
        Param p{};
        if (!findParam(std::string_view(assignment).substr(0, assignment.find('=')), &p)) continue;
        if (std::find(noted.begin(), noted.end(), p) != noted.end()) continue;
        const std::string why = whyInactive(params, p, gpu::modelName(model));
        if (why.empty()) continue;
        noted.push_back(p);
        std::fprintf(stderr, "alluvium: note: --set %s has no effect: %s\n", paramInfo(p).name, why.c_str());
    }
}

InitialTerrain prepareTerrainAndParams(const TerrainOptions& options, const std::string& preset,
                                       const std::vector<std::string>& sets, Params& params) {
    // The terrain: --in, else --terrain, else the preset's, else the carved mountains.
    TerrainOptions terrain = options;
    if (terrain.in.empty() && terrain.terrain.empty()) terrain.terrain = presetTerrain(preset);
    params = buildParams(preset, terrain.cell_size, sets);
    InitialTerrain initial = prepareTerrain(terrain, params[Param::cell_size]);
    if (terrain.cell_size <= 0.0 && initial.terrain.cell_size > 0.0)
        params = buildParams(preset, initial.terrain.cell_size, sets); // the file's (.asc)
    return initial;
}

void shareInput(Params& params, InitialTerrain& initial, nlohmann::json& extra) {
    nlohmann::json h;
    if (processes().root())
        h = {{"params", params.values},
             {"width", initial.terrain.width},
             {"height", initial.terrain.height},
             {"rain_mask", initial.hasRainMask()},
             {"extra", extra}};
    try {
        h = nlohmann::json::parse(fromRoot(h.dump()));
        if (processes().root()) return;
        params.values = h.at("params").get<std::array<double, kParamCount>>();
        initial.terrain = {h.at("width").get<int>(), h.at("height").get<int>(), {}};
        initial.mask_on_root = h.at("rain_mask").get<bool>();
        extra = h.at("extra");
    } catch (const nlohmann::json::exception& e) {
        throw InputError(std::string("what rank 0 read arrived damaged: ") + e.what());
    }
}

InitialTerrain prepareAnalysis(const std::string& out, const std::string& report, const std::string& out_maps,
                               const TerrainOptions& terrain, const std::string& preset,
                               const std::vector<std::string>& sets, Params& params) {
    checkHeightmapAndReport(out, report, out_maps);
    return prepareTerrainAndParams(terrain, preset, sets, params);
}

void initialAquifer(const std::vector<float>& ground, const Params& params, std::vector<float>& base,
                    std::vector<float>& groundwater) {
    const double thickness = params[Param::aquifer_thickness], porosity = params[Param::porosity];
    const double saturated = std::max(thickness - params[Param::initial_table_depth], 0.0);
    base.resize(ground.size());
    groundwater.assign(ground.size(), static_cast<float>(porosity * saturated));
    for (size_t i = 0; i < ground.size(); ++i) base[i] = static_cast<float>(double(ground[i]) - thickness);
}

namespace {

// Layered ground starts under a regolith of regolith_depth (without layers nothing reads it).
bool startsLayered(const Params& params) {
    return params[Param::enable_layers] != 0 && params[Param::regolith_depth] > 0;
}

} // namespace

void loadInitialState(gpu::Simulation& sim, const InitialTerrain& initial, const Params& params) {
    // Every field at its initial value (field_table.h: no water, sediment, lakes or maps yet,
    // rain mask and uplift 1, no sea reached), then the ground, its hardness and its aquifer.
    sim.resetFields();
    for (bool next : {false, true}) sim.upload(gpu::Field::Terrain, initial.terrain.heights, next);
    sim.upload(gpu::Field::Hardness, initial.hardness);
    if (initial.hasRainMask()) sim.upload(gpu::Field::RainMask, initial.rain_mask);
    if (startsLayered(params)) {
        const std::vector<float> regolith = initialField(gpu::Field::Loose, initial, params);
        for (bool next : {false, true}) sim.upload(gpu::Field::Loose, regolith, next);
    }
    std::vector<float> base, groundwater;
    initialAquifer(initial.terrain.heights, params, base, groundwater);
    sim.upload(gpu::Field::AquiferBase, base);
    sim.upload(gpu::Field::Groundwater, groundwater);
    sim.resetTotals();
}

std::vector<float> initialField(gpu::Field f, const InitialTerrain& initial, const Params& params) {
    const std::vector<float>& z = initial.terrain.heights;
    std::vector<float> base, groundwater;
    switch (f) {
    case gpu::Field::Terrain: return z;
    case gpu::Field::Hardness:
        if (!initial.hardness.empty()) return initial.hardness;
        break;
    case gpu::Field::RainMask:
        if (!initial.rain_mask.empty()) return initial.rain_mask;
        break;
    case gpu::Field::Loose:
        if (startsLayered(params)) return std::vector<float>(z.size(), float(params[Param::regolith_depth]));
        break;
    case gpu::Field::AquiferBase:
    case gpu::Field::Groundwater:
        initialAquifer(z, params, base, groundwater);
        return f == gpu::Field::AquiferBase ? base : groundwater;
    default: break;
    }
    return std::vector<float>(z.size() * size_t(gpu::fieldChannels(f)), gpu::fieldInfo(f).initial);
}

StateSums sumState(const gpu::Simulation& sim, double cell_size) {
    StateSums sums;
    const double area = cell_size * cell_size;
    auto add = [&](gpu::Field f, double* total) {
        for (float v : sim.download(f)) {
            if (!std::isfinite(v)) {
                ++sums.nan_cells;
                continue;
            }
            if (total) *total += double(v) * area;
            if (f == gpu::Field::Terrain || f == gpu::Field::Sediment)
                sums.soil_magnitude += std::abs(double(v)) * area;
        }
    };
    add(gpu::Field::Terrain, &sums.terrain);
    add(gpu::Field::Water, &sums.water);
    add(gpu::Field::Sediment, &sums.sediment);
    add(gpu::Field::Groundwater, &sums.groundwater);
    add(gpu::Field::Loose, &sums.loose);
    add(gpu::Field::Snow, &sums.snow);
    // Lava: its depth (x) makes the volume; its temperature (y) is checked for NaN only.
    const std::vector<float> lava = sim.download(gpu::Field::Lava);
    for (std::size_t i = 0; i + 1 < lava.size(); i += 2) {
        if (!std::isfinite(lava[i]) || !std::isfinite(lava[i + 1])) {
            ++sums.nan_cells;
            continue;
        }
        sums.lava += double(lava[i]) * area;
    }
    add(gpu::Field::Velocity, nullptr);
    add(gpu::Field::Outflow, nullptr);
    return sums;
}

} // namespace alluvium
