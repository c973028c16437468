// alluvium view's options, checked before the GPU starts (options.h).
#include "options.h"

#include <string>

#include "app.h"
#include "io/errors.h"
#include "panel.h"
#include "render_shared.h"
#include "session.h"
#include "setup.h"
#include "simulation.h"

namespace alluvium::viewer {

CheckedViewOptions checkViewOptions(const ViewOptions& o) {
    if (!o.report.empty() && !hasExtension(o.report, ".json"))
        throw InputError("--report '" + o.report + "': use a .json file");
    if (!o.screenshot.empty() && !hasExtension(o.screenshot, ".png"))
        throw InputError("--screenshot '" + o.screenshot + "': use a .png file");
    if (!o.model.empty() && gpu::modelFromName(o.model) < 0)
        throw InputError("--model: unknown model '" + o.model + "' (" + gpu::modelList() + ")");
    CheckedViewOptions c;
    int& win_w = c.window_w;
    int& win_h = c.window_h;
    parseSize(o.window, win_w, win_h, "--window");
    if (win_w < 64 || win_h < 64) throw InputError("--window: at least 64x64 pixels");
    if (o.steps_per_frame < 0 || o.steps_per_frame > 1000) throw InputError("--steps-per-frame: 0..1000");
    if (o.mesh == 1 || o.mesh < 0 || o.mesh > 16384)
        throw InputError("--mesh: 0 (by device) or 2..16384 vertices a side");
    if (!(o.history_every >= 0) || o.history_every > 1e9)
        throw InputError("--history-every: 0 (off) or a positive number of simulated seconds");
    RecordSettings& record = c.record;
    record.path = o.record;
    record.fps = o.record_fps;
    record.from_command_line = true;
    if (!o.record_size.empty()) {
        int rw = 0, rh = 0;
        parseSize(o.record_size, rw, rh, "--record-size");
        record.width = uint32_t(rw);
        record.height = uint32_t(rh);
    }
    if (!o.record.empty())
        checkRecordSettings(record, "--record");
    else
        checkRecordFormat(record, "--record");
    int& overlay = c.overlay;
    if (!o.overlay.empty()) {
        overlay = -1;
        std::string known;
        for (int i = 0; i < OVERLAY_COUNT; ++i) {
            if (o.overlay == overlayKey(i)) overlay = i;
            known += std::string(known.empty() ? "" : ", ") + overlayKey(i);
        }
        if (overlay < 0) throw InputError("--overlay: unknown overlay '" + o.overlay + "' (" + known + ")");
    }
    if (!o.save_session.empty() && !isSessionPath(o.save_session))
        throw InputError("--save-session '" + o.save_session + "': use a .alluvium or .session file");
    return c;
}

} // namespace alluvium::viewer
