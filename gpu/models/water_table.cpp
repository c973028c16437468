// The equilibrium water table's recording (models/water_table.h).
#include "water_table.h"

#include <algorithm>

#include "sea.h"

namespace alluvium::gpu {

void recordWaterTableStart(Step& step) {
    recordSeaSpillFull(step);
    step.rec.pass(Pass::WaterTableInit);
}

void recordWaterTableRound(Step& step, int round, int rounds) {
    // The last rounds without over-relaxation (TABLE_POLISH): a tenth of them (at least one), at
    // most 200.
    const int polish_rounds = std::clamp((rounds + 9) / 10, 1, 200);
    const int mode = (round >= rounds - polish_rounds ? TABLE_POLISH : 0) | (round & 1 ? TABLE_ROUND_ODD : 0);
    for (int colour = 0; colour < 2; ++colour) // the data is back in half 0 after both
        step.rec.pass(Pass::WaterTable, colour | (colour << 1) | mode);
}

void recordWaterTableStore(Step& step) { step.rec.pass(Pass::WaterTableStore, 0); }

uint32_t waterTableMoved(const SeaState& sea, int rounds) {
    return seaControl(sea).changed[(rounds - 1) & 1]; // the last round's, both colours
}

} // namespace alluvium::gpu
