// The simulation state (storage images) and the ordered list of passes of one pipe-model step.
// Headless: no window, no UI, no file formats. The host edits a SimParams block; each step reads it.
#pragma once
#include <array>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "context.h"
#include "fields.h"
#include "resources.h"
#include "shared.h"
#include "timer.h"
#include "workgroup.h"

namespace alluvium::gpu {


// The pipe step's passes in the design's order (gpu/pipe.cpp): sources with the outflow flux;
// the water update with the velocity; erosion, transport, thermal erosion and evaporation; the
// fold of the step's sums (as many levels of reduce_partials as the grid needs, then
// reduce_totals); the sediment correction. Then the other models' passes.
enum class Pass {
    SourcesFlux, WaterVelocity, ErosionTransportThermalEvaporation, ReducePartials, ReduceTotals,
    SedimentCorrect,
    Erosion, TransportThermalOutflowEvaporation, ThermalGather, // the fused pass's direct form (CPU drivers)
    SpringsPrepare, // the springs' source image, when the springs change
    ReduceCheck,    // test-only: known values into the fold (tests/test_passes.cpp)
    WaveSpeed,      // the state's largest |v| + sqrt(g d), before the pipe model's first step
    TalusOutflow, TalusGather,       // the thermal and olsen models
    MusgraveTransfer, MusgraveApply, // the musgrave model
    SimpleTransfer, SimpleApply,     // the simple model
    Particles, ParticlesApply,       // the particles model
    // The fluvial model: a control pass between the iterative ones; depression routing (descent
    // and basin labels, label rounds, rounds of the basin graph: edges, hook, hook jumps, relabel;
    // the filled level, flats rounds); routing (and drainage within tiles), the loops over the
    // tiles' exits (init, rounds), the drainage and erosion maps, the new ground, deposition.
    FluvialControl, FluvialDescend, FluvialLabelJump, FluvialEdges, FluvialHook, FluvialHookJump, FluvialRelabel,
    FluvialLevel, FluvialFlats, FluvialRoute, FluvialTreeInit, FluvialTreeJump, FluvialTreePush, FluvialDrainage, FluvialApply,
    FluvialDeposit, FluvialLakeFill,
    GridTotals, // musgrave and simple: the step's rain and evaporation into the totals
    // Groundwater and the sea (gpu/groundwater.cpp, gpu/sea.cpp): the sea's spill rounds of the
    // step; seepage, infiltration and the ocean held at the sea's surface; the Dupuit flow's
    // sub-steps (head, then flow, each sub-step); the control and commit of the spill relaxation.
    SeaSpill, WaterExchange, GroundwaterFlow, GroundwaterHead, SeaControl, SeaCommit,
    // The equilibrium water table (gpu/water_table.cpp): start, red-black rounds, result.
    WaterTableInit, WaterTable, WaterTableStore,
    ReduceSubgroups, // CPU drivers: the fold's first half, each workgroup's subgroups (resolvePartialsPerGroup)
    Count
};
constexpr int kPassCount = static_cast<int>(Pass::Count);
const char* passName(Pass p);
// Bytes one pass reads and writes per cell, from the formats of the images it binds and what
// `params` switches on (a neighbour's texel is counted once: caches serve the rest). For the fold
// of the sums, its partials per cell. For the fluvial model's phases, per round.
double passBytesPerCell(Pass p, const SimParams& params, int width, int height);
// The pipe step's optional parts (STEP_* in shared.h) that `params` turns on: the step's passes
// are built with exactly these (common.glsl's STEP_PARTS), so what is off costs nothing on a CPU
// driver, which runs both sides of every branch. One pipeline per pass and set of parts in use.
uint32_t stepParts(const SimParams& params);
// Whether a pass's shader has parts (the pipe step's grid passes); the others are built with
// STEP_ALL and test the parameters as they run.
bool passHasStepParts(Pass p);
// Rows of cells per invocation a pass runs on a CPU driver where the tile allows it
// (partials.glsl's SUM_ROWS; Simulation::sumRows): kSumRows for the pipe step's passes with sums
// in every step, else 1. GPUs run 1.
constexpr int kSumRows = 4;
int cpuSumRows(Pass p);
// Shared memory the grid passes need per workgroup of a shape: the fused pipe pass's (its tile and
// rings in shared memory, and partials.glsl's subgroup sums).
uint32_t fusedSharedBytes(WorkgroupShape s);
// Whether the device runs the grid passes with this shape; the shape they run with (gpu/vk/workgroup.h).
inline bool deviceRunsShape(const Context& ctx, WorkgroupShape s) { return deviceRunsShape(ctx, s, fusedSharedBytes); }
inline WorkgroupShape resolveWorkgroupShape(const Context& ctx, WorkgroupShape asked = {}) {
    return resolveWorkgroupShape(ctx, asked, fusedSharedBytes);
}
// How the pipe step runs its erosion, transport, thermal erosion and evaporation: one fused pass
// with tiles in shared memory (GPUs), or three direct passes that read neighbours from images
// (CPU drivers such as lavapipe, where shared memory is slower than image reads). Both compute
// the same numbers with the same code (shaders/pipe_erosion.glsl).
enum class PipePasses { Auto, Fused, Direct };
const char* pipePassesName(PipePasses p);
// What Auto means on this device (and with ALLUVIUM_PIPE_PASSES set).
PipePasses resolvePipePasses(const Context& ctx, PipePasses asked);

// The passes of one step of a model (MODEL_*), in order, each followed by a timestamp when timed.
// For the fluvial model, its phases (basins, pass points, spill solve, flats, route, accumulate,
// erode, deposit), each of which records several dispatches (see fluvialRoundBounds).
const std::vector<Pass>& modelPasses(int model, PipePasses pipe = PipePasses::Fused);
// The fluvial model's phases by index in modelPasses(MODEL_FLUVIAL): basins, pass_points,
// spill_solve, flats, route, accumulate, erode, deposit.
const char* fluvialPhaseName(size_t phase);
// Bytes one fluvial phase reads and writes in an iteration, estimated from the rounds that ran
// (`c`, the control after the step) on a W x H grid (for effective GB/s).
double fluvialPhaseBytes(size_t phase, const FluvialControl& c, int width, int height, bool deposition);
const char* modelName(int model);
int modelFromName(const std::string& name); // -1 if unknown

struct Spring {
    float x, y, radius, rate_per_cell; // cells, cells, cells, m^3/s per cell
};

// GPU bytes a W x H simulation needs (checked against the device before allocating), without the
// fluvial model's buffers: those are allocated only when that model is first used. The most of
// any workgroup shape (the sums' buffers follow the workgroups), with `partials_per_group` of the
// step's sums per workgroup and slot (resolvePartialsPerGroup).
uint64_t simulationBytes(int width, int height, uint32_t partials_per_group = 1);
// GPU bytes of the fluvial model's buffers on a W x H grid (Simulation::allocateFluvial).
uint64_t fluvialBytes(int width, int height);
// The largest of the fluvial model's buffers (each is bound whole: it must fit the device's
// maxStorageBufferRange and maxMemoryAllocationSize, which allocateFluvial checks).
uint64_t fluvialLargestBuffer(int width, int height);

// The most rounds each loop of the fluvial model's fill can need on a W x H grid, whatever the
// terrain and the device: the host records that many (the GPU stops each loop when it is done).
struct FluvialRoundBounds {
    int label;               // basin labels across tiles: ceil(log2(ring nodes))
    int boruvka;             // rounds of the basin graph: floor(log2(basins)) + 1
    std::vector<int> hook;   // per round of the basin graph, its hook-jumping rounds
    int tree;                // each loop over the tiles' exits: ceil(log2(ring nodes))
    int hookTotal() const;
};
FluvialRoundBounds fluvialRoundBounds(int width, int height);
// Whether a W x H grid keeps its 4-channel fields as two rg32f images each, because one rgba32f
// image would exceed the device's largest allocation (ctx.max_allocation_bytes).
bool splitsWideFields(const Context& ctx, int width, int height);
// The fold of a step's sums: partials per slot in each level, from one per workgroup down to one
// (which reduce_totals adds to the totals); and the doubles the partials buffer holds.
std::vector<uint32_t> foldLevelSizes(uint32_t workgroups);
uint64_t partialsCount(uint32_t workgroups);
// Doubles in the partials buffer: the fold's levels, then, with `per_group` > 1 (CPU drivers),
// each subgroup's partial of every slot (they start at partialsCount(workgroups)).
inline uint64_t partialsBufferDoubles(uint32_t workgroups, uint32_t per_group) {
    return partialsCount(workgroups) + (per_group > 1 ? uint64_t(REDUCE_SLOTS) * workgroups * per_group : 0);
}
inline uint32_t workgroupCount(int width, int height, WorkgroupShape shape) {
    return groupsCovering(width, shape.x) * groupsCovering(height, shape.y);
}
inline std::vector<uint32_t> foldLevelSizes(int width, int height, WorkgroupShape shape) {
    return foldLevelSizes(workgroupCount(width, height, shape));
}

class Simulation {
public:
    // Throws DeviceError if the grid does not fit in the device's memory. `pipe` Auto: direct
    // passes on a CPU device, else fused; ALLUVIUM_PIPE_PASSES=fused|direct overrides Auto.
    // `shape`: the grid passes' workgroups (automatic: the device's, resolveWorkgroupShape).
    Simulation(const Context& ctx, int width, int height, PipePasses pipe = PipePasses::Auto,
               WorkgroupShape shape = {});
    ~Simulation();
    Simulation(const Simulation&) = delete;
    Simulation& operator=(const Simulation&) = delete;

    int width() const { return width_; }
    int height() const { return height_; }

    // Whole-field transfers, row-major floats with fieldChannels() per cell. `next` addresses
    // the other half of a ping-pong pair (tests set up and read single passes with it).
    void upload(Field f, const std::vector<float>& data, bool next = false);
    std::vector<float> download(Field f, bool next = false) const;

    void setParams(const SimParams& params); // width/height/group counts are filled in here
    const SimParams& params() const { return params_; }
    void setSprings(const std::vector<Spring>& springs);
    const std::vector<Spring>& springs() const { return springs_; }
    void resetTotals();
    Totals totals() const;
    // Continues a run's budgets (a resumed session): the totals buffer is host-visible.
    void setTotals(const Totals& totals);

    // Records one step of the model in params().model (its passes, with barriers) and flips the
    // ping-pong parity. With a timer, writes a timestamp before the first pass and after each
    // (the pipe model: after each pass of each of its substeps()). `another_follows`: the caller
    // records another step right after this one in the same command buffer, with nothing in
    // between, so the pipe step may leave its sediment correction (a pass over the grid) to that
    // step's erosion, which reads the sediment anyway (gpu/pipe.cpp). The last step of a command
    // buffer must be recorded without it: the state is then whole.
    void recordStep(VkCommandBuffer cmd, GpuTimer* timer = nullptr, bool another_follows = false);
    // Sediment corrections left to the next step's erosion so far (the pipe model).
    long long correctionsCarried() const { return corrections_carried_; }
    // The pipe model's CFL sub-steps: a step of params().time_step runs substeps() sub-steps of dt / n.
    // n is chosen from the wave speed of the last step run (totals().step_wave) so that
    // (|v| + sqrt(g d)) dt / (n L) <= CFL_TARGET, at most MAX_SUBSTEPS, once the GPU work is
    // finished. run() chooses it at the start of each block of kSubstepBlock steps (absolute step
    // indices), so a run's result does not depend on how it is split into batches or sessions;
    // the viewer chooses it every frame, a frame late (`anywhere`).
    static constexpr int kSubstepBlock = 8;
    int substeps() const { return substeps_; }
    void adaptSubsteps(bool anywhere = false);
    // Whether the next step's sub-steps follow from the last step's wave speed: at the start of
    // each block of steps, and at every step while more than one sub-step runs (fast or deep
    // water), so they follow the flow closely there. run() waits for the GPU at these steps.
    bool substepsDue() const { return params_.model == MODEL_PIPE && (step_index_ % kSubstepBlock == 0 || substeps_ > 1); }
    // Measures the current state's wave speed into totals().step_wave (before a first step).
    void measureWaveSpeed();
    void setSubsteps(int n); // a resumed session's
    long long substepsTaken() const { return substeps_taken_; } // sub-steps recorded so far
    int maxSubsteps() const { return max_substeps_; }           // the most one step took
    // Whether this simulation keeps its 4-channel fields split (splitsWideFields at creation).
    bool splitWide() const { return split_wide_; }
    PipePasses pipePasses() const { return pipe_passes_; }
    WorkgroupShape workgroupShape() const { return shape_; }
    // Partials of the step's sums per workgroup and slot (resolvePartialsPerGroup at creation).
    uint32_t partialsPerGroup() const { return partials_per_group_; }
    // The passes of one step of the current model, as recordStep records them.
    const std::vector<Pass>& stepPasses() const { return modelPasses(params_.model, pipe_passes_); }
    // Records a single pass (tests); does not flip parity. SeaSpill, WaterExchange and
    // GroundwaterFlow record what a step records for them (nothing while they are off).
    void recordPass(VkCommandBuffer cmd, Pass pass);
    // Uploads params/springs if they changed; call at the start of every command buffer.
    void recordUpdates(VkCommandBuffer cmd);
    void swapParity() { parity_ ^= kAllPingPong; }
    // Each ping-pong field (terrain, water, sediment, outflow) has its own parity: a model's step
    // flips only the fields it writes, so the others need no copying. parity() is the key of the
    // current combination (0 .. kParityKeys - 1); descriptor sets that bind the current images
    // (the viewer's drawing, the brush) keep one set per key, built with currentImage().
    static constexpr int kParityKeys = gpu::kParityKeys;
    int parity() const { return parity_; }
    // `part` 1: the second image of a split field (splitWide(): the outflow's zw channels; part 0
    // is then its xy channels).
    const Image& currentImage(Field f, int key, int part = 0) const;
    // The image of a field by absolute half (0/1 of a ping-pong pair; the one image otherwise).
    const Image& fieldImage(Field f, int half) const;
    // The images that hold field f (its cur half, or the next one): one, or two for a 4-channel
    // field kept split (channels xy, then zw). For copies of the whole state (gpu/snapshot.h).
    std::vector<const Image*> fieldImages(Field f, bool next = false) const;
    // The run's totals (host-visible; the steps accumulate into it on the GPU).
    const Buffer& totalsBuffer() const { return totals_; }
    int stepIndex() const { return step_index_; }
    void setStepIndex(int step) { step_index_ = step; }
    // Simulated seconds since the start (the tide's clock): each step adds its time_step.
    double simTime() const { return sim_time_; }
    void setSimTime(double seconds) { sim_time_ = seconds; }
    // The sea's surface for the step about to be recorded: sea_level plus the tide (m).
    float seaSurface() const;
    // The host's part of the sea's state (snapshots keep and restore it with the control buffer
    // and the fields): the tide's clock and where the spill relaxation stands.
    struct SeaHostState {
        double sim_time = 0.0;
        int sea_half = 0;
        bool sea_dirty = true, sea_restart = true;
    };
    SeaHostState seaHostState() const { return {sim_time_, sea_half_, sea_dirty_, sea_restart_}; }
    void setSeaHostState(const SeaHostState& s) {
        sim_time_ = s.sim_time;
        sea_half_ = s.sea_half;
        sea_dirty_ = s.sea_dirty;
        sea_restart_ = s.sea_restart;
    }
    const Buffer& seaControlBuffer() const { return sea_control_; }

    // The sea (gpu/sea.cpp): the spill surface of the current ground run to its end now (it is
    // otherwise refreshed a few rounds per step, and from scratch when the ground is uploaded or
    // the sea's edges change). Returns the rounds it took.
    int updateSeaSpill();
    SeaControl seaControl() const; // after the GPU work finished
    void setSeaControl(const SeaControl& control); // a resumed session's (the GPU idle)
    // The equilibrium water table (seed 003, gpu/water_table.cpp) of the current ground into the
    // WaterTable field: the spill surface with the fluvial model's outlets, then `iterations`
    // red-black rounds, the last tenth (at most 200) without over-relaxation. Returns the cells
    // that still moved in the last round (by more than 1e-5 m and more than float rounding).
    uint32_t computeWaterTable(int iterations, const std::function<void(int)>& progress = {});

    // Runs n steps in batches (submit, wait), calling progress(done) after each batch.
    void run(int steps, const std::function<void(int)>& progress = {});
    // Runs one pass on its own (tests).
    void runPass(Pass pass);
    // Replaces a pass's pipeline with one built from `spirv` (the viewer's shader hot reload).
    // Waits for the device first; the old pipeline is destroyed.
    void reloadPass(Pass pass, const std::vector<uint32_t>& spirv);
    // The parts the step's passes are built with now (stepParts of the uploaded parameters).
    uint32_t builtStepParts() const { return passes_with_parts_ ? uploaded_parts_ : STEP_ALL; }
    // Tests: false builds the step's passes with every part (STEP_ALL), as all other passes are,
    // testing the parameters as they run; the results are the same bits.
    void setPassesWithParts(bool on) { passes_with_parts_ = on; }

    // The fluvial model's phases, recorded by recordStep (fluvialAnalyse uses them one by one).
    // Fill: depression routing from the current terrain, a bounded number of rounds of each loop
    // (fluvialRoundBounds), of which the flats' at most `flat_rounds`; MoreFlats: further flats
    // rounds, continuing where the last fill left them. Route: receivers, lake depth, drainage
    // within tiles (recordStep then sums it across tiles). Erode: the implicit stream-power
    // update into the next terrain, then (fluvial_deposition > 0) the sediment routed downstream
    // and partly deposited.
    void recordFluvialFill(VkCommandBuffer cmd, int flat_rounds, GpuTimer* timer = nullptr);
    void recordFluvialMoreFlats(VkCommandBuffer cmd, int flat_rounds);
    void recordFluvialRoute(VkCommandBuffer cmd);
    void recordFluvialErode(VkCommandBuffer cmd, GpuTimer* timer = nullptr);
    // Fills the current terrain exactly (flats rounds in batches until they converge), routes
    // and accumulates. Returns the control of that fill (rounds per phase).
    FluvialControl fluvialAnalyse();
    // Lakes that balance evaporation (lake_evaporation > 0, the fluvial model): before each
    // iteration the basins of the current ground are read back (labels and ground, 8 bytes a
    // cell, and the rain mask), the lakes' levels solved on the host (gpu/lakes.h) and uploaded
    // per basin; that iteration's fill uses them. Each such step is its own submission: run()
    // does this itself; callers that record steps (the bench, the viewer) call it before
    // recording one. A no-op when off.
    bool fluvialLakesOn() const { return params_.model == MODEL_FLUVIAL && params_.lake_evaporation > 0.0f; }
    void prepareFluvialLakes();
    struct LakeStats {
        int closed_lakes = 0;
        double closed_area_m2 = 0.0;
        double host_ms = 0.0; // readback, solve and upload, the last time
    };
    LakeStats lakeStats() const { return lake_stats_; }
    // The fluvial model's buffers (about 60 bytes a cell) exist only once that model is used:
    // allocated by setParams with model = MODEL_FLUVIAL, fluvialAnalyse, or a fluvial pass run on
    // its own (waits for the device first). A grid too large for them on this device is a
    // DeviceError, and the simulation stays as it was (other models go on).
    void allocateFluvial();
    bool fluvialAllocated() const { return fluvial_allocated_; }
    FluvialControl fluvialControl() const; // after the GPU work finished
    std::vector<uint64_t> fluvialKeys() const;       // fill: ordered W bits << 32 | flat steps
    std::vector<uint32_t> fluvialBasins() const;     // fill: each cell's basin (LABEL_INDEX bits)
    std::vector<uint32_t> fluvialSpills() const;     // fill: per basin block, its ordered spill bits (FLUVIAL_NONE: never drains)
    std::vector<uint32_t> fluvialReceivers() const;
    std::vector<uint64_t> fluvialAccumulation() const; // after fluvialAnalyse or a step: FLUVIAL_ACC_ONE per cell
    // (Each of these is empty, and the control zero, while the fluvial buffers are not allocated.)

private:
    int half(Field f, bool next) const; // the absolute half of f's cur (or next) image
    // One step of the pipe model (gpu/pipe.cpp), a timestamp after each pass when timed.
    void recordPipeStep(VkCommandBuffer cmd, GpuTimer* timer, bool another_follows);
    // Throws std::logic_error while a step's sediment correction waits for a step that was not
    // recorded (a caller passed another_follows and then recorded something else).
    void requireSettled(const char* what) const;
    // The fold of the step's per-workgroup sums into the totals (reduce_partials levels, then
    // reduce_totals), with its barriers.
    void recordFold(VkCommandBuffer cmd);
    void recordFoldLevels(VkCommandBuffer cmd);
    void recordFoldTotals(VkCommandBuffer cmd, int mode = 0);
    VkPipeline pipeline(Pass pass);
    // With the simulation's specialization, the pass's step parts (stepPartsOf) and rows of cells
    // per invocation (sumRows).
    VkPipeline createPipeline(VkShaderModule module, Pass pass) const;
    uint32_t stepPartsOf(Pass pass) const; // builtStepParts() for a pass with parts, else STEP_ALL
    int sumRows(Pass pass) const; // rows of cells per invocation of a pass (partials.glsl's SUM_ROWS)
    void dispatch(VkCommandBuffer cmd, Pass pass, int mode = 0);
    void pushConstants(VkCommandBuffer cmd, const PushConstants& push);
    void bindSet(VkCommandBuffer cmd);
    // Groundwater and the sea after a step's own passes (gpu/groundwater.cpp): the sea's spill
    // rounds (pipe model), the water exchange, the Dupuit sub-steps, and for the other models the
    // fold of their sums; a timestamp after each of the three when timed.
    void recordWaterExchange(VkCommandBuffer cmd, GpuTimer* timer);
    void recordGridModelGroundwater(VkCommandBuffer cmd, GpuTimer* timer);
    void recordExchangePass(VkCommandBuffer cmd);
    void recordGroundwaterFlow(VkCommandBuffer cmd);
    bool groundwaterInStep() const;
    bool seaInStep() const;
    int groundwaterSubsteps() const;
    // The sea's spill relaxation (gpu/sea.cpp): the rounds of a step; a whole relaxation with its
    // early end (indirect dispatches), from the ground in terrain_cur.
    void recordSeaRounds(VkCommandBuffer cmd);
    void recordSeaSpillFull(VkCommandBuffer cmd);
    void dispatchIndirect(VkCommandBuffer cmd, Pass pass, int mode, const Buffer& args);
    // One iteration of the fluvial model (gpu/fluvial.cpp), each phase followed by a timestamp
    // when timed.
    void recordFluvialStep(VkCommandBuffer cmd, GpuTimer* timer);
    void recordFluvialFlats(VkCommandBuffer cmd, int rounds);
    // One loop over the tiles' exits (TREE_*): init, then as many rounds as the longest
    // possible chain of exits needs.
    void recordTree(VkCommandBuffer cmd, int tree);
    void dispatchJob(VkCommandBuffer cmd, Pass pass, int job, int mode = 0);
    void recordFluvialReadback(VkCommandBuffer cmd); // the control, for fluvialControl()
    void control(VkCommandBuffer cmd, int mode);
    // Points every descriptor set's fluvial bindings at the model's buffers, or at a small
    // stand-in while they are not allocated.
    void bindFluvialBuffers();
    // The descriptor sets, one per parity key, over the buffers and the fields' images.
    void createDescriptorSets();
    void destroyFluvialBuffers();

    const Context& ctx_;
    int width_ = 0, height_ = 0;
    // Bit i: the current half of ping-pong field i (terrain, water, sediment, outflow).
    int parity_ = 0;
    bool split_wide_ = false;   // 4-channel fields as two rg32f images each
    PipePasses pipe_passes_ = PipePasses::Fused;
    WorkgroupShape shape_{16, 16}; // the grid passes' workgroups (the fluvial model's: FLUVIAL_TILE^2)
    uint32_t partials_per_group_ = 1; // > 1: one partial per subgroup (CPU drivers)
    bool rain_uniform_ = true;  // the rain mask is 1 everywhere
    int substeps_ = 1;          // the pipe step's CFL sub-steps
    long long substeps_taken_ = 0;
    bool correction_carried_ = false; // the last pipe step left its sediment correction to the next
    long long corrections_carried_ = 0;
    int max_substeps_ = 1;
    SimParams params_{};
    bool params_dirty_ = true;
    std::vector<Spring> springs_;
    bool springs_dirty_ = true;

    std::unique_ptr<FieldImages> fields_;
    Buffer params_buffer_, partials_, totals_, springs_buffer_, delta_, drained_;
    Buffer fluvial_level_, fluvial_steps_, fluvial_rcv_, fluvial_acc_, fluvial_anc_, fluvial_ab_, fluvial_control_,
        fluvial_control_host_,
        fluvial_tiles_, fluvial_label_, fluvial_edges_, fluvial_basin_, fluvial_best_, fluvial_lists_, fluvial_ring_,
        fluvial_ring_val_;
    bool fluvial_allocated_ = false;
    LakeStats lake_stats_;
    Buffer unused_buffer_; // bound in place of the fluvial buffers until allocateFluvial
    int step_index_ = 0; // steps recorded since construction (models with events in time)
    double sim_time_ = 0.0; // simulated seconds (the tide)

    Buffer sea_control_;
    int sea_half_ = 0;          // the half of the relax pair the next spill round reads
    bool sea_dirty_ = true;     // the spill surface in use is not the ground's: run it to its end
    bool sea_restart_ = true;   // the relax pair holds something else: the next round starts over

    VkDescriptorSetLayout set_layout_ = VK_NULL_HANDLE;
    VkPipelineLayout pipeline_layout_ = VK_NULL_HANDLE;
    VkDescriptorPool descriptor_pool_ = VK_NULL_HANDLE;
    std::array<VkDescriptorSet, kParityKeys> sets_{};
    // Built at first use, one per pass and set of step parts (STEP_ALL for passes without parts).
    std::map<std::pair<Pass, uint32_t>, VkPipeline> pipelines_;
    std::map<Pass, std::vector<uint32_t>> reloaded_code_; // reloadPass's SPIR-V, for every set of parts
    uint32_t uploaded_parts_ = STEP_ALL; // stepParts of the parameters the GPU holds
    bool passes_with_parts_ = true;
};

} // namespace alluvium::gpu
