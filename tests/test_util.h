// Helpers shared by the tests: scratch folders, directory listings, and the check that a call
// fails with one clear line (InputError).
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "io/errors.h"
#include "io/heightmap.h"

namespace alluvium::test {

// A fresh, empty scratch folder <build>/test-tmp/<area>/<Suite.Name> for the running test.
inline std::filesystem::path scratchDir(const std::string& area) {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = std::string(info->test_suite_name()) + "." + info->name();
    std::replace(name.begin(), name.end(), '/', '_');
    std::filesystem::path dir = std::filesystem::path(ALLUVIUM_TEST_TMP_DIR) / area / name;
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    return dir;
}

// Names of the entries in dir, sorted.
inline std::vector<std::string> listDir(const std::filesystem::path& dir) {
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(dir)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

// Runs fn, expects an InputError whose message is one line and contains every needle.
inline void expectInputError(const std::function<void()>& fn, const std::vector<std::string>& needles) {
    try {
        fn();
    } catch (const InputError& e) {
        const std::string msg = e.what();
        EXPECT_EQ(msg.find('\n'), std::string::npos) << "message has a newline: " << msg;
        EXPECT_FALSE(msg.empty());
        for (const auto& n : needles) EXPECT_NE(msg.find(n), std::string::npos) << "missing '" << n << "' in: " << msg;
        return;
    } catch (const std::exception& e) {
        ADD_FAILURE() << "expected InputError, got another exception: " << e.what();
        return;
    }
    ADD_FAILURE() << "expected InputError, nothing was thrown";
}

// The whole file as bytes (empty if it cannot be read).
inline std::vector<unsigned char> readBytes(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The whole file as text (empty if it cannot be read).
inline std::string readText(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline void writeBytes(const std::filesystem::path& p, const std::vector<unsigned char>& bytes) {
    std::ofstream out(p, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

// Sets an environment variable for one scope (the variable's value before, or its absence, comes
// back at the end).
struct ScopedEnv {
    std::string name;
    std::optional<std::string> old;
    ScopedEnv(std::string n, const std::string& value) : name(std::move(n)) {
        if (const char* v = std::getenv(name.c_str())) old = v;
        ::setenv(name.c_str(), value.c_str(), 1);
    }
    ScopedEnv(const ScopedEnv&) = delete;
    ScopedEnv& operator=(const ScopedEnv&) = delete;
    ~ScopedEnv() {
        if (old)
            ::setenv(name.c_str(), old->c_str(), 1);
        else
            ::unsetenv(name.c_str());
    }
};

// Rough random ground with many pits (white noise on a tilt), heights rounded to steps of
// 1/8 m so that flats and exact ties are common.
inline std::vector<float> pittedTerrain(int w, int h, uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    std::vector<float> z(size_t(w) * h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            z[size_t(y * w + x)] = std::round((0.05f * float(x + y) + 4.0f * u(rng)) * 8.0f) / 8.0f;
    return z;
}

// Deterministic test data: heights in [lo, hi], a ramp across both axes plus noise from `seed`,
// with the exact extremes present (the first cell lo, the last hi).
inline Heightmap rampWithNoise(int w, int h, float lo, float hi, uint32_t seed) {
    Heightmap m;
    m.width = w;
    m.height = h;
    m.heights.resize(static_cast<std::size_t>(w) * static_cast<std::size_t>(h));
    uint32_t s = seed;
    for (int y = 0; y < h; ++y) {
        for (int x = 0; x < w; ++x) {
            s = s * 1664525u + 1013904223u;
            const double noise = static_cast<double>(s >> 8) / 16777216.0;
            const double t = 0.5 * (static_cast<double>(x) / std::max(1, w - 1)) +
                             0.3 * (static_cast<double>(y) / std::max(1, h - 1)) + 0.2 * noise;
            m.heights[static_cast<std::size_t>(y) * static_cast<std::size_t>(w) + static_cast<std::size_t>(x)] =
                static_cast<float>(lo + t * (static_cast<double>(hi) - lo));
        }
    }
    m.heights[0] = lo;
    m.heights.back() = hi;
    return m;
}

} // namespace alluvium::test
