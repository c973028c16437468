// The viewer's camera: orbits a target point (yaw, pitch, distance), pans, zooms towards the
// cursor, and switches to a top-down orthographic view. World: x east, y up, z south (metres,
// heights times the vertical exaggeration).
#pragma once

namespace alluvium::viewer {

struct Vec3 {
    float x = 0, y = 0, z = 0;
};
struct Mat4 {
    float m[16] = {}; // column-major, as GLSL reads it
};

struct Camera {
    Vec3 target;            // the point orbited (m)
    float yaw = 0.6f;       // radians around y
    float pitch = 0.6f;     // radians above the horizon
    float distance = 1000;  // m from the target
    float fov_y = 0.8f;     // radians (perspective)
    bool top_down = false;  // T: orthographic, looking straight down
    float shift_x = 0.0f;   // NDC x of the view's centre (moves the scene right of the panel)
};

struct Ray {
    Vec3 origin, dir;
};

Vec3 eyePosition(const Camera& c);
// Projection (Vulkan clip space: y down, depth 0..1) times view.
Mat4 viewProjection(const Camera& c, float aspect, float scene_extent);
// The ray through a point of the viewport, ndc_x and ndc_y in -1..1 (y down).
Ray rayThrough(const Camera& c, float aspect, float ndc_x, float ndc_y);
// Frames a box of size_x x size_z (m) with heights lo..hi.
void frameAll(Camera& c, float size_x, float size_z, float lo, float hi);
// Mouse drags in pixels of a viewport `height` tall.
void orbit(Camera& c, float dx, float dy);
void pan(Camera& c, float dx, float dy, float viewport_height);
// Wheel: steps > 0 zooms in, moving the target towards `towards` (the point under the cursor).
void zoom(Camera& c, float steps, const Vec3* towards);

} // namespace alluvium::viewer
