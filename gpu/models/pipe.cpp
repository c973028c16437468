// The pipe model (seed 004; design, "One step of the pipe model"): shallow water on the pipe
// grid with hydraulic and thermal erosion, one step recorded as four passes over the grid and the
// fold of its sums:
//   sources_flux                            design steps 1-2: rain and springs, outflow flux
//   water_velocity                          steps 1, 3-4: water update, velocity (flow map)
//   erosion_transport_thermal_evaporation   steps 5-8 (wear map); on CPU drivers as three passes
//                                           that read neighbours from images instead of shared
//                                           memory (PipePasses::Direct): erosion,
//                                           transport_thermal_outflow_evaporation, thermal_gather
//   (lava)                                  models/lava.cpp, on the new ground and water
//   (snow)                                  models/snow.cpp, on the new ground and water
//   (groundwater and the sea)               models/groundwater.cpp, on the new ground and water
//   (vegetation)                            models/vegetation.cpp, on the new ground and water
//   the fold                                the step's sums into the run's totals, and the
//                                           sediment correction's scale
//   sediment_correct                        the semi-Lagrangian transport's global correction
//                                           (left to the next step's erosion when one follows)
// A step of dt runs the state's CFL sub-steps, each a whole step of dt / n, ping-pong included.
#include "groundwater.h"
#include "lava.h"
#include "model.h"
#include "snow.h"
#include "vegetation.h"

namespace alluvium::gpu {

namespace {

// The sediment correction scales every cell by the factor the fold leaves in the totals buffer.
// The next step's erosion is the first pass to read the sediment, and it keeps that factor until
// the next step's own fold, so when steps are recorded back to back the erosion multiplies as it
// loads (sedimentAtStart, shaders/pipe_erosion.glsl): the same product, one pass over the grid
// (8 bytes a cell) fewer per step. The last step of a command buffer corrects in its own pass.
void recordSubstep(Step& step, bool another_follows) {
    StepRecorder& rec = step.rec;
    PipeState& pipe = step.state.pipe;
    auto pass = [&](Pass p, int mode = 0) {
        rec.pass(p, mode);
        rec.timestamp();
    };
    pass(Pass::SourcesFlux);
    pass(Pass::WaterVelocity);
    const int erode_mode = pipe.correction_carried ? ERODE_CARRIED_CORRECTION : 0;
    pipe.correction_carried = false;
    if (pipe.passes == PipePasses::Direct) {
        pass(Pass::Erosion, erode_mode);
        pass(Pass::TransportThermalOutflowEvaporation);
        pass(Pass::ThermalGather);
    } else {
        pass(Pass::ErosionTransportThermalEvaporation, erode_mode);
    }
    recordLava(step);
    recordSnow(step);
    recordWaterExchange(step);
    recordVegetation(step);
    rec.foldLevels();
    rec.timestamp();
    rec.foldTotals();
    rec.timestamp();
    // Without transport the scale is exactly 1: nothing to correct. A step that follows corrects
    // as it erodes (its timestamp is still written: the bench's table keeps one row per pass).
    if (step.params.enable_transport != 0) {
        if (another_follows) {
            pipe.correction_carried = true;
            ++pipe.corrections_carried;
        } else {
            rec.pass(Pass::SedimentCorrect);
        }
    }
    rec.timestamp();
}

void recordPipe(Step& step) {
    PipeState& pipe = step.state.pipe;
    for (int i = 0; i < pipe.substeps; ++i) {
        if (i > 0) step.flip(kAllPingPong);
        recordSubstep(step, step.another_follows || i + 1 < pipe.substeps);
    }
    pipe.substeps_taken += pipe.substeps;
}

} // namespace

// In PipePasses' order.
constexpr const char* kPipePassesNames[] = {"auto", "fused", "direct"};

PipePasses resolvePipePasses(PipePasses asked) {
    if (asked != PipePasses::Auto) return asked;
    const int chosen = environmentChoice("ALLUVIUM_PIPE_PASSES", kPipePassesNames);
    if (chosen > 0) return PipePasses(chosen);
    // Measured: the direct passes are faster on lavapipe (shared memory costs more than the reads
    // it saves) and on an NVIDIA H200 too (535 against 233 steps/s at 4096^2: the fused pass,
    // 80 % of the step, ran at 4 % of the copy bandwidth, its tile and ring bound by latency).
    return PipePasses::Direct;
}

const char* pipePassesName(PipePasses p) { return kPipePassesNames[int(p)]; }

const Model& pipeModel() {
    static const Model model = {
        MODEL_PIPE,
        "pipe",
        "shallow-water pipe model with hydraulic and thermal erosion, groundwater and the sea (seed 004)",
        {Field::Terrain, Field::Water, Field::Sediment, Field::Outflow, Field::Loose, Field::Snow, Field::Lava},
        {Pass::SourcesFlux, Pass::WaterVelocity, Pass::ErosionTransportThermalEvaporation, Pass::LavaFlux, Pass::Lava,
         Pass::SnowSlide, Pass::Snow, Pass::SeaSpill, Pass::WaterExchange, Pass::GroundwaterFlow, Pass::Vegetation,
         Pass::ReducePartials, Pass::ReduceTotals, Pass::SedimentCorrect},
        {Pass::SourcesFlux, Pass::WaterVelocity, Pass::Erosion, Pass::TransportThermalOutflowEvaporation,
         Pass::ThermalGather, Pass::LavaFlux, Pass::Lava, Pass::SnowSlide, Pass::Snow, Pass::SeaSpill,
         Pass::WaterExchange, Pass::GroundwaterFlow, Pass::Vegetation, Pass::ReducePartials, Pass::ReduceTotals,
         Pass::SedimentCorrect},
        {},
        recordPipe,
        nullptr,
    };
    return model;
}

} // namespace alluvium::gpu
