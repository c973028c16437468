// The grid models with surface water: musgrave (seed 000; Musgrave, Kolb & Mace 1989: water and
// sediment to all lower neighbours in proportion to the drop) and simple (seed 001: water to the
// lowest neighbour). Each step: the transfers, their gathering, the step's rain and evaporation
// into the totals (grid_totals), then groundwater (models/groundwater.cpp).
#include "groundwater.h"
#include "model.h"

namespace alluvium::gpu {

namespace {

template <Pass kTransfer, Pass kApply> void recordGridModel(Step& step) {
    for (Pass pass : {kTransfer, kApply, Pass::GridTotals}) {
        step.rec.pass(pass);
        step.rec.timestamp();
    }
    recordGridModelGroundwater(step);
}

template <Pass kTransfer, Pass kApply> Model gridModel(int id, const char* name, const char* summary) {
    return {id,
            name,
            summary,
            {Field::Terrain, Field::Water, Field::Sediment, Field::Loose}, // no outflow: their water moves without one
            {kTransfer, kApply, Pass::GridTotals, Pass::SeaSpill, Pass::WaterExchange, Pass::GroundwaterFlow,
             Pass::ReducePartials, Pass::ReduceTotals},
            {},
            {},
            recordGridModel<kTransfer, kApply>,
            "rained: the model's rain (every cell, per event or step); evaporated: its evaporation; no water leaves "
            "over the edges"};
}

} // namespace

const Model& musgraveModel() {
    static const Model model = gridModel<Pass::MusgraveTransfer, Pass::MusgraveApply>(
        MODEL_MUSGRAVE, "musgrave", "grid hydraulic erosion, water to all lower neighbours (seed 000)");
    return model;
}

const Model& simpleModel() {
    static const Model model = gridModel<Pass::SimpleTransfer, Pass::SimpleApply>(
        MODEL_SIMPLE, "simple", "four-step hydraulic erosion, water to the lowest neighbour (seed 001)");
    return model;
}

} // namespace alluvium::gpu
