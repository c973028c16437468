// TIFF heightmaps through libtiff, in memory both ways (the file is read whole, and written with
// writeFileAtomic). Load: one sample per pixel, 8/16/32-bit unsigned (LO..HI like a PNG) or
// 32-bit IEEE float (metres), strips or tiles, any compression libtiff decodes; GeoTIFF tags are
// ignored. Save: 32-bit float, one strip per 64 KiB-ish, no compression.
// libtiff errors go to a per-handle handler that keeps the first message (no stderr, no abort).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

#include <tiffio.h>

#include "io/errors.h"
#include "io/formats.h"

namespace alluvium::detail {

namespace fs = std::filesystem;

namespace {

// A file image in memory that libtiff reads or writes through its client callbacks. No C++
// exception may cross libtiff's C frames: failures are returned as -1.
struct MemoryTiff {
    std::vector<unsigned char> bytes;
    uint64_t pos = 0;
};

tmsize_t memRead(thandle_t h, void* buf, tmsize_t size) {
    auto* m = static_cast<MemoryTiff*>(h);
    if (size < 0) return -1;
    const uint64_t avail = m->pos < m->bytes.size() ? m->bytes.size() - m->pos : 0;
    const uint64_t n = std::min<uint64_t>(avail, static_cast<uint64_t>(size));
    if (n) std::memcpy(buf, m->bytes.data() + m->pos, static_cast<std::size_t>(n));
    m->pos += n;
    return static_cast<tmsize_t>(n);
}

tmsize_t memWrite(thandle_t h, void* buf, tmsize_t size) {
    auto* m = static_cast<MemoryTiff*>(h);
    if (size < 0) return -1;
    const uint64_t end = m->pos + static_cast<uint64_t>(size);
    try {
        if (end > m->bytes.size()) m->bytes.resize(static_cast<std::size_t>(end));
    } catch (...) {
        return -1;
    }
    if (size) std::memcpy(m->bytes.data() + m->pos, buf, static_cast<std::size_t>(size));
    m->pos = end;
    return size;
}

toff_t memSeek(thandle_t h, toff_t off, int whence) {
    auto* m = static_cast<MemoryTiff*>(h);
    uint64_t base = 0;
    if (whence == SEEK_CUR)
        base = m->pos;
    else if (whence == SEEK_END)
        base = m->bytes.size();
    m->pos = base + off; // toff_t is unsigned; libtiff only seeks forward from SEEK_SET/END
    return m->pos;
}

int memClose(thandle_t) { return 0; }
toff_t memSize(thandle_t h) { return static_cast<MemoryTiff*>(h)->bytes.size(); }
int memMap(thandle_t, void**, toff_t*) { return 0; }
void memUnmap(thandle_t, void*, toff_t) {}

struct TiffErrors {
    std::string first; // the first error libtiff reported
    std::string table; // the first warning about the strip or tile tables
};

int onTiffError(TIFF*, void* user, const char* module, const char* fmt, va_list ap) {
    auto* errors = static_cast<TiffErrors*>(user);
    if (errors->first.empty()) {
        char text[512];
        std::vsnprintf(text, sizeof text, fmt, ap);
        std::string s = (module && *module ? std::string(module) + ": " : std::string()) + text;
        std::replace(s.begin(), s.end(), '\n', ' ');
        errors->first = s;
    }
    return 1; // handled: libtiff prints nothing
}

// Unknown tags (GeoTIFF) and the like are ignored; a warning about the strip or tile tables is
// kept: libtiff then trims, ignores or estimates them and reads whatever lies at the offsets.
int onTiffWarning(TIFF*, void* user, const char* module, const char* fmt, va_list ap) {
    auto* errors = static_cast<TiffErrors*>(user);
    if (!errors || !errors->table.empty()) return 1;
    char text[512];
    std::vsnprintf(text, sizeof text, fmt, ap);
    std::string s = (module && *module ? std::string(module) + ": " : std::string()) + text;
    std::replace(s.begin(), s.end(), '\n', ' ');
    for (const char* table : {"StripOffsets", "StripByteCounts", "TileOffsets", "TileByteCounts"})
        if (s.find(table) != std::string::npos) errors->table = s;
    return 1;
}

struct TiffCloser {
    void operator()(TIFF* t) const { TIFFClose(t); }
};
using TiffPtr = std::unique_ptr<TIFF, TiffCloser>;

TiffPtr openTiff(MemoryTiff& mem, const char* mode, TiffErrors& errors, tmsize_t max_alloc) {
    TIFFOpenOptions* options = TIFFOpenOptionsAlloc();
    if (!options) throw std::bad_alloc();
    TIFFOpenOptionsSetErrorHandlerExtR(options, &onTiffError, &errors);
    TIFFOpenOptionsSetWarningHandlerExtR(options, &onTiffWarning, &errors);
    if (max_alloc > 0) TIFFOpenOptionsSetMaxSingleMemAlloc(options, max_alloc);
    TIFF* t = TIFFClientOpenExt("memory", mode, &mem, &memRead, &memWrite, &memSeek, &memClose, &memSize, &memMap,
                                &memUnmap, options);
    TIFFOpenOptionsFree(options);
    return TiffPtr(t);
}

std::string reason(const TiffErrors& errors) {
    return errors.first.empty() ? std::string("libtiff failed") : "libtiff: " + errors.first;
}

enum class SampleKind { u8, u16, u32, f32 };

float sampleAt(const unsigned char* p, SampleKind kind, double lo, double scale) {
    switch (kind) {
    case SampleKind::u8: return static_cast<float>(lo + static_cast<double>(*p) * scale);
    case SampleKind::u16: {
        uint16_t v;
        std::memcpy(&v, p, 2);
        return static_cast<float>(lo + static_cast<double>(v) * scale);
    }
    case SampleKind::u32: {
        uint32_t v;
        std::memcpy(&v, p, 4);
        return static_cast<float>(lo + static_cast<double>(v) * scale);
    }
    case SampleKind::f32: {
        float v;
        std::memcpy(&v, p, 4);
        return v;
    }
    }
    return 0.0f;
}

// The strip or tile tables against the image and the file: as many entries as the image needs,
// each inside the file past its header and holding data (uncompressed: all that it decodes to).
void checkStriles(TIFF* tif, uint64_t file_bytes, const std::string& bad, const TiffErrors& errors) {
    if (!errors.table.empty())
        throw InputError(bad + "its strip or tile tables disagree: libtiff: " + errors.table + ")");
    const bool tiled = TIFFIsTiled(tif);
    const char* kind = tiled ? "tile" : "strip";
    uint32_t h = 0, rows_per_strip = 0;
    uint16_t compression = COMPRESSION_NONE;
    TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &h);
    TIFFGetFieldDefaulted(tif, TIFFTAG_ROWSPERSTRIP, &rows_per_strip);
    TIFFGetFieldDefaulted(tif, TIFFTAG_COMPRESSION, &compression);
    const uint32_t count = tiled ? TIFFNumberOfTiles(tif) : TIFFNumberOfStrips(tif);
    if (count == 0) throw InputError(bad + "no " + kind + "s)");
    for (uint32_t i = 0; i < count; ++i) {
        int err = 0;
        const uint64_t offset = TIFFGetStrileOffsetWithErr(tif, i, &err);
        const uint64_t size = err ? 0 : TIFFGetStrileByteCountWithErr(tif, i, &err);
        uint64_t need = 1;
        if (compression == COMPRESSION_NONE) {
            const uint64_t rows =
                rows_per_strip == 0
                    ? h
                    : std::min<uint64_t>(rows_per_strip, h - std::min<uint64_t>(h, uint64_t(i) * rows_per_strip));
            need = uint64_t(tiled ? TIFFTileSize64(tif) : TIFFVStripSize64(tif, uint32_t(rows)));
        }
        if (err || offset < 8 || size == 0 || offset > file_bytes || size > file_bytes - offset || size < need)
            throw InputError(bad + kind + " " + std::to_string(i) + " of " + std::to_string(count) + " has " +
                             std::to_string(size) + " bytes at offset " + std::to_string(offset) + ", needs " +
                             std::to_string(need) + " inside a file of " + std::to_string(file_bytes) + ")");
    }
}

} // namespace

Heightmap loadTiff(const fs::path& path, const LoadOptions& opt) {
    MemoryTiff mem;
    mem.bytes = readWholeFile(path);
    TiffErrors errors;
    // No single buffer libtiff allocates needs to exceed the largest grid we accept.
    TiffPtr tif = openTiff(mem, "rm", errors, static_cast<tmsize_t>(kMaxGridCells) * 4 + 65536);
    const std::string bad = quoted(path) + " is truncated or not a valid TIFF file (";
    if (!tif) throw InputError(bad + reason(errors) + ")");

    uint32_t w = 0, h = 0;
    uint16_t spp = 1, bits = 1, format = SAMPLEFORMAT_UINT;
    if (!TIFFGetField(tif.get(), TIFFTAG_IMAGEWIDTH, &w) || !TIFFGetField(tif.get(), TIFFTAG_IMAGELENGTH, &h)) {
        throw InputError(bad + "no image size)");
    }
    TIFFGetFieldDefaulted(tif.get(), TIFFTAG_SAMPLESPERPIXEL, &spp);
    TIFFGetFieldDefaulted(tif.get(), TIFFTAG_BITSPERSAMPLE, &bits);
    TIFFGetFieldDefaulted(tif.get(), TIFFTAG_SAMPLEFORMAT, &format);
    checkGridSize(w, h, quoted(path));
    checkSizeOption(opt, w, h, path);
    if (spp != 1) {
        throw InputError(quoted(path) + " has " + std::to_string(spp) +
                         " samples per pixel; only single-channel (greyscale) TIFFs are supported");
    }
    SampleKind kind;
    if (format == SAMPLEFORMAT_IEEEFP && bits == 32)
        kind = SampleKind::f32;
    else if (format == SAMPLEFORMAT_UINT && bits == 8)
        kind = SampleKind::u8;
    else if (format == SAMPLEFORMAT_UINT && bits == 16)
        kind = SampleKind::u16;
    else if (format == SAMPLEFORMAT_UINT && bits == 32)
        kind = SampleKind::u32;
    else {
        const char* fmt = format == SAMPLEFORMAT_IEEEFP ? "float"
                          : format == SAMPLEFORMAT_INT  ? "signed integer"
                          : format == SAMPLEFORMAT_UINT ? "unsigned integer"
                                                        : "other";
        throw InputError(quoted(path) + " has " + std::to_string(bits) + "-bit " + fmt +
                         " samples; supported are 8/16/32-bit unsigned and 32-bit float");
    }
    const std::size_t bytes_per_sample = bits / 8u;
    checkStriles(tif.get(), mem.bytes.size(), bad, errors);

    double lo = 0.0, hi = 1000.0, scale = 1.0;
    if (kind != SampleKind::f32) {
        integerRange(path, opt, w, h, lo, hi);
        const double maxv = kind == SampleKind::u8 ? 255.0 : kind == SampleKind::u16 ? 65535.0 : 4294967295.0;
        scale = (hi - lo) / maxv;
    }

    // The map grows as rows are decoded: a file whose tags claim far more than it holds fails at
    // its first missing strip or tile, before memory for the size it claims is taken.
    Heightmap map;
    map.width = static_cast<int>(w);
    map.height = static_cast<int>(h);
    auto rowsUpTo = [&](uint32_t rows) {
        if (map.heights.size() < static_cast<std::size_t>(rows) * w)
            map.heights.resize(static_cast<std::size_t>(rows) * w, 0.0f);
    };

    if (TIFFIsTiled(tif.get())) {
        uint32_t tw = 0, th = 0;
        TIFFGetField(tif.get(), TIFFTAG_TILEWIDTH, &tw);
        TIFFGetField(tif.get(), TIFFTAG_TILELENGTH, &th);
        const tmsize_t tile_bytes = TIFFTileSize(tif.get());
        if (tw == 0 || th == 0 || tile_bytes <= 0 ||
            static_cast<uint64_t>(tile_bytes) < static_cast<uint64_t>(tw) * th * bytes_per_sample ||
            static_cast<uint64_t>(tw) * th > static_cast<uint64_t>(kMaxGridCells)) {
            throw InputError(bad + "bad tile size " + std::to_string(tw) + "x" + std::to_string(th) + ")");
        }
        // Not zeroed: pages are taken only as libtiff decodes into them, so a tile size that the
        // file cannot fill costs no memory.
        std::unique_ptr<unsigned char[]> tile(new unsigned char[static_cast<std::size_t>(tile_bytes)]);
        for (uint32_t ty = 0; ty < h; ty += th) {
            for (uint32_t tx = 0; tx < w; tx += tw) {
                const ttile_t index = TIFFComputeTile(tif.get(), tx, ty, 0, 0);
                if (TIFFReadEncodedTile(tif.get(), index, tile.get(), tile_bytes) != tile_bytes)
                    throw InputError(bad + reason(errors) + ")");
                const uint32_t rows = std::min(th, h - ty), cols = std::min(tw, w - tx);
                rowsUpTo(ty + rows);
                for (uint32_t y = 0; y < rows; ++y) {
                    const unsigned char* src = tile.get() + static_cast<std::size_t>(y) * tw * bytes_per_sample;
                    float* dst = map.heights.data() + static_cast<std::size_t>(ty + y) * w + tx;
                    for (uint32_t x = 0; x < cols; ++x) dst[x] = sampleAt(src + x * bytes_per_sample, kind, lo, scale);
                }
            }
        }
    } else {
        const tmsize_t line_bytes = TIFFScanlineSize(tif.get());
        if (line_bytes <= 0 || static_cast<uint64_t>(line_bytes) < w * bytes_per_sample)
            throw InputError(bad + "bad scanline size)");
        std::vector<unsigned char> line(static_cast<std::size_t>(line_bytes));
        for (uint32_t y = 0; y < h; ++y) {
            if (TIFFReadScanline(tif.get(), line.data(), y, 0) < 0) throw InputError(bad + reason(errors) + ")");
            rowsUpTo(y + 1);
            float* dst = map.heights.data() + static_cast<std::size_t>(y) * w;
            for (uint32_t x = 0; x < w; ++x) dst[x] = sampleAt(line.data() + x * bytes_per_sample, kind, lo, scale);
        }
    }
    if (!errors.first.empty()) throw InputError(bad + reason(errors) + ")");
    if (kind == SampleKind::f32) checkFiniteHeights(map, path);
    return map;
}

std::vector<std::byte> encodeTiff(const Heightmap& map, const fs::path& path) {
    MemoryTiff mem;
    TiffErrors errors;
    const std::string fail = "cannot write " + quoted(path) + ": ";
    {
        TiffPtr tif = openTiff(mem, "w", errors, 0);
        if (!tif) throw InputError(fail + reason(errors));
        const auto w = static_cast<uint32_t>(map.width), h = static_cast<uint32_t>(map.height);
        const uint32_t rows_per_strip = std::max(1u, 65536u / (w * 4u));
        TIFF* t = tif.get();
        TIFFSetField(t, TIFFTAG_IMAGEWIDTH, w);
        TIFFSetField(t, TIFFTAG_IMAGELENGTH, h);
        TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, 1);
        TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, 32);
        TIFFSetField(t, TIFFTAG_SAMPLEFORMAT, SAMPLEFORMAT_IEEEFP);
        TIFFSetField(t, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_MINISBLACK);
        TIFFSetField(t, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
        TIFFSetField(t, TIFFTAG_COMPRESSION, COMPRESSION_NONE);
        TIFFSetField(t, TIFFTAG_ROWSPERSTRIP, rows_per_strip);
        TIFFSetField(t, TIFFTAG_IMAGEDESCRIPTION, "heights in metres (Alluvium)");
        for (uint32_t y = 0; y < h; y += rows_per_strip) {
            const uint32_t rows = std::min(rows_per_strip, h - y);
            auto* data = const_cast<float*>(map.heights.data() + static_cast<std::size_t>(y) * w);
            if (TIFFWriteEncodedStrip(t, y / rows_per_strip, data, static_cast<tmsize_t>(rows) * w * 4) < 0)
                throw InputError(fail + reason(errors));
        }
        if (!TIFFFlush(t)) throw InputError(fail + reason(errors));
    }
    if (!errors.first.empty()) throw InputError(fail + reason(errors));
    std::vector<std::byte> out(mem.bytes.size());
    std::memcpy(out.data(), mem.bytes.data(), mem.bytes.size());
    return out;
}

} // namespace alluvium::detail
