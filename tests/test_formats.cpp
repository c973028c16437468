// Tests of the heightmap formats added to loadHeightmap/saveHeightmap: OpenEXR, TIFF, raw 16-bit
// (.r16/.raw), .r32 and ESRI ASCII grids (.asc). No Vulkan.
//
// [SECTION] helpers: scratch folders, expecting an InputError, writing EXR/TIFF/ASC by hand
// [SECTION] round trips in every format
// [SECTION] real DEMs from shared/data through every format
// [SECTION] EXR: half, channels
// [SECTION] TIFF: 8/16/32-bit integer and float, strips and tiles
// [SECTION] ASCII grids: header, cell size, NODATA
// [SECTION] hostile input
// [SECTION] save errors
#include <gtest/gtest.h>

#include <algorithm>
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

#include <OpenEXR/ImfChannelList.h>
#include <OpenEXR/ImfFrameBuffer.h>
#include <OpenEXR/ImfHeader.h>
#include <OpenEXR/ImfOutputFile.h>
#include <Imath/half.h>
#include <tiffio.h>

#include "io/atomic_file.h"
#include "io/errors.h"
#include "io/heightmap.h"

#include "test_util.h"

namespace fs = std::filesystem;
using namespace alluvium;

// [SECTION] helpers ---------------------------------------------------------------------------
namespace {

fs::path scratchDir() { return test::scratchDir("formats"); }

using test::listDir;

using test::expectInputError;

using test::readBytes;
using test::writeBytes;

void writeText(const fs::path& p, const std::string& text) {
    std::ofstream out(p, std::ios::binary);
    out << text;
}

std::size_t cells(int w, int h) {
    return static_cast<std::size_t>(w) * static_cast<std::size_t>(h);
}

// Deterministic test data: heights in [lo, hi] with structure and noise, extremes present.
Heightmap makeMap(int w, int h, float lo, float hi) {
    Heightmap m;
    m.width = w;
    m.height = h;
    m.heights.resize(cells(w, h));
    uint32_t s = 987654u;
    for (int y = 0; y < h; ++y) {
        for (int x = 0; x < w; ++x) {
            s = s * 1664525u + 1013904223u;
            const double noise = static_cast<double>(s >> 8) / 16777216.0;
            const double t = 0.5 * (static_cast<double>(x) / std::max(1, w - 1)) +
                             0.3 * (static_cast<double>(y) / std::max(1, h - 1)) + 0.2 * noise;
            m.heights[cells(w, y) + static_cast<std::size_t>(x)] =
                static_cast<float>(lo + t * (static_cast<double>(hi) - lo));
        }
    }
    m.heights[0] = lo;
    m.heights.back() = hi;
    return m;
}

LoadOptions sized(int w, int h) {
    LoadOptions o;
    o.width = w;
    o.height = h;
    return o;
}

bool isRaw(const std::string& ext) {
    return ext == ".f32" || ext == ".r32" || ext == ".r16" || ext == ".raw";
}

const std::vector<std::string> kFloatExts = {".f32", ".r32", ".exr", ".tif", ".tiff", ".asc"};
const std::vector<std::string> k16Exts = {".png", ".r16", ".raw"};

Heightmap saveAndLoad(const fs::path& path, const Heightmap& m, double cell_size = 2.0) {
    saveHeightmap(path, m, cell_size);
    const std::string ext = path.extension().string();
    return loadHeightmap(path, isRaw(ext) ? sized(m.width, m.height) : LoadOptions{});
}

void expectBitExact(const Heightmap& a, const Heightmap& b, const std::string& what) {
    ASSERT_EQ(a.width, b.width) << what;
    ASSERT_EQ(a.height, b.height) << what;
    ASSERT_EQ(a.heights.size(), b.heights.size()) << what;
    for (std::size_t i = 0; i < a.heights.size(); ++i) {
        if (std::memcmp(&a.heights[i], &b.heights[i], sizeof(float)) != 0) {
            ADD_FAILURE() << what << ": cell " << i << " " << a.heights[i] << " != " << b.heights[i];
            return;
        }
    }
}

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

// An EXR file with the given channels (each a full w x h plane) of the given pixel type.
void writeExr(const fs::path& path, int w, int h, const std::vector<std::string>& names,
              const std::vector<std::vector<float>>& planes, Imf::PixelType type) {
    Imf::Header header(w, h);
    for (const auto& n : names)
        header.channels().insert(n, Imf::Channel(type));
    Imf::OutputFile file(path.c_str(), header);
    Imf::FrameBuffer fb;
    std::vector<std::vector<half>> halves(planes.size());
    for (std::size_t c = 0; c < names.size(); ++c) {
        if (type == Imf::HALF) {
            halves[c].assign(planes[c].begin(), planes[c].end());
            fb.insert(names[c], Imf::Slice(Imf::HALF, reinterpret_cast<char*>(halves[c].data()),
                                           sizeof(half), sizeof(half) * static_cast<std::size_t>(w)));
        } else {
            fb.insert(names[c], Imf::Slice(Imf::FLOAT, reinterpret_cast<char*>(const_cast<float*>(planes[c].data())),
                                           sizeof(float), sizeof(float) * static_cast<std::size_t>(w)));
        }
    }
    file.setFrameBuffer(fb);
    file.writePixels(h);
}

struct TiffSpec {
    int bits = 32;
    int format = SAMPLEFORMAT_IEEEFP;
    bool tiled = false;
    int compression = COMPRESSION_NONE;
    int spp = 1;
    uint32_t rows_per_strip = 3;
};

// A TIFF written with libtiff; `samples` are the values, stored as the spec's sample type.
void writeTiff(const fs::path& path, int w, int h, const std::vector<double>& samples,
               const TiffSpec& spec) {
    TIFF* t = TIFFOpen(path.c_str(), "w");
    ASSERT_NE(t, nullptr);
    TIFFSetField(t, TIFFTAG_IMAGEWIDTH, static_cast<uint32_t>(w));
    TIFFSetField(t, TIFFTAG_IMAGELENGTH, static_cast<uint32_t>(h));
    TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, spec.spp);
    TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, spec.bits);
    TIFFSetField(t, TIFFTAG_SAMPLEFORMAT, spec.format);
    TIFFSetField(t, TIFFTAG_PHOTOMETRIC, spec.spp == 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK);
    TIFFSetField(t, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
    TIFFSetField(t, TIFFTAG_COMPRESSION, spec.compression);
    const std::size_t bps = static_cast<std::size_t>(spec.bits / 8);
    const std::size_t spp = static_cast<std::size_t>(spec.spp);
    auto store = [&](unsigned char* dst, double v) {
        if (spec.format == SAMPLEFORMAT_IEEEFP) {
            const auto f = static_cast<float>(v);
            std::memcpy(dst, &f, 4);
        } else if (spec.bits == 8) {
            *dst = static_cast<unsigned char>(v);
        } else if (spec.bits == 16) {
            const auto u = static_cast<uint16_t>(v);
            std::memcpy(dst, &u, 2);
        } else {
            const auto u = static_cast<uint32_t>(v);
            std::memcpy(dst, &u, 4);
        }
    };
    if (spec.tiled) {
        const uint32_t tw = 16, th = 16;
        TIFFSetField(t, TIFFTAG_TILEWIDTH, tw);
        TIFFSetField(t, TIFFTAG_TILELENGTH, th);
        std::vector<unsigned char> tile(tw * th * bps * spp);
        for (uint32_t ty = 0; ty < static_cast<uint32_t>(h); ty += th) {
            for (uint32_t tx = 0; tx < static_cast<uint32_t>(w); tx += tw) {
                std::fill(tile.begin(), tile.end(), 0);
                for (uint32_t y = 0; y < th && ty + y < static_cast<uint32_t>(h); ++y)
                    for (uint32_t x = 0; x < tw && tx + x < static_cast<uint32_t>(w); ++x)
                        for (std::size_t c = 0; c < spp; ++c)
                            store(tile.data() + ((y * tw + x) * spp + c) * bps,
                                  samples[(static_cast<std::size_t>(ty + y) * static_cast<std::size_t>(w) + tx + x) * spp + c]);
                ASSERT_GE(TIFFWriteTile(t, tile.data(), tx, ty, 0, 0), 0);
            }
        }
    } else {
        TIFFSetField(t, TIFFTAG_ROWSPERSTRIP, spec.rows_per_strip);
        std::vector<unsigned char> row(static_cast<std::size_t>(w) * bps * spp);
        for (int y = 0; y < h; ++y) {
            for (std::size_t i = 0; i < static_cast<std::size_t>(w) * spp; ++i)
                store(row.data() + i * bps, samples[static_cast<std::size_t>(y) * static_cast<std::size_t>(w) * spp + i]);
            ASSERT_EQ(TIFFWriteScanline(t, row.data(), static_cast<uint32_t>(y), 0), 1);
        }
    }
    TIFFClose(t);
}

// A minimal little-endian TIFF header claiming w x h float32 pixels, with no pixel data.
std::vector<unsigned char> tiffHeaderOnly(uint32_t w, uint32_t h) {
    std::vector<unsigned char> b = {'I', 'I', 42, 0, 8, 0, 0, 0};
    auto put16 = [&](uint32_t v) {
        b.push_back(static_cast<unsigned char>(v & 0xff));
        b.push_back(static_cast<unsigned char>((v >> 8) & 0xff));
    };
    auto put32 = [&](uint32_t v) {
        for (int k = 0; k < 4; ++k)
            b.push_back(static_cast<unsigned char>((v >> (8 * k)) & 0xff));
    };
    struct Entry { uint16_t tag, type; uint32_t value; };
    const Entry entries[] = {
        {256, 4, w}, {257, 4, h}, {258, 3, 32}, {259, 3, 1}, {262, 3, 1},
        {273, 4, 200}, {277, 3, 1}, {278, 4, h}, {279, 4, 4}, {339, 3, 3},
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
        // Values whose shortest decimal form is long, tiny and huge.
        m.heights[cells(w, h) / 2] = 1.0f / 3.0f;
        if (m.heights.size() > 4) {
            m.heights[1] = -1e-30f;
            m.heights[2] = 3.4e37f;
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
        const Heightmap back =
            loadHeightmap(dir / ("u" + ext), ext == ".R32" ? sized(9, 7) : LoadOptions{});
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
        const Heightmap back =
            loadHeightmap(dir / ("o" + ext), ext == ".r16" ? sized(3, 2) : LoadOptions{});
        EXPECT_EQ(back.width, 3);
        EXPECT_EQ(back.height, 2);
    }
    for (const std::string& name : listDir(dir))
        EXPECT_EQ(name.find(".tmp-"), std::string::npos) << name;
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
            writeBytes(cut, std::vector<unsigned char>(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(keep)));
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
        expectInputError([&] { loadHeightmap(dir / ("none" + ext), sized(2, 2)); },
                         {"none" + ext, "No such file"});
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
    expectInputError([&] { loadHeightmap(dir / "r.r16", sized(10, 11)); },
                     {"r.r16", "200 bytes", "10x11", "220"});
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
