// A split run's timelapse (mpirun, --timelapse): rank 0 draws the whole grid on a simulation of
// its own, whose fields the renderer reads are gathered from the blocks before each frame (every
// process takes part). The frames are one process's to the bit; rank 0's device holds the whole
// grid's fields besides its block.
#pragma once
#include <memory>

#include "commands.h"

namespace alluvium {

// Every process calls it, and then frame() and finish() at once. `whole`: the run's parameters
// for the whole grid. Throws a DeviceError on rank 0 when the whole grid does not fit its device.
std::unique_ptr<TimelapseSink> splitTimelapse(gpu::Context& ctx, gpu::Simulation& sim, const gpu::SimParams& whole,
                                              const TimelapseOptions& options, const Params& params,
                                              const TimelapseFactory& make);

} // namespace alluvium
