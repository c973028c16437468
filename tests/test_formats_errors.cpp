// Tests of the heightmap formats (OpenEXR, TIFF, .r16/.raw, .r32, .asc) that fail: truncated,
// garbage, missing, zero-size, huge or non-finite input gives one clear InputError, and saving
// what cannot be written leaves nothing behind. No Vulkan. Round trips and each format's own
// features: test_formats.cpp; the helpers: formats_files.h.
//
// [SECTION] helpers: a TIFF header without pixels
// [SECTION] hostile input
// [SECTION] save errors
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <functional>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

#include <OpenEXR/ImfPixelType.h>

#include "io/errors.h"
#include "io/heightmap.h"

#include "formats_files.h"
#include "test_util.h"

namespace fs = std::filesystem;
using namespace alluvium;
using namespace alluvium::test;

// [SECTION] helpers ---------------------------------------------------------------------------
namespace {

// A minimal little-endian TIFF header claiming w x h float32 pixels, with no pixel data.
std::vector<unsigned char> tiffHeaderOnly(uint32_t w, uint32_t h) {
    std::vector<unsigned char> b = {'I', 'I', 42, 0, 8, 0, 0, 0};
    auto put16 = [&](uint32_t v) {
        b.push_back(static_cast<unsigned char>(v & 0xff));
        b.push_back(static_cast<unsigned char>((v >> 8) & 0xff));
    };
    auto put32 = [&](uint32_t v) {
        for (int k = 0; k < 4; ++k) b.push_back(static_cast<unsigned char>((v >> (8 * k)) & 0xff));
    };
    struct Entry {
        uint16_t tag, type;
        uint32_t value;
    };
    const Entry entries[] = {
        {256, 4, w},   {257, 4, h}, {258, 3, 32}, {259, 3, 1}, {262, 3, 1},
        {273, 4, 200}, {277, 3, 1}, {278, 4, h},  {279, 4, 4}, {339, 3, 3},
    };
    put16(static_cast<uint32_t>(std::size(entries)));
    for (const Entry& e : entries) {
        put16(e.tag);
        put16(e.type);
        put32(1);
        if (e.type == 3) {
            put16(e.value);
            put16(0);
        } else {
            put32(e.value);
        }
    }
    put32(0);
    b.resize(204, 0);
    return b;
}

} // namespace

// [SECTION] hostile input -------------------------------------------------------------------------

TEST(FormatsHostile, TruncatedFilesInEveryFormat) {
    const fs::path dir = scratchDir();
    const Heightmap m = makeMap(64, 40, 0, 100);
    for (const std::string ext : {".exr", ".tif", ".asc", ".f32", ".r32", ".r16", ".raw", ".png"}) {
        const fs::path full = dir / ("full" + ext);
        saveHeightmap(full, m, 1.0);
        const std::vector<unsigned char> bytes = readBytes(full);
        for (std::size_t keep : {bytes.size() / 2, bytes.size() - 1, std::size_t(20), std::size_t(3), std::size_t(0)}) {
            const fs::path cut = dir / ("cut" + std::to_string(keep) + ext);
            writeBytes(cut,
                       std::vector<unsigned char>(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(keep)));
            if (writesSidecar(cut)) fs::copy_file(full.string() + ".json", cut.string() + ".json");
            // Raw files are checked against --size; everything else against itself.
            const LoadOptions o = isRaw(ext) ? sized(64, 40) : LoadOptions{};
            // Losing only the last byte leaves an .asc (its final newline) and our TIFF (the NUL
            // that ends its description text, which libtiff does not need) complete.
            if ((ext == ".asc" || ext == ".tif") && keep == bytes.size() - 1) continue;
            SCOPED_TRACE(cut.filename().string());
            expectInputError([&] { loadHeightmap(cut, o); }, {cut.filename().string()});
        }
    }
}

TEST(FormatsHostile, GarbageInEveryFormat) {
    const fs::path dir = scratchDir();
    std::vector<unsigned char> junk(4096);
    uint32_t s = 7u;
    for (auto& b : junk) {
        s = s * 1103515245u + 12345u;
        b = static_cast<unsigned char>(s >> 24);
    }
    for (const std::string ext : {".exr", ".tif", ".asc"}) {
        writeBytes(dir / ("junk" + ext), junk);
        expectInputError([&] { loadHeightmap(dir / ("junk" + ext), LoadOptions{}); }, {"junk" + ext});
    }
    // Right magic, corrupt rest.
    std::vector<unsigned char> exr = {0x76, 0x2f, 0x31, 0x01, 2, 0, 0, 0};
    exr.insert(exr.end(), junk.begin(), junk.begin() + 200);
    writeBytes(dir / "magic.exr", exr);
    expectInputError([&] { loadHeightmap(dir / "magic.exr", LoadOptions{}); }, {"magic.exr", "OpenEXR"});
    std::vector<unsigned char> tif = {'I', 'I', 42, 0, 8, 0, 0, 0};
    tif.insert(tif.end(), junk.begin(), junk.begin() + 200);
    writeBytes(dir / "magic.tif", tif);
    expectInputError([&] { loadHeightmap(dir / "magic.tif", LoadOptions{}); }, {"magic.tif"});
    // Corrupt pixel data inside a valid EXR (compressed blocks).
    saveHeightmap(dir / "ok.exr", makeMap(64, 64, 0, 1), 1.0);
    std::vector<unsigned char> bytes = readBytes(dir / "ok.exr");
    for (std::size_t i = bytes.size() / 2; i < bytes.size(); i += 7) bytes[i] ^= 0x5a;
    writeBytes(dir / "bad.exr", bytes);
    expectInputError([&] { loadHeightmap(dir / "bad.exr", LoadOptions{}); }, {"bad.exr"});
}

TEST(FormatsHostile, MissingFileAndDirectory) {
    const fs::path dir = scratchDir();
    for (const std::string ext : {".exr", ".tif", ".asc", ".r16"}) {
        expectInputError([&] { loadHeightmap(dir / ("none" + ext), sized(2, 2)); }, {"none" + ext, "No such file"});
        fs::create_directories(dir / ("d" + ext));
        expectInputError([&] { loadHeightmap(dir / ("d" + ext), sized(2, 2)); }, {"d" + ext});
    }
}

TEST(FormatsHostile, ZeroSizeAndThinImages) {
    const fs::path dir = scratchDir();
    writeText(dir / "zero.asc", "ncols 0\nnrows 5\nxllcorner 0\nyllcorner 0\ncellsize 1\n");
    expectInputError([&] { loadHeightmap(dir / "zero.asc", LoadOptions{}); }, {"zero.asc", "0x5"});
    writeBytes(dir / "zero.tif", tiffHeaderOnly(0, 5));
    expectInputError([&] { loadHeightmap(dir / "zero.tif", LoadOptions{}); }, {"zero.tif"});
    writeBytes(dir / "empty.r16", {});
    expectInputError([&] { loadHeightmap(dir / "empty.r16", sized(0, 0)); }, {"empty.r16", "--size"});
    // 1xN and Nx1 load in every format (the round trips cover them); a 1x1 too.
    Heightmap one;
    one.width = one.height = 1;
    one.heights = {7.0f};
    for (const std::string& ext : kFloatExts) expectBitExact(one, saveAndLoad(dir / ("one" + ext), one), ext);
    for (const std::string& ext : k16Exts) expectBitExact(one, saveAndLoad(dir / ("one" + ext), one), ext);
}

TEST(FormatsHostile, RawSizeMismatch) {
    const fs::path dir = scratchDir();
    saveHeightmap(dir / "r.r16", makeMap(10, 10, 0, 1), 1.0);
    expectInputError([&] { loadHeightmap(dir / "r.r16", sized(10, 11)); }, {"r.r16", "200 bytes", "10x11", "220"});
    saveHeightmap(dir / "r.r32", makeMap(10, 10, 0, 1), 1.0);
    expectInputError([&] { loadHeightmap(dir / "r.r32", sized(9, 10)); }, {"r.r32", "400 bytes", "360"});
    expectInputError([&] { loadHeightmap(dir / "r.r32", LoadOptions{}); }, {"r.r32", "--size"});
}

TEST(FormatsHostile, NonFiniteNamesTheFirstBadCell) {
    const fs::path dir = scratchDir();
    const int w = 6, h = 4;
    std::vector<float> v(cells(w, h), 1.0f);
    v[cells(w, 2) + 3] = std::numeric_limits<float>::quiet_NaN();
    v[cells(w, 3) + 1] = std::numeric_limits<float>::infinity();
    // .r32 (little-endian float32 raw)
    {
        std::vector<unsigned char> bytes(v.size() * 4);
        std::memcpy(bytes.data(), v.data(), bytes.size());
        writeBytes(dir / "n.r32", bytes);
        expectInputError([&] { loadHeightmap(dir / "n.r32", sized(w, h)); }, {"n.r32", "NaN", "(3, 2)"});
    }
    writeExr(dir / "n.exr", w, h, {"Y"}, {v}, Imf::FLOAT);
    expectInputError([&] { loadHeightmap(dir / "n.exr", LoadOptions{}); }, {"n.exr", "NaN", "(3, 2)"});
    writeExr(dir / "nh.exr", w, h, {"Y"}, {v}, Imf::HALF);
    expectInputError([&] { loadHeightmap(dir / "nh.exr", LoadOptions{}); }, {"nh.exr", "NaN", "(3, 2)"});
    std::vector<float> inf_only(cells(w, h), 1.0f);
    inf_only[cells(w, 1) + 5] = -std::numeric_limits<float>::infinity();
    writeTiff(dir / "n.tif", w, h, std::vector<double>(inf_only.begin(), inf_only.end()), TiffSpec{});
    expectInputError([&] { loadHeightmap(dir / "n.tif", LoadOptions{}); }, {"n.tif", "-Inf", "(5, 1)"});
    const std::string head = "ncols 2\nnrows 2\nxllcorner 0\nyllcorner 0\ncellsize 1\n";
    writeText(dir / "n.asc", head + "1 2\nnan 4\n");
    expectInputError([&] { loadHeightmap(dir / "n.asc", LoadOptions{}); }, {"n.asc", "NaN", "(0, 1)"});
    writeText(dir / "i.asc", head + "1 inf\n3 4\n");
    expectInputError([&] { loadHeightmap(dir / "i.asc", LoadOptions{}); }, {"i.asc", "+Inf", "(1, 0)"});
    writeText(dir / "big.asc", head + "1 2\n3 1e39\n");
    expectInputError([&] { loadHeightmap(dir / "big.asc", LoadOptions{}); }, {"big.asc", "(1, 1)"});
    writeText(dir / "word.asc", head + "1 2\n3 four\n");
    expectInputError([&] { loadHeightmap(dir / "word.asc", LoadOptions{}); }, {"word.asc", "'four'", "(1, 1)"});
    // The NODATA value itself is fine even where it is NaN.
    writeText(dir / "nd.asc", head + "NODATA_value nan\n1 2\nnan 4\n");
    const Heightmap nd = loadHeightmap(dir / "nd.asc", LoadOptions{});
    EXPECT_EQ(nd.nodata_filled, 1);
    EXPECT_TRUE(std::isfinite(nd.heights[2]));
}

TEST(FormatsHostile, HugeHeadersAreRejectedBeforeAllocating) {
    const fs::path dir = scratchDir();
    writeText(dir / "h.asc", "ncols 100000\nnrows 100000\nxllcorner 0\nyllcorner 0\ncellsize 1\n1 2 3\n");
    expectInputError([&] { loadHeightmap(dir / "h.asc", LoadOptions{}); }, {"h.asc", "100000x100000", "16384"});
    writeText(dir / "h2.asc", "ncols 16385\nnrows 2\nxllcorner 0\nyllcorner 0\ncellsize 1\n1 2 3\n");
    expectInputError([&] { loadHeightmap(dir / "h2.asc", LoadOptions{}); }, {"h2.asc", "16385x2"});
    // Within the limits, but far more cells than the file has bytes: refused before allocating.
    writeText(dir / "h4.asc", "ncols 16384\nnrows 16384\nxllcorner 0\nyllcorner 0\ncellsize 1\n1 2 3\n");
    expectInputError([&] { loadHeightmap(dir / "h4.asc", LoadOptions{}); }, {"h4.asc", "16384x16384", "truncated"});
    writeText(dir / "h3.asc", "ncols 1e300\nnrows 2\nxllcorner 0\nyllcorner 0\ncellsize 1\n1 2 3\n");
    expectInputError([&] { loadHeightmap(dir / "h3.asc", LoadOptions{}); }, {"h3.asc"});
    writeBytes(dir / "h.tif", tiffHeaderOnly(4000000000u, 4000000000u));
    expectInputError([&] { loadHeightmap(dir / "h.tif", LoadOptions{}); }, {"h.tif"});
    writeBytes(dir / "h2.tif", tiffHeaderOnly(20000, 3));
    expectInputError([&] { loadHeightmap(dir / "h2.tif", LoadOptions{}); }, {"h2.tif", "20000x3"});
    // An EXR whose dataWindow is patched to 1,000,000 x 3.
    saveHeightmap(dir / "ok.exr", makeMap(4, 3, 0, 1), 1.0);
    std::vector<unsigned char> bytes = readBytes(dir / "ok.exr");
    const std::string key = "dataWindow";
    auto it = std::search(bytes.begin(), bytes.end(), key.begin(), key.end());
    ASSERT_NE(it, bytes.end());
    // name\0 "box2i"\0 size(4) xmin ymin xmax ymax
    const std::size_t at = static_cast<std::size_t>(it - bytes.begin()) + key.size() + 1 + 6 + 4 + 8;
    const uint32_t xmax = 999999;
    std::memcpy(bytes.data() + at, &xmax, 4);
    writeBytes(dir / "h.exr", bytes);
    expectInputError([&] { loadHeightmap(dir / "h.exr", LoadOptions{}); }, {"h.exr"});
}

TEST(FormatsHostile, BadAscHeaders) {
    const fs::path dir = scratchDir();
    writeText(dir / "k.asc", "ncols 2\nnrows 1\nxllcorner 0\nyllcorner 0\ncellsize 1\nfoo 3\n1 2\n");
    expectInputError([&] { loadHeightmap(dir / "k.asc", LoadOptions{}); }, {"k.asc", "'foo'"});
    writeText(dir / "m.asc", "ncols 2\nnrows 1\nxllcorner 0\n1 2\n");
    expectInputError([&] { loadHeightmap(dir / "m.asc", LoadOptions{}); }, {"m.asc", "cellsize"});
    writeText(dir / "c.asc", "ncols 2\nnrows 1\nxllcorner 0\nyllcorner 0\ncellsize -1\n1 2\n");
    expectInputError([&] { loadHeightmap(dir / "c.asc", LoadOptions{}); }, {"c.asc", "cellsize"});
    writeText(dir / "f.asc", "ncols 2.5\nnrows 1\nxllcorner 0\nyllcorner 0\ncellsize 1\n1 2\n");
    expectInputError([&] { loadHeightmap(dir / "f.asc", LoadOptions{}); }, {"f.asc", "whole"});
    writeText(dir / "x.asc", "ncols 2\nnrows 1\nxllcorner 0\nyllcorner 0\ncellsize 1\n1 2 3\n");
    expectInputError([&] { loadHeightmap(dir / "x.asc", LoadOptions{}); }, {"x.asc", "more values"});
    writeText(dir / "t.asc", "ncols 2\nnrows 2\nxllcorner 0\nyllcorner 0\ncellsize 1\n1 2 3\n");
    expectInputError([&] { loadHeightmap(dir / "t.asc", LoadOptions{}); }, {"t.asc", "truncated", "found 3"});
    writeText(dir / "v.asc", "ncols two\n");
    expectInputError([&] { loadHeightmap(dir / "v.asc", LoadOptions{}); }, {"v.asc", "ncols"});
}

// [SECTION] save errors ----------------------------------------------------------------------------

TEST(FormatsSave, UnwritablePathsLeaveNothingBehind) {
    const fs::path dir = scratchDir();
    writeText(dir / "file", "x");
    const Heightmap m = makeMap(8, 8, 0, 1);
    for (const std::string ext : {".exr", ".tif", ".asc", ".r16", ".r32"}) {
        expectInputError([&] { saveHeightmap(dir / "file" / ("sub" + ext), m, 1.0); }, {"sub" + ext});
        fs::create_directories(dir / ("isdir" + ext));
        expectInputError([&] { saveHeightmap(dir / ("isdir" + ext), m, 1.0); }, {"isdir" + ext});
    }
    std::vector<std::string> names = listDir(dir);
    names.erase(std::remove_if(names.begin(), names.end(),
                               [](const std::string& n) { return n == "file" || n.rfind("isdir", 0) == 0; }),
                names.end());
    EXPECT_TRUE(names.empty()) << names.front();
}

TEST(FormatsSave, NonFiniteIsRefusedInEveryFormat) {
    const fs::path dir = scratchDir();
    Heightmap m = makeMap(5, 5, 0, 1);
    m.heights[7] = std::numeric_limits<float>::infinity();
    for (const std::string ext : {".exr", ".tif", ".asc", ".r16", ".r32"}) {
        expectInputError([&] { saveHeightmap(dir / ("n" + ext), m, 1.0); }, {"n" + ext, "(2, 1)", "+Inf"});
    }
    EXPECT_TRUE(fs::is_empty(dir));
}

TEST(FormatsSave, AscNeedsACellSize) {
    const fs::path dir = scratchDir();
    expectInputError([&] { saveHeightmap(dir / "c.asc", makeMap(2, 2, 0, 1), 0.0); }, {"c.asc", "cell size"});
    EXPECT_TRUE(fs::is_empty(dir));
}
