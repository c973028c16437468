// Records passes into a command buffer: each pass's pipeline (built at first use with the
// simulation's specializations), its dispatch sized by its row in the pass table, the barriers
// between dependent passes, timestamps when timed, and the fold of a step's per-workgroup sums
// into the run's totals. Knows passes and fields; no model. The models record their steps with
// it (gpu/models), the simulation owns it.
#pragma once
#include <functional>
#include <map>
#include <utility>
#include <vector>

#include "context.h"
#include "passes.h"
#include "timer.h"

namespace alluvium::gpu {

// Where a grid split over processes hands data to the host and back (gpu/blocks.h): the ghost
// bands after a step's state is whole, the first level of the fold, the grid models' water sums.
// The sea's relaxation: SeaStart as a whole relaxation starts, SeaRound after each of its rounds
// and SeaStep after a step's rounds, before the control reads how many cells they changed.
// Droplets after each round of the particles (the hook answers how many droplets came to this
// block, or -1 once none is in flight anywhere; then the step's droplet totals are summed).
enum class Exchange { Bands, Fold, GridTotals, SeaStart, SeaRound, SeaStep, TableReadsA, TableReadsB, Droplets };

// The grid and the device's choices the pipelines are specialized with.
struct StepRecorderSetup {
    int width = 0, height = 0;
    WorkgroupShape shape{16, 16};      // the grid passes' workgroups
    uint32_t partials_per_group = 1;   // > 1: one partial per subgroup (CPU drivers)
    bool split_wide = false;           // 4-channel fields as two rg32f images each
    const SimParams* params = nullptr; // the host's parameters (a Particles dispatch: particle_count)
};

class StepRecorder {
public:
    StepRecorder(const Context& ctx, VkPipelineLayout layout, const StepRecorderSetup& setup);
    ~StepRecorder();
    StepRecorder(const StepRecorder&) = delete;
    StepRecorder& operator=(const StepRecorder&) = delete;

    // The command buffer the calls below record into until end(), and the timer of timestamp().
    void begin(VkCommandBuffer cmd, GpuTimer* timer = nullptr);
    void end();
    VkCommandBuffer cmd() const { return cmd_; }
    bool splitWide() const { return setup_.split_wide; }
    bool timed() const { return timer_ != nullptr; }
    // Binds the descriptor set the passes read (the simulation's, for its current parity).
    void bind(VkDescriptorSet set);
    // What each dispatch pushes besides its mode: the step's index and the sea's surface.
    void setStep(int step_index, float sea_surface, double sim_time);
    // A split grid's hand-overs: the hook submits what was recorded, exchanges and records on in
    // the same command buffer; the recorder binds its set again after it. Unset: one device.
    void setExchange(std::function<int(Exchange)> hook) { exchange_ = std::move(hook); }
    bool split() const { return bool(exchange_); }
    // The step's state is whole (a step or a sub-step ended): a split grid swaps its bands.
    void settle() { handOver(Exchange::Bands); }

    // A pass over what its row says (grid, tiles, one workgroup, the droplets).
    void dispatch(Pass pass, int mode = 0);
    // A pass whose size the GPU wrote: VkDispatchIndirectCommand at `offset` of `args`.
    void dispatchIndirect(Pass pass, int mode, VkBuffer args, VkDeviceSize offset = 0);
    // Every pass reads what the one before wrote: a full compute barrier between them.
    void barrier();
    void pass(Pass p, int mode = 0) {
        dispatch(p, mode);
        barrier();
    }
    void timestamp(); // after what was recorded so far, when timed
    // The fold: the step's partials (each subgroup's first on CPU drivers) level by level down to
    // one per slot, then reduce_totals adds them to the run's totals (`mode`: which slots).
    void foldLevels();
    void foldTotals(int mode = 0);
    void fold(int mode = 0) {
        foldLevels();
        foldTotals(mode);
    }

    // The step parts the passes with parts are built with (stepParts of the uploaded
    // parameters); tests build them with every part instead.
    void setStepParts(uint32_t parts) { parts_ = parts; }
    uint32_t builtStepParts() const { return with_parts_ ? parts_ : STEP_ALL; }
    void setPassesWithParts(bool on) { with_parts_ = on; }
    // Replaces a pass's pipelines with ones built from `spirv` (for every set of parts; the
    // current one now, so a bad module fails here). Waits for the device.
    void reload(Pass pass, const std::vector<uint32_t>& spirv);
    // Rows of cells per invocation of a pass on this device (partials.glsl's SUM_ROWS).
    int sumRows(Pass pass) const;
    // The fold's levels of this grid and workgroup shape.
    const std::vector<uint32_t>& foldLevels() const { return fold_levels_; }

private:
    VkPipeline pipeline(Pass pass);
    VkPipeline createPipeline(const std::vector<uint32_t>& code, Pass pass) const;
    uint32_t partsOf(Pass pass) const { return passHasStepParts(pass) ? builtStepParts() : STEP_ALL; }
    void push(int mode, uint32_t in = 0, uint32_t count = 0, uint32_t out = 0, float sea = 0.0f);
    int handOver(Exchange what);
    void handDroplets(); // a split grid's rounds of droplets after the particles' first dispatch

    const Context& ctx_;
    VkPipelineLayout layout_;
    StepRecorderSetup setup_;
    std::vector<uint32_t> fold_levels_;
    VkCommandBuffer cmd_ = VK_NULL_HANDLE;
    VkDescriptorSet bound_ = VK_NULL_HANDLE;
    std::function<int(Exchange)> exchange_;
    GpuTimer* timer_ = nullptr;
    int step_index_ = 0;
    float sea_surface_ = 0.0f;
    float sim_time_ = 0.0f; // the weather's clock (s)
    uint32_t parts_ = STEP_ALL;
    bool with_parts_ = true;
    // Built at first use, one per pass and set of step parts (STEP_ALL for passes without parts).
    std::map<std::pair<Pass, uint32_t>, VkPipeline> pipelines_;
    std::map<Pass, std::vector<uint32_t>> reloaded_code_; // reload()'s SPIR-V, for every set of parts
};

} // namespace alluvium::gpu
