// Vegetation (models/vegetation.h): one pass, each cell on its own, its field updated in place.
#include "vegetation.h"

namespace alluvium::gpu {

bool vegetationInStep(const SimParams& p) { return p.enable_vegetation != 0 && p.model == MODEL_PIPE; }

void recordVegetation(Step& step) {
    if (vegetationInStep(step.params)) step.rec.pass(Pass::Vegetation);
    step.rec.timestamp();
}

} // namespace alluvium::gpu
