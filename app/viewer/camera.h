// The viewer's camera: orbits a target point (yaw, pitch, distance), pans, zooms towards the
// cursor, and switches to a top-down orthographic view. World: x east, y up, z south (metres,
// heights times the vertical exaggeration). Vectors and matrices are GLM's (column-major, as GLSL
// reads them).
#pragma once
#include <glm/glm.hpp>

namespace alluvium::viewer {

struct Camera {
    glm::vec3 target{0.0f}; // the point orbited (m)
    float yaw = 0.6f;       // radians around y
    float pitch = 0.6f;     // radians above the horizon
    float distance = 1000;  // m from the target
    float fov_y = 0.8f;     // radians (perspective)
    bool top_down = false;  // T: orthographic, looking straight down
    float shift_x = 0.0f;   // NDC x of the view's centre (moves the scene right of the panel)
};

struct Ray {
    glm::vec3 origin, dir;
};

glm::vec3 eyePosition(const Camera& c);
// Projection (Vulkan clip space: y down, depth 0..1) times view.
glm::mat4 viewProjection(const Camera& c, float aspect, float scene_extent);
// The ray through a point of the viewport, ndc_x and ndc_y in -1..1 (y down).
Ray rayThrough(const Camera& c, float aspect, float ndc_x, float ndc_y);
// Frames a box of size_x x size_z (m) with heights lo..hi.
void frameAll(Camera& c, float size_x, float size_z, float lo, float hi);
// Mouse drags in pixels of a viewport `height` tall.
void orbit(Camera& c, float dx, float dy);
void pan(Camera& c, float dx, float dy, float viewport_height);
// Wheel: steps > 0 zooms in, moving the target towards `towards` (the point under the cursor).
void zoom(Camera& c, float steps, const glm::vec3* towards);

} // namespace alluvium::viewer
