// The thermal and olsen models (seed 001): talus-angle thermal erosion, and Olsen's improved
// erosion, which flattens gentle ground and keeps cliffs. Each step: talus_outflow (every cell's
// material above the talus slope, to its lower neighbours) and talus_gather (what arrives).
#include "model.h"

namespace alluvium::gpu {

namespace {

void recordTalus(Step& step) {
    for (Pass pass : {Pass::TalusOutflow, Pass::TalusGather}) {
        step.rec.pass(pass);
        step.rec.timestamp();
    }
}

constexpr const char* kNoWater = "no water moves in this model: the water stored is carried over unchanged";

} // namespace

const Model& thermalModel() {
    static const Model model = {MODEL_THERMAL, "thermal", "talus-angle thermal erosion (seed 001)", {Field::Terrain},
                                {Pass::TalusOutflow, Pass::TalusGather}, {}, {}, recordTalus, kNoWater};
    return model;
}

const Model& olsenModel() {
    static const Model model = {MODEL_OLSEN,
                                "olsen",
                                "Olsen's improved erosion: flattens gentle ground, keeps cliffs (seed 001)",
                                {Field::Terrain},
                                {Pass::TalusOutflow, Pass::TalusGather},
                                {},
                                {},
                                recordTalus,
                                kNoWater};
    return model;
}

} // namespace alluvium::gpu
