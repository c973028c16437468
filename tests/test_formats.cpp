// Tests of the heightmap formats added to loadHeightmap/saveHeightmap that load and save: OpenEXR,
// TIFF, raw 16-bit (.r16/.raw), .r32 and ESRI ASCII grids (.asc). No Vulkan. Hostile input and
// save errors: test_formats_errors.cpp; the helpers: formats_files.h.
//
// [SECTION] helpers: comparing maps, shared/data
// [SECTION] round trips in every format
// [SECTION] real DEMs from shared/data through every format
// [SECTION] EXR: half, channels
// [SECTION] TIFF: 8/16/32-bit integer and float, strips and tiles
// [SECTION] ASCII grids: header, cell size, NODATA
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include <OpenEXR/ImfPixelType.h>
#include <tiffio.h>

#include "io/errors.h"
#include "io/heightmap.h"

#include "formats_files.h"
#include "test_util.h"

namespace fs = std::filesystem;
using namespace alluvium;
using namespace alluvium::test;

// [SECTION] helpers ---------------------------------------------------------------------------
namespace {

void expectWithin(const Heightmap& a, const Heightmap& b, double tol, const std::string& what) {
    ASSERT_EQ(a.width, b.width) << what;
    ASSERT_EQ(a.height, b.height) << what;
    double worst = 0.0;
    for (std::size_t i = 0; i < a.heights.size(); ++i)
        worst = std::max(worst, std::abs(static_cast<double>(a.heights[i]) - b.heights[i]));
    EXPECT_LE(worst, tol) << what;
}

// The 16-bit step of a map's range, plus float rounding of the decoded heights.
double step16(const Heightmap& m) {
    const auto [mn, mx] = std::minmax_element(m.heights.begin(), m.heights.end());
    const double range = static_cast<double>(*mx) - *mn;
    const double mag = std::max(std::abs(static_cast<double>(*mn)), std::abs(static_cast<double>(*mx)));
    return range / 65535.0 * 0.5 + 2.0 * mag * std::numeric_limits<float>::epsilon();
}

const fs::path kData = ALLUVIUM_SHARED_DATA_DIR;

struct Dem {
    const char* file;
    int w, h;
};
const Dem kDems[] = {
    {"olinda_111x111.f32", 111, 111},
    {"srtm_frontrange_240x144_240x144.f32", 240, 144},
    {"west_bijou_escarpment_129x67.f32", 129, 67},
};

} // namespace

// [SECTION] round trips in every format --------------------------------------------------------

TEST(FormatsRoundTrip, FloatFormatsAreBitExact) {
    const fs::path dir = scratchDir();
    for (auto [w, h] : {std::pair{97, 61}, {1, 50}, {50, 1}, {64, 64}}) {
        Heightmap m = makeMap(w, h, -123.456f, 4321.0987f);
        // Values whose shortest decimal form is long, tiny and the largest accepted (1e7 m less an ulp).
        m.heights[cells(w, h) / 2] = 1.0f / 3.0f;
        if (m.heights.size() > 4) {
            m.heights[1] = -1e-30f;
            m.heights[2] = std::nextafter(1e7f, 0.0f);
            m.heights[3] = std::numeric_limits<float>::denorm_min();
        }
        for (const std::string& ext : kFloatExts) {
            const fs::path p = dir / ("m" + std::to_string(w) + "x" + std::to_string(h) + ext);
            const Heightmap back = saveAndLoad(p, m);
            expectBitExact(m, back, p.filename().string());
        }
    }
}

TEST(FormatsRoundTrip, SixteenBitFormatsWithinOneStepWithSidecar) {
    const fs::path dir = scratchDir();
    for (auto [w, h] : {std::pair{97, 61}, {1, 50}, {50, 1}}) {
        const Heightmap m = makeMap(w, h, -50.25f, 1234.5f);
        for (const std::string& ext : k16Exts) {
            const fs::path p = dir / ("m" + std::to_string(w) + "x" + std::to_string(h) + ext);
            const Heightmap back = saveAndLoad(p, m, 3.5);
            expectWithin(m, back, step16(m), p.filename().string());
            EXPECT_TRUE(fs::exists(fs::path(p.string() + ".json"))) << p;
            // The exact extremes survive.
            EXPECT_FLOAT_EQ(back.heights.front(), m.heights.front());
            EXPECT_FLOAT_EQ(back.heights.back(), m.heights.back());
        }
    }
}

TEST(FormatsRoundTrip, R16IsLittleEndianAndHeightRangeOverridesSidecar) {
    const fs::path dir = scratchDir();
    writeBytes(dir / "a.r16", {0x00, 0x00, 0xff, 0xff, 0x01, 0x80}); // 0, 65535, 32769
    LoadOptions o = sized(3, 1);
    o.has_height_range = true;
    o.range_lo = 100.0;
    o.range_hi = 100.0 + 65535.0;
    const Heightmap m = loadHeightmap(dir / "a.r16", o);
    EXPECT_FLOAT_EQ(m.heights[0], 100.0f);
    EXPECT_FLOAT_EQ(m.heights[1], 65635.0f);
    EXPECT_FLOAT_EQ(m.heights[2], 100.0f + 32769.0f);
    // Without range or sidecar: 0..1000.
    const Heightmap d = loadHeightmap(dir / "a.r16", sized(3, 1));
    EXPECT_FLOAT_EQ(d.heights[1], 1000.0f);
    // .raw is the same format.
    fs::copy_file(dir / "a.r16", dir / "a.raw");
    EXPECT_EQ(loadHeightmap(dir / "a.raw", sized(3, 1)).heights, d.heights);
}

TEST(FormatsRoundTrip, FlatMapInEveryFormat) {
    const fs::path dir = scratchDir();
    Heightmap m;
    m.width = 5;
    m.height = 3;
    m.heights.assign(15, 42.5f);
    for (const std::string ext : {".f32", ".r32", ".exr", ".tif", ".asc", ".png", ".r16"}) {
        const Heightmap back = saveAndLoad(dir / ("flat" + std::string(ext)), m);
        expectBitExact(m, back, ext);
    }
}

TEST(FormatsRoundTrip, UppercaseExtensions) {
    const fs::path dir = scratchDir();
    const Heightmap m = makeMap(9, 7, 0.0f, 10.0f);
    for (const std::string ext : {".EXR", ".TIF", ".Tiff", ".ASC", ".R32"}) {
        saveHeightmap(dir / ("u" + ext), m, 1.0);
        const Heightmap back = loadHeightmap(dir / ("u" + ext), ext == ".R32" ? sized(9, 7) : LoadOptions{});
        expectBitExact(m, back, ext);
    }
    saveHeightmap(dir / "u.R16", m, 1.0);
    expectWithin(m, loadHeightmap(dir / "u.R16", sized(9, 7)), step16(m), ".R16");
    EXPECT_TRUE(isHeightmapExtension("x.TiFf"));
    EXPECT_FALSE(isHeightmapExtension("x.bmp"));
    EXPECT_TRUE(writesSidecar("x.RAW"));
    EXPECT_FALSE(writesSidecar("x.exr"));
}

TEST(FormatsRoundTrip, OverwriteReplacesWholeFileAndLeavesNoTemp) {
    const fs::path dir = scratchDir();
    for (const std::string ext : {".exr", ".tif", ".asc", ".r16"}) {
        saveHeightmap(dir / ("o" + ext), makeMap(64, 64, 0, 100), 1.0);
        saveHeightmap(dir / ("o" + ext), makeMap(3, 2, 5, 6), 1.0);
        const Heightmap back = loadHeightmap(dir / ("o" + ext), ext == ".r16" ? sized(3, 2) : LoadOptions{});
        EXPECT_EQ(back.width, 3);
        EXPECT_EQ(back.height, 2);
    }
    for (const std::string& name : listDir(dir)) EXPECT_EQ(name.find(".tmp-"), std::string::npos) << name;
}

// [SECTION] real DEMs from shared/data through every format -----------------------------------

TEST(FormatsRealDems, EveryFormatPreservesTheDem) {
    const fs::path dir = scratchDir();
    for (const Dem& dem : kDems) {
        const Heightmap src = loadHeightmap(kData / dem.file, sized(dem.w, dem.h));
        for (const std::string& ext : kFloatExts) {
            const fs::path p = dir / (fs::path(dem.file).stem().string() + ext);
            expectBitExact(src, saveAndLoad(p, src, 30.0), p.filename().string());
        }
        for (const std::string& ext : k16Exts) {
            const fs::path p = dir / (fs::path(dem.file).stem().string() + ext);
            expectWithin(src, saveAndLoad(p, src, 30.0), step16(src), p.filename().string());
        }
    }
}

TEST(FormatsRealDems, SrtmToAscAndBackWithItsGeographicHeader) {
    // The original .asc of this DEM was in degrees (see its .json): rebuild that header.
    const fs::path dir = scratchDir();
    const Heightmap src = loadHeightmap(kData / "srtm_frontrange_240x144_240x144.f32", sized(240, 144));
    std::string text = "NCOLS 240\nNROWS 144\nXLLCORNER -105.550416666684\nYLLCORNER 40.090416666671\n"
                       "CELLSIZE 0.000833333333\nNODATA_value 0\n";
    char buf[32];
    for (int y = 0; y < 144; ++y)
        for (int x = 0; x < 240; ++x) {
            std::snprintf(buf, sizeof buf, "%.9g%c", static_cast<double>(src.at(x, y)), x == 239 ? '\n' : ' ');
            text += buf;
        }
    writeText(dir / "srtm.asc", text);
    const Heightmap m = loadHeightmap(dir / "srtm.asc", LoadOptions{});
    expectBitExact(src, m, "srtm.asc");
    EXPECT_EQ(m.nodata_filled, 0);
    // 3 arc-seconds at 40.15 N: 92.7 m north-south, 70.9 m east-west; equal-area square ~81 m.
    EXPECT_NEAR(m.cell_size, 81.0, 1.0);
    saveHeightmap(dir / "back.asc", m, m.cell_size);
    const Heightmap back = loadHeightmap(dir / "back.asc", LoadOptions{});
    expectBitExact(src, back, "back.asc");
    EXPECT_DOUBLE_EQ(back.cell_size, m.cell_size);
}

// [SECTION] EXR: half, channels -----------------------------------------------------------------

TEST(FormatsExr, HalfLoadsAndFirstChannelIsDefault) {
    const fs::path dir = scratchDir();
    const int w = 13, h = 7;
    std::vector<float> a(cells(w, h)), b(cells(w, h));
    for (std::size_t i = 0; i < a.size(); ++i) {
        a[i] = static_cast<float>(i) * 0.5f - 10.0f; // exact in half
        b[i] = 1000.0f + static_cast<float>(i);
    }
    writeExr(dir / "h.exr", w, h, {"height", "A"}, {a, b}, Imf::HALF);
    // Channels are listed alphabetically: "A" comes first.
    const Heightmap first = loadHeightmap(dir / "h.exr", LoadOptions{});
    ASSERT_EQ(first.width, w);
    ASSERT_EQ(first.height, h);
    EXPECT_EQ(first.heights, b);
    LoadOptions o;
    o.channel = "height";
    EXPECT_EQ(loadHeightmap(dir / "h.exr", o).heights, a);
    o.channel = "Z";
    expectInputError([&] { loadHeightmap(dir / "h.exr", o); }, {"h.exr", "'Z'", "A, height"});
}

TEST(FormatsExr, SavedFileHasOneFloatChannelY) {
    const fs::path dir = scratchDir();
    const Heightmap m = makeMap(10, 4, 0, 1);
    saveHeightmap(dir / "y.exr", m, 1.0);
    LoadOptions o;
    o.channel = "Y";
    expectBitExact(m, loadHeightmap(dir / "y.exr", o), "channel Y");
}

TEST(FormatsExr, SizeOptionMustMatch) {
    const fs::path dir = scratchDir();
    saveHeightmap(dir / "s.exr", makeMap(10, 4, 0, 1), 1.0);
    expectInputError([&] { loadHeightmap(dir / "s.exr", sized(4, 10)); }, {"--size 4x10", "10x4"});
}

// [SECTION] TIFF: 8/16/32-bit integer and float, strips and tiles ------------------------------

TEST(FormatsTiff, IntegerDepthsMapToHeightRange) {
    const fs::path dir = scratchDir();
    const int w = 37, h = 21;
    for (int bits : {8, 16, 32}) {
        const double maxv = bits == 8 ? 255.0 : bits == 16 ? 65535.0 : 4294967295.0;
        std::vector<double> v(cells(w, h));
        for (std::size_t i = 0; i < v.size(); ++i)
            v[i] = std::floor(maxv * static_cast<double>(i) / static_cast<double>(v.size() - 1));
        for (bool tiled : {false, true}) {
            TiffSpec spec;
            spec.bits = bits;
            spec.format = SAMPLEFORMAT_UINT;
            spec.tiled = tiled;
            spec.compression = tiled ? COMPRESSION_ADOBE_DEFLATE : COMPRESSION_LZW;
            const fs::path p = dir / ("i" + std::to_string(bits) + (tiled ? "t" : "s") + ".tif");
            writeTiff(p, w, h, v, spec);
            LoadOptions o;
            o.has_height_range = true;
            o.range_lo = -100.0;
            o.range_hi = 900.0;
            const Heightmap m = loadHeightmap(p, o);
            ASSERT_EQ(m.width, w);
            ASSERT_EQ(m.height, h);
            for (std::size_t i = 0; i < v.size(); ++i)
                ASSERT_NEAR(m.heights[i], -100.0 + 1000.0 * v[i] / maxv, 1e-4) << p << " cell " << i;
            // Default range 0..1000.
            EXPECT_NEAR(loadHeightmap(p, LoadOptions{}).heights.back(), 1000.0f, 1e-3);
        }
    }
}

TEST(FormatsTiff, IntegerTiffReadsSidecar) {
    const fs::path dir = scratchDir();
    TiffSpec spec;
    spec.bits = 16;
    spec.format = SAMPLEFORMAT_UINT;
    writeTiff(dir / "s.tif", 2, 1, {0, 65535}, spec);
    writeText(dir / "s.tif.json", R"({"min_m": 10, "max_m": 20, "width": 2, "height": 1})");
    const Heightmap m = loadHeightmap(dir / "s.tif", LoadOptions{});
    EXPECT_FLOAT_EQ(m.heights[0], 10.0f);
    EXPECT_FLOAT_EQ(m.heights[1], 20.0f);
}

TEST(FormatsTiff, FloatStripsTilesAndCompressionAreExactMetres) {
    const fs::path dir = scratchDir();
    const Heightmap src = makeMap(45, 33, -20.0f, 3000.0f);
    const std::vector<double> v(src.heights.begin(), src.heights.end());
    int k = 0;
    for (bool tiled : {false, true}) {
        for (int compression : {COMPRESSION_NONE, COMPRESSION_ADOBE_DEFLATE, COMPRESSION_LZW}) {
            TiffSpec spec;
            spec.tiled = tiled;
            spec.compression = compression;
            spec.rows_per_strip = tiled ? 0 : 7;
            const fs::path p = dir / ("f" + std::to_string(k++) + ".tif");
            writeTiff(p, src.width, src.height, v, spec);
            expectBitExact(src, loadHeightmap(p, LoadOptions{}), p.filename().string());
        }
    }
}

TEST(FormatsTiff, UnsupportedSampleTypesAreRejected) {
    const fs::path dir = scratchDir();
    TiffSpec rgb;
    rgb.bits = 8;
    rgb.format = SAMPLEFORMAT_UINT;
    rgb.spp = 3;
    writeTiff(dir / "rgb.tif", 4, 4, std::vector<double>(48, 1.0), rgb);
    expectInputError([&] { loadHeightmap(dir / "rgb.tif", LoadOptions{}); }, {"rgb.tif", "3 samples"});
    TiffSpec s16;
    s16.bits = 16;
    s16.format = SAMPLEFORMAT_INT;
    writeTiff(dir / "s16.tif", 4, 4, std::vector<double>(16, 1.0), s16);
    expectInputError([&] { loadHeightmap(dir / "s16.tif", LoadOptions{}); },
                     {"s16.tif", "16-bit signed integer", "supported"});
}

// [SECTION] ASCII grids: header, cell size, NODATA ----------------------------------------------

TEST(FormatsAsc, HeaderKeysAnyCaseAndCenterAndCellSize) {
    const fs::path dir = scratchDir();
    writeText(dir / "a.asc", "nCoLs 3\r\nNROWS 2\r\nxllcenter 1000.5\r\nYLLCENTER 2000.5\r\n"
                             "CellSize 2.5\r\n1 2 3\r\n4.25 -5e-1 +6\r\n");
    const Heightmap m = loadHeightmap(dir / "a.asc", LoadOptions{});
    ASSERT_EQ(m.width, 3);
    ASSERT_EQ(m.height, 2);
    EXPECT_EQ(m.heights, (std::vector<float>{1, 2, 3, 4.25f, -0.5f, 6}));
    EXPECT_DOUBLE_EQ(m.cell_size, 2.5);
    EXPECT_EQ(m.nodata_filled, 0);
    // Values may wrap lines freely.
    writeText(dir / "b.asc", "ncols 3 nrows 2 xllcorner 0 yllcorner 0 cellsize 1\n1 2\n3 4\n5 6\n");
    EXPECT_EQ(loadHeightmap(dir / "b.asc", LoadOptions{}).heights, (std::vector<float>{1, 2, 3, 4, 5, 6}));
}

TEST(FormatsAsc, SavedCellSizeIsExactAndTextIsShortest) {
    const fs::path dir = scratchDir();
    Heightmap m = makeMap(4, 3, 0, 1);
    m.heights[0] = 0.1f;
    saveHeightmap(dir / "c.asc", m, 0.1 + 0.2); // 0.30000000000000004
    const Heightmap back = loadHeightmap(dir / "c.asc", LoadOptions{});
    EXPECT_EQ(back.cell_size, 0.1 + 0.2);
    expectBitExact(m, back, "c.asc");
    const std::vector<unsigned char> bytes = readBytes(dir / "c.asc");
    const std::string text(bytes.begin(), bytes.end());
    EXPECT_NE(text.find("\n0.1 "), std::string::npos) << text;
}

TEST(FormatsAsc, NodataIsFilledFromNeighboursAndCounted) {
    const fs::path dir = scratchDir();
    // A plane h = 10 x + 100 y + 500 with holes: one cell, a 3x3 block, a corner, an edge run.
    const int w = 12, h = 9;
    std::vector<bool> hole(cells(w, h), false);
    auto mark = [&](int x, int y) { hole[cells(w, y) + static_cast<std::size_t>(x)] = true; };
    mark(2, 2);
    for (int y = 4; y <= 6; ++y)
        for (int x = 6; x <= 8; ++x) mark(x, y);
    mark(0, 0);
    for (int x = 3; x <= 6; ++x) mark(x, 8);
    long long expected = 0;
    std::string text = "ncols 12\nnrows 9\nxllcorner 0\nyllcorner 0\ncellsize 10\nNODATA_value -9999\n";
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const bool is_hole = hole[cells(w, y) + static_cast<std::size_t>(x)];
            expected += is_hole ? 1 : 0;
            text += is_hole ? (x % 2 ? "-9999.0" : "-9999") : std::to_string(10 * x + 100 * y + 500);
            text += x == w - 1 ? "\n" : " ";
        }
    writeText(dir / "n.asc", text);
    const Heightmap m = loadHeightmap(dir / "n.asc", LoadOptions{});
    EXPECT_EQ(m.nodata_filled, expected);
    EXPECT_EQ(expected, 1 + 9 + 1 + 4);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const double plane = 10.0 * x + 100.0 * y + 500.0;
            // Never a spike: within the valid range, and near the plane.
            EXPECT_GE(m.at(x, y), 500.0f);
            EXPECT_LE(m.at(x, y), 10.0f * 11 + 100.0f * 8 + 500.0f);
            EXPECT_NEAR(m.at(x, y), plane, 120.0) << x << "," << y;
        }
    // A single hole inside a plane is filled exactly by the mean of its 8 neighbours.
    EXPECT_FLOAT_EQ(m.at(2, 2), 10.0f * 2 + 100.0f * 2 + 500.0f);
    EXPECT_FLOAT_EQ(m.at(7, 5), 10.0f * 7 + 100.0f * 5 + 500.0f); // the centre of the symmetric block
}

TEST(FormatsAsc, AllNodataIsAnError) {
    const fs::path dir = scratchDir();
    writeText(dir / "z.asc", "ncols 2\nnrows 1\nxllcorner 0\nyllcorner 0\ncellsize 1\nnodata_value -1\n-1 -1\n");
    expectInputError([&] { loadHeightmap(dir / "z.asc", LoadOptions{}); }, {"z.asc", "only NODATA"});
}
