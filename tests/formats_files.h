// Helpers of test_formats*.cpp: scratch folder, test maps, save and load, EXR/TIFF/text writers.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <Imath/half.h>
#include <OpenEXR/ImfChannelList.h>
#include <OpenEXR/ImfFrameBuffer.h>
#include <OpenEXR/ImfHeader.h>
#include <OpenEXR/ImfOutputFile.h>
#include <tiffio.h>

#include "io/heightmap.h"

#include "test_util.h"

namespace fs = std::filesystem;
using namespace alluvium;

namespace {

inline fs::path scratchDir() { return test::scratchDir("formats"); }

inline void writeText(const fs::path& p, const std::string& text) {
    std::ofstream out(p, std::ios::binary);
    out << text;
}

inline std::size_t cells(int w, int h) { return static_cast<std::size_t>(w) * static_cast<std::size_t>(h); }

inline Heightmap makeMap(int w, int h, float lo, float hi) { return test::rampWithNoise(w, h, lo, hi, 987654u); }

inline LoadOptions sized(int w, int h) {
    LoadOptions o;
    o.width = w;
    o.height = h;
    return o;
}

inline bool isRaw(const std::string& ext) { return ext == ".f32" || ext == ".r32" || ext == ".r16" || ext == ".raw"; }

inline const std::vector<std::string> kFloatExts = {".f32", ".r32", ".exr", ".tif", ".tiff", ".asc"};
inline const std::vector<std::string> k16Exts = {".png", ".r16", ".raw"};

inline Heightmap saveAndLoad(const fs::path& path, const Heightmap& m, double cell_size = 2.0) {
    saveHeightmap(path, m, cell_size);
    const std::string ext = path.extension().string();
    return loadHeightmap(path, isRaw(ext) ? sized(m.width, m.height) : LoadOptions{});
}

inline void expectBitExact(const Heightmap& a, const Heightmap& b, const std::string& what) {
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

// An EXR file with the given channels (each a full w x h plane) of the given pixel type.
inline void writeExr(const fs::path& path, int w, int h, const std::vector<std::string>& names,
                     const std::vector<std::vector<float>>& planes, Imf::PixelType type) {
    Imf::Header header(w, h);
    for (const auto& n : names) header.channels().insert(n, Imf::Channel(type));
    Imf::OutputFile file(path.c_str(), header);
    Imf::FrameBuffer fb;
    std::vector<std::vector<half>> halves(planes.size());
    for (std::size_t c = 0; c < names.size(); ++c) {
        if (type == Imf::HALF) {
            halves[c].assign(planes[c].begin(), planes[c].end());
            fb.insert(names[c], Imf::Slice(Imf::HALF, reinterpret_cast<char*>(halves[c].data()), sizeof(half),
                                           sizeof(half) * static_cast<std::size_t>(w)));
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
inline void writeTiff(const fs::path& path, int w, int h, const std::vector<double>& samples, const TiffSpec& spec) {
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
                                  samples[(static_cast<std::size_t>(ty + y) * static_cast<std::size_t>(w) + tx + x) *
                                              spp +
                                          c]);
                ASSERT_GE(TIFFWriteTile(t, tile.data(), tx, ty, 0, 0), 0);
            }
        }
    } else {
        TIFFSetField(t, TIFFTAG_ROWSPERSTRIP, spec.rows_per_strip);
        std::vector<unsigned char> row(static_cast<std::size_t>(w) * bps * spp);
        for (int y = 0; y < h; ++y) {
            for (std::size_t i = 0; i < static_cast<std::size_t>(w) * spp; ++i)
                store(row.data() + i * bps,
                      samples[static_cast<std::size_t>(y) * static_cast<std::size_t>(w) * spp + i]);
            ASSERT_EQ(TIFFWriteScanline(t, row.data(), static_cast<uint32_t>(y), 0), 1);
        }
    }
    TIFFClose(t);
}

} // namespace
