// Snow (models/snow.h): the avalanches' rates (snow_slide), then the slide, snowfall and melt
// (snow); the snow is a ping-pong field, its halves flipped with the pipe step's only while snow
// is on (livePingPong).
#include "snow.h"

namespace alluvium::gpu {

bool snowInStep(const SimParams& p) { return p.enable_snow != 0 && p.model == MODEL_PIPE; }

void recordSnow(Step& step) {
    const bool on = snowInStep(step.params);
    for (Pass pass : {Pass::SnowSlide, Pass::Snow}) {
        if (on) step.rec.pass(pass);
        step.rec.timestamp();
    }
}

} // namespace alluvium::gpu
