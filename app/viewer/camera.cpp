#include "camera.h"

#include <algorithm>
#include <cmath>

#include <glm/gtc/matrix_transform.hpp>

namespace alluvium::viewer {

namespace {

constexpr float kTopDownPitch = 1.5697963f; // just short of straight down, so yaw stays defined
const glm::vec3 kUp{0.0f, 1.0f, 0.0f};

float pitchOf(const Camera& c) { return c.top_down ? kTopDownPitch : c.pitch; }

struct Basis {
    glm::vec3 eye, forward, right, up;
};

Basis basis(const Camera& c) {
    Basis b;
    b.eye = eyePosition(c);
    b.forward = glm::normalize(c.target - b.eye);
    b.right = glm::normalize(glm::cross(b.forward, kUp));
    b.up = glm::cross(b.right, b.forward);
    return b;
}

float halfHeight(const Camera& c) { return c.distance * std::tan(c.fov_y * 0.5f); }

// Vulkan's clip space: y points down and depth runs 0..1 (GLM's right-handed zero-to-one
// projections, y flipped).
glm::mat4 projection(const Camera& c, float aspect, float near_z, float far_z) {
    glm::mat4 proj(0.0f);
    if (c.top_down) {
        const float hh = halfHeight(c), hw = hh * aspect;
        proj[0][0] = 1.0f / hw;
        proj[1][1] = -1.0f / hh;
        proj[2][2] = 1.0f / (near_z - far_z);
        proj[3][2] = near_z / (near_z - far_z);
        proj[3][3] = 1;
    } else {
        const float f = 1.0f / std::tan(c.fov_y * 0.5f);
        proj[0][0] = f / aspect;
        proj[1][1] = -f;
        proj[2][2] = far_z / (near_z - far_z);
        proj[2][3] = -1;
        proj[3][2] = near_z * far_z / (near_z - far_z);
    }
    // Off-centre: x_ndc += shift_x * w, so the orbit target sits at shift_x on screen.
    for (int col = 0; col < 4; ++col) proj[col][0] += c.shift_x * proj[col][3];
    return proj;
}

} // namespace

glm::vec3 eyePosition(const Camera& c) {
    const float p = pitchOf(c);
    const glm::vec3 offset{std::cos(p) * std::sin(c.yaw), std::sin(p), std::cos(p) * std::cos(c.yaw)};
    return c.target + offset * c.distance;
}

glm::mat4 viewProjection(const Camera& c, float aspect, float scene_extent) {
    const glm::vec3 eye = eyePosition(c);
    const glm::mat4 view = glm::lookAtRH(eye, c.target, kUp);
    const float near_z = std::max(c.distance * 0.01f, 0.01f);
    const float far_z = c.distance * 4.0f + scene_extent * 4.0f;
    return projection(c, aspect, near_z, far_z) * view;
}

Ray rayThrough(const Camera& c, float aspect, float ndc_x, float ndc_y) {
    const Basis b = basis(c);
    ndc_x -= c.shift_x;
    const float hh = c.top_down ? halfHeight(c) : std::tan(c.fov_y * 0.5f);
    const glm::vec3 offset = b.right * (ndc_x * hh * aspect) + b.up * (-ndc_y * hh);
    if (c.top_down) return {b.eye + offset, b.forward};
    return {b.eye, glm::normalize(b.forward + offset)};
}

void frameAll(Camera& c, float size_x, float size_z, float lo, float hi) {
    c.target = {size_x * 0.5f, (lo + hi) * 0.5f, size_z * 0.5f};
    const float radius = 0.5f * std::sqrt(size_x * size_x + size_z * size_z + (hi - lo) * (hi - lo));
    c.distance = radius / std::sin(c.fov_y * 0.5f) * 1.0f;
}

void orbit(Camera& c, float dx, float dy) {
    c.yaw -= dx * 0.006f;
    c.pitch = std::clamp(c.pitch + dy * 0.006f, 0.05f, 1.55f);
}

void pan(Camera& c, float dx, float dy, float viewport_height) {
    const Basis b = basis(c);
    const float metres_per_pixel = 2.0f * halfHeight(c) / std::max(viewport_height, 1.0f);
    // Move along the ground plane so panning never dives into the terrain.
    const glm::vec3 right = glm::normalize(glm::vec3(b.right.x, 0, b.right.z));
    glm::vec3 ahead = c.top_down ? b.up : glm::normalize(glm::vec3(b.forward.x, 0, b.forward.z));
    ahead = glm::normalize(glm::vec3(ahead.x, 0, ahead.z));
    c.target = c.target - right * (dx * metres_per_pixel) + ahead * (dy * metres_per_pixel);
}

void zoom(Camera& c, float steps, const glm::vec3* towards) {
    const float factor = std::pow(0.85f, steps);
    if (towards) c.target = *towards + (c.target - *towards) * factor;
    c.distance = std::max(c.distance * factor, 1.0f);
}

} // namespace alluvium::viewer
