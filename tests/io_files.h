// Helpers of test_io*.cpp: the scratch folder, deterministic test maps, PNGs written by hand.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <vector>

#include <png.h>

#include "io/heightmap.h"

#include "test_util.h"

namespace fs = std::filesystem;
using namespace alluvium;

namespace {

inline fs::path scratchDir() { return test::scratchDir("io"); }

inline Heightmap makeMap(int w, int h, float lo, float hi) { return test::rampWithNoise(w, h, lo, hi, 12345u); }

// Writes a greyscale PNG with libpng: bit depth 8 or 16, optional alpha channel (samples are
// grey,alpha interleaved in `samples` then), or an RGB one (colour = true).
inline void writeTestPng(const fs::path& path, int w, int h, int depth, int color_type,
                         const std::vector<uint16_t>& samples) {
    FILE* f = std::fopen(path.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
    png_infop info = png_create_info_struct(png);
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        std::fclose(f);
        FAIL() << "libpng failed writing the test image";
    }
    png_init_io(png, f);
    png_set_IHDR(png, info, static_cast<png_uint_32>(w), static_cast<png_uint_32>(h), depth, color_type,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    const int channels = color_type == PNG_COLOR_TYPE_GRAY ? 1 : color_type == PNG_COLOR_TYPE_GRAY_ALPHA ? 2 : 3;
    const std::size_t bytes_per_sample = depth == 16 ? 2 : 1;
    std::vector<unsigned char> row(static_cast<std::size_t>(w) * channels * bytes_per_sample);
    for (int y = 0; y < h; ++y) {
        for (int i = 0; i < w * channels; ++i) {
            const uint16_t v = samples[static_cast<std::size_t>(y) * w * channels + i];
            if (depth == 16) {
                row[2 * i] = static_cast<unsigned char>(v >> 8);
                row[2 * i + 1] = static_cast<unsigned char>(v & 0xff);
            } else {
                row[i] = static_cast<unsigned char>(v);
            }
        }
        png_write_row(png, row.data());
    }
    png_write_end(png, nullptr);
    png_destroy_write_struct(&png, &info);
    std::fclose(f);
}

} // namespace
