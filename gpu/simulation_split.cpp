// The simulation of a grid split over processes (gpu/blocks.h): what its parameters may be, the
// images its bands carry, and the recorder's hand-overs.
#include <algorithm>
#include <cstdlib>
#include <string>

#include "models/groundwater.h"
#include "models/sea.h"
#include "simulation.h"

namespace alluvium::gpu {

namespace {

// musgrave's and simple's water sums follow the droplets' int64 counters (grid_models.glsl).
constexpr VkDeviceSize kWaterSumsAt = DROPLET_COUNTERS * sizeof(int64_t);

// `all`: every process's key of its choices (`here`: this one's, in words); one that differs
// ends every process alike, before any of them waits for messages the others never send.
void requireAlike(const std::vector<double>& all, double mine, const std::string& here) {
    for (double theirs : all)
        if (theirs != mine)
            throw SplitError("the processes' devices chose differently (" + here +
                             " here): run on one kind of device, with one environment");
}

} // namespace

std::string splitRefusal(const SimParams& p, int band) {
    if (p.model == MODEL_FLUVIAL)
        return std::string("the ") + modelName(p.model) +
               " model does not run split over processes yet (its lake fill and drainage do: `alluvium fill`, "
               "--out-maps): run it without mpirun (or with -np 1)";
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
    if (!refusal.empty()) throw SplitError(refusal); // every process alike
}

int Simulation::bandSteps() {
    // A band k steps wide swapped every k (sub-)steps: the same bytes a swap per cell of band, the
    // waits and the swaps 1 / k as many. The owned cells stay exact: a step's wrong values reach
    // one step's reach into the band from its outer edge, k steps' reach the whole band.
    const char* env = std::getenv("ALLUVIUM_BAND_STEPS");
    if (!env || !*env) return 1;
    char* end = nullptr;
    const long k = std::strtol(env, &end, 10);
    if (*end != '\0' || k < 1 || k > 8)
        throw DeviceError(std::string("ALLUVIUM_BAND_STEPS='") + env + "' is not 1 .. 8 (steps between band swaps)");
    return int(k);
}

SeaControl Simulation::wholeSeaControl() const {
    SeaControl c = seaControl(state_.sea);
    // The next round's dispatch (zero once the relaxation ended): every block alike but for its
    // workgroup counts, which each relaxation sets afresh from the grid it runs on.
    if (c.dispatch_x != 0) c.dispatch_x = uint32_t(groupsCovering(full_width_, shape_.x));
    if (c.dispatch_y != 0) c.dispatch_y = uint32_t(groupsCovering(full_height_, shape_.y));
    return c;
}

void Simulation::checkLayoutAlike(Transport& transport) const {
    // The layout follows the workgroup tiles and the band's steps: a process that split the grid
    // otherwise (or refused to) would wait for messages that never come.
    const double mine = (double(shape_.x) * 1024.0 + shape_.y) * 16.0 + band_steps_;
    requireAlike(everyValue(transport, mine), mine,
                 workgroupShapeName(shape_) + " workgroups, " + std::to_string(band_steps_) +
                     " steps between band swaps");
}

void Simulation::checkProcessesAlike(bool split_wide) {
    // The sums' grouping and the fields' images follow each device's choices (made for the
    // largest block; the layout was agreed before the cut, checkLayoutAlike): the processes must
    // have made the same ones (one kind of device).
    const double mine = double(partials_per_group_) * 4.0 + (split_wide ? 2.0 : 0.0) +
                        (state_.pipe.passes == PipePasses::Direct ? 1.0 : 0.0);
    requireAlike(blocks_->everyProcess(mine), mine,
                 std::to_string(partials_per_group_) + " partials a workgroup, " +
                     (split_wide ? "wide fields split, " : "wide fields whole, ") + pipePassesName(state_.pipe.passes) +
                     " pipe passes");
}

void Simulation::chooseBands() {
    // Every image a step of the model writes under these parameters and a later step reads: the
    // state fields its passes write, both halves of a pair (bandsAfterStep picks one).
    const Model& m = model(params_.model);
    std::vector<bool> written(kFieldCount, false);
    for (const std::vector<Pass>* passes : {&m.timed, &m.timed_direct})
        for (Pass pass : *passes)
            for (const Access& a : passInfo(pass).accesses)
                if ((a.mode & kWrite) != 0 && !fieldIsDerived(a.field) && happens(a.when, params_))
                    written[size_t(a.field)] = true;
    // The relax pair besides, for the relaxations outside a step (the sea's spill surface of new
    // ground, the water table): their rounds swap it alone, and a step only when it writes it.
    std::vector<bool> relaxations(kFieldCount, false);
    relaxations[size_t(Field::RelaxA)] = relaxations[size_t(Field::RelaxB)] = true;
    std::vector<const Image*> images;
    band_images_.clear();
    step_bands_.clear();
    for (int f = 0; f < kFieldCount; ++f) {
        if (!written[size_t(f)] && !relaxations[size_t(f)]) continue;
        for (int h = 0; h < (isPingPong(Field(f)) ? 2 : 1); ++h)
            for (const Image* img : fields_->images(Field(f), h)) {
                images.push_back(img);
                band_images_.emplace_back(Field(f), h);
                step_bands_.push_back(written[size_t(f)]);
            }
    }
    blocks_->setImages(std::move(images));
}

void Simulation::bandsAfterStep() {
    // A (sub-)step's state lies in the halves the step's flip makes current: the next half of
    // the pairs it writes, the current one of the others; fields without a pair have one image.
    const int live = livePingPong(params_);
    const int key = parity_ ^ (writtenPingPong(model(params_.model)) & live);
    std::vector<bool> on;
    for (size_t k = 0; k < band_images_.size(); ++k) {
        const auto& [f, h] = band_images_[k];
        const int bit = fieldPingPongBit(f);
        on.push_back(step_bands_[k] && (bit < 0 || (((live >> bit) & 1) != 0 && ((key >> bit) & 1) == h)));
    }
    blocks_->select(std::move(on));
}

void Simulation::bindDroplets() {
    DescriptorWrites writes;
    for (VkDescriptorSet set : sets_) {
        writes.buffer(set, B_DROPLETS_IN, mail_->in().buffer);
        writes.buffer(set, B_DROPLETS_OUT, mail_->out().buffer);
    }
    writes.apply(ctx_);
}

int Simulation::exchange(Exchange what) {
    VkCommandBuffer cmd = rec_->cmd();
    switch (what) {
    case Exchange::Bands:
        // The band still covers the steps since the last swap; not the particles', whose droplets
        // change only cells their block owns (every band is stale after a step).
        if (++settles_ % band_steps_ != 0 && params_.model != MODEL_PARTICLES) return 0;
        bandsAfterStep();
        blocks_->swapBands(cmd);
        return 0;
    case Exchange::Droplets: {
        const int arrived = mail_->handOver(cmd);
        if (arrived < 0) mail_->sumCounters(cmd, drained_); // every block applies the whole step's totals
        return arrived;
    }
    case Exchange::Fold: {
        // The first level of the fold (the block's workgroups, one partial a slot each) out; the
        // whole grid's folded on the host, one value a slot, where foldTotals reads it.
        blocks_->recordSumsOut(cmd, partials_, 0, REDUCE_SLOTS, 1);
        submitAndRestart(ctx_, cmd);
        std::vector<bool> active(REDUCE_SLOTS);
        for (int slot = 0; slot < REDUCE_SLOTS; ++slot) active[size_t(slot)] = slotActive(params_, slot);
        const std::vector<double> folded = blocks_->foldSums(active);
        vkCmdUpdateBuffer(cmd, partials_.buffer, 0, REDUCE_SLOTS * sizeof(double), folded.data());
        computeBarrier(cmd);
        return 0;
    }
    case Exchange::TableReadsA:
    case Exchange::TableReadsB: {
        const Field read = what == Exchange::TableReadsA ? Field::RelaxA : Field::RelaxB;
        std::vector<bool> on;
        for (const auto& [f, h] : band_images_) on.push_back(f == read);
        blocks_->select(std::move(on));
        blocks_->swapBands(cmd);
        return 0;
    }
    case Exchange::SeaStart: sea_relaxed_ = false; return 0;
    case Exchange::SeaRound:
        if (sea_relaxed_) return 0; // every block saw a round change nothing: the rest are empty
        [[fallthrough]];
    case Exchange::SeaStep: {
        // The relax pair's bands, and each count of changed cells summed over the blocks (each
        // counts the cells it owns), so every block's control decides alike.
        std::vector<bool> on;
        for (const auto& [f, h] : band_images_) on.push_back(f == Field::RelaxA || f == Field::RelaxB);
        blocks_->select(std::move(on));
        blocks_->swapBands(cmd); // the rounds have run: their counts are on the host
        SeaControl ctl = seaControl(state_.sea);
        uint32_t changed = 0;
        for (int k = 0; k < 2; ++k) {
            double sum = 0.0;
            for (double v : blocks_->everyProcess(double(ctl.changed[k]))) sum += v;
            ctl.changed[k] = uint32_t(sum);
            changed += ctl.changed[k];
        }
        setSeaControl(state_.sea, ctl);
        if (what == Exchange::SeaRound && changed == 0) sea_relaxed_ = true;
        return 0;
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
        return 0;
    }
    }
    return 0;
}

} // namespace alluvium::gpu
