#include "session.h"

#include "models/sea.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <nlohmann/json.hpp>

#include "io/atomic_file.h"
#include "io/errors.h"
#include "io/heightmap.h"
#include "io/input_file.h"
#include "presets.h"

namespace alluvium {

namespace session_bytes {

uint64_t fnv1a64(const std::byte* data, size_t n) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; ++i) {
        h ^= static_cast<uint64_t>(data[i]);
        h *= 0x100000001b3ull;
    }
    return h;
}

void putU32(std::vector<std::byte>& out, uint32_t v) {
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::byte>((v >> (8 * i)) & 0xffu));
}
void putU64(std::vector<std::byte>& out, uint64_t v) {
    for (int i = 0; i < 8; ++i) out.push_back(static_cast<std::byte>((v >> (8 * i)) & 0xffu));
}
uint64_t getLE(const std::byte* p, int bytes) {
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | static_cast<uint64_t>(p[i]);
    return v;
}

} // namespace session_bytes

using namespace session_bytes;

namespace {

constexpr char kMagic[16] = {'A', 'L', 'L', 'U', 'V', 'I', 'U', 'M', '-', 'S', 'E', 'S', 'S', 'I', 'O', 'N'};
constexpr size_t kFixedBytes = 24; // magic, version, header length
constexpr size_t kChecksumBytes = 8;
constexpr const char* kInitialTerrain = "initial_terrain";

// Fields that every session must hold; fields added later (accumulators, the fluvial model's
// fields) are optional and start at zero (the uplift multiplier at one) when an older file
// lacks them.
bool isCoreField(gpu::Field f) {
    using gpu::Field;
    return f == Field::Terrain || f == Field::Water || f == Field::Sediment || f == Field::Outflow ||
           f == Field::Velocity || f == Field::Hardness || f == Field::RainMask;
}

void putFloats(std::vector<std::byte>& out, const std::vector<float>& values) {
    const size_t at = out.size();
    out.resize(at + values.size() * 4);
    std::byte* p = out.data() + at;
    for (float f : values) {
        uint32_t bits = 0;
        std::memcpy(&bits, &f, 4);
        for (int i = 0; i < 4; ++i) *p++ = static_cast<std::byte>((bits >> (8 * i)) & 0xffu);
    }
}
std::vector<float> getFloats(const std::byte* p, size_t count) {
    std::vector<float> values(count);
    for (size_t k = 0; k < count; ++k, p += 4) {
        const auto bits = static_cast<uint32_t>(getLE(p, 4));
        std::memcpy(&values[k], &bits, 4);
    }
    return values;
}

// JSON has no NaN or infinity: they are written as null (only the totals can hold them).
nlohmann::json number(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

} // namespace

std::vector<gpu::Field> sessionFields() {
    std::vector<gpu::Field> fields;
    for (int i = 0; i < static_cast<int>(gpu::Field::Count); ++i) {
        const auto f = static_cast<gpu::Field>(i);
        if (!gpu::fieldIsDerived(f)) fields.push_back(f); // scratch images are rewritten before use
    }
    return fields;
}

Session captureSession(const gpu::Simulation& sim, const Params& params, std::vector<float> initial_terrain,
                       const StateSums& initial_sums, long long steps) {
    Session s;
    s.width = sim.width();
    s.height = sim.height();
    s.steps = steps;
    s.model = gpu::modelName(sim.params().model);
    s.params = params;
    s.springs = sim.springs();
    s.totals = sim.totals();
    s.substeps = sim.substeps();
    s.initial_sums = initial_sums;
    s.initial_terrain = std::move(initial_terrain);
    s.sim_time = sim.simTime();
    const gpu::SeaState::Host& sea = sim.sea().host;
    s.sea_half = sea.half;
    s.sea_dirty = sea.dirty;
    s.sea_restart = sea.restart;
    s.sea_control = sim.wholeSeaControl();
    for (gpu::Field f : sessionFields()) s.fields.emplace_back(f, sim.download(f, false));
    return s;
}

gpu::SimParams sessionSimParams(const Session& s) { return toSimParams(s.params, s.width, s.height); }

void restoreSession(gpu::Simulation& sim, const Session& s) {
    // Only the cur halves: every pass writes each cell of a "next" half before a later pass
    // reads it (tests/test_session.cpp checks resume == straight through, bit for bit).
    for (const auto& [field, values] : s.fields) sim.upload(field, values, false);
    sim.setSprings(s.springs);
    sim.setTotals(s.totals);
    sim.setParams(sessionSimParams(s));
    sim.sea().host = {s.sim_time, s.sea_half, s.sea_dirty, s.sea_restart};
    gpu::setSeaControl(sim.sea(), s.sea_control);
    sim.setSubsteps(s.substeps);
}

Params sessionParams(const Session& session, const std::string& preset, double cell_size,
                     const std::vector<std::string>& sets) {
    return buildParams(preset, cell_size, sets, session.params);
}

nlohmann::json sessionHeader(const Session& s) {
    nlohmann::json header;
    header["model"] = s.model;
    header["width"] = s.width;
    header["height"] = s.height;
    header["steps"] = s.steps;
    nlohmann::json params = nlohmann::json::object();
    for (int i = 0; i < kParamCount; ++i) params[paramTable()[size_t(i)].name] = s.params.values[size_t(i)];
    header["params"] = params;
    nlohmann::json springs = nlohmann::json::array();
    for (const gpu::Spring& sp : s.springs)
        springs.push_back({{"x", sp.x}, {"y", sp.y}, {"radius", sp.radius}, {"rate_per_cell", sp.rate_per_cell}});
    header["springs"] = springs;
    nlohmann::json acc = nlohmann::json::array();
    for (double v : s.totals.acc) acc.push_back(number(v));
    header["totals"] = {{"acc", acc},
                        {"sediment_scale", number(s.totals.sediment_scale)},
                        {"max_speed", number(s.totals.max_speed)},
                        {"step_wave", number(s.totals.step_wave)},
                        {"max_cfl", number(s.totals.max_cfl)},
                        {"max_froude", number(s.totals.max_froude)},
                        {"substeps", s.substeps}};
    header["initial_sums"] = {{"water", s.initial_sums.water},       {"terrain", s.initial_sums.terrain},
                              {"sediment", s.initial_sums.sediment}, {"groundwater", s.initial_sums.groundwater},
                              {"loose", s.initial_sums.loose},       {"snow", s.initial_sums.snow},
                              {"lava", s.initial_sums.lava}};
    header["sim_time"] = s.sim_time;
    const uint32_t* control = reinterpret_cast<const uint32_t*>(&s.sea_control);
    header["sea"] = {{"half", s.sea_half},
                     {"dirty", s.sea_dirty},
                     {"restart", s.sea_restart},
                     {"control", std::vector<uint32_t>(control, control + sizeof(gpu::SeaControl) / 4)}};
    nlohmann::json arrays = nlohmann::json::array();
    arrays.push_back({{"name", kInitialTerrain}, {"channels", 1}});
    for (const auto& [field, values] : s.fields)
        arrays.push_back({{"name", gpu::fieldName(field)}, {"channels", gpu::fieldChannels(field)}});
    header["arrays"] = arrays;
    return header;
}

std::vector<std::byte> encodeSession(const Session& s) {
    const std::string text = sessionHeader(s).dump();

    std::vector<std::byte> out;
    const size_t cells = size_t(s.width) * size_t(s.height);
    size_t body = s.initial_terrain.size();
    for (const auto& entry : s.fields) body += entry.second.size();
    out.reserve(kFixedBytes + text.size() + 4 * body + kChecksumBytes);
    for (char c : kMagic) out.push_back(static_cast<std::byte>(c));
    putU32(out, kSessionVersion);
    putU32(out, static_cast<uint32_t>(text.size()));
    for (char c : text) out.push_back(static_cast<std::byte>(c));
    if (s.initial_terrain.size() != cells) throw std::logic_error("session: initial terrain has the wrong size");
    putFloats(out, s.initial_terrain);
    for (const auto& [field, values] : s.fields) {
        if (values.size() != cells * size_t(gpu::fieldChannels(field)))
            throw std::logic_error("session: field has the wrong size");
        putFloats(out, values);
    }
    putU64(out, fnv1a64(out.data() + kFixedBytes, out.size() - kFixedBytes));
    return out;
}

namespace {

// A damaged or foreign file: one line naming it.
struct SessionFail {
    std::string what;
    InputError operator()(const std::string& reason) const {
        return InputError("session '" + displayPath(what) + "': " + reason);
    }
};

// The fixed part (magic, version, the header's length) of `bytes`; returns the header's length
// and sets `version`.
size_t checkContainer(std::span<const std::byte> bytes, const SessionFail& fail, uint32_t& version) {
    const size_t size = bytes.size();
    const size_t magic_len = std::min(size, sizeof kMagic);
    if (size == 0 || std::memcmp(bytes.data(), kMagic, magic_len) != 0)
        throw fail("not an Alluvium session (bad magic)");
    if (size < kFixedBytes + kChecksumBytes) throw fail("truncated");
    version = static_cast<uint32_t>(getLE(bytes.data() + 16, 4));
    if (version == 0) throw fail("bad format version 0");
    if (version > kSessionVersion)
        throw fail("format version " + std::to_string(version) + " is newer than this alluvium reads (" +
                   std::to_string(kSessionVersion) + ")");
    const auto header_len = static_cast<size_t>(getLE(bytes.data() + 20, 4));
    if (header_len > size - kFixedBytes - kChecksumBytes) throw fail("truncated");
    return header_len;
}

// The model, the grid, the steps and the list of arrays (name, channels) the body holds.
std::vector<std::pair<std::string, int>> readLayout(const nlohmann::json& h, Session& s, const SessionFail& fail) {
    std::vector<std::pair<std::string, int>> arrays;
    if (!h.is_object()) throw fail("the header is not a JSON object");
    s.model = h.at("model").get<std::string>();
    if (gpu::modelFromName(s.model) < 0) throw fail("unknown model '" + s.model + "'");
    const long long w = h.at("width").get<long long>(), hh = h.at("height").get<long long>();
    if (w < 1 || hh < 1 || w > kMaxGridSide || hh > kMaxGridSide)
        throw fail("grid size " + std::to_string(w) + "x" + std::to_string(hh) + " is out of range");
    s.width = static_cast<int>(w);
    s.height = static_cast<int>(hh);
    s.steps = h.at("steps").get<long long>();
    // The step index is a 32-bit counter on the GPU (rain events, droplet seeds).
    if (s.steps < 0 || s.steps > kMaxSessionSteps)
        throw fail("step count " + std::to_string(s.steps) + " is out of range 0.." + std::to_string(kMaxSessionSteps));
    for (const auto& a : h.at("arrays")) {
        const std::string name = a.at("name").get<std::string>();
        const int channels = a.at("channels").get<int>();
        if (channels < 1 || channels > 4)
            throw fail("array '" + name + "' has " + std::to_string(channels) + " channels");
        for (const auto& prior : arrays)
            if (prior.first == name) throw fail("array '" + name + "' appears twice");
        arrays.emplace_back(name, channels);
    }
    return arrays;
}

// The arrays of the body at `p`, matched to this build's fields by name and channel count.
void readArrays(const std::byte* p, const std::vector<std::pair<std::string, int>>& arrays, Session& s,
                const SessionFail& fail) {
    const size_t cells = size_t(s.width) * size_t(s.height);
    bool have_initial = false;
    std::vector<bool> have(static_cast<size_t>(gpu::Field::Count), false);
    for (const auto& [name, channels] : arrays) {
        std::vector<float> values = getFloats(p, cells * size_t(channels));
        p += 4 * values.size();
        // A saved state is finite (a run with non-finite cells saves none); NaN here is damage
        // that the checksum did not catch, or a hand-made file.
        for (size_t k = 0; k < values.size(); ++k)
            if (!std::isfinite(values[k])) {
                const size_t cell = k / size_t(channels);
                throw fail("array '" + name + "' holds a non-finite value at cell (" +
                           std::to_string(cell % size_t(s.width)) + ", " + std::to_string(cell / size_t(s.width)) +
                           ")");
            }
        // Heights, like those of any input, lie within the accepted range.
        if (name == kInitialTerrain || name == gpu::fieldName(gpu::Field::Terrain))
            for (size_t k = 0; k < values.size(); ++k)
                if (std::abs(values[k]) > kMaxHeightMagnitude)
                    throw fail("array '" + name + "' holds the height " + std::to_string(values[k]) + " m at cell (" +
                               std::to_string(k % size_t(s.width)) + ", " + std::to_string(k / size_t(s.width)) +
                               "); heights must lie within -1e7..1e7 m");
        if (name == kInitialTerrain && channels == 1) {
            s.initial_terrain = std::move(values);
            have_initial = true;
            continue;
        }
        const auto fields = sessionFields();
        const auto f =
            std::find_if(fields.begin(), fields.end(), [&](gpu::Field x) { return name == gpu::fieldName(x); });
        if (f == fields.end()) throw fail("unknown field '" + name + "'");
        if (channels != gpu::fieldChannels(*f))
            throw fail("field '" + name + "' has " + std::to_string(channels) + " channels, expected " +
                       std::to_string(gpu::fieldChannels(*f)));
        s.fields.emplace_back(*f, std::move(values));
        have[static_cast<size_t>(*f)] = true;
    }
    if (!have_initial) throw fail("no initial_terrain");
    for (gpu::Field f : sessionFields()) {
        if (have[static_cast<size_t>(f)]) continue;
        if (isCoreField(f)) throw fail(std::string("no field '") + gpu::fieldName(f) + "'");
        // Older files: a field they lack starts at its initial value (the uplift multiplier at one).
        s.fields.emplace_back(f, std::vector<float>(cells * size_t(gpu::fieldChannels(f)), gpu::fieldInfo(f).initial));
    }
}

// Parameters by name in the table's units (a parameter the file lacks keeps its default), and
// the springs. Version 1 held thermal_rate per second on the file's cells: the same slumping is
// the diffusivity rate x cell_size^2 (the cell size read first, whatever the header's order).
void readParamsAndSprings(const nlohmann::json& h, Session& s, const SessionFail& fail, uint32_t version) {
    for (const auto& [name, value] : h.at("params").items()) {
        if (!findParam(name)) throw fail("unknown parameter '" + name + "'");
        if (!value.is_number()) throw fail("parameter '" + name + "' is not a number");
        char text[40];
        std::snprintf(text, sizeof text, "%.17g", value.get<double>());
        s.params.set(name, text);
    }
    if (version < 2) {
        const double cell = s.params[Param::cell_size];
        const double most = paramTable()[static_cast<size_t>(Param::thermal_rate)].max;
        char text[40];
        std::snprintf(text, sizeof text, "%.17g", std::min(s.params[Param::thermal_rate] * cell * cell, most));
        s.params.set("thermal_rate", text);
    }
    for (const auto& sp : h.at("springs")) {
        const gpu::Spring spring{sp.at("x").get<float>(), sp.at("y").get<float>(), sp.at("radius").get<float>(),
                                 sp.at("rate_per_cell").get<float>()};
        // Where the viewer can place one: on the grid, a finite positive radius, a finite
        // non-negative rate.
        if (!(spring.x >= 0.0f && spring.x <= float(s.width) && spring.y >= 0.0f && spring.y <= float(s.height) &&
              spring.radius > 0.0f && std::isfinite(spring.radius) && spring.rate_per_cell >= 0.0f &&
              std::isfinite(spring.rate_per_cell)))
            throw fail("spring " + std::to_string(s.springs.size()) + " is off the grid or has a bad radius or rate");
        s.springs.push_back(spring);
    }
    if (s.springs.size() > kMaxSessionSprings)
        throw fail(std::to_string(s.springs.size()) + " springs; at most " + std::to_string(kMaxSessionSprings));
}

double realOrNaN(const nlohmann::json& v) {
    return v.is_null() ? std::numeric_limits<double>::quiet_NaN() : v.get<double>();
}

// The run's budgets and sub-steps.
void readTotals(const nlohmann::json& h, Session& s, const SessionFail& fail) {
    const auto& totals = h.at("totals");
    const auto& acc = totals.at("acc");
    // Older files hold fewer sums before the two totals that follow them (the correction, the
    // droplets' absorbed water): 16 before groundwater and the sea, 21 before snow, 23 before
    // lava, 26 before the Froude number. The sums they lack were 0 then.
    constexpr size_t kOlderLayouts[] = {16, 21, 23, 26};
    const bool older = acc.is_array() && std::find(std::begin(kOlderLayouts), std::end(kOlderLayouts), acc.size()) !=
                                             std::end(kOlderLayouts);
    if (!acc.is_array() || (acc.size() != TOTAL_SLOTS && !older))
        throw fail("totals.acc must hold " + std::to_string(TOTAL_SLOTS) + " numbers");
    const size_t slots = acc.size() - 2;
    for (size_t i = 0; i < slots; ++i) s.totals.acc[i] = realOrNaN(acc[i]);
    s.totals.acc[TOTAL_CORRECTION_ABS] = realOrNaN(acc[slots]);
    s.totals.acc[TOTAL_WATER_ABSORBED] = realOrNaN(acc[slots + 1]);
    s.totals.sediment_scale = static_cast<float>(realOrNaN(totals.at("sediment_scale")));
    s.totals.max_speed = static_cast<float>(realOrNaN(totals.at("max_speed")));
    // Written since the CFL sub-steps; older sessions ran one sub-step.
    s.totals.step_wave = static_cast<float>(totals.contains("step_wave") ? realOrNaN(totals.at("step_wave")) : 0.0);
    s.totals.max_cfl = static_cast<float>(totals.contains("max_cfl") ? realOrNaN(totals.at("max_cfl")) : 0.0);
    s.totals.max_froude = static_cast<float>(totals.contains("max_froude") ? realOrNaN(totals.at("max_froude")) : 0.0);
    s.substeps = totals.contains("substeps") ? totals.at("substeps").get<int>() : 1;
    if (s.substeps < 1 || s.substeps > MAX_SUBSTEPS)
        throw fail("totals.substeps must be 1.." + std::to_string(MAX_SUBSTEPS));
    const auto& sums = h.at("initial_sums");
    s.initial_sums.water = sums.at("water").get<double>();
    s.initial_sums.terrain = sums.at("terrain").get<double>();
    s.initial_sums.sediment = sums.at("sediment").get<double>();
    // Written since groundwater, layered ground, snow and lava (older files had none: 0).
    if (sums.contains("groundwater")) s.initial_sums.groundwater = sums.at("groundwater").get<double>();
    if (sums.contains("loose")) s.initial_sums.loose = sums.at("loose").get<double>();
    if (sums.contains("snow")) s.initial_sums.snow = sums.at("snow").get<double>();
    if (sums.contains("lava")) s.initial_sums.lava = sums.at("lava").get<double>();
}

// The tide's clock (older files: the steps at the saved time step) and where the sea's spill
// relaxation stands (older files start it over).
void readSea(const nlohmann::json& h, Session& s, const SessionFail& fail) {
    s.sim_time = h.contains("sim_time") ? h.at("sim_time").get<double>() : double(s.steps) * s.params[Param::time_step];
    if (!h.contains("sea")) return;
    const auto& sea = h.at("sea");
    s.sea_half = sea.at("half").get<int>();
    if (s.sea_half != 0 && s.sea_half != 1) throw fail("sea.half must be 0 or 1");
    s.sea_dirty = sea.at("dirty").get<bool>();
    s.sea_restart = sea.at("restart").get<bool>();
    const auto control = sea.at("control").get<std::vector<uint32_t>>();
    if (control.size() != sizeof(gpu::SeaControl) / 4)
        throw fail("sea.control must hold " + std::to_string(sizeof(gpu::SeaControl) / 4) + " numbers");
    std::memcpy(&s.sea_control, control.data(), sizeof(gpu::SeaControl));
}

} // namespace

Session decodeSession(std::span<const std::byte> bytes, const std::string& what) {
    const SessionFail fail{what};
    const size_t size = bytes.size();
    uint32_t version = 0;
    const size_t header_len = checkContainer(bytes, fail, version);
    nlohmann::json h;
    try {
        h = nlohmann::json::parse(reinterpret_cast<const char*>(bytes.data() + kFixedBytes),
                                  reinterpret_cast<const char*>(bytes.data() + kFixedBytes + header_len));
    } catch (const nlohmann::json::exception&) {
        throw fail("the header is not valid JSON (damaged file)");
    }
    Session s;
    std::vector<std::pair<std::string, int>> arrays;
    try {
        arrays = readLayout(h, s, fail);
    } catch (const nlohmann::json::exception& e) {
        throw fail(std::string("bad header: ") + e.what());
    }
    size_t body_floats = 0;
    for (const auto& [name, channels] : arrays) body_floats += size_t(s.width) * size_t(s.height) * size_t(channels);
    const size_t expected = kFixedBytes + header_len + 4 * body_floats + kChecksumBytes;
    if (size < expected)
        throw fail("truncated (" + std::to_string(size) + " bytes, the header describes " + std::to_string(expected) +
                   ")");
    if (size > expected)
        throw fail("sizes do not match the header (" + std::to_string(size - expected) + " bytes too many)");
    const uint64_t stored = getLE(bytes.data() + size - kChecksumBytes, 8);
    if (fnv1a64(bytes.data() + kFixedBytes, size - kFixedBytes - kChecksumBytes) != stored)
        throw fail("checksum mismatch (damaged file)");
    readArrays(bytes.data() + kFixedBytes + header_len, arrays, s, fail);
    try {
        readParamsAndSprings(h, s, fail, version);
        readTotals(h, s, fail);
        readSea(h, s, fail);
    } catch (const nlohmann::json::exception& e) {
        throw fail(std::string("bad header: ") + e.what());
    } catch (const ParamError& e) {
        throw fail(e.what());
    }
    return s;
}

Session sessionFromHeader(const nlohmann::json& h) {
    const SessionFail fail{"from rank 0"};
    Session s;
    for (const auto& [name, channels] : readLayout(h, s, fail))
        for (gpu::Field f : sessionFields())
            if (name == gpu::fieldName(f)) s.fields.emplace_back(f, std::vector<float>());
    readParamsAndSprings(h, s, fail, kSessionVersion);
    readTotals(h, s, fail);
    readSea(h, s, fail);
    return s;
}

void saveSession(const std::filesystem::path& path, const Session& session) {
    const std::vector<std::byte> bytes = encodeSession(session);
    writeFileAtomic(path, bytes);
}

Session loadSession(const std::filesystem::path& path) {
    requireRegularFile(path, "session");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError("cannot read session '" + displayPath(path) + "'");
    std::vector<char> data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (in.bad()) throw InputError("cannot read session '" + displayPath(path) + "'");
    return decodeSession(std::as_bytes(std::span<const char>(data.data(), data.size())), path.string());
}

} // namespace alluvium
