// The split run's timelapse (split_timelapse.h): the drawn fields gathered into rank 0's
// whole-grid simulation, which the timelapse of one process draws.
#include "split_timelapse.h"

#include <array>
#include <string>

#include "io/errors.h"
#include "processes.h"

namespace alluvium {

namespace {

// The fields the renderer reads (viewer/renderer.cpp binds them; its sunlight is its own).
constexpr std::array kDrawnFields = {
    gpu::Field::Terrain, gpu::Field::Water,   gpu::Field::Sediment, gpu::Field::Velocity,   gpu::Field::Hardness,
    gpu::Field::Wear,    gpu::Field::Outflow, gpu::Field::Lake,     gpu::Field::Drainage,   gpu::Field::WaterTable,
    gpu::Field::Seepage, gpu::Field::Loose,   gpu::Field::Snow,     gpu::Field::Vegetation, gpu::Field::Lava};

class SplitTimelapse final : public TimelapseSink {
public:
    SplitTimelapse(gpu::Context& ctx, gpu::Simulation& sim, const gpu::SimParams& whole, const TimelapseOptions& o,
                   const Params& params, const TimelapseFactory& make)
        : sim_(sim) {
        if (processes().root()) {
            try {
                whole_ = std::make_unique<gpu::Simulation>(ctx, sim.width(), sim.height());
            } catch (const gpu::DeviceError& e) {
                throw gpu::DeviceError(std::string("--timelapse draws the whole grid on rank 0's device: ") + e.what());
            }
            whole_->setParams(whole);
        }
        gather(); // the camera frames the first state's relief
        if (whole_) alone([&] { inner_ = make(ctx, *whole_, o, params); });
    }
    void frame(long long step) override {
        if (step > 0) gather(); // step 0: gathered when made
        if (inner_) alone([&] { inner_->frame(step); });
    }
    bool finish() override {
        bool ok = true;
        if (inner_) alone([&] { ok = inner_->finish(); });
        return ok;
    }
    nlohmann::json summary() const override { return inner_ ? inner_->summary() : nlohmann::json(); }

private:
    // Rank 0 alone draws, while the others step on or wait for it: what one process would refuse
    // (a frame that cannot be written, a size the device cannot draw) ends every process here, as a
    // failure of one process does (main's DeviceError: the line names the process).
    template <class Body> static void alone(const Body& body) {
        try {
            body();
        } catch (const InputError& e) {
            throw gpu::DeviceError(e.what());
        }
    }
    void gather() {
        for (gpu::Field f : kDrawnFields) {
            const std::vector<float> field = sim_.download(f); // rank 0: the whole field
            if (whole_) whole_->upload(f, field);
        }
        if (!whole_) return;
        whole_->setSimTime(sim_.simTime()); // the storms' clouds move with it
        whole_->setStepIndex(sim_.stepIndex());
    }

    gpu::Simulation& sim_;
    std::unique_ptr<gpu::Simulation> whole_; // rank 0
    std::unique_ptr<TimelapseSink> inner_;   // rank 0
};

} // namespace

std::unique_ptr<TimelapseSink> splitTimelapse(gpu::Context& ctx, gpu::Simulation& sim, const gpu::SimParams& whole,
                                              const TimelapseOptions& options, const Params& params,
                                              const TimelapseFactory& make) {
    return std::make_unique<SplitTimelapse>(ctx, sim, whole, options, params, make);
}

} // namespace alluvium
