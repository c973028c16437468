// Hashing and noise for the procedural terrain (io/terrain_gen.cpp): own splitmix64 / integer
// hash and 2D gradient noise, fBm and ridged multifractal layers, so the result is bit-identical
// everywhere (only +, -, *, /, comparisons and sqrt, all exactly rounded by IEEE 754; no libm
// transcendentals, no std:: distributions). Inline: the generator calls them tens of millions
// of times.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <thread>
#include <vector>

// Bit-identical results need every a * b + c rounded twice, as written: GCC in ISO mode does
// not fuse them into FMAs, clang does by default.
#if defined(__clang__)
#pragma clang fp contract(off)
#endif

namespace alluvium::terrain_noise {

inline uint64_t splitmix64(uint64_t& state) {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

// Uniform double in [0, 1) from 53 random bits.
inline double uniform01(uint64_t& state) {
    return static_cast<double>(splitmix64(state) >> 11) * (1.0 / 9007199254740992.0);
}

// Hash of a lattice point and a per-layer key (a 32-bit integer finaliser, lowbias32).
inline uint32_t latticeHash(int32_t x, int32_t y, uint32_t key) {
    uint32_t h = key ^ (static_cast<uint32_t>(x) * 0x8DA6B343u) ^ (static_cast<uint32_t>(y) * 0xD8163841u);
    h ^= h >> 16;
    h *= 0x7FEB352Du;
    h ^= h >> 15;
    h *= 0x846CA68Bu;
    h ^= h >> 16;
    return h;
}

// 16 unit gradients, k * 22.5 degrees, written out so no sin/cos is evaluated.
inline constexpr double kGradients[16][2] = {
    {1.0, 0.0},
    {0.9238795325112867, 0.3826834323650898},
    {0.7071067811865476, 0.7071067811865476},
    {0.3826834323650898, 0.9238795325112867},
    {0.0, 1.0},
    {-0.3826834323650898, 0.9238795325112867},
    {-0.7071067811865476, 0.7071067811865476},
    {-0.9238795325112867, 0.3826834323650898},
    {-1.0, 0.0},
    {-0.9238795325112867, -0.3826834323650898},
    {-0.7071067811865476, -0.7071067811865476},
    {-0.3826834323650898, -0.9238795325112867},
    {0.0, -1.0},
    {0.3826834323650898, -0.9238795325112867},
    {0.7071067811865476, -0.7071067811865476},
    {0.9238795325112867, -0.3826834323650898},
};

inline double gradientDot(int32_t ix, int32_t iy, uint32_t key, double dx, double dy) {
    const double* g = kGradients[latticeHash(ix, iy, key) >> 28];
    return g[0] * dx + g[1] * dy;
}

// floor() for the coordinates used here (|x| < 2^31), inline: without SSE4.1 std::floor is a
// library call, and this runs tens of millions of times.
inline int32_t floorToInt(double x) {
    auto i = static_cast<int32_t>(x);
    return x < static_cast<double>(i) ? i - 1 : i;
}

// 2D gradient (Perlin) noise with a quintic fade, scaled to about [-1, 1].
inline double gradientNoise(double x, double y, uint32_t key) {
    const int32_t ix = floorToInt(x), iy = floorToInt(y);
    const double tx = x - ix, ty = y - iy;
    const double n00 = gradientDot(ix, iy, key, tx, ty);
    const double n10 = gradientDot(ix + 1, iy, key, tx - 1.0, ty);
    const double n01 = gradientDot(ix, iy + 1, key, tx, ty - 1.0);
    const double n11 = gradientDot(ix + 1, iy + 1, key, tx - 1.0, ty - 1.0);
    const double u = tx * tx * tx * (tx * (tx * 6.0 - 15.0) + 10.0);
    const double v = ty * ty * ty * (ty * (ty * 6.0 - 15.0) + 10.0);
    const double a = n00 + u * (n10 - n00);
    const double b = n01 + u * (n11 - n01);
    return 1.4 * (a + v * (b - a));
}

struct Vec2 {
    double x, y;
};

// Each octave is rotated by atan(3/4) (about 36.9 degrees: a 3-4-5 triangle, so no trig) and
// shifted, so the lattice artefacts of successive octaves do not line up.
inline Vec2 nextOctave(Vec2 p, Vec2 shift) {
    return {2.0 * (0.8 * p.x - 0.6 * p.y) + shift.x, 2.0 * (0.6 * p.x + 0.8 * p.y) + shift.y};
}

// A noise layer: its own key and shift per octave, all drawn from the seed.
struct NoiseLayer {
    static constexpr int kMaxOctaves = 16;
    uint32_t keys[kMaxOctaves];
    Vec2 shifts[kMaxOctaves + 1];

    NoiseLayer(uint64_t seed, uint64_t layer) {
        uint64_t s = seed ^ (layer * 0xD1B54A32D192ED03ull);
        for (int i = 0; i <= kMaxOctaves; ++i) {
            if (i < kMaxOctaves) keys[i] = static_cast<uint32_t>(splitmix64(s) >> 32);
            shifts[i] = {uniform01(s) * 256.0, uniform01(s) * 256.0};
        }
    }
};

// Fractional Brownian motion: each octave doubles the frequency and multiplies the amplitude by
// gain (0.5: equally rough at all scales; less: smoother up close). About [-1, 1].
inline double fbm(const NoiseLayer& L, Vec2 p, int octaves, double gain = 0.5) {
    double sum = 0.0, amp = 0.5;
    p = {p.x + L.shifts[0].x, p.y + L.shifts[0].y};
    for (int i = 0; i < octaves; ++i) {
        sum += amp * gradientNoise(p.x, p.y, L.keys[i]);
        amp *= gain;
        p = nextOctave(p, L.shifts[i + 1]);
    }
    return sum;
}

// Musgrave's ridged multifractal: the creases of |noise| become sharp ridges, and each octave is
// weighted by the one before, so detail gathers on the ridges and valleys stay smooth.
// About [0, 1.5].
inline double ridgedMultifractal(const NoiseLayer& L, Vec2 p, int octaves) {
    double sum = 0.0, amp = 1.0, weight = 1.0;
    p = {p.x + L.shifts[0].x, p.y + L.shifts[0].y};
    for (int i = 0; i < octaves && weight > 0.0; ++i) { // weight 0 stays 0: stop early
        double s = 1.0 - std::fabs(gradientNoise(p.x, p.y, L.keys[i]));
        s *= s;
        s *= weight;
        weight = std::clamp(s * 2.0, 0.0, 1.0);
        sum += s * amp;
        amp *= 0.5;
        p = nextOctave(p, L.shifts[i + 1]);
    }
    return sum;
}

inline double smoothstep(double e0, double e1, double x) {
    const double t = std::clamp((x - e0) / (e1 - e0), 0.0, 1.0);
    return t * t * (3.0 - 2.0 * t);
}

// [SECTION] strata ----------------------------------------------------------------------------

// Hardness at altitude z (in band thicknesses): alternating hard and soft beds with per-band
// variation, blended over the top 20% of each band so the field has no steps.
inline float strataHardness(uint32_t key, double z) {
    const int32_t band = floorToInt(z);
    auto bandValue = [key](int32_t b) {
        const double u = static_cast<double>(latticeHash(b, 0x51A7A, key) >> 8) / 16777216.0;
        return (b & 1) ? 0.1 + 0.25 * u : 0.6 + 0.3 * u; // soft shale / hard sandstone
    };
    const double t = smoothstep(0.8, 1.0, z - band);
    const double a = bandValue(band), b = bandValue(band + 1);
    return static_cast<float>(std::clamp(a + t * (b - a), 0.0, 1.0));
}

// Runs row(y) for every y in [0, height) on the machine's cores (rows of at least a few thousand
// cells per thread). Each cell depends only on its own coordinates, so the result is the same bits
// whatever the number of threads.
inline void forEachRow(int width, int height, const std::function<void(int)>& row) {
    const long long cells = static_cast<long long>(width) * height;
    const int threads =
        static_cast<int>(std::clamp<long long>(cells / 65536, 1, std::max(1u, std::thread::hardware_concurrency())));
    if (threads == 1) {
        for (int y = 0; y < height; ++y) row(y);
        return;
    }
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
        pool.emplace_back([&, t] {
            for (int y = t; y < height; y += threads) row(y);
        });
    for (std::thread& th : pool) th.join();
}

} // namespace alluvium::terrain_noise
