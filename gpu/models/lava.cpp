// Lava (models/lava.h): the outflows (lava_flux), then the gather, eruption, cooling and rock
// (lava); the lava is a ping-pong field, its halves flipped with the pipe step's only while lava
// is on (livePingPong).
#include "lava.h"

namespace alluvium::gpu {

bool lavaInStep(const SimParams& p, bool split_wide) {
    return p.enable_lava != 0 && p.model == MODEL_PIPE && !split_wide;
}

void recordLava(Step& step) {
    const bool on = lavaInStep(step.params, step.rec.splitWide());
    for (Pass pass : {Pass::LavaFlux, Pass::Lava}) {
        if (on) step.rec.pass(pass);
        step.rec.timestamp();
    }
}

} // namespace alluvium::gpu
