// The fluvial model (seed 003): river networks and lakes. Each iteration: depression routing (the
// lake fill), routing, drainage accumulation, the implicit stream-power erosion and deposition,
// each a phase of dispatches (models/fluvial.cpp); its buffers and their reads for the host
// (models/fluvial_buffers.cpp); lakes that balance evaporation, solved on the host
// (models/lakes.h).
#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "model.h"

namespace alluvium::gpu {

// The fluvial model's buffers (about 60 bytes a cell), allocated the first time the model is
// used; until then a small stand-in is bound in their place.
class FluvialState {
public:
    FluvialState(const Context& ctx, int width, int height);
    ~FluvialState();
    FluvialState(const FluvialState&) = delete;
    FluvialState& operator=(const FluvialState&) = delete;

    // Allocates the buffers (waits for the device) and binds them into `sets`; `other_bytes`:
    // what the simulation holds besides, for the device-memory check. A grid too large for them
    // on this device is a DeviceError, and nothing changes (other models go on).
    void allocate(uint64_t other_bytes, const std::array<VkDescriptorSet, kParityKeys>& sets);
    bool allocated() const { return allocated_; }
    // Points every set's fluvial bindings at the buffers (or the stand-in while unallocated).
    void bind(const std::array<VkDescriptorSet, kParityKeys>& sets) const;
    // The control block: its indirect dispatches (JOB_*), and the host's copy (recordReadback).
    VkBuffer control() const;
    void recordReadback(StepRecorder& rec) const;

    // The host's reads, after the GPU work finished; empty (the control zero) while unallocated.
    FluvialControl hostControl() const;
    std::vector<uint64_t> keys() const;   // fill: ordered W bits << 32 | flat steps
    std::vector<uint32_t> levels() const; // fill: ordered W bits (FLUVIAL_NONE: no outlet reaches the cell)
    std::vector<uint32_t> basins() const; // fill: each cell's basin (LABEL_INDEX bits)
    std::vector<uint32_t> spills() const; // fill: per basin block, its ordered spill bits (FLUVIAL_NONE: never drains)
    std::vector<uint32_t> receivers() const;
    std::vector<uint64_t> accumulation() const; // FLUVIAL_ACC_ONE per cell
    // Lakes that balance evaporation: the levels solved on the host for this iteration's fill.
    void uploadLakes(const std::vector<uint32_t>& sections);

    struct LakeStats {
        int closed_lakes = 0;
        double closed_area_m2 = 0.0;
        double host_ms = 0.0; // readback, solve and upload, the last time
    };
    LakeStats lakes;

private:
    void release();

    const Context& ctx_;
    int width_, height_;
    bool allocated_ = false;
    Buffer level_, steps_, rcv_, acc_, anc_, ab_, tiles_, label_, edges_, basin_, best_, lists_, ring_, ring_val_;
    Buffer control_, control_host_;
    Buffer unused_; // bound in their place until allocate()
};

// The shaders' conventions on the host (fluvial.glsl): the 8 neighbours in its order (ties go to
// the first; receivers name them by index) and 1 / distance as its floats; float -> uint with the
// same order (-0 as +0) and back; whether (x, y) lies on one of the OUTLET_* sides of a W x H grid.
inline constexpr int kNeighbourDx[8] = {-1, 0, 1, -1, 1, -1, 0, 1};
inline constexpr int kNeighbourDy[8] = {-1, -1, -1, 0, 0, 1, 1, 1};
inline constexpr float kNeighbourInvDist[8] = {0.70710677f, 1.0f,        0.70710677f, 1.0f,
                                               1.0f,        0.70710677f, 1.0f,        0.70710677f};
uint32_t orderedFloatBits(float f);
float fromOrderedFloatBits(uint32_t o);
bool isOutletCell(int x, int y, int width, int height, int outlets);

// GPU bytes of the model's buffers on a W x H grid, and the largest of them (each is bound whole:
// it must fit the device's maxStorageBufferRange and maxMemoryAllocationSize).
uint64_t fluvialBytes(int width, int height);
uint64_t fluvialLargestBuffer(int width, int height);

// The most rounds each loop of the fill can need on a W x H grid, whatever the terrain and the
// device: the host records that many (the GPU stops each loop when it is done).
struct FluvialRoundBounds {
    int label;             // basin labels across tiles: ceil(log2(ring nodes))
    int boruvka;           // rounds of the basin graph: floor(log2(basins)) + 1
    std::vector<int> hook; // per round of the basin graph, its hook-jumping rounds
    int tree;              // each loop over the tiles' exits: ceil(log2(ring nodes))
    int hookTotal() const;
};
FluvialRoundBounds fluvialRoundBounds(int width, int height);
// The model's timed rows are its phases: basins, pass_points, spill_solve, flats, route,
// accumulate, erode, deposit; and the bytes one moves in an iteration, estimated from the rounds
// that ran (`c`, the control after the step) on a W x H grid (for effective GB/s).
const char* fluvialPhaseName(size_t phase);
double fluvialPhaseBytes(size_t phase, const FluvialControl& c, int width, int height, bool deposition);

// The phases, recorded by the step (and one by one by the analysis below). Fill: depression
// routing from the current terrain, a bounded number of rounds of each loop, of which the flats'
// at most `flat_rounds`; MoreFlats: further flats rounds, continuing where the last fill left
// them. Route: receivers, lake depth, drainage within tiles. Erode: the implicit stream-power
// update into the next terrain, then (fluvial_deposition > 0) the sediment routed downstream and
// partly deposited.
void recordFluvialFill(Step& step, int flat_rounds);
void recordFluvialMoreFlats(Step& step, int flat_rounds);
void recordFluvialRoute(Step& step);
void recordFluvialErode(Step& step);
// Fills the current terrain exactly (flats rounds in batches until they converge), routes and
// (`drainage`) accumulates. Returns the control of that fill (rounds per phase).
FluvialControl fluvialAnalyse(ModelHost& host, bool drainage = true);
// Lakes that balance evaporation (lake_evaporation > 0): before each iteration the basins of the
// current ground are read back (labels and ground, 8 bytes a cell, and the rain mask), the lakes'
// levels solved on the host (models/lakes.h) and uploaded per basin; that iteration's fill uses
// them. A no-op when off.
bool fluvialLakesOn(const SimParams& p);
void prepareFluvialLakes(ModelHost& host);

} // namespace alluvium::gpu
