// The simulation: its state (the fields' images, the buffers, the models' state), its parameters,
// parity and sub-steps, and run(). A step is the model's record() (gpu/models) into the recorder
// (gpu/step_recorder.h). Headless: no window, no UI, no file formats.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "block_exchange.h"
#include "droplet_mail.h"
#include "fields.h"
#include "models/fluvial.h"
#include "models/model.h"
#include "step_recorder.h"

namespace alluvium::gpu {

// GPU bytes a W x H simulation needs (checked before allocating), without the fluvial model's
// buffers (allocated when that model is first used); the most of any workgroup shape, with
// `partials_per_group` of the step's sums per workgroup and slot.
uint64_t simulationBytes(int width, int height, uint32_t partials_per_group = 1);

// A grid split over processes (gpu/blocks.h): the transport between them, and the cells a step
// may reach beyond its own (stepReach of the parameters it will run with: the ghost band).
struct SplitOver {
    Transport* transport = nullptr; // nullptr, or one process: the whole grid here
    int reach = 0;
};
// Why a split grid cannot run these parameters (empty: it can): the models and parts whose state
// is not local yet, or a step that reaches beyond a ghost band `band` cells wide (< 0: unchecked).
std::string splitRefusal(const SimParams& params, int band = -1);

class Simulation : private ModelHost {
public:
    // Throws DeviceError if the grid does not fit the device. `pipe` Auto: the direct passes, the
    // faster form on every device measured (ALLUVIUM_PIPE_PASSES overrides); `shape`: the grid
    // passes' workgroups.
    // `split`: this process holds one block of the W x H grid; every call below then is made by
    // every process in the same order, and the whole-grid ones (upload, download, totals) see the
    // whole grid as one device would (download: on rank 0; the others get an empty field).
    Simulation(const Context& ctx, int width, int height, PipePasses pipe = PipePasses::Auto, WorkgroupShape shape = {},
               SplitOver split = {});
    ~Simulation();
    Simulation(const Simulation&) = delete;
    Simulation& operator=(const Simulation&) = delete;
    int width() const { return full_width_; }
    int height() const { return full_height_; }
    // The block this process holds when split (nullptr: the whole grid).
    const BlockExchange* blocks() const { return blocks_.get(); }

    // Whole-field transfers, row-major floats with fieldChannels() per cell; `next`: the other
    // half of a ping-pong pair (tests set up and read single passes with it). Split over
    // processes, every process calls them: rank 0's `data` is the whole field (the others' is not
    // read: they may pass none), and rank 0 alone gets the whole field back.
    void upload(Field f, const std::vector<float>& data, bool next = false);
    std::vector<float> download(Field f, bool next = false) const;
    void resetFields();     // every field (both halves) at its row's initial value
    void rainMaskChanged(); // the rain mask was written on the GPU (the brush): the passes read it

    void setParams(const SimParams& params); // the engine's fields are filled in here
    const SimParams& params() const override { return params_; }
    void setSprings(const std::vector<Spring>& springs);
    const std::vector<Spring>& springs() const { return springs_; }
    void resetTotals();
    Totals totals() const;
    void setTotals(const Totals& totals); // a resumed run's budgets
    const Buffer& totalsBuffer() const { return totals_; }

    // Records one step of the model in params().model and flips the parity of the fields it
    // writes; with a timer, a timestamp before it and after each of its timed passes.
    // `another_follows`: another step follows in the same command buffer, so the pipe step may
    // leave its sediment correction to it (models/pipe.cpp); a command buffer's last must not.
    void recordStep(VkCommandBuffer cmd, GpuTimer* timer = nullptr, bool another_follows = false);
    // Uploads the parameters and springs if they changed; at the start of every command buffer.
    void recordUpdates(VkCommandBuffer cmd);
    // One pass on its own, submitted (tests; no parity flip). The fold, the sea's rounds, the
    // water exchange and the groundwater flow record what a step records for them.
    void runPass(Pass pass);
    // Runs n steps in batches (submit, wait), calling progress(done) after each batch.
    void run(int steps, const std::function<void(int)>& progress = {});
    const std::vector<Pass>& stepPasses() const { return modelPasses(params_.model, state_.pipe.passes); }

    // The pipe model's CFL sub-steps: n of time_step / n, so that (|v| + sqrt(g d)) dt / (n L) <=
    // CFL_TARGET at the last step's wave speed; run() chooses n at each block of kSubstepBlock
    // steps (absolute: a run does not depend on its batches) and every step while n > 1.
    static constexpr int kSubstepBlock = 8;
    int substeps() const { return state_.pipe.substeps; }
    void adaptSubsteps(bool anywhere = false); // anywhere: also between blocks (the viewer, each frame)
    bool substepsDue() const;
    void measureWaveSpeed(); // into totals().step_wave, before a first step
    void setSubsteps(int n); // a resumed session's
    long long substepsTaken() const { return state_.pipe.substeps_taken; }
    int maxSubsteps() const { return state_.pipe.max_substeps; }
    long long correctionsCarried() const { return state_.pipe.corrections_carried; }

    bool splitWide() const { return fields_->split(); }
    WorkgroupShape workgroupShape() const { return shape_; }
    uint32_t partialsPerGroup() const { return partials_per_group_; }

    // Each ping-pong field has its own current half; parity() is the key of the combination
    // (fields.h); sets that bind the current images (the viewer, the brush) keep one per key.
    static constexpr int kParityKeys = gpu::kParityKeys;
    int parity() const { return parity_; }
    // Field f's image of parity `key` (`part` 1: the zw image of a split field); the images of
    // its current (or next) half.
    const Image& currentImage(Field f, int key, int part = 0) const;
    std::vector<const Image*> fieldImages(Field f, bool next = false) const;

    int stepIndex() const { return step_index_; }
    void setStepIndex(int step) { step_index_ = step; }         // (a resumed session's)
    double simTime() const { return state_.sea.host.sim_time; } // simulated seconds (the tide's clock)
    void setSimTime(double seconds) { state_.sea.host.sim_time = seconds; }
    float seaSurface() const; // for the step about to be recorded: sea_level plus the tide (m)
    // The sea's state (sessions and snapshots keep its host part, its control buffer, the fields).
    SeaState& sea() { return state_.sea; }
    const SeaState& sea() const { return state_.sea; }
    // The sea's control as one device holds it for the whole grid (a block's counts its own
    // workgroups): what a session keeps, the same file on any number of processes.
    SeaControl wholeSeaControl() const;
    // The sea's spill surface of the current ground, run to its end now; returns its rounds.
    int updateSeaSpill();
    // Seed 003's equilibrium water table (models/water_table.h) of the current ground into the
    // WaterTable field, in `iterations` rounds; returns the cells that still moved in the last.
    uint32_t computeWaterTable(int iterations, const std::function<void(int)>& progress = {});

    // Shader hot reload: a pass's pipelines rebuilt from `spirv` (waits for the device).
    void reloadPass(Pass pass, const std::vector<uint32_t>& spirv) { rec_->reload(pass, spirv); }
    uint32_t builtStepParts() const { return rec_->builtStepParts(); }
    void setPassesWithParts(bool on) { rec_->setPassesWithParts(on); } // tests: STEP_ALL, same bits

    // The fluvial model (models/fluvial.h): its buffers, allocated when it is first used (by
    // setParams, its passes or the calls below; a DeviceError leaves the simulation as it was).
    FluvialState& fluvial() { return *fluvial_; }
    const FluvialState& fluvial() const { return *fluvial_; }
    void allocateFluvial();
    FluvialControl fluvialAnalyse(bool drainage = true); // false: the fill and the receivers alone
    bool fluvialLakesOn() const { return gpu::fluvialLakesOn(params_); }
    void prepareFluvialLakes(); // before recording a step with lakes (run() does it itself)

private:
    void recordPass(VkCommandBuffer cmd, Pass pass);
    void submit(const std::function<void(Step&)>& record) override;
    std::vector<float> read(Field f) const override { return download(f, false); }
    ModelState& state() override { return state_; }
    Step step(bool another_follows);
    int half(Field f, bool next) const; // the absolute half of f's current (or next) image
    void requireSettled(const char* what) const;
    void createBuffers();
    void createDescriptorSets();
    int exchange(Exchange what); // the recorder's hand-overs of a split grid (simulation_split.cpp)
    void bindDroplets();         // the droplets' mailboxes, into every set
    void checkSplit(const SimParams& params) const;
    void checkLayoutAlike(Transport& transport) const;
    void checkProcessesAlike(bool split_wide);
    static int bandSteps();
    void chooseBands();
    void bandsAfterStep();

    const Context& ctx_;
    int width_ = 0, height_ = 0;           // the images': the block and its bands when split
    int full_width_ = 0, full_height_ = 0; // the whole grid
    std::unique_ptr<BlockExchange> blocks_;
    std::unique_ptr<DropletMail> mail_;              // the particles' hand-overs between blocks
    std::vector<std::pair<Field, int>> band_images_; // what blocks_'s images hold: field, half
    std::vector<bool> step_bands_;                   // per image: a step writes it (swapped after steps)
    bool sea_relaxed_ = false;                       // a split grid's whole relaxation of the sea has ended
    int band_steps_ = 1;                             // (sub-)steps between band swaps (ALLUVIUM_BAND_STEPS)
    long long settles_ = 0;                          // (sub-)steps ended since the start
    int parity_ = 0;                                 // bit fieldPingPongBit(f): the current half of ping-pong field f
    WorkgroupShape shape_{16, 16};
    uint32_t partials_per_group_ = 1;
    bool rain_uniform_ = true;
    SimParams params_{};
    bool params_dirty_ = true, springs_dirty_ = true;
    std::vector<Spring> springs_;
    int step_index_ = 0; // steps recorded since construction (models with events in time)
    std::unique_ptr<FieldImages> fields_;
    Buffer params_buffer_, partials_, totals_, springs_buffer_, delta_, drained_;
    ModelState state_;
    std::unique_ptr<FluvialState> fluvial_;
    VkDescriptorSetLayout set_layout_ = VK_NULL_HANDLE;
    VkPipelineLayout pipeline_layout_ = VK_NULL_HANDLE;
    VkDescriptorPool descriptor_pool_ = VK_NULL_HANDLE;
    std::array<VkDescriptorSet, kParityKeys> sets_{};
    std::unique_ptr<StepRecorder> rec_;
};

} // namespace alluvium::gpu
