#include "camera.h"

#include <algorithm>
#include <cmath>

namespace alluvium::viewer {

namespace {

Vec3 operator+(Vec3 a, Vec3 b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
Vec3 operator-(Vec3 a, Vec3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
Vec3 operator*(Vec3 a, float s) { return {a.x * s, a.y * s, a.z * s}; }
float dot(Vec3 a, Vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
Vec3 cross(Vec3 a, Vec3 b) { return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x}; }
Vec3 normalize(Vec3 a) {
    const float l = std::sqrt(dot(a, a));
    return l > 0 ? a * (1.0f / l) : a;
}

constexpr float kTopDownPitch = 1.5697963f; // just short of straight down, so yaw stays defined

float pitchOf(const Camera& c) { return c.top_down ? kTopDownPitch : c.pitch; }

struct Basis {
    Vec3 eye, forward, right, up;
};

Basis basis(const Camera& c) {
    Basis b;
    b.eye = eyePosition(c);
    b.forward = normalize(c.target - b.eye);
    b.right = normalize(cross(b.forward, {0, 1, 0}));
    b.up = cross(b.right, b.forward);
    return b;
}

float halfHeight(const Camera& c) { return c.distance * std::tan(c.fov_y * 0.5f); }

Mat4 multiply(const Mat4& a, const Mat4& b) {
    Mat4 r;
    for (int col = 0; col < 4; ++col)
        for (int row = 0; row < 4; ++row) {
            float s = 0;
            for (int k = 0; k < 4; ++k) s += a.m[k * 4 + row] * b.m[col * 4 + k];
            r.m[col * 4 + row] = s;
        }
    return r;
}

} // namespace

Vec3 eyePosition(const Camera& c) {
    const float p = pitchOf(c);
    const Vec3 offset{std::cos(p) * std::sin(c.yaw), std::sin(p), std::cos(p) * std::cos(c.yaw)};
    return c.target + offset * c.distance;
}

Mat4 viewProjection(const Camera& c, float aspect, float scene_extent) {
    const Basis b = basis(c);
    Mat4 view;
    view.m[0] = b.right.x, view.m[4] = b.right.y, view.m[8] = b.right.z, view.m[12] = -dot(b.right, b.eye);
    view.m[1] = b.up.x, view.m[5] = b.up.y, view.m[9] = b.up.z, view.m[13] = -dot(b.up, b.eye);
    view.m[2] = -b.forward.x, view.m[6] = -b.forward.y, view.m[10] = -b.forward.z, view.m[14] = dot(b.forward, b.eye);
    view.m[15] = 1;
    const float near_z = std::max(c.distance * 0.01f, 0.01f);
    const float far_z = c.distance * 4.0f + scene_extent * 4.0f;
    Mat4 proj;
    if (c.top_down) {
        const float hh = halfHeight(c), hw = hh * aspect;
        proj.m[0] = 1.0f / hw;
        proj.m[5] = -1.0f / hh;
        proj.m[10] = 1.0f / (near_z - far_z);
        proj.m[14] = near_z / (near_z - far_z);
        proj.m[15] = 1;
    } else {
        const float f = 1.0f / std::tan(c.fov_y * 0.5f);
        proj.m[0] = f / aspect;
        proj.m[5] = -f;
        proj.m[10] = far_z / (near_z - far_z);
        proj.m[11] = -1;
        proj.m[14] = near_z * far_z / (near_z - far_z);
    }
    // Off-centre: x_ndc += shift_x * w, so the orbit target sits at shift_x on screen.
    for (int col = 0; col < 4; ++col) proj.m[col * 4 + 0] += c.shift_x * proj.m[col * 4 + 3];
    return multiply(proj, view);
}

Ray rayThrough(const Camera& c, float aspect, float ndc_x, float ndc_y) {
    const Basis b = basis(c);
    ndc_x -= c.shift_x;
    const float hh = c.top_down ? halfHeight(c) : std::tan(c.fov_y * 0.5f);
    const Vec3 offset = b.right * (ndc_x * hh * aspect) + b.up * (-ndc_y * hh);
    if (c.top_down) return {b.eye + offset, b.forward};
    return {b.eye, normalize(b.forward + offset)};
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
    Vec3 right = normalize({b.right.x, 0, b.right.z});
    Vec3 ahead = c.top_down ? b.up : normalize({b.forward.x, 0, b.forward.z});
    ahead = normalize({ahead.x, 0, ahead.z});
    c.target = c.target - right * (dx * metres_per_pixel) + ahead * (dy * metres_per_pixel);
}

void zoom(Camera& c, float steps, const Vec3* towards) {
    const float factor = std::pow(0.85f, steps);
    if (towards) c.target = *towards + (c.target - *towards) * factor;
    c.distance = std::max(c.distance * factor, 1.0f);
}

} // namespace alluvium::viewer
