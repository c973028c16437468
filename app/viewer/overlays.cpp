// The overlays' names, units, default ranges and colour maps (the legend's; surface_shade.frag
// has the same), and the legend drawn over the terrain.
#include <algorithm>
#include <cmath>

#include <imgui.h>

#include "panel.h"
#include "render_shared.h"

namespace alluvium::viewer {

const char* overlayName(int overlay) {
    static const char* names[OVERLAY_COUNT] = {"shaded",
                                               "water depth",
                                               "speed",
                                               "suspended sediment",
                                               "hardness",
                                               "outflow flux",
                                               "erosion / deposition",
                                               "drainage area (fluvial)",
                                               "water table depth",
                                               "water level (hue)",
                                               "loose layer (layers)",
                                               "snow depth (snow)",
                                               "vegetation density (vegetation)",
                                               "lava temperature (lava)"};
    return overlay >= 0 && overlay < OVERLAY_COUNT ? names[overlay] : "?";
}

float overlayDefaultRange(int overlay) {
    static const float ranges[OVERLAY_COUNT] = {1.0f, 0.5f,  5.0f,   0.05f, 1.0f, 20.0f, 1.0f,
                                                4.0f, 10.0f, 100.0f, 1.0f,  2.0f, 1.0f,  1500.0f};
    return overlay >= 0 && overlay < OVERLAY_COUNT ? ranges[overlay] : 1.0f;
}

const char* overlayKey(int overlay) {
    static const char* keys[OVERLAY_COUNT] = {"none",  "depth",   "speed",      "sediment",   "hardness",
                                              "flux",  "erosion", "drainage",   "watertable", "waterlevel",
                                              "loose", "snow",    "vegetation", "lava"};
    return overlay >= 0 && overlay < OVERLAY_COUNT ? keys[overlay] : "?";
}

const char* overlayUnit(int overlay) {
    static const char* units[OVERLAY_COUNT] = {
        "",  "m", "m/s", "m", "", "m^3/s", "m", "log10 cells upstream", "m below the ground", "m a hue turn",
        "m", "m", "",    "K"};
    return overlay >= 0 && overlay < OVERLAY_COUNT ? units[overlay] : "";
}

void overlayColour(int overlay, float t, float rgb[3]) {
    auto mix = [](const float* a, const float* b, float u, float* out) {
        for (int i = 0; i < 3; ++i) out[i] = a[i] + (b[i] - a[i]) * u;
    };
    if (overlay == OVERLAY_WATER_LEVEL) { // the shader's hue wheel (hueWheel), in sRGB
        for (int i = 0; i < 3; ++i) {
            const float k = std::fabs(std::fmod(t + 1.0f - float(i) / 3.0f + 3.0f, 1.0f) * 6.0f - 3.0f) - 1.0f;
            rgb[i] = 0.15f + 0.8f * std::clamp(k, 0.0f, 1.0f);
        }
        return;
    }
    if (overlay == OVERLAY_WEAR) {
        static const float white[3] = {0.97f, 0.97f, 0.97f}, red[3] = {0.70f, 0.09f, 0.17f},
                           blue[3] = {0.13f, 0.40f, 0.67f};
        t = std::clamp(t, -1.0f, 1.0f);
        mix(white, t < 0 ? red : blue, std::abs(t), rgb);
        return;
    }
    static const float c[5][3] = {{0.267f, 0.005f, 0.329f},
                                  {0.229f, 0.322f, 0.546f},
                                  {0.128f, 0.567f, 0.551f},
                                  {0.369f, 0.789f, 0.383f},
                                  {0.993f, 0.906f, 0.144f}};
    t = std::clamp(t, 0.0f, 1.0f) * 4.0f;
    const int i = std::min(static_cast<int>(t), 3);
    mix(c[i], c[i + 1], t - float(i), rgb);
}

void legend(const ViewerState& s) {
    if (s.overlay == 0) return;
    const ImGuiIO& io = ImGui::GetIO();
    ImGui::SetNextWindowPos(ImVec2(io.DisplaySize.x - 300, io.DisplaySize.y - 90), ImGuiCond_Always);
    ImGui::SetNextWindowSize(ImVec2(280, 0));
    ImGui::Begin("legend", nullptr, ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoInputs);
    ImGui::Text("%s (%s)", overlayName(s.overlay), overlayUnit(s.overlay));
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const float w = 260, h = 14;
    const bool diverging = s.overlay == OVERLAY_WEAR;
    for (int i = 0; i < 64; ++i) {
        const float t = (float(i) + 0.5f) / 64.0f;
        float rgb[3];
        overlayColour(s.overlay, diverging ? t * 2.0f - 1.0f : t, rgb);
        // The maps are sRGB values, as the shader shows them (it linearises, lights, re-encodes).
        const ImU32 c = ImGui::GetColorU32(ImVec4(rgb[0], rgb[1], rgb[2], 1));
        draw->AddRectFilled(ImVec2(p.x + w * float(i) / 64, p.y), ImVec2(p.x + w * float(i + 1) / 64 + 1, p.y + h), c);
    }
    ImGui::Dummy(ImVec2(w, h));
    if (diverging)
        ImGui::Text("eroded %.3g   0   deposited %.3g", double(s.overlay_range), double(s.overlay_range));
    else {
        ImGui::TextUnformatted("0");
        ImGui::SameLine(w - 50);
        ImGui::Text("%.3g", double(s.overlay_range));
    }
    ImGui::End();
}

} // namespace alluvium::viewer
