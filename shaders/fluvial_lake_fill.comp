#version 450
// Fluvial model, lakes that balance evaporation (lake_evaporation > 0; one pass after the
// deposit): the sediment T that reached a closed lake's sink (fluvial_deposit.comp noted it for
// the sink's basin) settles over the basin's lake in proportion to the depth: each lake cell
// rises by depth min(1, T / V), V the basin's lake volume (the host's), so the lake fills evenly
// and never above its surface. A dry pan (no lake) takes it on its pit, up to the basin's exit.
// What a full lake cannot hold is gone with the water (sediment_out).
#include "fluvial.glsl"

void main() {
    ivec2 c = fluvialCell();
    if (!inGrid(c)) return;
    uint i = cellIndex(c);
    uint b = basinOfCell(i);
    if (b == FLUVIAL_OCEAN) return;
    uint sink = fluvial_lists[lakeAt(LAKE_SINK, b)];
    if (sink == FLUVIAL_NONE) return;
    float depth = imageLoad(lake_img, c).r;
    float volume = uintBitsToFloat(fluvial_lists[lakeAt(LAKE_VOLUME, b)]);
    if (depth <= 0.0 && sink == i && fluvial_rcv[i] == RCV_SELF) depth = volume / cellArea(); // the pan's pit
    float t = uintBitsToFloat(fluvial_lists[lakeAt(LAKE_SEDIMENT, b)]);
    if (depth <= 0.0 || volume <= 0.0 || !(t > 0.0)) return;
    float rise = depth * min(1.0, t / volume);
    imageStore(terrain_next, c, vec4(imageLoad(terrain_next, c).r + rise));
    if (layersOn()) imageStore(loose_next, c, vec4(imageLoad(loose_next, c).r + rise));
    vec2 wear = imageLoad(wear_img, c).rg;
    imageStore(wear_img, c, vec4(wear.x, wear.y + rise, 0.0, 0.0));
}
