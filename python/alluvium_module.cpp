// `import alluvium`: the engine from Python (pybind11, numpy). One Simulation owns a Vulkan context
// and a gpu::Simulation, set up exactly as `alluvium run` sets up its own (so the same terrain,
// parameters and steps give the same state digest), and reads and writes numpy arrays:
//
//   sim = alluvium.Simulation(heights, cell_size=4.0, model="pipe")   # or a file path, or None
//   sim.set("rain_rate", 2.0)    # ValueError: an unknown name or a value out of range
//   sim.run(100)                 # the GIL released while the GPU works
//   sim.field("water")           # float32 (height, width) or (height, width, channels)
//   sim.report()                 # the dict of `alluvium run --report`, state_digest included
//
// Errors carry the command line's one-line messages: bad input and parameters as ValueError, a
// missing device or a broken installation as RuntimeError.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <dlfcn.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "commands.h"
#include "export.h"
#include "io/atomic_file.h"
#include "io/errors.h"
#include "models/model.h"
#include "pipeline.h"
#include "presets.h"
#include "report.h"
#include "session.h"
#include "setup.h"

namespace py = pybind11;
namespace fs = std::filesystem;

namespace alluvium::python {

namespace {

using Heights = py::array_t<float, py::array::c_style | py::array::forcecast>;

// The folders the engine finds its shaders and presets in, from where this module lies: an
// install (<prefix>/lib/python3/dist-packages next to <prefix>/share/alluvium) or the build tree.
// The environment's ALLUVIUM_SHADER_DIR and ALLUVIUM_ASSET_DIR win.
void locateInstallation() {
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(&locateInstallation), &info) == 0 || info.dli_fname == nullptr) return;
    const fs::path here = fs::path(info.dli_fname).parent_path();
    const fs::path share = here / ".." / ".." / ".." / "share" / "alluvium";
    std::error_code ec;
    if (!std::getenv("ALLUVIUM_SHADER_DIR")) {
        for (const fs::path& dir : {share / "shaders", fs::path(ALLUVIUM_BUILD_SPIRV_DIR)})
            if (fs::exists(dir / "sources_flux.spv", ec)) {
                setenv("ALLUVIUM_SHADER_DIR", dir.lexically_normal().c_str(), 0);
                break;
            }
    }
    if (!std::getenv("ALLUVIUM_ASSET_DIR")) {
        for (const fs::path& dir : {share, fs::path(ALLUVIUM_SOURCE_ASSETS)})
            if (fs::is_directory(dir / "presets", ec)) {
                setenv("ALLUVIUM_ASSET_DIR", dir.lexically_normal().c_str(), 0);
                break;
            }
    }
}

// A parameter's value as --set takes it: a number, a bool (1 or 0) or a choice's name.
std::string valueText(const py::object& value) {
    if (py::isinstance<py::bool_>(value)) return value.cast<bool>() ? "1" : "0";
    return py::str(value).cast<std::string>();
}

int modelNamed(const std::string& name) {
    const int model = gpu::modelFromName(name);
    if (model < 0) throw InputError("unknown model '" + name + "' (use " + gpu::modelList() + ")");
    return model;
}

// A numpy array of heights (m) as the starting terrain, checked as a file's would be.
InitialTerrain terrainFromArray(const Heights& heights) {
    if (heights.ndim() != 2) throw InputError("heights: a 2-D array (rows, columns) is needed");
    InitialTerrain initial;
    initial.terrain.height = int(heights.shape(0));
    initial.terrain.width = int(heights.shape(1));
    if (initial.terrain.width < 1 || initial.terrain.height < 1 || initial.terrain.width > kMaxGridSide ||
        initial.terrain.height > kMaxGridSide)
        throw InputError("heights: " + std::to_string(heights.shape(1)) + "x" + std::to_string(heights.shape(0)) +
                         " cells; each side must be 1.." + std::to_string(kMaxGridSide));
    initial.terrain.heights.assign(heights.data(), heights.data() + heights.size());
    for (std::size_t i = 0; i < initial.terrain.heights.size(); ++i)
        if (!std::isfinite(initial.terrain.heights[i]) || std::abs(initial.terrain.heights[i]) > 1e7f)
            throw InputError("heights: cell (" + std::to_string(i % std::size_t(initial.terrain.width)) + ", " +
                             std::to_string(i / std::size_t(initial.terrain.width)) + ") is " +
                             (std::isnan(initial.terrain.heights[i]) ? std::string("NaN") : "not a usable height"));
    initial.hardness.assign(initial.terrain.heights.size(), 0.25f); // as a file's
    return initial;
}

class Simulation {
public:
    // `heights`: a 2-D array (m), a heightmap file's path, or None for a procedural terrain of
    // `size` (w, h) from `seed` (and `terrain`, the shape). The rest as `alluvium run`'s options.
    Simulation(const py::object& heights, double cell_size, const std::string& model, const std::string& preset,
               std::optional<std::pair<int, int>> size, uint64_t seed, const std::string& terrain,
               const std::map<std::string, py::object>& params, int device, bool validation)
        : seed_(seed) {
        std::vector<std::string> sets; // as --set: before the initial state is laid down
        for (const auto& [name, value] : params) sets.push_back(name + "=" + valueText(value));
        TerrainOptions options;
        options.cell_size = cell_size;
        options.seed = seed;
        options.terrain = terrain;
        if (size) options.size = std::to_string(size->first) + "x" + std::to_string(size->second);
        const bool path = py::isinstance<py::str>(heights) || py::isinstance<py::bytes>(heights) ||
                          py::hasattr(heights, "__fspath__");
        if (heights.is_none() || path) {
            if (path) options.in = py::module_::import("os").attr("fsdecode")(heights).cast<std::string>();
            initial_ = prepareTerrainAndParams(options, preset, sets, params_);
        } else {
            if (size || !terrain.empty())
                throw InputError("size and terrain make a procedural terrain: not with heights");
            initial_ = terrainFromArray(heights.cast<Heights>());
            params_ = buildParams(preset, cell_size, sets);
        }
        const std::string preset_model = presetModel(preset);
        model_ = modelNamed(!model.empty() ? model : !preset_model.empty() ? preset_model : "pipe");
        start(DeviceOptions{device, validation});
        loadInitialState(*sim_, initial_, params_);
        apply();
        before_ = sumState(*sim_, params_[Param::cell_size]);
    }

    // A saved session (`--save-session`, the viewer's), to go on from.
    static std::unique_ptr<Simulation> fromSession(const std::string& path, int device, bool validation) {
        std::unique_ptr<Simulation> s(new Simulation());
        Session session = loadSession(path);
        s->model_ = modelNamed(session.model);
        s->params_ = sessionParams(session, "", 0.0, {});
        s->initial_.terrain = {session.width, session.height, session.initial_terrain};
        s->start(DeviceOptions{device, validation});
        restoreSession(*s->sim_, session);
        s->sim_->setStepIndex(int(session.steps));
        s->steps_ = session.steps;
        s->steps_before_ = session.steps;
        s->before_ = session.initial_sums;
        s->apply();
        return s;
    }

    void set(const std::string& name, const py::object& value) {
        std::lock_guard lock(busy_);
        Params next = params_;
        next.set(name, valueText(value)); // ParamError: the CLI's message for --set
        params_ = next;
        apply();
    }
    double get(const std::string& name) const { return params_.values[size_t(paramIndex(name))]; }

    void run(int steps) {
        if (steps < 0) throw InputError("run: steps must be >= 0");
        if (steps_ + steps > kMaxSessionSteps)
            throw InputError("run: a simulation may not go past step " + std::to_string(kMaxSessionSteps));
        {
            py::gil_scoped_release release; // other threads run while the GPU works...
            std::lock_guard lock(busy_);    // ...but not on this simulation
            sim_->run(steps);
        }
        steps_ += steps;
    }

    py::array_t<float> field(const std::string& name) const {
        for (int i = 0; i < gpu::kFieldCount; ++i) {
            const gpu::FieldInfo& info = gpu::fieldInfo(gpu::Field(i));
            if (name != info.name || info.kept != gpu::FieldKept::State) continue;
            std::lock_guard lock(busy_);
            std::vector<float> data = sim_->download(gpu::Field(i));
            std::vector<py::ssize_t> shape = {sim_->height(), sim_->width()};
            if (info.channels > 1) shape.push_back(info.channels);
            py::array_t<float> out(shape);
            std::copy(data.begin(), data.end(), out.mutable_data());
            return out;
        }
        throw InputError("field '" + name + "': unknown (use " + stateFieldList() + ")");
    }

    py::dict report() {
        std::unique_lock lock(busy_);
        RunFacts facts;
        const double cell_size = params_[Param::cell_size];
        facts.before = before_;
        facts.after = sumState(*sim_, cell_size);
        facts.state_digest = gpu::digestText(gpu::stateDigest(*sim_));
        const std::vector<float> final_heights = sim_->download(gpu::Field::Terrain);
        facts.steps = steps_;
        facts.steps_before = steps_before_;
        facts.cell_size = cell_size;
        facts.initial_heights = &initial_.terrain.heights;
        facts.final_heights = &final_heights;
        facts.years = params_[Param::fluvial_time_step] * double(facts.steps);
        facts.last_fill = sim_->fluvial().hostControl();
        if (model_ == MODEL_FLUVIAL) facts.analysis = sim_->fluvialAnalyse();
        const std::string text = runReport(*sim_, facts).dump();
        lock.unlock();
        return py::module_::import("json").attr("loads")(text).cast<py::dict>();
    }

    void saveSessionTo(const std::string& path) const {
        std::lock_guard lock(busy_);
        std::vector<float> initial = initial_.terrain.heights;
        saveSession(path, captureSession(*sim_, params_, std::move(initial), before_, steps_));
    }
    // `--out-maps`' files, all or none. Erosion, deposition and flow are recorded only with
    // record_maps on (params={"record_maps": 1}: it is part of the state, like the CLI's runs with
    // --out-maps); lake_depth and drainage_area are the last fluvial analysis'.
    void writeMaps(const std::string& dir) const {
        std::lock_guard lock(busy_);
        if (params_[Param::record_maps] == 0.0)
            throw InputError("write_maps: erosion, deposition and flow need record_maps on from the start "
                             "(params={'record_maps': 1})");
        OutputBatch outputs;
        exportMaps(*sim_, dir);
        outputs.commit();
    }

    int width() const { return sim_->width(); }
    int height() const { return sim_->height(); }
    long long steps() const { return steps_; }
    std::string modelName() const { return gpu::modelName(model_); }

private:
    Simulation() = default;

    void start(const DeviceOptions& device) {
        ctx_ = std::make_unique<ScopedContext>(device);
        sim_ = std::make_unique<gpu::Simulation>(ctx_->ctx, initial_.terrain.width, initial_.terrain.height);
    }
    // The parameters to the GPU, as `alluvium run` gives them.
    void apply() {
        gpu::SimParams p = toSimParams(params_, sim_->width(), sim_->height());
        p.model = model_;
        p.particle_seed = static_cast<uint32_t>(seed_);
        sim_->setParams(p);
    }
    static int paramIndex(const std::string& name) {
        for (int i = 0; i < kParamCount; ++i)
            if (name == paramInfo(Param(i)).name) return i;
        Params probe;
        probe.set(name, "0"); // throws the CLI's message for an unknown name
        return 0;
    }
    static std::string stateFieldList() {
        std::string list;
        for (int i = 0; i < gpu::kFieldCount; ++i)
            if (gpu::fieldInfo(gpu::Field(i)).kept == gpu::FieldKept::State)
                list += (list.empty() ? "" : ", ") + std::string(gpu::fieldInfo(gpu::Field(i)).name);
        return list;
    }

    std::unique_ptr<ScopedContext> ctx_; // before sim_: destroyed after it
    std::unique_ptr<gpu::Simulation> sim_;
    InitialTerrain initial_;
    Params params_;
    int model_ = MODEL_PIPE;
    uint64_t seed_ = 1;
    long long steps_ = 0, steps_before_ = 0; // all, and those of a session it went on from
    mutable std::mutex busy_;                // one call at a time on the GPU: run() lets go of the GIL
    StateSums before_;
};

} // namespace

} // namespace alluvium::python

PYBIND11_MODULE(alluvium, m) {
    using namespace alluvium;
    using python::Simulation;
    m.doc() = "Alluvium: real-time terrain erosion on Vulkan compute";
    python::locateInstallation();
    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) std::rethrow_exception(p);
        } catch (const InputError& e) {
            PyErr_SetString(PyExc_ValueError, e.what());
        } catch (const ParamError& e) {
            PyErr_SetString(PyExc_ValueError, e.what());
        } catch (const gpu::DeviceError& e) {
            PyErr_SetString(PyExc_RuntimeError, e.what());
        } catch (const gpu::InstallError& e) {
            PyErr_SetString(PyExc_RuntimeError, e.what());
        }
    });
    py::class_<Simulation>(m, "Simulation")
        .def(py::init<const py::object&, double, const std::string&, const std::string&,
                      std::optional<std::pair<int, int>>, uint64_t, const std::string&,
                      const std::map<std::string, py::object>&, int, bool>(),
             py::arg("heights") = py::none(), py::arg("cell_size") = 0.0, py::arg("model") = "", py::arg("preset") = "",
             py::arg("size") = py::none(), py::arg("seed") = 1, py::arg("terrain") = "",
             py::arg("params") = std::map<std::string, py::object>(), py::arg("device") = -1,
             py::arg("validation") = false,
             "heights: a 2-D float array (m, rows north to south), a heightmap file, or None (procedural, "
             "`size` (w, h) from `seed`); cell_size 0: the preset's or the table's; params: {name: value} as "
             "--set, before the initial state is laid down")
        .def_static("from_session", &Simulation::fromSession, py::arg("path"), py::arg("device") = -1,
                    py::arg("validation") = false, "a saved session, to go on from")
        .def("set", &Simulation::set, py::arg("name"), py::arg("value"),
             "set a parameter by its table name (ValueError: unknown, or out of range)")
        .def("get", &Simulation::get, py::arg("name"))
        .def("run", &Simulation::run, py::arg("steps"), "run N steps (the GIL released)")
        .def("field", &Simulation::field, py::arg("name"), "a state field as a float32 array")
        .def("report", &Simulation::report, "the report of `alluvium run --report`, as a dict")
        .def("save_session", &Simulation::saveSessionTo, py::arg("path"))
        .def("write_maps", &Simulation::writeMaps, py::arg("dir"), "the maps of `alluvium run --out-maps`")
        .def_property_readonly("width", &Simulation::width)
        .def_property_readonly("height", &Simulation::height)
        .def_property_readonly("steps", &Simulation::steps)
        .def_property_readonly("model", &Simulation::modelName);
    m.def("presets", &presetNames, "the names `preset=` accepts");
}
