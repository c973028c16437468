// alluvium run --timelapse DIR --every N: the terrain drawn by the viewer's renderer offscreen
// (the camera framing the whole terrain, no panel) every N steps, written on a writer thread as
// DIR/frame-000000.png, frame-000001.png, ... and, if the ffmpeg program is on PATH, streamed
// into DIR/timelapse.mp4 (else one line says the video was skipped).
#pragma once
#include <memory>

#include "commands.h"

namespace alluvium::viewer {

// The sink runCommand draws the frames with (main.cpp passes it as the TimelapseFactory).
std::unique_ptr<TimelapseSink> makeTimelapse(gpu::Context& ctx, gpu::Simulation& sim, const TimelapseOptions& options,
                                             const Params& params);

} // namespace alluvium::viewer
