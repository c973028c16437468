// The device's own copy bandwidth, measured in the same run as the passes it is the yardstick
// for (`alluvium bench`): a plain copy kernel over buffers and one over rgba32f storage images.
#pragma once
#include <cstdint>

#include "context.h"

namespace alluvium::gpu {

struct CopyBandwidth {
    uint64_t bytes = 0;       // read + written by one copy
    double buffer_gb_s = 0.0; // best of the repeats (GB = 1e9 bytes)
    double image_gb_s = 0.0;
    double best() const { return buffer_gb_s > image_gb_s ? buffer_gb_s : image_gb_s; }
};

// Copies about `bytes_moved` bytes (half read, half written; capped by what one buffer may hold
// and by device memory), `repeats` times after a warm-up, timed by GPU timestamps.
CopyBandwidth measureCopyBandwidth(const Context& ctx, uint64_t bytes_moved, int repeats = 5);

} // namespace alluvium::gpu
