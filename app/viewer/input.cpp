// The viewer's input: GLFW callbacks for keys, clicks and the wheel, the mouse's drags each
// frame (camera), and what the left button asks of the brush.
#include <algorithm>
#include <cmath>

#define GLFW_INCLUDE_VULKAN
#include <GLFW/glfw3.h>
#include <imgui.h>

#include "app.h"

namespace alluvium::viewer {

namespace {

App* appOf(GLFWwindow* w) { return static_cast<App*>(glfwGetWindowUserPointer(w)); }

void onKey(GLFWwindow* w, int key, int, int action, int mods) {
    if (action == GLFW_RELEASE) return;
    App& app = *appOf(w);
    ViewerState& s = app.state;
    if (key == GLFW_KEY_Q && (mods & GLFW_MOD_CONTROL)) s.quit = true;
    if (ImGui::GetIO().WantCaptureKeyboard) return;
    if (action != GLFW_PRESS && key != GLFW_KEY_LEFT_BRACKET && key != GLFW_KEY_RIGHT_BRACKET && key != GLFW_KEY_N)
        return;
    // History (history.h): Ctrl+Z, Ctrl+Y / Ctrl+Shift+Z, Home / End, , / .
    HistoryControl& h = s.history;
    if ((mods & GLFW_MOD_CONTROL) && key == GLFW_KEY_S) {
        s.save_session = app.session_path;
        return;
    }
    if ((mods & GLFW_MOD_CONTROL) && (key == GLFW_KEY_Z || key == GLFW_KEY_Y)) {
        if (key == GLFW_KEY_Z && !(mods & GLFW_MOD_SHIFT))
            h.undo = true;
        else
            h.redo = true;
        return;
    }
    switch (key) {
    case GLFW_KEY_HOME: h.first = true; break;
    case GLFW_KEY_END: h.last = true; break;
    case GLFW_KEY_COMMA: h.step = -1; break;
    case GLFW_KEY_PERIOD: h.step = 1; break;
    case GLFW_KEY_SPACE: s.paused = !s.paused; break;
    case GLFW_KEY_N: ++s.single_steps; break;
    case GLFW_KEY_R: s.reset_requested = true; break;
    case GLFW_KEY_F: s.frame_all_requested = true; break;
    case GLFW_KEY_T: s.top_down = !s.top_down; break;
    case GLFW_KEY_TAB: s.show_panel = !s.show_panel; break;
    case GLFW_KEY_F12: s.screenshot_request = "*"; break;
    case GLFW_KEY_F9: s.recording.toggle_requested = true; break;
    case GLFW_KEY_LEFT_BRACKET: s.radius = std::max(1.0f, s.radius / 1.15f); break;
    case GLFW_KEY_RIGHT_BRACKET: s.radius = std::min(500.0f, s.radius * 1.15f); break;
    default:
        if (key >= GLFW_KEY_1 && key <= GLFW_KEY_9) {
            const Tool t = static_cast<Tool>(key - GLFW_KEY_0);
            if (toolAvailable(t))
                s.tool = t;
            else
                s.message = std::string(toolName(t)) + ": not implemented yet";
        }
    }
}

void onMouseButton(GLFWwindow* w, int button, int action, int) {
    if (button != GLFW_MOUSE_BUTTON_LEFT) return;
    App& app = *appOf(w);
    if (action == GLFW_PRESS) {
        app.left_clicked = true;
        app.pressed_at = app.painted_until = glfwGetTime();
    } else if (action == GLFW_RELEASE) {
        app.released_at = glfwGetTime();
    }
}

// The stroke's wall-clock seconds since the last frame painted: to now while the button is
// down, else to its release if that came since. A stall (a dragged window) paints at most 0.5 s.
double strokeSeconds(App& app, bool left) {
    const double until = left ? glfwGetTime() : app.released_at;
    const double seconds = until - app.painted_until;
    app.painted_until = std::max(app.painted_until, until);
    return std::clamp(seconds, 0.0, 0.5);
}

void onScroll(GLFWwindow* w, double, double dy) {
    if (ImGui::GetIO().WantCaptureMouse) return;
    appOf(w)->scroll += float(dy);
}

} // namespace

void installInputCallbacks(GLFWwindow* window) {
    glfwSetKeyCallback(window, onKey);
    glfwSetScrollCallback(window, onScroll);
    glfwSetMouseButtonCallback(window, onMouseButton);
}

// Orbit, pan and zoom from the mouse, and what the left button asks of the brush.
BrushInput handleMouse(App& app, VkExtent2D extent) {
    GLFWwindow* w = app.window;
    ViewerState& s = app.state;
    double x, y;
    glfwGetCursorPos(w, &x, &y);
    const float dx = float(x - app.last_x), dy = float(y - app.last_y);
    app.last_x = x;
    app.last_y = y;
    const bool ui = ImGui::GetIO().WantCaptureMouse;
    const bool shift =
        glfwGetKey(w, GLFW_KEY_LEFT_SHIFT) == GLFW_PRESS || glfwGetKey(w, GLFW_KEY_RIGHT_SHIFT) == GLFW_PRESS;
    const bool ctrl =
        glfwGetKey(w, GLFW_KEY_LEFT_CONTROL) == GLFW_PRESS || glfwGetKey(w, GLFW_KEY_RIGHT_CONTROL) == GLFW_PRESS;
    const bool left = glfwGetMouseButton(w, GLFW_MOUSE_BUTTON_LEFT) == GLFW_PRESS;
    const bool right = glfwGetMouseButton(w, GLFW_MOUSE_BUTTON_RIGHT) == GLFW_PRESS;
    const bool middle = glfwGetMouseButton(w, GLFW_MOUSE_BUTTON_MIDDLE) == GLFW_PRESS;
    if (!ui) {
        if ((right && shift) || middle)
            pan(app.camera, dx, dy, float(extent.height));
        else if (right)
            orbit(app.camera, dx, dy);
        if (right && (dx != 0 || dy != 0)) app.right_moved = true;
    }
    if (right && !app.right_was_down) app.right_moved = false;
    // A right click (no drag) with the spring tool removes the nearest spring.
    if (!right && app.right_was_down && !app.right_moved && !ui && s.tool == Tool::Spring && s.pick_hit &&
        !s.springs.empty()) {
        auto nearest =
            std::min_element(s.springs.begin(), s.springs.end(), [&](const gpu::Spring& a, const gpu::Spring& b) {
                return std::hypot(a.x - s.pick_x, a.y - s.pick_y) < std::hypot(b.x - s.pick_x, b.y - s.pick_y);
            });
        s.springs.erase(nearest);
        s.springs_dirty = true;
    }
    app.right_was_down = right;
    if (app.scroll != 0 && !ui) {
        if (ctrl)
            s.radius = std::clamp(s.radius * std::pow(1.15f, app.scroll), 1.0f, 500.0f);
        else {
            const float L = float(s.params[Param::cell_size]);
            const glm::vec3 towards{s.pick_x * L, s.pick_height * s.exaggeration, s.pick_y * L};
            zoom(app.camera, app.scroll, s.pick_hit ? &towards : nullptr);
        }
    }
    app.scroll = 0;
    const bool pressed = (left && !app.left_was_down) || app.left_clicked;
    const bool released = !left && app.left_was_down;
    app.left_clicked = false;
    app.left_was_down = left;
    BrushInput in;
    in.seconds = strokeSeconds(app, left);
    if (s.tool != Tool::Hand) app.hand_picking = app.hand_holding = false;
    if (s.tool == Tool::Hand && app.hand_picking && !left) { // released: now it holds
        app.hand_picking = false;
        app.hand_holding = true;
    }
    // A release since the last frame paints the stroke's last moments (a quick click too).
    if (ui || !(left || pressed || released) || !s.pick_hit) return in;
    if (pressed) app.stroke_height = s.pick_height;
    switch (s.tool) {
    case Tool::Spring:
        if (pressed && s.spring_is_vent) { // the lava's vent, where the click lands
            s.params[Param::lava_vent_x] = std::clamp(double(s.pick_x) / s.width, 0.0, 1.0);
            s.params[Param::lava_vent_y] = std::clamp(double(s.pick_y) / s.height, 0.0, 1.0);
            s.params_dirty = true;
        } else if (pressed) {
            const float area = float(s.params[Param::cell_size] * s.params[Param::cell_size]);
            s.springs.push_back({s.pick_x, s.pick_y, std::max(1.0f, s.radius * 0.25f), s.strength * 0.02f * area});
            s.springs_dirty = true;
        }
        break;
    case Tool::Hand:
        if (app.hand_holding) {
            if (pressed) {
                in.drop = true;
                app.hand_holding = false;
            }
        } else {
            app.hand_picking = true;
            in.painting = true;
        }
        break;
    default: in.painting = true;
    }
    return in;
}

// The brush's application this frame, if any: rates are per second of wall-clock time, so a
// stroke does the same whatever the steps per frame, and paints a paused simulation too (the
// hand's drop is instant).
std::optional<gpu::BrushParams> brushStroke(const App& app, BrushInput in) {
    const ViewerState& s = app.state;
    if (!in.painting && !in.drop) return std::nullopt;
    const float L = float(s.params[Param::cell_size]);
    const float amount = s.strength * float(in.seconds);
    gpu::BrushParams b{};
    b.x = s.pick_x;
    b.y = s.pick_y;
    b.radius = s.radius;
    b.falloff = s.falloff;
    b.cell_area = L * L;
    b.amount = amount;
    switch (s.tool) {
    case Tool::AddWater: b.tool = BRUSH_TOOL_ADD_WATER; break;
    case Tool::RemoveWater: b.tool = BRUSH_TOOL_REMOVE_WATER; break;
    case Tool::Raise: b.tool = BRUSH_TOOL_RAISE; break;
    case Tool::Lower: b.tool = BRUSH_TOOL_LOWER; break;
    case Tool::Smooth: b.tool = BRUSH_TOOL_SMOOTH; break;
    case Tool::Flatten:
        b.tool = BRUSH_TOOL_FLATTEN;
        b.target = app.stroke_height;
        break;
    case Tool::Hardness:
        if (s.paint_map == 3) { // sand: metres of loose material a second, as raise lays rock
            b.tool = BRUSH_TOOL_SAND;
            break;
        }
        if (s.paint_map == 4) { // snow: metres of its water a second, as the water brush pours
            b.tool = BRUSH_TOOL_SNOW;
            break;
        }
        if (s.paint_map == 6) { // lava: metres a second at the vent's temperature
            b.tool = BRUSH_TOOL_LAVA;
            b.target = float(s.params[Param::lava_vent_temperature]);
            break;
        }
        b.tool = s.paint_map == 1   ? BRUSH_TOOL_UPLIFT
                 : s.paint_map == 2 ? BRUSH_TOOL_RAIN
                 : s.paint_map == 5 ? BRUSH_TOOL_VEGETATION
                                    : BRUSH_TOOL_HARDNESS;
        b.target = s.paint_map == 1   ? s.paint_uplift_value
                   : s.paint_map == 2 ? s.paint_rain
                   : s.paint_map == 5 ? s.paint_vegetation
                                      : s.paint_hardness;
        break;
    case Tool::Hand:
        b.tool = in.drop ? BRUSH_TOOL_DROP : BRUSH_TOOL_PICK_UP;
        if (in.drop) {
            const double weights = gpu::brushWeightSum(s.width, s.height, b.x, b.y, b.radius, b.falloff);
            if (weights <= 0) return std::nullopt;
            b.amount = float(1.0 / (double(b.cell_area) * weights)); // times the volume held, on the GPU
        }
        break;
    case Tool::Spring: return std::nullopt;
    }
    if (b.amount <= 0) return std::nullopt;
    return b;
}

} // namespace alluvium::viewer
