// Helpers of the tests that run the `alluvium` executable (test_viewer, test_record): running it
// through the shell, reading what it wrote, comparing pictures.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <png.h>
#include <sys/wait.h>

#include "test_util.h"

namespace alluvium::test {

struct Rgba {
    uint32_t width = 0, height = 0;
    std::vector<uint8_t> pixels; // RGBA
    const uint8_t* at(uint32_t x, uint32_t y) const { return &pixels[(size_t(y) * width + x) * 4]; }
};

inline Rgba readPng(const std::filesystem::path& path) {
    Rgba img;
    png_image image{};
    image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&image, path.c_str())) return img;
    image.format = PNG_FORMAT_RGBA;
    img.pixels.resize(PNG_IMAGE_SIZE(image));
    if (!png_image_finish_read(&image, nullptr, img.pixels.data(), 0, nullptr)) return {};
    img.width = image.width;
    img.height = image.height;
    return img;
}

inline std::string quote(const std::string& s) { return "'" + s + "'"; }

// The exit status of a std::system() call (128 if it did not exit).
inline int exitStatus(int status) { return WIFEXITED(status) ? WEXITSTATUS(status) : 128; }

// Runs `alluvium args` through the shell with the shader cache in the build tree; returns the
// exit status. stdout and stderr go to dir/stdout.txt and dir/stderr.txt. `env`: assignments or
// `-u NAME` for env(1), applied to alluvium alone.
inline int runAlluvium(const std::string& args, const std::filesystem::path& dir, const std::string& env = "") {
    const std::string cache = (std::filesystem::path(ALLUVIUM_TEST_TMP_DIR).parent_path() / "mesa-cache").string();
    const std::string cmd = "timeout 120 env " + env + " MESA_SHADER_CACHE_DIR=" + quote(cache) + " " +
                            quote(ALLUVIUM_EXE) + " " + args + " >" + quote((dir / "stdout.txt").string()) + " 2>" +
                            quote((dir / "stderr.txt").string());
    return exitStatus(std::system(cmd.c_str()));
}

// Runs tests/<script> under Xvfb (a 1024x768 screen) with the executable and dir as its
// arguments and the shader cache in the build tree; its output goes to dir/e2e.log. Returns the
// exit status; `seconds` bounds the whole session.
inline int runXvfbScript(const std::string& script, const std::filesystem::path& dir, int seconds) {
    const std::string path = (std::filesystem::path(ALLUVIUM_SOURCE_DIR) / "tests" / script).string();
    const std::string cache = (std::filesystem::path(ALLUVIUM_TEST_TMP_DIR).parent_path() / "mesa-cache").string();
    const std::string cmd = "env MESA_SHADER_CACHE_DIR=" + quote(cache) + " timeout " + std::to_string(seconds) +
                            " xvfb-run -a -s '-screen 0 1024x768x24' bash " + quote(path) + " " + quote(ALLUVIUM_EXE) +
                            " " + quote(dir.string()) + " >" + quote((dir / "e2e.log").string()) + " 2>&1";
    return exitStatus(std::system(cmd.c_str()));
}

// Mean absolute difference (0..255) of two same-size images over a rectangle.
inline double meanDiff(const Rgba& a, const Rgba& b, uint32_t x0, uint32_t y0, uint32_t x1, uint32_t y1) {
    double sum = 0;
    size_t n = 0;
    for (uint32_t y = y0; y < y1; ++y)
        for (uint32_t x = x0; x < x1; ++x, ++n)
            for (int c = 0; c < 3; ++c) sum += std::abs(int(a.at(x, y)[c]) - int(b.at(x, y)[c]));
    return n ? sum / double(3 * n) : 0;
}

} // namespace alluvium::test
