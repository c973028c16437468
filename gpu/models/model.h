// A model is one file in this folder and one row of the model table (models.cpp): its name, the
// passes its step times, the ping-pong fields it writes, and record(), which records one step
// with the recorder. Parts that several models' steps share (groundwater, the sea) live here too.
// Models see the simulation only through what a Step carries and a ModelHost lends: none
// includes the simulation's header.
#pragma once
#include <array>
#include <functional>
#include <string>
#include <vector>

#include "fields.h"
#include "passes.h"
#include "resources.h"
#include "step_recorder.h"

namespace alluvium::gpu {

class FluvialState; // models/fluvial.h

// How the pipe step runs its erosion, transport, thermal erosion and evaporation: one fused pass
// with tiles in shared memory (GPUs), or three direct passes that read neighbours from images
// (CPU drivers such as lavapipe, where shared memory is slower than image reads). Both compute
// the same numbers with the same code (shaders/pipe_erosion.glsl).
enum class PipePasses { Auto, Fused, Direct };

// The pipe model's state between steps: its CFL sub-steps and the sediment correction a step
// may leave to the next one's erosion (models/pipe.cpp).
struct PipeState {
    PipePasses passes = PipePasses::Fused;
    int substeps = 1;
    long long substeps_taken = 0;
    int max_substeps = 1;
    bool correction_carried = false;
    long long corrections_carried = 0;
};

// A spring: water the pipe step adds around a point (springs_prepare.comp).
struct Spring {
    float x, y, radius, rate_per_cell; // cells, cells, cells, m^3/s per cell
};

// The sea (models/sea.cpp): the tide's clock and the spill relaxation on the host's side (what
// sessions and snapshots keep), and its counters on the GPU.
struct SeaState {
    struct Host {
        double sim_time = 0.0; // simulated seconds since the start: the tide's clock
        int half = 0;          // the half of the relax pair the next spill round reads
        bool dirty = true;     // the spill surface in use is not the ground's: run it to its end
        bool restart = true;   // the relax pair holds something else: the next round starts over
    } host;
    Buffer control; // SeaControl, host-visible
};

// What the models keep between steps; the simulation owns it.
struct ModelState {
    PipeState pipe;
    SeaState sea;
    FluvialState* fluvial = nullptr;
};

// What one step (or a model's other recording) is recorded with: the recorder, in a command
// buffer with the simulation's current set bound; the host's parameters (the shaders see the
// pipe sub-step's time step); the models' state; the simulation's parity, which a pipe sub-step
// flips.
struct Step {
    StepRecorder& rec;
    const SimParams& params;
    ModelState& state;
    int& parity;
    const std::array<VkDescriptorSet, kParityKeys>& sets;
    bool another_follows; // another step follows in this command buffer, with nothing between
    int live;             // livePingPong(params)

    // Flips the halves of the ping-pong fields in `fields` (bits: kAllPingPong for all) that the
    // step writes under its parameters, and binds the set of the new parity.
    void flip(int fields) {
        rec.settle(); // the state is whole between sub-steps
        parity ^= fields & live;
        rec.bind(sets[size_t(parity)]);
    }
};

// The simulation as the models see it outside a step: submissions recorded like a step (the
// parameters uploaded first, the current set bound, submitted and waited for), its fields, its
// parameters and the models' state.
class ModelHost {
public:
    virtual void submit(const std::function<void(Step&)>& record) = 0;
    virtual std::vector<float> read(Field f) const = 0; // a field's current half
    virtual const SimParams& params() const = 0;
    virtual ModelState& state() = 0;

protected:
    ~ModelHost() = default;
};

struct Model {
    int id;                          // MODEL_* (shared.h): the shaders read it in SimParams.model
    const char* name;                // --model NAME
    const char* summary;             // one line: --help, the README
    std::vector<Field> writes;       // the ping-pong fields its step writes (their halves flip)
    std::vector<Pass> timed;         // what a timed step stamps after, in order (the bench's rows)
    std::vector<Pass> timed_direct;  // ... with the pipe step's direct passes (empty: the same)
    std::vector<const char*> phases; // the rows' names when they are phases, not passes (fluvial)
    void (*record)(Step& step);      // nullptr: its timed passes in order, a timestamp after each
    const char* water_note;          // what the report's water budget means (nullptr: the full budget)
    // Host work before each step, which then is its own submission (the fluvial model's lakes);
    // nullptr, or false: steps are recorded back to back.
    bool (*prepares)(const SimParams& params) = nullptr;
    void (*prepare)(ModelHost& host) = nullptr;
};

// The ping-pong fields a step writes under these parameters (bits): the loose layer only on
// layered ground, the snow only while it is on in the pipe model; while off no pass touches
// them, and their halves stay as they are.
inline int livePingPong(const SimParams& p) {
    int live = kAllPingPong;
    if (p.enable_layers == 0) live &= ~(1 << fieldPingPongBit(Field::Loose));
    if (p.enable_snow == 0 || p.model != MODEL_PIPE) live &= ~(1 << fieldPingPongBit(Field::Snow));
    if (p.enable_lava == 0 || p.model != MODEL_PIPE) live &= ~(1 << fieldPingPongBit(Field::Lava));
    return live;
}

// What Auto means (the direct passes, measured faster everywhere) or ALLUVIUM_PIPE_PASSES asks.
PipePasses resolvePipePasses(PipePasses asked);
const char* pipePassesName(PipePasses p);

// The model table, in MODEL_* order.
const std::vector<const Model*>& models();
const Model& model(int id);
const Model* findModel(const std::string& name); // nullptr if unknown
const char* modelName(int id);
int modelFromName(const std::string& name); // -1 if unknown
// "pipe, thermal, ...": every model's name, for help and messages.
std::string modelList(const char* separator = ", ");
// The bits of the ping-pong fields a model's step writes (fieldPingPongBit).
int writtenPingPong(const Model& m);
// The timed passes of a model's step, as recordStep stamps them.
const std::vector<Pass>& modelPasses(int id, PipePasses pipe = PipePasses::Fused);

} // namespace alluvium::gpu
