// alluvium view's options, checked before the GPU starts: anything a person can get wrong is one
// line and exit 2 (InputError), never a window that opens and then fails.
#pragma once
#include "recorder.h"
#include "view.h"

namespace alluvium::viewer {

struct CheckedViewOptions {
    int window_w = 0, window_h = 0; // --window
    RecordSettings record;          // --record, --record-fps, --record-size
    int overlay = 0;                // --overlay (OVERLAY_*)
};

CheckedViewOptions checkViewOptions(const ViewOptions& o);

} // namespace alluvium::viewer
