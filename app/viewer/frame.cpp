// One frame of the viewer on the GPU (frame.h).
#include "frame.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <optional>
#include <string>

#define GLFW_INCLUDE_VULKAN
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_vulkan.h>

#include "camera.h"
#include "history.h"
#include "render_shared.h"

namespace alluvium::viewer {

namespace {

constexpr float kPanelWidth = 360.0f; // pixels, as panel.cpp opens it

} // namespace

void fillUniforms(App& app, const Renderer& renderer, FrameUniforms& u, VkExtent2D extent, bool brush_visible) {
    const ViewerState& s = app.state;
    const float L = float(s.params[Param::cell_size]);
    const float aspect = float(extent.width) / float(std::max(extent.height, 1u));
    const float extent_m = float(std::max(s.width, s.height)) * L;
    app.camera.top_down = s.top_down;
    // With the panel open, centre the scene in the part of the view the panel leaves free; not
    // when recordings and screenshots leave the panel out (they are framed for the whole view).
    const float panel_px =
        s.show_panel && !s.recording.hide_panel ? std::min(kPanelWidth + 8.0f, 0.45f * float(extent.width)) : 0.0f;
    app.camera.shift_x = panel_px / float(std::max(extent.width, 1u));
    const glm::mat4 vp = viewProjection(app.camera, aspect, extent_m);
    std::memcpy(u.view_proj, &vp[0][0], sizeof u.view_proj);
    const glm::vec3 eye = eyePosition(app.camera);
    const float ce = std::cos(s.sun_elevation);
    auto set = [](float* v, float a, float b, float c, float d) { v[0] = a, v[1] = b, v[2] = c, v[3] = d; };
    set(u.camera_pos, eye.x, eye.y, eye.z, s.top_down ? 1.0f : 0.0f);
    set(u.sun_dir, ce * std::sin(s.sun_azimuth), std::sin(s.sun_elevation), ce * std::cos(s.sun_azimuth),
        3.0f); // w: shadow sharpness
    set(u.brush, s.pick_x, s.pick_y, s.radius, brush_visible ? 1.0f : 0.0f);
    set(u.grid, float(s.width), float(s.height), L, s.exaggeration);
    const float base =
        app.relief_lo - 0.08f * (app.relief_hi - app.relief_lo) - 2.0f * L / std::max(s.exaggeration, 0.1f);
    set(u.mesh, float(renderer.meshX()), float(renderer.meshY()), base, 0.0f);
    set(u.overlay, float(s.overlay), s.overlay_range, s.show_water ? 1.0f : 0.0f, 0.0f);
    // The storms' clouds, from the simulation's parameter block (SI, as the passes read it) and
    // its clock (storms.glsl).
    const gpu::SimParams& q = app.sim->params();
    set(u.storms, float(app.sim->simTime()), q.storm_radius / q.cell_size, q.storm_intensity,
        q.storm_speed / q.cell_size);
    set(u.storms2, q.wind_direction, q.storm_lifetime, float(q.storm_count), float(q.storm_seed));
    set(u.ground, float(q.enable_layers), float(q.enable_snow != 0 && q.model == MODEL_PIPE), 1000.0f / q.snow_density,
        float(q.enable_vegetation != 0 && q.model == MODEL_PIPE));
    set(u.lava, float(q.enable_lava != 0 && q.model == MODEL_PIPE), q.lava_vent_temperature, 0.0f, 0.0f);
    // The picking ray through the cursor (the window's centre offscreen).
    float nx = 0, ny = 0;
    if (app.window) {
        int ww, wh;
        glfwGetWindowSize(app.window, &ww, &wh);
        nx = float(app.last_x / std::max(ww, 1) * 2.0 - 1.0);
        ny = float(app.last_y / std::max(wh, 1) * 2.0 - 1.0);
    }
    const Ray ray = rayThrough(app.camera, aspect, nx, ny);
    set(u.ray_origin, ray.origin.x, ray.origin.y, ray.origin.z, 1.0f);
    set(u.ray_dir, ray.dir.x, ray.dir.y, ray.dir.z, 0.0f);
    set(u.relief, app.relief_lo, app.relief_hi, 0.0f, s.model == MODEL_FLUVIAL ? 1.0f : 0.0f);
}

// Reads what the GPU wrote for this slot's previous frame: timestamps, pick, totals.
void readBack(App& app, Frame& f, Renderer& renderer, uint32_t slot) {
    ViewerState& s = app.state;
    if (f.picked) {
        const PickResult pick = renderer.pick(slot);
        s.pick_hit = pick.hit;
        if (pick.hit) s.pick_x = pick.x, s.pick_y = pick.y, s.pick_height = pick.height;
        if (!std::isfinite(pick.height)) s.pick_hit = false;
    }
    if (f.timer.used > 0) {
        const std::vector<double> ms = gpu::readTimestampsMs(f.timer, *app.ctx);
        s.gpu_frame_ms = ms.back();
        s.gpu_history_ms = ms[f.ts_history_end] - ms[f.ts_history_begin];
        s.gpu_sim_ms = ms[f.ts_steps] - s.gpu_history_ms;
        s.gpu_pick_ms = ms[f.ts_pick] - ms[f.ts_steps];
        s.gpu_capture_ms = ms[f.ts_copy_end] - ms[f.ts_copy_begin];
        s.gpu_draw_ms = ms[f.ts_scene] - ms[f.ts_pick] - s.gpu_capture_ms;
        // ms[0]: frame start; ms[1]: before the timed step's first pass; ms[2 + i]: after pass i
        // (the pipe model's sub-steps repeat its passes: each pass's times are summed).
        if (!f.timed_passes.empty() && ms.size() >= f.timed_passes.size() + 3) {
            s.pass_ms.clear();
            for (size_t i = 0; i < f.timed_passes.size(); ++i) {
                const char* name = gpu::passName(f.timed_passes[i]);
                const double t = ms[i + 2] - ms[i + 1];
                auto same =
                    std::find_if(s.pass_ms.begin(), s.pass_ms.end(), [&](const auto& p) { return p.first == name; });
                if (same != s.pass_ms.end())
                    same->second += t;
                else
                    s.pass_ms.emplace_back(name, t);
            }
        }
    }
    const bool non_finite = renderer.takeNonFinite(slot);
    // Uplift (the fluvial model) raises the land: the colours follow its current altitude range.
    if (const auto range = renderer.takeGroundRange(slot); range && s.model == MODEL_FLUVIAL && !non_finite) {
        app.relief_lo = range->first;
        app.relief_hi = std::max(range->second, range->first + 1.0f);
    }
    s.totals = app.sim->totals();
    app.sim->adaptSubsteps(true); // the CFL sub-steps of the next frames, from this frame's flow
    s.substeps = app.sim->substeps();
    s.fluvial = app.sim->fluvial().hostControl();
    s.lakes = app.sim->fluvial().lakes;
    s.brush_totals = app.brush->totals();
    s.hand_holding = app.hand_holding || app.hand_picking;
    const bool finite = !non_finite && std::isfinite(s.totals.max_speed) && std::isfinite(s.totals.acc[SLOT_ERODED]) &&
                        std::isfinite(s.totals.acc[SLOT_RAIN]) && (!f.picked || std::isfinite(s.pick_height));
    if (!finite && s.watchdog.empty()) {
        s.paused = true;
        s.watchdog = "NaN detected at step " + std::to_string(s.steps_done) + ": paused (R resets)";
        std::fprintf(stderr, "alluvium: %s\n", s.watchdog.c_str());
    }
}

void recordFrame(App& app, Frame& f, Renderer& renderer, uint32_t slot, uint32_t target, int steps, BrushInput input,
                 bool capture_without_panel, const std::function<void(VkCommandBuffer)>& capture) {
    ViewerState& s = app.state;
    gpu::Simulation& sim = *app.sim;
    // With lakes that balance evaporation each iteration needs the host's solve of its own
    // ground before it is recorded: one iteration a frame.
    if (steps > 1 && sim.fluvialLakesOn()) steps = 1;
    VkCommandBuffer cmd = f.cmd;
    VK_CHECK(vkResetCommandBuffer(cmd, 0));
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    VK_CHECK(vkBeginCommandBuffer(cmd, &begin));
    gpu::resetTimer(f.timer, cmd);
    gpu::writeTimestamp(f.timer, cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT);

    // The brush (gpu/brush.h) acts between frames on the current images, for every model.
    const std::optional<gpu::BrushParams> stroke = brushStroke(app, input);
    // Undo, redo, scrubbing and the snapshots due, before anything changes the state.
    f.ts_history_begin = gpu::writeTimestamp(f.timer, cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT);
    if (app.history) app.history->beginFrame(cmd, app, steps, stroke.has_value() || s.springs_dirty, f.submission);
    f.ts_history_end = gpu::writeTimestamp(f.timer, cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT);
    if (s.springs_dirty) {
        sim.setSprings(s.springs);
        s.springs_dirty = false;
    }

    f.timed_passes.clear();
    if (stroke || steps > 0) Renderer::barrierDrawToSimulation(cmd);
    if (stroke) app.brush->record(cmd, *stroke);
    if (stroke) app.brush_seconds += input.seconds;
    if (stroke && stroke->tool == BRUSH_TOOL_RAIN) sim.rainMaskChanged(); // the passes read the mask now
    if (steps > 0) {
        // Lakes that balance evaporation: the basins are read back and the lakes solved on the
        // host before the iteration is recorded (one iteration a frame; see below).
        sim.prepareFluvialLakes();
        sim.recordUpdates(cmd);
        for (int i = 0; i < steps; ++i) {
            const bool timed = i == 0;
            if (timed)
                for (int k = 0; k < sim.substeps(); ++k)
                    f.timed_passes.insert(f.timed_passes.end(), sim.stepPasses().begin(), sim.stepPasses().end());
            sim.recordStep(cmd, timed ? &f.timer : nullptr, i + 1 < steps);
        }
        s.steps_done += steps;
    }
    if (stroke || steps > 0) Renderer::barrierSimulationToDraw(cmd);
    f.ts_steps = gpu::writeTimestamp(f.timer, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT);
    renderer.recordPick(cmd, slot);
    f.ts_pick = gpu::writeTimestamp(f.timer, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT);
    // Frames that stepped need new sunlight; others keep it unless what it reads changed.
    renderer.recordPrepare(cmd, slot, steps == 0);
    f.picked = true;
    renderer.beginScene(cmd, slot, target, s.show_water && s.overlay == 0);
    auto timedCapture = [&] {
        f.ts_copy_begin = gpu::writeTimestamp(f.timer, cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT);
        capture(cmd);
        f.ts_copy_end = gpu::writeTimestamp(f.timer, cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT);
    };
    if (capture_without_panel) { // the scene alone is copied; the panel is drawn over it after
        renderer.endScene(cmd);
        timedCapture();
        renderer.beginOverlay(cmd, target);
    }
    ImGui_ImplVulkan_RenderDrawData(ImGui::GetDrawData(), cmd);
    renderer.endScene(cmd);
    if (!capture_without_panel) timedCapture();
    f.ts_scene = gpu::writeTimestamp(f.timer, cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT);
}

// Copies `image` (in `layout`) into a host buffer after the scene; the caller waits and writes.
void recordCopy(VkCommandBuffer cmd, VkImage image, VkImageLayout layout, VkExtent2D extent,
                const gpu::Buffer& buffer) {
    gpu::imageBarrier(cmd, image,
                      {layout, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
                       VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                       VK_ACCESS_TRANSFER_READ_BIT});
    VkBufferImageCopy region{};
    region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    region.imageExtent = {extent.width, extent.height, 1};
    vkCmdCopyImageToBuffer(cmd, image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, buffer.buffer, 1, &region);
    gpu::imageBarrier(cmd, image,
                      {VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, layout, VK_PIPELINE_STAGE_TRANSFER_BIT,
                       VK_ACCESS_TRANSFER_READ_BIT, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, 0});
    gpu::memoryBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                       VK_ACCESS_HOST_READ_BIT);
}

// Copies the drawn frame (TRANSFER_SRC after the render pass) into the acquired swapchain image
// and leaves that ready to present. The acquire semaphore is waited on at the transfer stage.
void recordPresentCopy(VkCommandBuffer cmd, VkImage frame, VkImage swapchain_image, VkExtent2D extent) {
    gpu::imageBarrier(cmd, swapchain_image,
                      {VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_PIPELINE_STAGE_TRANSFER_BIT,
                       0, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT});
    VkImageCopy region{};
    region.srcSubresource = region.dstSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    region.extent = {extent.width, extent.height, 1};
    vkCmdCopyImage(cmd, frame, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, swapchain_image,
                   VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &region);
    gpu::imageBarrier(cmd, swapchain_image,
                      {VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_PRESENT_SRC_KHR,
                       VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                       VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, 0});
}

} // namespace alluvium::viewer
