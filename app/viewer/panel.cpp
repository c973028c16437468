// [SECTION] names
// [SECTION] statistics
// [SECTION] simulation, view and brush
// [SECTION] parameters (the table)
// [SECTION] groundwater and the equilibrium water table
// [SECTION] presets and files
// [SECTION] recording
// [SECTION] history: undo, redo, the timeline, the list
// (The overlays' names, colour maps and legend: overlays.cpp.)
#include "panel.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

#include <imgui.h>

#include "io/terrain_gen.h"
#include "render_shared.h"
#include "setup.h"

namespace alluvium::viewer {

// [SECTION] names

const char* toolName(Tool t) {
    switch (t) {
    case Tool::AddWater: return "1 add water";
    case Tool::RemoveWater: return "2 remove water";
    case Tool::Raise: return "3 raise";
    case Tool::Lower: return "4 lower";
    case Tool::Smooth: return "5 smooth";
    case Tool::Flatten: return "6 flatten";
    case Tool::Hardness: return "7 paint";
    case Tool::Spring: return "8 spring";
    case Tool::Hand: return "9 hand";
    }
    return "?";
}

bool toolAvailable(Tool) { return true; }

namespace {

void tooltip(const char* text) {
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled) && text && *text) ImGui::SetTooltip("%s", text);
}

// [SECTION] statistics

void statistics(ViewerState& s) {
    ImGui::Text("%.1f fps  %.1f ms/frame  GPU %.1f ms", s.fps, s.frame_ms, s.gpu_frame_ms);
    ImGui::Text("GPU: steps %.1f  pick %.2f  drawing %.1f ms", s.gpu_sim_ms, s.gpu_pick_ms, s.gpu_draw_ms);
    if (s.recording.active) ImGui::Text("GPU: the frame's copy for the recording %.2f ms", s.gpu_capture_ms);
    if (s.model == MODEL_FLUVIAL) {
        const long long steps = s.steps_before + s.steps_done; // a loaded session's steps first
        const double years = double(steps) * s.params[Param::fluvial_time_step];
        ImGui::Text("iteration %lld  (%.4g years)%s", steps, years, s.paused ? "  PAUSED" : "");
        ImGui::Text("lake fill: %u + %u basin rounds, %u flats rounds%s, %u pointer-jumping rounds",
                    s.fluvial.rounds_label, s.fluvial.rounds_boruvka + s.fluvial.rounds_hook, s.fluvial.rounds_flats,
                    s.fluvial.converged ? "" : " (NOT converged: raise fluvial_flat_rounds)",
                    s.fluvial.rounds_tree[0] + s.fluvial.rounds_tree[1] + s.fluvial.rounds_tree[2]);
        if (s.params[Param::lake_evaporation] > 0.0)
            ImGui::Text("closed lakes: %d, %.4g m^2 (solved on the host in %.1f ms)", s.lakes.closed_lakes,
                        s.lakes.closed_area_m2, s.lakes.host_ms);
    } else {
        const long long steps = s.steps_before + s.steps_done; // a loaded session's steps first
        const double sim_seconds = double(steps) * s.params[Param::time_step];
        ImGui::Text("step %lld  (%.1f s simulated)%s", steps, sim_seconds, s.paused ? "  PAUSED" : "");
    }
    if (!s.watchdog.empty()) ImGui::TextColored(ImVec4(1, 0.3f, 0.3f, 1), "%s", s.watchdog.c_str());
    if (!s.message.empty()) ImGui::TextWrapped("%s", s.message.c_str());
    if (!s.shader_status.empty()) ImGui::TextWrapped("shaders: %s", s.shader_status.c_str());
    if (!s.shader_error.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1, 0.4f, 0.4f, 1));
        ImGui::TextWrapped("%s", s.shader_error.c_str());
        ImGui::PopStyleColor();
    }
    if (ImGui::TreeNode("GPU ms per pass (one step)")) {
        double most = 1e-6;
        for (const auto& [name, ms] : s.pass_ms) most = std::max(most, ms);
        for (const auto& [name, ms] : s.pass_ms) {
            char label[64];
            std::snprintf(label, sizeof label, "%.3f ms", ms);
            ImGui::ProgressBar(float(ms / most), ImVec2(120, 0), label);
            ImGui::SameLine();
            ImGui::TextUnformatted(name.c_str());
        }
        ImGui::TreePop();
    }
    if (ImGui::TreeNodeEx("Totals (m^3)", ImGuiTreeNodeFlags_DefaultOpen)) {
        const double* a = s.totals.acc;
        const gpu::BrushTotals& b = s.brush_totals;
        const double water = s.initial_water + a[SLOT_RAIN] + a[SLOT_SPRING] + b.water_added - b.water_removed -
                             a[SLOT_EVAPORATED] - a[SLOT_DRAINED_WATER] - a[TOTAL_WATER_ABSORBED] + a[SLOT_SEEPED] -
                             a[SLOT_INFILTRATED] + a[SLOT_SEA_IN] - a[SLOT_SEA_OUT] + a[SLOT_MELT] -
                             a[SLOT_BOILED]; // on the ground (and the brush's snow)
        if (s.model != MODEL_FLUVIAL) {
            ImGui::Text("water %.4g (rained %.4g, springs %.4g)", water, a[SLOT_RAIN], a[SLOT_SPRING]);
            ImGui::Text("evaporated %.4g  drained %.4g", a[SLOT_EVAPORATED], a[SLOT_DRAINED_WATER]);
            if (s.model == MODEL_PARTICLES) ImGui::Text("absorbed where droplets ended %.4g", a[TOTAL_WATER_ABSORBED]);
        }
        if (const char* note = gpu::model(s.model).water_note; note && ImGui::IsItemHovered())
            ImGui::SetTooltip("%s", note);
        ImGui::Text("brush water +%.4g / -%.4g", b.water_added, b.water_removed);
        ImGui::Text("brush ground +%.4g / -%.4g", b.terrain_added, b.terrain_removed);
        if (s.model == MODEL_PIPE) ImGui::Text("eroded %.4g  deposited %.4g", a[SLOT_ERODED], a[SLOT_DEPOSITED]);
        if (s.model == MODEL_PIPE || s.model == MODEL_PARTICLES)
            ImGui::Text("sediment off the edges %.4g", a[SLOT_SED_DRAINED]);
        if (s.model == MODEL_FLUVIAL) ImGui::TextWrapped("%s", gpu::model(s.model).water_note);
        if (s.params[Param::enable_groundwater] >= 0.5 &&
            (s.model == MODEL_PIPE || s.model == MODEL_MUSGRAVE || s.model == MODEL_SIMPLE))
            ImGui::Text("infiltrated %.4g  seeped %.4g", a[SLOT_INFILTRATED], a[SLOT_SEEPED]);
        if (s.params[Param::enable_snow] >= 0.5 && s.model == MODEL_PIPE)
            ImGui::Text("snow fell %.4g  melted %.4g", a[SLOT_SNOWFALL], a[SLOT_MELT]);
        if (s.params[Param::enable_lava] >= 0.5 && s.model == MODEL_PIPE) {
            // The ledger since the terrain's start: what flows is the rest (the report measures it).
            ImGui::Text("lava erupted %.4g  poured %.4g  turned to rock %.4g", a[SLOT_LAVA_ERUPTED], b.lava_poured,
                        a[SLOT_LAVA_SOLIDIFIED]);
            ImGui::Text("water boiled by lava %.4g", a[SLOT_BOILED]);
        }
        if (s.params[Param::enable_sea] >= 0.5 && s.model == MODEL_PIPE)
            ImGui::Text("from the sea %.4g  into it %.4g", a[SLOT_SEA_IN], a[SLOT_SEA_OUT]);
        ImGui::Text("max speed %.2f m/s, Froude %.2f", double(s.totals.max_speed), double(s.totals.max_froude));
        if (s.model == MODEL_PIPE) {
            ImGui::Text("CFL %.2f (max %.2f), %d sub-step%s",
                        double(s.totals.step_wave) * s.params[Param::time_step] /
                            (s.substeps * s.params[Param::cell_size]),
                        double(s.totals.max_cfl), s.substeps, s.substeps == 1 ? "" : "s");
            if (ImGui::IsItemHovered())
                ImGui::SetTooltip(
                    "(|v| + sqrt(g d)) dt / L of the last step; each step runs enough sub-steps of dt / n "
                    "to keep it at or below %.1f (at most %d)",
                    CFL_TARGET, MAX_SUBSTEPS);
        }
        ImGui::TreePop();
    }
    if (s.validation_errors > 0)
        ImGui::TextColored(ImVec4(1, 0.3f, 0.3f, 1), "validation errors: %d", s.validation_errors);
}

// [SECTION] simulation, view and brush

void controls(ViewerState& s) {
    if (ImGui::Button(s.paused ? "Play (Space)" : "Pause (Space)")) s.paused = !s.paused;
    ImGui::SameLine();
    if (ImGui::Button("Step (N)")) ++s.single_steps;
    ImGui::SameLine();
    if (ImGui::Button("Reset (R)")) s.reset_requested = true;
    ImGui::SliderInt("steps per frame", &s.steps_per_frame, 1, 64);
    ImGui::InputInt("seed", &s.seed);
    ImGui::SameLine();
    if (ImGui::Button("New terrain")) s.new_terrain_requested = true;
    // Raw relief (all but carved) shows erosion cutting its valleys from scratch.
    if (ImGui::BeginCombo("terrain", terrainShapeName(TerrainShape(s.terrain_shape)))) {
        for (int k = 0; k < kTerrainShapeCount; ++k)
            if (ImGui::Selectable(terrainShapeName(TerrainShape(k)), k == s.terrain_shape)) {
                s.terrain_shape = k;
                s.new_terrain_requested = true;
            }
        ImGui::EndCombo();
    }
    if (ImGui::BeginCombo("model", gpu::modelName(s.model))) {
        for (const gpu::Model* model : gpu::models())
            if (ImGui::Selectable(model->name, model->id == s.model)) {
                s.model = model->id;
                s.params_dirty = true;
            }
        ImGui::EndCombo();
    }
    if (ImGui::Checkbox("vsync", &s.vsync)) s.vsync_changed = true;
    ImGui::SameLine();
    ImGui::Checkbox("water", &s.show_water);
    ImGui::SameLine();
    ImGui::Checkbox("top-down (T)", &s.top_down);
    ImGui::SliderFloat("height x", &s.exaggeration, 0.25f, 5.0f, "%.2f");
    tooltip("vertical exaggeration of the drawing");
    ImGui::SliderFloat("sun azimuth", &s.sun_azimuth, 0.0f, 6.283f, "%.2f rad");
    ImGui::SliderFloat("sun elevation", &s.sun_elevation, 0.05f, 1.55f, "%.2f rad");
    if (ImGui::BeginCombo("overlay", overlayName(s.overlay))) {
        for (int o = 0; o < OVERLAY_COUNT; ++o)
            if (ImGui::Selectable(overlayName(o), o == s.overlay)) {
                s.overlay = o;
                s.overlay_range = overlayDefaultRange(o);
            }
        ImGui::EndCombo();
    }
    if (s.overlay != 0)
        ImGui::SliderFloat("overlay range", &s.overlay_range, 1e-4f, 1e4f, "%.4g", ImGuiSliderFlags_Logarithmic);
}

void brush(ViewerState& s) {
    for (int t = 1; t <= 9; ++t) {
        const Tool tool = static_cast<Tool>(t);
        ImGui::BeginDisabled(!toolAvailable(tool));
        if (ImGui::RadioButton(toolName(tool), s.tool == tool)) s.tool = tool;
        ImGui::EndDisabled();
        if (t % 3 != 0) ImGui::SameLine();
    }
    ImGui::SliderFloat("radius ([ ])", &s.radius, 1.0f, 200.0f, "%.1f cells", ImGuiSliderFlags_Logarithmic);
    // A rate per second of real time: the same stroke does the same at any speed, paused too.
    // The paint tool's sand and snow lay metres a second; its other maps move towards a value.
    const bool sand = s.tool == Tool::Hardness && (s.paint_map == 3 || s.paint_map == 4 || s.paint_map == 6);
    const bool fraction = s.tool == Tool::Smooth || s.tool == Tool::Flatten || (s.tool == Tool::Hardness && !sand);
    ImGui::SliderFloat("strength", &s.strength, 0.01f, 50.0f, fraction ? "%.2f /s" : "%.2f m/s",
                       ImGuiSliderFlags_Logarithmic);
    tooltip(fraction ? "how fast the ground under the centre moves to its target, per second of real time"
                     : "water or ground added per second of real time at the centre (falloff (1 - r^2)^2), "
                       "whatever the steps per frame, paused too");
    ImGui::SliderFloat("falloff", &s.falloff, 0.0f, 1.0f, "%.2f");
    tooltip("0: a flat disk; 1: (1 - r^2)^2");
    if (s.tool == Tool::Hardness) {
        ImGui::Combo("paints", &s.paint_map,
                     "hardness\0uplift (fluvial model)\0rain\0sand (loose layer)\0snow\0vegetation\0lava\0");
        if (s.paint_map == 4 && (s.params[Param::enable_snow] == 0 || s.model != MODEL_PIPE))
            ImGui::TextWrapped("Snow lies, melts and slides in the pipe model with enable_snow on; until then "
                               "it is kept but not drawn.");
        if (s.paint_map == 5 && (s.params[Param::enable_vegetation] == 0 || s.model != MODEL_PIPE))
            ImGui::TextWrapped("Vegetation grows in the pipe model with enable_vegetation on; until then it is "
                               "kept but not drawn.");
        if (s.paint_map == 6 && (s.params[Param::enable_lava] == 0 || s.model != MODEL_PIPE))
            ImGui::TextWrapped("Lava flows in the pipe model with enable_lava on; until then it is kept but not "
                               "drawn.");
        if (s.paint_map == 3 && s.params[Param::enable_layers] == 0)
            ImGui::TextWrapped("Sand is loose material on layered ground: turn on enable_layers for it "
                               "to erode as loose; without, it raises the ground.");
        if (s.paint_map == 1)
            ImGui::SliderFloat("uplift to paint", &s.paint_uplift_value, 0.0f, 10.0f, "%.2f x uplift_rate");
        else if (s.paint_map == 2)
            ImGui::SliderFloat("rain to paint", &s.paint_rain, 0.0f, 1.0f, "%.2f x rain_rate");
        else if (s.paint_map == 5)
            ImGui::SliderFloat("vegetation to paint", &s.paint_vegetation, 0.0f, 1.0f, "%.2f (0 clears)");
        else if (!sand)
            ImGui::SliderFloat("hardness to paint", &s.paint_hardness, 0.0f, 1.0f, "%.2f");
    }
    if (s.tool == Tool::Hand) {
        const double held = s.brush_totals.hand_picked - s.brush_totals.hand_dropped;
        ImGui::Text("the hand holds %.4g m^3%s", held, held > 0 && s.hand_holding ? ": click to drop it" : "");
    }
    if (s.model != MODEL_PIPE) ImGui::TextWrapped("Springs act in the pipe model's sources pass only.");
    if (s.pick_hit)
        ImGui::Text("cursor: cell %.1f, %.1f  height %.2f m", double(s.pick_x), double(s.pick_y),
                    double(s.pick_height));
    ImGui::Checkbox("the spring tool places the lava's vent", &s.spring_is_vent);
    tooltip("lava_vent_x, lava_vent_y where you click (enable_lava; lava_eruption_rate m^3/s)");
    ImGui::Text("springs (8 to place, right click removes):");
    for (size_t i = 0; i < s.springs.size(); ++i) {
        ImGui::PushID(static_cast<int>(i));
        gpu::Spring& sp = s.springs[i];
        const float area = float(s.params[Param::cell_size] * s.params[Param::cell_size]);
        float rate = sp.rate_per_cell / area; // m/s of depth
        if (ImGui::SliderFloat("##rate", &rate, 0.001f, 50.0f, "%.3f m/s", ImGuiSliderFlags_Logarithmic)) {
            sp.rate_per_cell = rate * area;
            s.springs_dirty = true;
        }
        ImGui::SameLine();
        ImGui::Text("at %.0f, %.0f", double(sp.x), double(sp.y));
        ImGui::SameLine();
        if (ImGui::SmallButton("x")) {
            s.springs.erase(s.springs.begin() + static_cast<long>(i));
            s.springs_dirty = true;
            ImGui::PopID();
            break;
        }
        ImGui::PopID();
    }
}

// [SECTION] parameters (the table)

void parameters(ViewerState& s) {
    std::string open_group;
    bool open = false;
    for (Param param : paramsByGroup()) {
        const ParamInfo& info = paramInfo(param);
        if (info.group != open_group) {
            if (open) ImGui::TreePop();
            open_group = info.group;
            open = ImGui::TreeNode(info.group);
        }
        if (!open) continue;
        {
            const int i = static_cast<int>(param);
            double& value = s.params.values[size_t(i)];
            // A row that does nothing now (its part is off, another model's) is greyed, and says why.
            const std::string why = whyInactive(s.params, param, gpu::modelName(s.model));
            const std::string help = std::string(info.unit) + (info.unit[0] ? ": " : "") + info.meaning +
                                     (why.empty() ? "" : " (no effect now: " + why + ")");
            ImGui::BeginDisabled(!why.empty());
            bool changed = false;
            if (info.kind == 'b') {
                bool on = value != 0.0;
                changed = ImGui::Checkbox(info.name, &on);
                value = on ? 1.0 : 0.0;
            } else if (info.kind == 'e') {
                const std::vector<std::string> names = choiceNames(info);
                int index = static_cast<int>(value);
                if (ImGui::BeginCombo(info.name, names[size_t(std::clamp(index, 0, int(names.size()) - 1))].c_str())) {
                    for (int k = 0; k < int(names.size()); ++k)
                        if (ImGui::Selectable(names[size_t(k)].c_str(), k == index)) {
                            value = k;
                            changed = true;
                        }
                    ImGui::EndCombo();
                }
            } else {
                float v = float(value);
                // Logarithmic where the range spans decades: from its minimum, or from 0 to a
                // maximum far above the default (a rate whose useful values sit near 0).
                const bool wide = info.min > 0 ? info.max / info.min > 100.0
                                               : info.default_value > 0 && info.max / info.default_value > 100.0;
                changed = ImGui::SliderFloat(info.name, &v, float(info.min), float(info.max), "%.4g",
                                             wide ? ImGuiSliderFlags_Logarithmic : 0);
                if (changed) value = std::clamp(double(v), info.min, info.max);
            }
            ImGui::EndDisabled();
            tooltip(help.c_str());
            if (changed) s.params_dirty = true;
        }
    }
    if (open) ImGui::TreePop();
}

// [SECTION] groundwater and the equilibrium water table

void waterTable(ViewerState& s) {
    ImGui::TextWrapped(
        "The live groundwater: the 'groundwater' parameters (enable_groundwater). Seed 003's equilibrium "
        "water table: the 'water table' parameters.");
    if (ImGui::Button("Equilibrium water table")) s.water_table_requested = true;
    tooltip("relax the table that minimises E = S + U - G + C on the current ground (table_iterations rounds) and "
            "show its depth below the ground; with groundwater on, it also becomes the groundwater");
    ImGui::SameLine();
    if (ImGui::Button("Show depth")) {
        s.overlay = OVERLAY_WATER_TABLE;
        s.overlay_range = overlayDefaultRange(OVERLAY_WATER_TABLE);
    }
    if (!s.water_table_status.empty()) ImGui::TextWrapped("%s", s.water_table_status.c_str());
}

// [SECTION] presets and files

void files(ViewerState& s) {
    static char preset[256] = "default";
    static char save_path[256] = "my-preset.json";
    static char import_path[256] = "";
    static char export_path[256] = "terrain.png";
    static char shot_path[256] = "screenshot.png";
    // Each path field leaves room for the widest button beside it: no label is cut off.
    const ImGuiStyle& style = ImGui::GetStyle();
    const float button =
        ImGui::CalcTextSize("Save session (Ctrl+S)").x + 2.0f * style.FramePadding.x + style.ItemSpacing.x;
    // A path field as wide as the row leaves beside its button; true when the button is pressed.
    auto pathRow = [&](const char* id, char* path, size_t size, const char* tip, const char* label) {
        ImGui::SetNextItemWidth(std::max(60.0f, ImGui::GetContentRegionAvail().x - button));
        ImGui::InputText(id, path, size);
        if (tip) tooltip(tip);
        ImGui::SameLine();
        return ImGui::Button(label);
    };
    ImGui::InputText("preset", preset, sizeof preset);
    tooltip("a preset NAME (assets/presets, ~/.config/alluvium/presets) or FILE.json");
    ImGui::SameLine();
    if (ImGui::Button("Load")) s.load_preset = preset;
    if (pathRow("##save", save_path, sizeof save_path, nullptr, "Save preset")) s.save_preset = save_path;
    if (pathRow("##import", import_path, sizeof import_path, nullptr, "Import heightmap")) s.import_path = import_path;
    // For a game engine: its sizes, format and import settings (io/engine_export.h).
    static int engine = 0;
    static const char* const kEngines[] = {"as the file's extension says", "unreal", "unity", "godot"};
    ImGui::Combo("export for", &engine, kEngines, 4);
    tooltip("unreal: 16-bit .png/.r16 at 127..8129 a side; unity: 16-bit .raw at 2^n+1; godot: float .exr; "
            "the import settings go beside it (FILE.import.json) and to the status line");
    if (pathRow("##export", export_path, sizeof export_path, ".png (16-bit + .json sidecar), .f32, .exr, .tif, .asc",
                "Export terrain")) {
        s.export_path = export_path;
        s.export_engine = engine == 0 ? "" : kEngines[engine];
    }
    static char session_path[256] = "";
    if (!session_path[0]) std::snprintf(session_path, sizeof session_path, "%s", s.session_default.c_str());
    if (pathRow(
            "##session", session_path, sizeof session_path,
            "the whole state: resume with `alluvium run --load-session FILE` or `alluvium view --load-session FILE`",
            "Save session (Ctrl+S)"))
        s.save_session = session_path;
    if (pathRow("##shot", shot_path, sizeof shot_path, nullptr, "Screenshot (F12)")) s.screenshot_request = shot_path;
}

// [SECTION] recording

// The first line of the panel (its place never moves): record / stop, and the recording's state.
void recordButton(ViewerState& s) {
    RecordingControl& r = s.recording;
    if (ImGui::Button(r.active ? "Stop recording (F9)" : "Record (F9)")) r.toggle_requested = true;
    if (!r.active) return;
    ImGui::SameLine();
    const int seconds = int(r.seconds);
    ImGui::TextColored(ImVec4(1, 0.25f, 0.25f, 1), "REC %d:%02d  %llu frames%s", seconds / 60, seconds % 60, r.frames,
                       r.behind ? "  (encoder behind)" : "");
}

void recording(ViewerState& s) {
    RecordingControl& r = s.recording;
    static char path[256] = "";
    static char size[32] = "";
    static bool size_init = false;
    if (!size_init && r.width > 0 && r.height > 0) std::snprintf(size, sizeof size, "%dx%d", r.width, r.height);
    size_init = true;
    ImGui::BeginDisabled(r.active);
    if (ImGui::InputTextWithHint("file", "alluvium-DATE-TIME.mp4", path, sizeof path)) r.path = path;
    tooltip(".mp4, .mkv or .mov; empty: a new name from the date and time, in the current folder");
    ImGui::SliderInt("frames per second", &r.fps, 1, 120);
    tooltip("each frame drawn is one frame of the video, which plays at this rate whatever the viewer's speed");
    if (ImGui::InputTextWithHint("size", "the window's", size, sizeof size)) {
        int w = 0, h = 0;
        if (std::sscanf(size, "%dx%d", &w, &h) == 2 && w >= 16 && h >= 16)
            r.width = w & ~1, r.height = h & ~1;
        else
            r.width = r.height = 0;
    }
    tooltip("WxH (even); empty: the window's size. A different aspect gets black bars.");
    ImGui::EndDisabled();
    ImGui::Checkbox("hide the panel in recordings and screenshots", &r.hide_panel);
    if (r.active) ImGui::TextWrapped("recording %s", r.file.c_str());
    ImGui::TextWrapped("The video is encoded by the ffmpeg program on another thread; if it falls behind, the "
                       "viewer waits for it.");
}

// [SECTION] history: undo, redo, the timeline

ImU32 kindColour(const char* kind) {
    if (std::strcmp(kind, "stroke") == 0) return IM_COL32(255, 170, 60, 255);
    if (std::strcmp(kind, "stroke end") == 0) return IM_COL32(120, 220, 120, 255);
    if (std::strcmp(kind, "tip") == 0) return IM_COL32(110, 170, 255, 255);
    return IM_COL32(190, 190, 190, 255); // timed
}

// Near the top of the panel (always in view): undo, redo and the timeline.
void historyBar(ViewerState& s) {
    HistoryControl& h = s.history;
    if (!h.enabled) return;
    const bool fluvial = s.model == MODEL_FLUVIAL;
    const char* unit = fluvial ? "yr" : "s";
    if (ImGui::Button("Undo (Ctrl+Z)")) h.undo = true;
    ImGui::SameLine();
    if (ImGui::Button("Redo (Ctrl+Y)")) h.redo = true;
    ImGui::SameLine();
    if (ImGui::Button("|<")) h.first = true;
    ImGui::SameLine();
    if (ImGui::Button("<")) h.step = -1;
    ImGui::SameLine();
    if (ImGui::Button(">")) h.step = 1;
    ImGui::SameLine();
    if (ImGui::Button(">|")) h.last = true;
    tooltip("Home, comma, period, End: the first, previous, next and last snapshot of this branch");

    // The timeline: the snapshots of the branch the state is on, oldest first, and "now" when
    // the state has moved on from the last one. Dragging restores; the steps wait meanwhile.
    const std::vector<int>& line = h.timeline;
    const int n = int(line.size()) + (h.moved_on ? 1 : 0);
    auto entry = [&](int id) -> const HistoryEntry* {
        for (const HistoryEntry& e : h.entries)
            if (e.id == id) return &e;
        return nullptr;
    };
    int at = n - 1;
    if (!h.moved_on)
        for (int i = 0; i < int(line.size()); ++i)
            if (line[size_t(i)] == h.head) at = i;
    char label[96] = "no snapshot yet";
    if (n > 0) {
        const HistoryEntry* e = at < int(line.size()) ? entry(line[size_t(at)]) : nullptr;
        if (e)
            std::snprintf(label, sizeof label, "#%d %s, t %.4g %s", e->id, e->kind, e->time, unit);
        else
            std::snprintf(label, sizeof label, "now (t %.4g %s)",
                          fluvial ? double(s.steps_done) * s.params[Param::fluvial_time_step]
                                  : double(s.steps_done) * s.params[Param::time_step],
                          unit);
    }
    ImGui::BeginDisabled(n < 2);
    ImGui::SetNextItemWidth(-1);
    int pick = std::max(at, 0);
    if (ImGui::SliderInt("##timeline", &pick, 0, std::max(n - 1, 1), label) && pick < int(line.size()))
        h.go_to = line[size_t(pick)];
    h.scrubbing = ImGui::IsItemActive();
    ImGui::EndDisabled();
    if (n > 1) { // a tick per snapshot, coloured by kind
        const ImVec2 lo = ImGui::GetItemRectMin(), hi = ImGui::GetItemRectMax();
        const float grab = ImGui::GetStyle().GrabMinSize, pad = ImGui::GetStyle().FramePadding.x;
        ImDrawList* draw = ImGui::GetWindowDrawList();
        for (int i = 0; i < int(line.size()); ++i) {
            const HistoryEntry* e = entry(line[size_t(i)]);
            const float x = lo.x + pad + grab * 0.5f + (hi.x - lo.x - 2 * pad - grab) * float(i) / float(n - 1);
            draw->AddLine(ImVec2(x, hi.y - 5), ImVec2(x, hi.y - 1),
                          e ? kindColour(e->kind) : IM_COL32(255, 255, 255, 255), 2.0f);
        }
    }
}

// The "History" section: the interval, the counts, the last drop, every snapshot held.
void history(ViewerState& s) {
    HistoryControl& h = s.history;
    if (!h.enabled) {
        ImGui::TextWrapped("History %s", h.off_reason.c_str());
        return;
    }
    const bool fluvial = s.model == MODEL_FLUVIAL;
    ImGui::SliderFloat(fluvial ? "every (yr)" : "every (s)", &h.every, 0.0f, fluvial ? 1e7f : 3600.0f,
                       h.every > 0 ? "%.4g" : "off", ImGuiSliderFlags_Logarithmic);
    tooltip("a snapshot for the timeline every so many simulated seconds (0: only at strokes)");
    ImGui::Text("%zu held, %.1f of %.0f MB; %d taken, %d dropped", h.entries.size(), double(h.held) / 1048576.0,
                double(h.budget) / 1048576.0, h.taken, h.dropped);
    ImGui::Text("undos %d, redos %d, scrubs %d", h.undos, h.redos, h.scrubs);
    if (!h.message.empty()) {
        const bool dropped = h.message.find("dropped") != std::string::npos;
        if (dropped) ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1, 0.7f, 0.3f, 1));
        ImGui::TextWrapped("%s", h.message.c_str());
        if (dropped) ImGui::PopStyleColor();
    }
    // Every snapshot held, newest first: a click goes there (another branch too).
    if (ImGui::BeginChild("history list", ImVec2(0, 140), true)) {
        for (auto it = h.entries.rbegin(); it != h.entries.rend(); ++it) {
            const HistoryEntry& e = *it;
            char row[128];
            std::snprintf(row, sizeof row, "#%-3d %-10s t %-8.4g branch %d  %s", e.id, e.kind, e.time, e.branch,
                          e.new_bytes >= 0 ? (std::to_string(e.new_bytes / 1024) + " KiB").c_str() : "...");
            ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(kindColour(e.kind)));
            if (ImGui::Selectable(row, e.id == h.head && !h.moved_on)) h.go_to = e.id;
            ImGui::PopStyleColor();
        }
    }
    ImGui::EndChild();
}

} // namespace

void drawPanel(ViewerState& s) {
    legend(s);
    s.history.scrubbing = false; // until the timeline says it is held this frame
    if (!s.show_panel) return;
    ImGui::SetNextWindowPos(ImVec2(8, 8), ImGuiCond_FirstUseEver);
    ImGui::SetNextWindowSize(ImVec2(360, std::min(ImGui::GetIO().DisplaySize.y - 16.0f, 760.0f)),
                             ImGuiCond_FirstUseEver);
    ImGui::Begin("Alluvium (Tab hides)");
    recordButton(s);
    historyBar(s);
    statistics(s);
    if (ImGui::CollapsingHeader("Simulation and view", ImGuiTreeNodeFlags_DefaultOpen)) controls(s);
    if (ImGui::CollapsingHeader("Brush", ImGuiTreeNodeFlags_DefaultOpen)) brush(s);
    if (ImGui::CollapsingHeader("History", ImGuiTreeNodeFlags_DefaultOpen)) history(s);
    if (ImGui::CollapsingHeader("Parameters")) parameters(s);
    if (ImGui::CollapsingHeader("Groundwater and water table")) waterTable(s);
    if (ImGui::CollapsingHeader("Presets and files")) files(s);
    if (ImGui::CollapsingHeader("Recording")) recording(s);
    ImGui::End();
}

} // namespace alluvium::viewer
