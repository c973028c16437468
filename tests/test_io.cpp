// Tests of the file formats (app/io/heightmap, atomic_file) and the terrain generator.
//
// [SECTION] helpers: scratch folders, expecting an InputError, writing PNGs by hand
// [SECTION] round trips
// [SECTION] load errors
// [SECTION] save errors and atomic writes
// [SECTION] real DEMs from shared/data
// [SECTION] generated terrain
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <png.h>

#include "io/atomic_file.h"
#include "io/errors.h"
#include "io/heightmap.h"
#include "io/terrain_gen.h"

#include "test_util.h"

namespace fs = std::filesystem;
using namespace alluvium;

// [SECTION] helpers ---------------------------------------------------------------------------
namespace {

fs::path scratchDir() { return test::scratchDir("io"); }

using test::listDir;

using test::expectInputError;

using test::readBytes;
using test::writeBytes;

// Deterministic test data: heights in [lo, hi] with some structure and some noise.
Heightmap makeMap(int w, int h, float lo, float hi) {
    Heightmap m;
    m.width = w;
    m.height = h;
    m.heights.resize(static_cast<std::size_t>(w) * h);
    uint32_t s = 12345u;
    for (int y = 0; y < h; ++y) {
        for (int x = 0; x < w; ++x) {
            s = s * 1664525u + 1013904223u;
            const double noise = static_cast<double>(s >> 8) / 16777216.0;
            const double t = 0.5 * (static_cast<double>(x) / std::max(1, w - 1)) +
                             0.3 * (static_cast<double>(y) / std::max(1, h - 1)) + 0.2 * noise;
            m.heights[static_cast<std::size_t>(y) * w + x] =
                static_cast<float>(lo + t * (static_cast<double>(hi) - lo));
        }
    }
    m.heights[0] = lo; // the exact extremes are present
    m.heights.back() = hi;
    return m;
}

// Writes a greyscale PNG with libpng: bit depth 8 or 16, optional alpha channel (samples are
// grey,alpha interleaved in `samples` then), or an RGB one (colour = true).
void writeTestPng(const fs::path& path, int w, int h, int depth, int color_type,
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
    png_set_IHDR(png, info, static_cast<png_uint_32>(w), static_cast<png_uint_32>(h), depth,
                 color_type, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    const int channels = color_type == PNG_COLOR_TYPE_GRAY         ? 1
                         : color_type == PNG_COLOR_TYPE_GRAY_ALPHA ? 2
                                                                   : 3;
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

// Standard CRC-32 (as in PNG chunks).
uint32_t crc32(const unsigned char* data, std::size_t n) {
    uint32_t c = 0xFFFFFFFFu;
    for (std::size_t i = 0; i < n; ++i) {
        c ^= data[i];
        for (int k = 0; k < 8; ++k)
            c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
    }
    return c ^ 0xFFFFFFFFu;
}

void putBE32(unsigned char* p, uint32_t v) {
    p[0] = static_cast<unsigned char>(v >> 24);
    p[1] = static_cast<unsigned char>(v >> 16);
    p[2] = static_cast<unsigned char>(v >> 8);
    p[3] = static_cast<unsigned char>(v);
}

nlohmann::json readJson(const fs::path& p) {
    std::ifstream in(p);
    return nlohmann::json::parse(in);
}

const fs::path kData = ALLUVIUM_SHARED_DATA_DIR;

} // namespace

// [SECTION] round trips -----------------------------------------------------------------------

TEST(HeightmapIo, Png16RoundTripWithinOneStepAndSidecar) {
    const fs::path dir = scratchDir();
    const Heightmap m = makeMap(64, 48, -50.25f, 1234.5f);
    const fs::path out = dir / "sub" / "eroded.png"; // parent is created
    saveHeightmap(out, m, 2.5);

    EXPECT_EQ(listDir(dir / "sub"), (std::vector<std::string>{"eroded.png", "eroded.png.json"}));
    const nlohmann::json side = readJson(dir / "sub" / "eroded.png.json");
    EXPECT_EQ(side.at("width").get<int>(), 64);
    EXPECT_EQ(side.at("height").get<int>(), 48);
    EXPECT_DOUBLE_EQ(side.at("cell_size_m").get<double>(), 2.5);
    EXPECT_DOUBLE_EQ(side.at("min_m").get<double>(), -50.25);
    EXPECT_DOUBLE_EQ(side.at("max_m").get<double>(), 1234.5);
    EXPECT_EQ(side.at("png16_decode").get<std::string>(), "h = min_m + v/65535*(max_m-min_m)");

    const Heightmap back = loadHeightmap(out, LoadOptions{}); // range from the sidecar
    ASSERT_EQ(back.width, 64);
    ASSERT_EQ(back.height, 48);
    ASSERT_EQ(back.heights.size(), m.heights.size());
    const double step = (1234.5 + 50.25) / 65535.0;
    double worst = 0.0;
    for (std::size_t i = 0; i < m.heights.size(); ++i)
        worst = std::max(worst, std::fabs(static_cast<double>(back.heights[i]) - m.heights[i]));
    EXPECT_LE(worst, step);
    EXPECT_GT(worst, 0.0); // it really was quantised, not read from somewhere else
    EXPECT_FLOAT_EQ(back.heights[0], -50.25f);
    EXPECT_FLOAT_EQ(back.heights.back(), 1234.5f);
}

TEST(HeightmapIo, Png16RoundTripNonSquareAndThin) {
    const fs::path dir = scratchDir();
    for (const auto& [w, h] : std::vector<std::pair<int, int>>{{97, 61}, {1, 50}, {50, 1}}) {
        SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
        const Heightmap m = makeMap(w, h, 10.0f, 500.0f);
        const fs::path out = dir / ("m" + std::to_string(w) + "x" + std::to_string(h) + ".png");
        saveHeightmap(out, m, 1.0);
        const Heightmap back = loadHeightmap(out, LoadOptions{});
        ASSERT_EQ(back.width, w);
        ASSERT_EQ(back.height, h);
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x)
                ASSERT_NEAR(back.at(x, y), m.at(x, y), 490.0 / 65535.0 + 1e-4)
                    << "at (" << x << ", " << y << ")";
    }
}

TEST(HeightmapIo, FlatMapSavesAsZerosAndLoadsBack) {
    const fs::path dir = scratchDir();
    Heightmap m;
    m.width = 4;
    m.height = 3;
    m.heights.assign(12, 42.0f);
    saveHeightmap(dir / "flat.png", m, 1.0);
    const nlohmann::json side = readJson(dir / "flat.png.json");
    EXPECT_DOUBLE_EQ(side.at("min_m").get<double>(), 42.0);
    EXPECT_DOUBLE_EQ(side.at("max_m").get<double>(), 42.0);
    const Heightmap back = loadHeightmap(dir / "flat.png", LoadOptions{});
    for (float v : back.heights)
        EXPECT_EQ(v, 42.0f);
}

TEST(HeightmapIo, Png8WithHeightRange) {
    const fs::path dir = scratchDir();
    std::vector<uint16_t> v(5 * 3);
    for (std::size_t i = 0; i < v.size(); ++i)
        v[i] = static_cast<uint16_t>(i * 17); // 0..238
    v.back() = 255;
    writeTestPng(dir / "grey8.png", 5, 3, 8, PNG_COLOR_TYPE_GRAY, v);

    LoadOptions opt;
    opt.has_height_range = true;
    opt.range_lo = 100.0;
    opt.range_hi = 355.0; // 1 m per grey level
    const Heightmap m = loadHeightmap(dir / "grey8.png", opt);
    ASSERT_EQ(m.width, 5);
    ASSERT_EQ(m.height, 3);
    for (std::size_t i = 0; i < v.size(); ++i)
        EXPECT_FLOAT_EQ(m.heights[i], 100.0f + v[i]);

    // No range and no sidecar: the documented default 0..1000 m.
    const Heightmap d = loadHeightmap(dir / "grey8.png", LoadOptions{});
    EXPECT_FLOAT_EQ(d.heights.back(), 1000.0f);
    EXPECT_FLOAT_EQ(d.heights[1], static_cast<float>(17.0 / 255.0 * 1000.0));
}

TEST(HeightmapIo, PngGreyAlphaIgnoresAlphaAndRangeOverridesSidecar) {
    const fs::path dir = scratchDir();
    // 16-bit grey + alpha, 2x2: grey 0, 65535, 32768, 1000; alpha varies and must not matter.
    writeTestPng(dir / "ga.png", 2, 2, 16, PNG_COLOR_TYPE_GRAY_ALPHA,
                 {0, 65535, 65535, 0, 32768, 12345, 1000, 7});
    LoadOptions opt;
    opt.has_height_range = true;
    opt.range_lo = 0.0;
    opt.range_hi = 65535.0;
    // A sidecar saying something else is ignored when --height-range is given.
    std::ofstream(dir / "ga.png.json") << R"({"min_m": -5, "max_m": 5})";
    const Heightmap m = loadHeightmap(dir / "ga.png", opt);
    EXPECT_FLOAT_EQ(m.at(0, 0), 0.0f);
    EXPECT_FLOAT_EQ(m.at(1, 0), 65535.0f);
    EXPECT_FLOAT_EQ(m.at(0, 1), 32768.0f);
    EXPECT_FLOAT_EQ(m.at(1, 1), 1000.0f);
    // Without the option the sidecar applies.
    const Heightmap s = loadHeightmap(dir / "ga.png", LoadOptions{});
    EXPECT_FLOAT_EQ(s.at(0, 0), -5.0f);
    EXPECT_FLOAT_EQ(s.at(1, 0), 5.0f);
}

TEST(HeightmapIo, F32RoundTripIsBitExactAndLittleEndian) {
    const fs::path dir = scratchDir();
    Heightmap m = makeMap(97, 61, -11000.0f, 8848.86f);
    m.heights[1] = -0.0f;
    m.heights[2] = std::numeric_limits<float>::denorm_min();
    m.heights[3] = std::numeric_limits<float>::max();
    m.heights[4] = 1.0f;
    saveHeightmap(dir / "m.f32", m, 1.0);
    EXPECT_EQ(listDir(dir), std::vector<std::string>{"m.f32"}); // no sidecar, no temp files

    const auto bytes = readBytes(dir / "m.f32");
    ASSERT_EQ(bytes.size(), 97u * 61u * 4u);
    EXPECT_EQ(bytes[16], 0x00); // 1.0f = 0x3F800000, little-endian
    EXPECT_EQ(bytes[17], 0x00);
    EXPECT_EQ(bytes[18], 0x80);
    EXPECT_EQ(bytes[19], 0x3F);

    LoadOptions opt;
    opt.width = 97;
    opt.height = 61;
    const Heightmap back = loadHeightmap(dir / "m.f32", opt);
    ASSERT_EQ(back.heights.size(), m.heights.size());
    EXPECT_EQ(std::memcmp(back.heights.data(), m.heights.data(), m.heights.size() * 4), 0);
}

TEST(HeightmapIo, F32ThinGrids) {
    const fs::path dir = scratchDir();
    for (const auto& [w, h] : std::vector<std::pair<int, int>>{{1, 50}, {50, 1}, {1, 1}}) {
        const Heightmap m = makeMap(w, h, 0.0f, 3.0f);
        const fs::path p = dir / ("t" + std::to_string(w) + "x" + std::to_string(h) + ".f32");
        saveHeightmap(p, m, 1.0);
        LoadOptions opt;
        opt.width = w;
        opt.height = h;
        const Heightmap back = loadHeightmap(p, opt);
        EXPECT_EQ(back.width, w);
        EXPECT_EQ(back.height, h);
        EXPECT_EQ(back.heights, m.heights);
    }
}

TEST(HeightmapIo, UppercaseExtensionWorks) {
    const fs::path dir = scratchDir();
    const Heightmap m = makeMap(8, 8, 0.0f, 1.0f);
    saveHeightmap(dir / "A.PNG", m, 1.0);
    EXPECT_TRUE(fs::exists(dir / "A.PNG.json"));
    EXPECT_EQ(loadHeightmap(dir / "A.PNG", LoadOptions{}).width, 8);
}

// [SECTION] load errors -----------------------------------------------------------------------

TEST(HeightmapErrors, MissingFile) {
    const fs::path dir = scratchDir();
    const fs::path p = dir / "nope.png";
    expectInputError([&] { loadHeightmap(p, LoadOptions{}); },
                     {"cannot open '" + p.string() + "'", "No such file"});
    LoadOptions opt;
    opt.width = opt.height = 4;
    expectInputError([&] { loadHeightmap(dir / "nope.f32", opt); }, {"cannot open", "nope.f32"});
}

TEST(HeightmapErrors, DirectoryInsteadOfFile) {
    const fs::path dir = scratchDir();
    fs::create_directories(dir / "d.png");
    expectInputError([&] { loadHeightmap(dir / "d.png", LoadOptions{}); },
                     {"cannot open", "directory"});
}

TEST(HeightmapErrors, TruncatedPng) {
    const fs::path dir = scratchDir();
    saveHeightmap(dir / "full.png", makeMap(128, 128, 0.0f, 100.0f), 1.0);
    auto bytes = readBytes(dir / "full.png");
    ASSERT_GT(bytes.size(), 1000u);
    bytes.resize(bytes.size() / 2);
    writeBytes(dir / "half.png", bytes);
    expectInputError([&] { loadHeightmap(dir / "half.png", LoadOptions{}); }, {"half.png", "PNG"});
    // Cut inside the header too.
    bytes.resize(20);
    writeBytes(dir / "head.png", bytes);
    expectInputError([&] { loadHeightmap(dir / "head.png", LoadOptions{}); }, {"head.png"});
}

TEST(HeightmapErrors, GarbageNamedPng) {
    const fs::path dir = scratchDir();
    std::vector<unsigned char> junk(5000);
    uint32_t s = 7;
    for (auto& b : junk)
        b = static_cast<unsigned char>((s = s * 1103515245u + 12345u) >> 24);
    writeBytes(dir / "junk.png", junk);
    expectInputError([&] { loadHeightmap(dir / "junk.png", LoadOptions{}); },
                     {"junk.png", "not a PNG"});
    writeBytes(dir / "empty.png", {});
    expectInputError([&] { loadHeightmap(dir / "empty.png", LoadOptions{}); }, {"empty.png"});
    // A valid signature followed by garbage.
    std::vector<unsigned char> sig = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
    sig.insert(sig.end(), junk.begin(), junk.begin() + 100);
    writeBytes(dir / "sig.png", sig);
    expectInputError([&] { loadHeightmap(dir / "sig.png", LoadOptions{}); },
                     {"sig.png", "not a valid PNG"});
}

TEST(HeightmapErrors, ColourPngIsRejected) {
    const fs::path dir = scratchDir();
    writeTestPng(dir / "rgb.png", 2, 1, 8, PNG_COLOR_TYPE_RGB, {1, 2, 3, 4, 5, 6});
    expectInputError([&] { loadHeightmap(dir / "rgb.png", LoadOptions{}); },
                     {"rgb.png", "is not a greyscale PNG"});
}

TEST(HeightmapErrors, HugePngHeaderRejectedBeforeAllocating) {
    const fs::path dir = scratchDir();
    saveHeightmap(dir / "small.png", makeMap(4, 4, 0.0f, 1.0f), 1.0);
    auto bytes = readBytes(dir / "small.png");
    // Signature (8), IHDR length (4), "IHDR" (4), width (4), height (4), ... CRC over type+data.
    ASSERT_EQ(std::memcmp(bytes.data() + 12, "IHDR", 4), 0);
    putBE32(bytes.data() + 16, 100000);
    putBE32(bytes.data() + 20, 100000);
    putBE32(bytes.data() + 29, crc32(bytes.data() + 12, 17));
    writeBytes(dir / "huge.png", bytes);
    expectInputError([&] { loadHeightmap(dir / "huge.png", LoadOptions{}); },
                     {"huge.png", "100000x100000"});
    // One side too long, the other tiny: caught by the per-side limit.
    putBE32(bytes.data() + 16, 20000);
    putBE32(bytes.data() + 20, 1);
    putBE32(bytes.data() + 29, crc32(bytes.data() + 12, 17));
    writeBytes(dir / "long.png", bytes);
    expectInputError([&] { loadHeightmap(dir / "long.png", LoadOptions{}); }, {"20000x1"});
}

TEST(HeightmapErrors, PngSizeOptionMustMatch) {
    const fs::path dir = scratchDir();
    saveHeightmap(dir / "a.png", makeMap(6, 5, 0.0f, 1.0f), 1.0);
    LoadOptions opt;
    opt.width = 5;
    opt.height = 6;
    expectInputError([&] { loadHeightmap(dir / "a.png", opt); }, {"--size 5x6", "6x5"});
}

TEST(HeightmapErrors, SidecarWithoutRangeIsReported) {
    const fs::path dir = scratchDir();
    saveHeightmap(dir / "a.png", makeMap(6, 5, 0.0f, 1.0f), 1.0);
    std::ofstream(dir / "a.png.json") << "{\"min_m\": 1}";
    expectInputError([&] { loadHeightmap(dir / "a.png", LoadOptions{}); }, {"a.png.json", "max_m"});
}

TEST(HeightmapErrors, F32WrongSize) {
    const fs::path dir = scratchDir();
    saveHeightmap(dir / "m.f32", makeMap(10, 10, 0.0f, 1.0f), 1.0);
    LoadOptions opt;
    opt.width = 10;
    opt.height = 11;
    expectInputError([&] { loadHeightmap(dir / "m.f32", opt); },
                     {"m.f32", "400 bytes", "440", "10x11"});
}

TEST(HeightmapErrors, F32WithoutSize) {
    const fs::path dir = scratchDir();
    saveHeightmap(dir / "m.f32", makeMap(10, 10, 0.0f, 1.0f), 1.0);
    expectInputError([&] { loadHeightmap(dir / "m.f32", LoadOptions{}); },
                     {"m.f32", "needs --size WxH"});
    LoadOptions half;
    half.width = 10; // height missing
    expectInputError([&] { loadHeightmap(dir / "m.f32", half); }, {"needs --size WxH"});
}

TEST(HeightmapErrors, F32NonFiniteNamesFirstBadCell) {
    const fs::path dir = scratchDir();
    std::vector<float> v(6 * 4, 1.0f);
    v[2 * 6 + 3] = std::numeric_limits<float>::quiet_NaN(); // (3, 2)
    v[3 * 6 + 5] = std::numeric_limits<float>::infinity();  // later: not the one reported
    std::vector<unsigned char> bytes(v.size() * 4);
    std::memcpy(bytes.data(), v.data(), bytes.size()); // the test machine is little-endian
    writeBytes(dir / "nan.f32", bytes);
    LoadOptions opt;
    opt.width = 6;
    opt.height = 4;
    expectInputError([&] { loadHeightmap(dir / "nan.f32", opt); }, {"nan.f32", "NaN", "(3, 2)"});
    v[2 * 6 + 3] = 1.0f;
    std::memcpy(bytes.data(), v.data(), bytes.size());
    writeBytes(dir / "inf.f32", bytes);
    expectInputError([&] { loadHeightmap(dir / "inf.f32", opt); }, {"Inf", "(5, 3)"});
}

TEST(HeightmapErrors, UnknownExtensionOnLoad) {
    const fs::path dir = scratchDir();
    writeBytes(dir / "m.bmp", {1, 2, 3}); // .tif and .exr are formats now (test_formats.cpp)
    expectInputError([&] { loadHeightmap(dir / "m.bmp", LoadOptions{}); },
                     {"m.bmp", ".bmp", ".png", ".f32"});
    expectInputError([&] { loadHeightmap(dir / "noext", LoadOptions{}); }, {".png", ".f32"});
}

// [SECTION] save errors and atomic writes -----------------------------------------------------

TEST(HeightmapSave, UnwritablePathUnderRegularFile) {
    const fs::path dir = scratchDir();
    writeBytes(dir / "file.txt", {'x'});
    expectInputError([&] { saveHeightmap(dir / "file.txt" / "out.png", makeMap(4, 4, 0, 1), 1); },
                     {"cannot write '" + (dir / "file.txt" / "out.png").string() + "'"});
    expectInputError([&] { saveHeightmap(dir / "file.txt" / "out.f32", makeMap(4, 4, 0, 1), 1); },
                     {"cannot write"});
    EXPECT_EQ(listDir(dir), std::vector<std::string>{"file.txt"});
    EXPECT_EQ(readBytes(dir / "file.txt"), std::vector<unsigned char>{'x'});
}

TEST(HeightmapSave, OntoADirectoryFailsAndLeavesNoTemp) {
    const fs::path dir = scratchDir();
    fs::create_directories(dir / "out.png");
    expectInputError([&] { saveHeightmap(dir / "out.png", makeMap(4, 4, 0, 1), 1); },
                     {"cannot write", "out.png"});
    EXPECT_EQ(listDir(dir), std::vector<std::string>{"out.png"});
    EXPECT_TRUE(fs::is_empty(dir / "out.png"));
}

TEST(HeightmapSave, UnknownExtension) {
    const fs::path dir = scratchDir();
    expectInputError([&] { saveHeightmap(dir / "out.bmp", makeMap(4, 4, 0, 1), 1); },
                     {"out.bmp", ".png", ".f32"});
    EXPECT_TRUE(fs::is_empty(dir));
}

TEST(HeightmapSave, NaNIsRefusedAndExistingFileKept) {
    const fs::path dir = scratchDir();
    const Heightmap good = makeMap(8, 8, 0.0f, 10.0f);
    saveHeightmap(dir / "keep.png", good, 1.0);
    saveHeightmap(dir / "keep.f32", good, 1.0);
    const auto png_before = readBytes(dir / "keep.png");
    const auto json_before = readBytes(dir / "keep.png.json");
    const auto f32_before = readBytes(dir / "keep.f32");

    Heightmap bad = good;
    bad.heights[8 * 5 + 2] = std::numeric_limits<float>::quiet_NaN(); // (2, 5)
    expectInputError([&] { saveHeightmap(dir / "keep.png", bad, 1.0); }, {"(2, 5)", "NaN"});
    expectInputError([&] { saveHeightmap(dir / "keep.f32", bad, 1.0); }, {"(2, 5)"});
    bad.heights[8 * 5 + 2] = -std::numeric_limits<float>::infinity();
    expectInputError([&] { saveHeightmap(dir / "new.png", bad, 1.0); }, {"-Inf"});

    EXPECT_EQ(listDir(dir), (std::vector<std::string>{"keep.f32", "keep.png", "keep.png.json"}));
    EXPECT_EQ(readBytes(dir / "keep.png"), png_before);
    EXPECT_EQ(readBytes(dir / "keep.png.json"), json_before);
    EXPECT_EQ(readBytes(dir / "keep.f32"), f32_before);
}

TEST(HeightmapSave, OverwriteReplacesWholeFile) {
    const fs::path dir = scratchDir();
    saveHeightmap(dir / "m.f32", makeMap(64, 64, 0.0f, 1.0f), 1.0);
    saveHeightmap(dir / "m.f32", makeMap(2, 2, 5.0f, 6.0f), 1.0);
    EXPECT_EQ(fs::file_size(dir / "m.f32"), 16u);
    EXPECT_EQ(listDir(dir), std::vector<std::string>{"m.f32"});
}

TEST(AtomicFile, WritesTextAndBytesAndCreatesParents) {
    const fs::path dir = scratchDir();
    writeTextAtomic(dir / "a" / "b" / "t.txt", "hello\n");
    EXPECT_EQ(readBytes(dir / "a" / "b" / "t.txt"),
              (std::vector<unsigned char>{'h', 'e', 'l', 'l', 'o', '\n'}));
    const std::array<std::byte, 3> raw = {std::byte{0}, std::byte{0xff}, std::byte{7}};
    writeFileAtomic(dir / "r.bin", raw);
    EXPECT_EQ(readBytes(dir / "r.bin"), (std::vector<unsigned char>{0, 0xff, 7}));
    writeFileAtomic(dir / "empty.bin", {});
    EXPECT_EQ(fs::file_size(dir / "empty.bin"), 0u);
    EXPECT_EQ(listDir(dir), (std::vector<std::string>{"a", "empty.bin", "r.bin"}));
}

// [SECTION] real DEMs from shared/data --------------------------------------------------------

TEST(RealDems, OlindaF32MatchesItsJson) {
    const nlohmann::json meta = readJson(kData / "olinda.json");
    LoadOptions opt;
    opt.width = meta.at("cols").get<int>();
    opt.height = meta.at("rows").get<int>();
    ASSERT_EQ(opt.width, 111);
    const Heightmap m = loadHeightmap(kData / "olinda_111x111.f32", opt);
    const auto [lo, hi] = std::minmax_element(m.heights.begin(), m.heights.end());
    EXPECT_FLOAT_EQ(*lo, meta.at("min_m").get<float>());
    EXPECT_FLOAT_EQ(*hi, meta.at("max_m").get<float>());
    double sum = 0.0;
    for (float v : m.heights)
        sum += v;
    EXPECT_NEAR(sum / static_cast<double>(m.heights.size()), meta.at("mean_m").get<double>(), 1e-3);
}

// For each DEM: the f32 and the 16-bit PNG (with --height-range from the JSON) load to the same
// size and min/max, and agree cell by cell to within one PNG step.
TEST(RealDems, PngWithHeightRangeMatchesF32AndJson) {
    struct Dem {
        const char* json;
        const char* f32;
        const char* png;
    };
    for (const Dem& d : {Dem{"srtm_frontrange_240x144.json", "srtm_frontrange_240x144_240x144.f32",
                             "srtm_frontrange_240x144_u16.png"},
                         Dem{"west_bijou_escarpment.json", "west_bijou_escarpment_129x67.f32",
                             "west_bijou_escarpment_u16.png"},
                         Dem{"olinda.json", "olinda_111x111.f32", "olinda_u16.png"}}) {
        SCOPED_TRACE(d.png);
        const nlohmann::json meta = readJson(kData / d.json);
        const double lo = meta.at("min_m").get<double>(), hi = meta.at("max_m").get<double>();
        LoadOptions popt;
        popt.has_height_range = true;
        popt.range_lo = lo;
        popt.range_hi = hi;
        const Heightmap p = loadHeightmap(kData / d.png, popt);
        EXPECT_EQ(p.width, meta.at("cols").get<int>());
        EXPECT_EQ(p.height, meta.at("rows").get<int>());
        const auto [pl, ph] = std::minmax_element(p.heights.begin(), p.heights.end());
        EXPECT_NEAR(*pl, lo, 1e-3 * (hi - lo));
        EXPECT_NEAR(*ph, hi, 1e-3 * (hi - lo));

        LoadOptions fopt;
        fopt.width = p.width;
        fopt.height = p.height;
        const Heightmap f = loadHeightmap(kData / d.f32, fopt);
        const auto [fl, fh] = std::minmax_element(f.heights.begin(), f.heights.end());
        EXPECT_FLOAT_EQ(*fl, static_cast<float>(lo));
        EXPECT_FLOAT_EQ(*fh, static_cast<float>(hi));
        ASSERT_EQ(f.heights.size(), p.heights.size());
        double worst = 0.0;
        for (std::size_t i = 0; i < f.heights.size(); ++i)
            worst = std::max(worst, std::fabs(static_cast<double>(f.heights[i]) - p.heights[i]));
        EXPECT_LE(worst, (hi - lo) / 65535.0 + 1e-3);
    }
}

TEST(RealDems, SaveAndReloadRealDemAsPng) {
    const fs::path dir = scratchDir();
    LoadOptions opt;
    opt.width = 240;
    opt.height = 144;
    const Heightmap m = loadHeightmap(kData / "srtm_frontrange_240x144_240x144.f32", opt);
    saveHeightmap(dir / "front.png", m, 90.0);
    const nlohmann::json side = readJson(dir / "front.png.json");
    EXPECT_DOUBLE_EQ(side.at("min_m").get<double>(), 1943.0);
    EXPECT_DOUBLE_EQ(side.at("max_m").get<double>(), 3286.0);
    const Heightmap back = loadHeightmap(dir / "front.png", LoadOptions{});
    for (std::size_t i = 0; i < m.heights.size(); ++i)
        ASSERT_NEAR(back.heights[i], m.heights[i], (3286.0 - 1943.0) / 65535.0 + 1e-3);
}

// [SECTION] generated terrain -----------------------------------------------------------------
namespace {

// Standard deviation of the 5-point Laplacian (m / cell^2 * cell^2 = m) over inner cells.
double laplacianStd(const Heightmap& m) {
    double s = 0.0, s2 = 0.0;
    long n = 0;
    for (int y = 1; y < m.height - 1; ++y) {
        for (int x = 1; x < m.width - 1; ++x) {
            const double l = static_cast<double>(m.at(x - 1, y)) + m.at(x + 1, y) + m.at(x, y - 1) +
                             m.at(x, y + 1) - 4.0 * m.at(x, y);
            s += l;
            s2 += l * l;
            ++n;
        }
    }
    const double mean = s / static_cast<double>(n);
    return std::sqrt(std::max(0.0, s2 / static_cast<double>(n) - mean * mean));
}

// Cells strictly higher than all 8 neighbours.
int localMaxima(const Heightmap& m) {
    int count = 0;
    for (int y = 1; y < m.height - 1; ++y) {
        for (int x = 1; x < m.width - 1; ++x) {
            bool top = true;
            for (int dy = -1; dy <= 1 && top; ++dy)
                for (int dx = -1; dx <= 1 && top; ++dx)
                    if ((dx || dy) && m.at(x + dx, y + dy) >= m.at(x, y)) top = false;
            count += top;
        }
    }
    return count;
}

void expectAllFinite(const GeneratedTerrain& t) {
    ASSERT_EQ(t.terrain.heights.size(),
              static_cast<std::size_t>(t.terrain.width) * t.terrain.height);
    ASSERT_EQ(t.hardness.size(), t.terrain.heights.size());
    for (std::size_t i = 0; i < t.hardness.size(); ++i) {
        ASSERT_TRUE(std::isfinite(t.terrain.heights[i])) << "height " << i;
        ASSERT_GE(t.terrain.heights[i], 0.0f) << "height " << i;
        ASSERT_TRUE(std::isfinite(t.hardness[i])) << "hardness " << i;
        ASSERT_GE(t.hardness[i], 0.0f);
        ASSERT_LE(t.hardness[i], 1.0f);
    }
}

} // namespace

TEST(TerrainGen, DeterministicForSameSeed) {
    const GeneratedTerrain a = generateTerrain(200, 120, 42, 5.0);
    const GeneratedTerrain b = generateTerrain(200, 120, 42, 5.0);
    ASSERT_EQ(a.terrain.heights.size(), b.terrain.heights.size());
    EXPECT_EQ(std::memcmp(a.terrain.heights.data(), b.terrain.heights.data(),
                          a.terrain.heights.size() * sizeof(float)),
              0);
    EXPECT_EQ(std::memcmp(a.hardness.data(), b.hardness.data(), a.hardness.size() * 4), 0);
}

TEST(TerrainGen, DifferentSeedsDiffer) {
    const GeneratedTerrain a = generateTerrain(128, 128, 1, 4.0);
    const GeneratedTerrain b = generateTerrain(128, 128, 2, 4.0);
    std::size_t same = 0;
    for (std::size_t i = 0; i < a.terrain.heights.size(); ++i)
        same += a.terrain.heights[i] == b.terrain.heights[i];
    EXPECT_LT(same, a.terrain.heights.size() / 100);
    // Seeds differing only in high bits differ too.
    const GeneratedTerrain c = generateTerrain(128, 128, 1 | (1ull << 40), 4.0);
    EXPECT_NE(a.terrain.heights, c.terrain.heights);
}

TEST(TerrainGen, FiniteNonNegativeAndReliefAboutAQuarterOfTheExtent) {
    for (const auto& [w, h, cell] : std::vector<std::tuple<int, int, double>>{
             {256, 256, 4.0}, {200, 120, 10.0}, {97, 61, 1.0}, {64, 256, 2.0}}) {
        for (uint64_t seed : {1ull, 7ull, 123456789ull}) {
            SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h) + " seed " +
                         std::to_string(seed));
            const GeneratedTerrain t = generateTerrain(w, h, seed, cell);
            expectAllFinite(t);
            const auto [lo, hi] =
                std::minmax_element(t.terrain.heights.begin(), t.terrain.heights.end());
            const double extent = std::min(w, h) * cell;
            EXPECT_NEAR(*lo, 0.0, 1e-6 * extent);
            EXPECT_GE((*hi - *lo) / extent, 0.15);
            EXPECT_LE((*hi - *lo) / extent, 0.35);
        }
    }
}

TEST(TerrainGen, HardnessIsLayeredStrata) {
    const GeneratedTerrain t = generateTerrain(256, 256, 3, 4.0);
    const auto [lo, hi] = std::minmax_element(t.hardness.begin(), t.hardness.end());
    EXPECT_LT(*lo, 0.25f);
    EXPECT_GT(*hi, 0.75f);
    // Layered by altitude: hard and soft both occur in quantity.
    std::size_t soft = 0, hard = 0;
    for (float v : t.hardness) {
        soft += v < 0.4f;
        hard += v > 0.6f;
    }
    EXPECT_GT(soft, t.hardness.size() / 10);
    EXPECT_GT(hard, t.hardness.size() / 10);
    // Bands: walking uphill crosses several hardness changes (about relief/12 thick).
    int changes = 0;
    std::vector<std::pair<float, float>> by_height;
    for (std::size_t i = 0; i < t.hardness.size(); i += 7)
        by_height.push_back({t.terrain.heights[i], t.hardness[i]});
    std::sort(by_height.begin(), by_height.end());
    bool was_hard = by_height.front().second > 0.5f;
    for (const auto& [hgt, hard_v] : by_height) {
        const bool is_hard = hard_v > 0.5f;
        changes += is_hard != was_hard;
        was_hard = is_hard;
    }
    EXPECT_GE(changes, 6);
}

TEST(TerrainGen, LooksLikeMountainsNotASinusoid) {
    const GeneratedTerrain t = generateTerrain(256, 256, 11, 8.0);
    const Heightmap& m = t.terrain;
    const double relief = 0.25 * 256 * 8.0;
    // Roughness at the cell scale: neither smooth (a sine of the extent's wavelength gives a
    // Laplacian std ~ 1e-3 of the relief here) nor white noise (which would be ~ the relief).
    const double lap = laplacianStd(m);
    EXPECT_GT(lap, 2e-3 * relief) << lap;
    EXPECT_LT(lap, 0.1 * relief) << lap;
    // Many separate summits, not one or two bumps.
    EXPECT_GE(localMaxima(m), 8);
    // Height distribution of a landscape: plenty of low ground, a few high peaks (the mean sits
    // below mid-relief), and every tenth of the range is used.
    double mean = 0.0;
    for (float v : m.heights)
        mean += v;
    mean /= static_cast<double>(m.heights.size());
    EXPECT_LT(mean, 0.6 * relief);
    EXPECT_GT(mean, 0.1 * relief);
    std::array<int, 10> histogram{};
    for (float v : m.heights)
        ++histogram[std::min(9, static_cast<int>(v / relief * 10.0))];
    for (int b = 0; b < 10; ++b)
        EXPECT_GT(histogram[b], 0) << "bin " << b;
    // Slopes of real mountains: mostly between flat and a cliff.
    double slope_sum = 0.0;
    long n = 0;
    for (int y = 1; y < 255; ++y) {
        for (int x = 1; x < 255; ++x) {
            const double gx = (m.at(x + 1, y) - m.at(x - 1, y)) / (2 * 8.0);
            const double gy = (m.at(x, y + 1) - m.at(x, y - 1)) / (2 * 8.0);
            slope_sum += std::sqrt(gx * gx + gy * gy);
            ++n;
        }
    }
    const double mean_gradient = slope_sum / static_cast<double>(n);
    EXPECT_GT(mean_gradient, 0.2); // > ~11 degrees
    EXPECT_LT(mean_gradient, 1.0); // < 45 degrees
}

TEST(TerrainGen, SameLandscapeAtDifferentResolutions) {
    // Same extent (2048 m): 256 cells of 8 m and 512 cells of 4 m.
    const GeneratedTerrain a = generateTerrain(256, 256, 5, 8.0);
    const GeneratedTerrain b = generateTerrain(512, 512, 5, 4.0);
    double sa = 0, sb = 0, sab = 0, saa = 0, sbb = 0, worst = 0;
    const double n = 256.0 * 256.0;
    for (int y = 0; y < 256; ++y) {
        for (int x = 0; x < 256; ++x) {
            const double va = a.terrain.at(x, y);
            const double vb =
                0.25 *
                (static_cast<double>(b.terrain.at(2 * x, 2 * y)) + b.terrain.at(2 * x + 1, 2 * y) +
                 b.terrain.at(2 * x, 2 * y + 1) + b.terrain.at(2 * x + 1, 2 * y + 1));
            sa += va;
            sb += vb;
            sab += va * vb;
            saa += va * va;
            sbb += vb * vb;
            worst = std::max(worst, std::fabs(va - vb));
        }
    }
    const double cov = sab / n - (sa / n) * (sb / n);
    const double corr =
        cov / std::sqrt((saa / n - (sa / n) * (sa / n)) * (sbb / n - (sb / n) * (sb / n)));
    EXPECT_GT(corr, 0.99);
    EXPECT_LT(worst, 0.05 * 512.0); // within 5% of the 512 m relief everywhere
}

TEST(TerrainGen, TinyAndThinGrids) {
    for (const auto& [w, h] :
         std::vector<std::pair<int, int>>{{1, 1}, {1, 50}, {50, 1}, {2, 2}, {3, 7}}) {
        SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
        const GeneratedTerrain t = generateTerrain(w, h, 9, 3.0);
        EXPECT_EQ(t.terrain.width, w);
        EXPECT_EQ(t.terrain.height, h);
        expectAllFinite(t);
        const auto [lo, hi] =
            std::minmax_element(t.terrain.heights.begin(), t.terrain.heights.end());
        EXPECT_LE(*hi - *lo, 0.35 * std::min(w, h) * 3.0 + 1e-6);
    }
}

TEST(TerrainGen, BadArgumentsAreInputErrors) {
    expectInputError([] { generateTerrain(0, 10, 1, 1.0); }, {"0x10"});
    expectInputError([] { generateTerrain(10, -3, 1, 1.0); }, {"10x-3"});
    expectInputError([] { generateTerrain(20000, 10, 1, 1.0); }, {"20000x10"});
    expectInputError([] { generateTerrain(10, 10, 1, 0.0); }, {"cell size"});
    expectInputError([] { generateTerrain(10, 10, 1, std::nan("")); }, {"cell size"});
}

TEST(TerrainGen, SavesAndLoadsAsPng) {
    const fs::path dir = scratchDir();
    const GeneratedTerrain t = generateTerrain(97, 61, 4, 2.0);
    saveHeightmap(dir / "gen.png", t.terrain, 2.0);
    const Heightmap back = loadHeightmap(dir / "gen.png", LoadOptions{});
    const auto [lo, hi] = std::minmax_element(t.terrain.heights.begin(), t.terrain.heights.end());
    const double step = (*hi - *lo) / 65535.0;
    for (std::size_t i = 0; i < back.heights.size(); ++i)
        ASSERT_NEAR(back.heights[i], t.terrain.heights[i], step + 1e-4);
}
