// The thermal and olsen models (seed 001): talus-angle thermal erosion, and Olsen's improved
// erosion, which flattens gentle ground and keeps cliffs. Each step: talus_outflow (every cell's
// material above the talus slope, to its lower neighbours) and talus_gather (what arrives), the
// model's timed passes in order.
#include "model.h"

namespace alluvium::gpu {

namespace {

Model talusModel(int id, const char* name, const char* summary) {
    return {id,
            name,
            summary,
            {Field::Terrain, Field::Loose},
            {Pass::TalusOutflow, Pass::TalusGather},
            {},
            {},
            nullptr,
            "no water moves in this model: the water stored is carried over unchanged"};
}

} // namespace

const Model& thermalModel() {
    static const Model model = talusModel(MODEL_THERMAL, "thermal", "talus-angle thermal erosion (seed 001)");
    return model;
}

const Model& olsenModel() {
    static const Model model =
        talusModel(MODEL_OLSEN, "olsen", "Olsen's improved erosion: flattens gentle ground, keeps cliffs (seed 001)");
    return model;
}

} // namespace alluvium::gpu
