// Tests of the heightmap files (app/io/heightmap, atomic_file) that fail: load errors (missing,
// truncated, garbage, wrong size or range, non-finite cells), save errors that leave no file
// behind nor change an existing one, and atomic writes. Round trips and real DEMs: test_io.cpp;
// the helpers: io_files.h.
//
// [SECTION] helpers: expecting an InputError, bytes, patching a PNG header
// [SECTION] load errors
// [SECTION] save errors and atomic writes
#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include <png.h>

#include "io/atomic_file.h"
#include "io/errors.h"
#include "io/heightmap.h"

#include "io_files.h"
#include "test_util.h"

namespace fs = std::filesystem;
using namespace alluvium;
using namespace alluvium::test;

// [SECTION] helpers ---------------------------------------------------------------------------
namespace {

// Standard CRC-32 (as in PNG chunks).
uint32_t crc32(const unsigned char* data, std::size_t n) {
    uint32_t c = 0xFFFFFFFFu;
    for (std::size_t i = 0; i < n; ++i) {
        c ^= data[i];
        for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
    }
    return c ^ 0xFFFFFFFFu;
}

void putBE32(unsigned char* p, uint32_t v) {
    p[0] = static_cast<unsigned char>(v >> 24);
    p[1] = static_cast<unsigned char>(v >> 16);
    p[2] = static_cast<unsigned char>(v >> 8);
    p[3] = static_cast<unsigned char>(v);
}

} // namespace

// [SECTION] load errors -----------------------------------------------------------------------

TEST(HeightmapErrors, MissingFile) {
    const fs::path dir = scratchDir();
    const fs::path p = dir / "nope.png";
    expectInputError([&] { loadHeightmap(p, LoadOptions{}); }, {"cannot open '" + p.string() + "'", "No such file"});
    LoadOptions opt;
    opt.width = opt.height = 4;
    expectInputError([&] { loadHeightmap(dir / "nope.f32", opt); }, {"cannot open", "nope.f32"});
}

TEST(HeightmapErrors, DirectoryInsteadOfFile) {
    const fs::path dir = scratchDir();
    fs::create_directories(dir / "d.png");
    expectInputError([&] { loadHeightmap(dir / "d.png", LoadOptions{}); }, {"cannot open", "directory"});
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
    for (auto& b : junk) b = static_cast<unsigned char>((s = s * 1103515245u + 12345u) >> 24);
    writeBytes(dir / "junk.png", junk);
    expectInputError([&] { loadHeightmap(dir / "junk.png", LoadOptions{}); }, {"junk.png", "not a PNG"});
    writeBytes(dir / "empty.png", {});
    expectInputError([&] { loadHeightmap(dir / "empty.png", LoadOptions{}); }, {"empty.png"});
    // A valid signature followed by garbage.
    std::vector<unsigned char> sig = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
    sig.insert(sig.end(), junk.begin(), junk.begin() + 100);
    writeBytes(dir / "sig.png", sig);
    expectInputError([&] { loadHeightmap(dir / "sig.png", LoadOptions{}); }, {"sig.png", "not a valid PNG"});
}

TEST(HeightmapErrors, ColourPngIsRejected) {
    const fs::path dir = scratchDir();
    writeTestPng(dir / "rgb.png", 2, 1, 8, PNG_COLOR_TYPE_RGB, {1, 2, 3, 4, 5, 6});
    expectInputError([&] { loadHeightmap(dir / "rgb.png", LoadOptions{}); }, {"rgb.png", "is not a greyscale PNG"});
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
    expectInputError([&] { loadHeightmap(dir / "huge.png", LoadOptions{}); }, {"huge.png", "100000x100000"});
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
    expectInputError([&] { loadHeightmap(dir / "m.f32", opt); }, {"m.f32", "400 bytes", "440", "10x11"});
}

TEST(HeightmapErrors, F32WithoutSize) {
    const fs::path dir = scratchDir();
    saveHeightmap(dir / "m.f32", makeMap(10, 10, 0.0f, 1.0f), 1.0);
    expectInputError([&] { loadHeightmap(dir / "m.f32", LoadOptions{}); }, {"m.f32", "needs --size WxH"});
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
    expectInputError([&] { loadHeightmap(dir / "m.bmp", LoadOptions{}); }, {"m.bmp", ".bmp", ".png", ".f32"});
    expectInputError([&] { loadHeightmap(dir / "noext", LoadOptions{}); }, {".png", ".f32"});
}

// [SECTION] save errors and atomic writes -----------------------------------------------------

TEST(HeightmapSave, UnwritablePathUnderRegularFile) {
    const fs::path dir = scratchDir();
    writeBytes(dir / "file.txt", {'x'});
    expectInputError([&] { saveHeightmap(dir / "file.txt" / "out.png", makeMap(4, 4, 0, 1), 1); },
                     {"cannot write '" + (dir / "file.txt" / "out.png").string() + "'"});
    expectInputError([&] { saveHeightmap(dir / "file.txt" / "out.f32", makeMap(4, 4, 0, 1), 1); }, {"cannot write"});
    EXPECT_EQ(listDir(dir), std::vector<std::string>{"file.txt"});
    EXPECT_EQ(readBytes(dir / "file.txt"), std::vector<unsigned char>{'x'});
}

TEST(HeightmapSave, OntoADirectoryFailsAndLeavesNoTemp) {
    const fs::path dir = scratchDir();
    fs::create_directories(dir / "out.png");
    expectInputError([&] { saveHeightmap(dir / "out.png", makeMap(4, 4, 0, 1), 1); }, {"cannot write", "out.png"});
    EXPECT_EQ(listDir(dir), std::vector<std::string>{"out.png"});
    EXPECT_TRUE(fs::is_empty(dir / "out.png"));
}

TEST(HeightmapSave, UnknownExtension) {
    const fs::path dir = scratchDir();
    expectInputError([&] { saveHeightmap(dir / "out.bmp", makeMap(4, 4, 0, 1), 1); }, {"out.bmp", ".png", ".f32"});
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
    EXPECT_EQ(readBytes(dir / "a" / "b" / "t.txt"), (std::vector<unsigned char>{'h', 'e', 'l', 'l', 'o', '\n'}));
    const std::array<std::byte, 3> raw = {std::byte{0}, std::byte{0xff}, std::byte{7}};
    writeFileAtomic(dir / "r.bin", raw);
    EXPECT_EQ(readBytes(dir / "r.bin"), (std::vector<unsigned char>{0, 0xff, 7}));
    writeFileAtomic(dir / "empty.bin", {});
    EXPECT_EQ(fs::file_size(dir / "empty.bin"), 0u);
    EXPECT_EQ(listDir(dir), (std::vector<std::string>{"a", "empty.bin", "r.bin"}));
}
