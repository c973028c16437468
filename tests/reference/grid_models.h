// Reference twins of the musgrave (seed 000) and simple (seed 001) models: each step is a
// transfer pass (writes the kept amounts into `next` and the moves into the state's thermal
// and scratch fields) and an apply pass (gathers into `next`). See the shaders for the rules.
#pragma once
#include "reference.h"

namespace alluvium::ref {

void musgraveTransfer(const State& cur, State& next, const gpu::SimParams& p, int step_index);
void musgraveApply(State& next, const gpu::SimParams& p);
void simpleTransfer(const State& cur, State& next, const gpu::SimParams& p);
void simpleApply(const State& cur, State& next, const gpu::SimParams& p);

} // namespace alluvium::ref
