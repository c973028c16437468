// The simulation of a grid split over processes (gpu/blocks.h): what its parameters may be, the
// images its bands carry, and the recorder's hand-overs.
#include <algorithm>
#include <string>

#include "models/groundwater.h"
#include "simulation.h"

namespace alluvium::gpu {

namespace {

// musgrave's and simple's water sums follow the droplets' five int64 counters (grid_models.glsl).
constexpr VkDeviceSize kWaterSumsAt = 10 * sizeof(uint32_t);

} // namespace

std::string splitRefusal(const SimParams& p, int band) {
    if (p.model == MODEL_FLUVIAL || p.model == MODEL_PARTICLES)
        return std::string("the ") + modelName(p.model) +
               " model does not run split over processes yet: run it without mpirun (or with -np 1)";
    if (p.enable_sea != 0 && p.model == MODEL_PIPE)
        return "the sea (enable_sea) does not run split over processes yet: its spill surface is a whole-grid "
               "relaxation; run it without mpirun (or with -np 1)";
    if (band >= 0 && stepReach(p) > band)
        return "a step reaches " + std::to_string(stepReach(p)) + " cells with groundwater_substeps " +
               std::to_string(p.groundwater_substeps) + ", more than the ghost band of " + std::to_string(band) +
               " the grid was split with";
    return {};
}

void Simulation::checkSplit(const SimParams& params) const {
    SimParams p = params;
    p.groundwater_substeps = evenGroundwaterSubsteps(params.groundwater_substeps);
    const BlockGrid& g = blocks_->grid();
    const std::string refusal = splitRefusal(p, std::min(g.halo_x, g.halo_y));
    if (!refusal.empty()) throw DeviceError(refusal);
}

void Simulation::chooseBands() {
    // Every image a step of the model may write and a later step read: the state fields its
    // passes write, both halves of a pair (the step's last writes may land in either).
    const Model& m = model(params_.model);
    std::vector<bool> written(kFieldCount, false);
    for (const std::vector<Pass>* passes : {&m.timed, &m.timed_direct})
        for (Pass pass : *passes)
            for (const Access& a : passInfo(pass).accesses)
                if ((a.mode & kWrite) != 0 && !fieldIsDerived(a.field)) written[size_t(a.field)] = true;
    std::vector<const Image*> images;
    for (int f = 0; f < kFieldCount; ++f) {
        if (!written[size_t(f)]) continue;
        for (int h = 0; h < (isPingPong(Field(f)) ? 2 : 1); ++h)
            for (const Image* img : fields_->images(Field(f), h)) images.push_back(img);
    }
    blocks_->setImages(std::move(images));
}

void Simulation::exchange(Exchange what) {
    VkCommandBuffer cmd = rec_->cmd();
    switch (what) {
    case Exchange::Bands:
        blocks_->recordBandsOut(cmd);
        submitAndRestart(ctx_, cmd);
        blocks_->swapBands();
        blocks_->recordBandsIn(cmd);
        return;
    case Exchange::Fold: {
        // The first level of the fold (the block's workgroups, one partial a slot each) out; the
        // whole grid's folded on the host, one value a slot, where foldTotals reads it.
        blocks_->recordSumsOut(cmd, partials_, 0, REDUCE_SLOTS, 1);
        submitAndRestart(ctx_, cmd);
        const std::vector<double> folded = foldOnHost(blocks_->gatherSums(), blocks_->wholeGroups());
        vkCmdUpdateBuffer(cmd, partials_.buffer, 0, REDUCE_SLOTS * sizeof(double), folded.data());
        computeBarrier(cmd);
        return;
    }
    case Exchange::GridTotals: {
        // grid_totals.comp on the host, on the whole grid's sums: the same doubles added to the
        // same totals.
        blocks_->recordSumsOut(cmd, drained_, kWaterSumsAt, 2, partials_per_group_);
        submitAndRestart(ctx_, cmd);
        const std::vector<double> sums = blocks_->gatherSums();
        const uint32_t groups = blocks_->wholeGroups();
        Totals t = totals();
        t.acc[SLOT_RAIN] += gridTotalOnHost(sums.data(), groups, partials_per_group_);
        t.acc[SLOT_EVAPORATED] +=
            gridTotalOnHost(sums.data() + size_t(groups) * partials_per_group_, groups, partials_per_group_);
        setTotals(t);
        return;
    }
    }
}

} // namespace alluvium::gpu
