// The simulation state (storage images) and the ordered list of passes of one pipe-model step.
// Headless: no window, no UI, no file formats. The host edits a SimParams block; each step reads it.
#pragma once
#include <array>
#include <functional>
#include <string>
#include <vector>

#include "context.h"
#include "resources.h"
#include "shared.h"
#include "timer.h"

namespace alluvium::gpu {

enum class Field {
    Terrain, Water, Sediment, Outflow, Velocity, Hardness, ThermalAxis, ThermalDiag, RainMask, Wear, Flow, Scratch,
    Lake, Drainage, Uplift, // the fluvial model: lake depth (m), drainage area (m^2), uplift multiplier
    Count
};
int fieldChannels(Field f);
const char* fieldName(Field f);

// In step order (design: sources, flux, water, velocity, erosion, transport, thermal x2,
// evaporation) plus the sediment correction and the two single-workgroup reductions.
enum class Pass {
    Sources, OutflowFlux, WaterUpdate, Velocity, ErosionDeposition, SedimentTransport,
    ReduceSediment, SedimentCorrect, ThermalOutflow, ThermalGather, Evaporation, ReduceTotals,
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
    FluvialDeposit,
    Count
};
constexpr int kPassCount = static_cast<int>(Pass::Count);
const char* passName(Pass p);
// Bytes one pass reads and writes per cell (for effective GB/s); 0 for the reductions.
double passBytesPerCell(Pass p);
// The passes of one step of a model (MODEL_*), in order. For the fluvial model, its phases
// (basins, pass points, spill solve, flats, route, accumulate, erode, deposit), each of which
// records several dispatches (see fluvialRoundBounds).
const std::vector<Pass>& modelPasses(int model);
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

// GPU bytes a W x H simulation needs (checked against the device before allocating).
uint64_t simulationBytes(int width, int height);
// The largest of the fluvial model's buffers (each is bound whole: it must fit the device's
// maxStorageBufferRange, which the constructor checks).
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

class Simulation {
public:
    // Throws DeviceError if the grid does not fit in the device's memory.
    Simulation(const Context& ctx, int width, int height);
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
    // ping-pong parity. With a timer, writes a timestamp before the first pass and after each.
    void recordStep(VkCommandBuffer cmd, GpuTimer* timer = nullptr);
    // Records a single pass (tests); does not flip parity.
    void recordPass(VkCommandBuffer cmd, Pass pass);
    // Uploads params/springs if they changed; call at the start of every command buffer.
    void recordUpdates(VkCommandBuffer cmd);
    void swapParity() { parity_ ^= 1; }
    // The image of a field (the viewer binds them for drawing); `half` 0/1 picks the half of a
    // ping-pong pair by absolute index, so a descriptor set can be built for either parity.
    const Image& fieldImage(Field f, int half) const { return image(f, (half ^ parity_) != 0); }
    int parity() const { return parity_; }
    int stepIndex() const { return step_index_; }
    void setStepIndex(int step) { step_index_ = step; }

    // Runs n steps in batches (submit, wait), calling progress(done) after each batch.
    void run(int steps, const std::function<void(int)>& progress = {});
    // Runs one pass on its own (tests).
    void runPass(Pass pass);
    // Replaces a pass's pipeline with one built from `spirv` (the viewer's shader hot reload).
    // Waits for the device first; the old pipeline is destroyed.
    void reloadPass(Pass pass, const std::vector<uint32_t>& spirv);

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
    FluvialControl fluvialControl() const; // after the GPU work finished
    std::vector<uint64_t> fluvialKeys() const;       // fill: ordered W bits << 32 | flat steps
    std::vector<uint32_t> fluvialBasins() const;     // fill: each cell's basin (LABEL_INDEX bits)
    std::vector<uint32_t> fluvialSpills() const;     // fill: per basin block, its ordered spill bits (FLUVIAL_NONE: never drains)
    std::vector<uint32_t> fluvialReceivers() const;
    std::vector<uint64_t> fluvialAccumulation() const; // after fluvialAnalyse or a step: FLUVIAL_ACC_ONE per cell

private:
    const Image& image(Field f, bool next) const;
    VkPipeline pipeline(Pass pass);
    void dispatch(VkCommandBuffer cmd, Pass pass, int mode = 0);
    void bindSet(VkCommandBuffer cmd);
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

    const Context& ctx_;
    int width_ = 0, height_ = 0;
    int parity_ = 0; // 0: cur = A, next = B
    uint32_t subgroup_size_ = 0;
    SimParams params_{};
    bool params_dirty_ = true;
    std::vector<Spring> springs_;
    bool springs_dirty_ = true;

    std::array<Image, 2> terrain_, water_, sediment_, outflow_;
    Image velocity_, hardness_, thermal_axis_, thermal_diag_, rain_mask_, wear_, flow_, scratch_;
    Image lake_, drainage_, uplift_;
    Buffer params_buffer_, partials_, totals_, springs_buffer_, delta_, drained_;
    Buffer fluvial_level_, fluvial_steps_, fluvial_rcv_, fluvial_acc_, fluvial_anc_, fluvial_ab_, fluvial_control_,
        fluvial_control_host_,
        fluvial_tiles_, fluvial_label_, fluvial_edges_, fluvial_basin_, fluvial_best_, fluvial_lists_, fluvial_ring_,
        fluvial_ring_val_;
    int step_index_ = 0; // steps recorded since construction (models with events in time)

    VkDescriptorSetLayout set_layout_ = VK_NULL_HANDLE;
    VkPipelineLayout pipeline_layout_ = VK_NULL_HANDLE;
    VkDescriptorPool descriptor_pool_ = VK_NULL_HANDLE;
    std::array<VkDescriptorSet, 2> sets_{};
    std::array<VkPipeline, kPassCount> pipelines_{};
};

} // namespace alluvium::gpu
