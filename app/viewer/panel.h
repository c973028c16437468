// The Dear ImGui panel: statistics, simulation controls, every parameter of the table, the
// brush, overlays with their legend, presets and files. Edits a ViewerState; the loop acts on it.
#pragma once
#include "state.h"

namespace alluvium::viewer {

// Draws the panel (if shown) and the overlay legend; call between ImGui::NewFrame and Render.
void drawPanel(ViewerState& s);

// The overlay colour maps, shared with surface_shade.frag (t in 0..1, or -1..1 for diverging).
void overlayColour(int overlay, float t, float rgb[3]);
const char* overlayName(int overlay);
const char* overlayUnit(int overlay);
float overlayDefaultRange(int overlay); // what shows something at once
const char* overlayKey(int overlay);    // the name --overlay takes
// The legend of the overlay in use (none when shaded), at the window's lower right.
void legend(const ViewerState& s);

} // namespace alluvium::viewer
