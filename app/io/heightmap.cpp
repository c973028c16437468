// Heightmap file formats: PNG, raw (.f32/.r32, .r16/.raw) and the dispatch by extension. EXR,
// TIFF and ASCII grids are in formats_*.cpp.
//
// [SECTION] helpers: extensions
// [SECTION] PNG decode/encode (libpng, setjmp error handling)
// [SECTION] raw float32 and 16-bit
// [SECTION] loadHeightmap
// [SECTION] saveHeightmap
#include "io/heightmap.h"
#include "io/input_file.h"

#include <algorithm>
#include <bit>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <csetjmp>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>
#include <png.h>

#include "io/atomic_file.h"
#include "io/errors.h"
#include "io/format_checks.h"
#include "io/formats.h"

namespace alluvium {

namespace fs = std::filesystem;

namespace {

using detail::checkGridSize;
using detail::findNonFinite;
using detail::lowerExtension;
using detail::openForRead;
using detail::quoted;
using detail::readSidecarRange;
using detail::valueName;

const char* kSupported = "supported: .png (8/16-bit grey), .r16/.raw (16-bit LE), .f32/.r32 (float32 LE), .exr, "
                         ".tif/.tiff, .asc (ESRI ASCII grid)";

// [SECTION] PNG -------------------------------------------------------------------------------
// libpng reports errors through longjmp. The functions that call setjmp below keep only plain
// locals and write their results through pointers into objects owned by the caller, so a jump
// never skips a C++ destructor.

struct PngErrorContext {
    char message[256] = {};
};

void pngError(png_structp png, png_const_charp msg) {
    auto* ctx = static_cast<PngErrorContext*>(png_get_error_ptr(png));
    std::snprintf(ctx->message, sizeof ctx->message, "%s", msg ? msg : "unknown libpng error");
    png_longjmp(png, 1);
}

void pngWarning(png_structp, png_const_charp) {} // warnings (e.g. bad sRGB chunk) are harmless

struct PngPixels {
    uint64_t file_bytes = 0; // the whole file, for the bound on the image data below
    uint32_t width = 0, height = 0;
    int bit_depth = 0;               // 8 or 16 after transforms
    int color_type = 0;              // as in the file
    std::vector<unsigned char> data; // grey samples, 1 or 2 bytes each (big-endian), row-major
    std::vector<unsigned char*> rows;
};

enum class PngStatus { ok, libpng_error, not_grey, too_big, too_little_data };

// zlib packs at most 1032 bytes into one (a run of one byte value), so a PNG of R raw bytes
// holds at least R / 1032 bytes of image data: a file smaller than that lies about its size
// (and would have us allocate for the size it claims before libpng finds the data missing).
constexpr uint64_t kDeflateMaxRatio = 1032;

// Reads the whole image. On libpng_error the message is in ctx.
PngStatus decodePng(png_structp png, png_infop info, FILE* f, PngPixels* out) {
    if (setjmp(png_jmpbuf(png))) return PngStatus::libpng_error;
    png_init_io(png, f);
    png_set_sig_bytes(png, 8);
    // Our own size check below gives the clearer message; let libpng accept anything it can.
    png_set_user_limits(png, 0x7fffffffu, 0x7fffffffu);
    // An ancillary chunk (text, ICC profile, unknown) can claim up to 2 GiB: none may take more
    // than the file holds (or 8 MiB, far above any real one), nor may there be thousands.
    png_set_chunk_malloc_max(png, std::min<png_alloc_size_t>(out->file_bytes + 1024, 8u << 20));
    png_set_chunk_cache_max(png, 1000);
    png_read_info(png, info);

    out->width = png_get_image_width(png, info);
    out->height = png_get_image_height(png, info);
    out->color_type = png_get_color_type(png, info);
    int depth = png_get_bit_depth(png, info);
    if (out->color_type != PNG_COLOR_TYPE_GRAY && out->color_type != PNG_COLOR_TYPE_GRAY_ALPHA)
        return PngStatus::not_grey;
    if (out->width > static_cast<uint32_t>(kMaxGridSide) || out->height > static_cast<uint32_t>(kMaxGridSide) ||
        static_cast<long long>(out->width) * out->height > kMaxGridCells)
        return PngStatus::too_big;

    const uint64_t raw_bytes = (uint64_t(out->width) * uint64_t(depth) + 7) / 8 * out->height + out->height;
    if (raw_bytes > kDeflateMaxRatio * out->file_bytes + 4096) return PngStatus::too_little_data;

    if (depth < 8) png_set_expand_gray_1_2_4_to_8(png); // scales to 0..255
    if (out->color_type == PNG_COLOR_TYPE_GRAY_ALPHA) png_set_strip_alpha(png);
    png_set_interlace_handling(png);
    png_read_update_info(png, info);
    out->bit_depth = depth == 16 ? 16 : 8;

    std::size_t rowbytes = png_get_rowbytes(png, info);
    std::size_t expected = static_cast<std::size_t>(out->width) * (out->bit_depth / 8);
    if (rowbytes != expected) png_error(png, "unexpected row size after transforms");
    out->data.resize(rowbytes * out->height);
    out->rows.resize(out->height);
    for (uint32_t y = 0; y < out->height; ++y) out->rows[y] = out->data.data() + rowbytes * y;
    png_read_image(png, out->rows.data());
    png_read_end(png, nullptr);
    return PngStatus::ok;
}

struct PngWriteBuffer {
    std::vector<std::byte> bytes;
};

void pngWriteToBuffer(png_structp png, png_bytep data, png_size_t length) {
    auto* buf = static_cast<PngWriteBuffer*>(png_get_io_ptr(png));
    const auto* p = reinterpret_cast<const std::byte*>(data);
    bool out_of_memory = false;
    try { // no C++ exception may unwind through libpng's C frames
        buf->bytes.insert(buf->bytes.end(), p, p + length);
    } catch (const std::bad_alloc&) {
        out_of_memory = true;
    }
    if (out_of_memory) png_error(png, "out of memory");
}

void pngFlush(png_structp) {}

// Encodes rows of `depth`-bit samples (16-bit: big-endian) of a PNG colour type into out->bytes.
bool encodePngRows(png_structp png, png_infop info, uint32_t w, uint32_t h, int depth, int colour_type,
                   unsigned char** rows, PngWriteBuffer* out) {
    if (setjmp(png_jmpbuf(png))) return false;
    png_set_write_fn(png, out, &pngWriteToBuffer, &pngFlush);
    png_set_IHDR(png, info, w, h, depth, colour_type, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    png_set_compression_level(png, 6);
    png_write_info(png, info);
    png_write_image(png, rows);
    png_write_end(png, nullptr);
    return true;
}

// libpng's read or write structs with their info, reporting to `errors`; freed on scope exit.
template <bool Write> struct PngStructs {
    png_structp png = nullptr;
    png_infop info = nullptr;
    explicit PngStructs(PngErrorContext& errors) {
        png = Write ? png_create_write_struct(PNG_LIBPNG_VER_STRING, &errors, &pngError, &pngWarning)
                    : png_create_read_struct(PNG_LIBPNG_VER_STRING, &errors, &pngError, &pngWarning);
        if (!png) throw std::bad_alloc();
        info = png_create_info_struct(png);
        if (!info) {
            destroy();
            throw std::bad_alloc();
        }
    }
    ~PngStructs() { destroy(); }
    PngStructs(const PngStructs&) = delete;
    PngStructs& operator=(const PngStructs&) = delete;

private:
    void destroy() {
        if (Write)
            png_destroy_write_struct(&png, info ? &info : nullptr);
        else
            png_destroy_read_struct(&png, info ? &info : nullptr, nullptr);
    }
};

// Walks the chunk headers up to IEND: each chunk must lie inside the file. libpng takes a chunk's
// claimed length at its word and may allocate it (2 GiB for a text chunk of a 100-byte file)
// before it finds the data missing. Leaves the file just past the signature.
void checkPngChunks(FILE* f, uint64_t file_bytes, const fs::path& path) {
    uint64_t at = 8;
    unsigned char header[8];
    while (at + 8 <= file_bytes && std::fseek(f, long(at), SEEK_SET) == 0 && std::fread(header, 1, 8, f) == 8) {
        const uint64_t length =
            uint64_t(header[0]) << 24 | uint64_t(header[1]) << 16 | uint64_t(header[2]) << 8 | uint64_t(header[3]);
        std::string type(reinterpret_cast<const char*>(header + 4), 4);
        for (char& c : type)
            if (!std::isalpha(static_cast<unsigned char>(c))) c = '?';
        if (length > 0x7FFFFFFFu || at + 12 + length > file_bytes)
            throw InputError(quoted(path) + " is truncated or not a valid PNG: its " + type + " chunk at byte " +
                             std::to_string(at) + " claims " + std::to_string(length) +
                             " bytes, more than the file's " + std::to_string(file_bytes) + " hold");
        if (type == "IEND") break;
        at += 12 + length;
    }
    std::fseek(f, 8, SEEK_SET);
}

Heightmap loadPng(const fs::path& path, const LoadOptions& opt) {
    auto file = openForRead(path);
    unsigned char sig[8] = {};
    if (std::fread(sig, 1, 8, file.get()) != 8 || png_sig_cmp(sig, 0, 8) != 0) {
        throw InputError(quoted(path) + " is not a PNG file (bad signature)");
    }

    PngErrorContext ctx;
    PngStructs<false> guard(ctx);

    PngPixels px;
    std::error_code size_error;
    px.file_bytes = fs::file_size(path, size_error);
    if (size_error) throw InputError("cannot open " + quoted(path) + ": " + size_error.message());
    checkPngChunks(file.get(), px.file_bytes, path);
    switch (decodePng(guard.png, guard.info, file.get(), &px)) {
    case PngStatus::ok: break;
    case PngStatus::libpng_error:
        throw InputError(quoted(path) + " is truncated or not a valid PNG (libpng: " + ctx.message + ")");
    case PngStatus::not_grey:
        throw InputError(quoted(path) + " is not a greyscale PNG (colour type " + std::to_string(px.color_type) +
                         "); convert it to 8/16-bit grey");
    case PngStatus::too_big:
        checkGridSize(px.width, px.height, quoted(path));
        throw InputError(quoted(path) + " is too large"); // not reached
    case PngStatus::too_little_data:
        throw InputError(quoted(path) + " claims " + std::to_string(px.width) + "x" + std::to_string(px.height) +
                         " cells, more than its " + std::to_string(px.file_bytes) +
                         " bytes can hold even compressed: truncated, or its header lies");
    }
    checkGridSize(px.width, px.height, quoted(path));

    if (opt.width != 0 || opt.height != 0) {
        if (static_cast<uint32_t>(opt.width) != px.width || static_cast<uint32_t>(opt.height) != px.height) {
            throw InputError("--size " + std::to_string(opt.width) + "x" + std::to_string(opt.height) +
                             " does not match " + quoted(path) + " (" + std::to_string(px.width) + "x" +
                             std::to_string(px.height) + ")");
        }
    }

    double lo = 0.0, hi = 1000.0;
    if (opt.has_height_range) {
        lo = opt.range_lo;
        hi = opt.range_hi;
    } else {
        readSidecarRange(path, px.width, px.height, lo, hi);
    }
    if (!std::isfinite(lo) || !std::isfinite(hi) || hi < lo) {
        std::ostringstream s;
        s << "height range " << lo << ":" << hi << " for " << quoted(path) << " is invalid (needs finite LO <= HI)";
        throw InputError(s.str());
    }

    Heightmap map;
    map.width = static_cast<int>(px.width);
    map.height = static_cast<int>(px.height);
    std::size_t n = static_cast<std::size_t>(px.width) * px.height;
    map.heights.resize(n);
    const double maxv = px.bit_depth == 16 ? 65535.0 : 255.0;
    const double scale = (hi - lo) / maxv;
    for (std::size_t i = 0; i < n; ++i) {
        unsigned v =
            px.bit_depth == 16 ? (static_cast<unsigned>(px.data[2 * i]) << 8) | px.data[2 * i + 1] : px.data[i];
        map.heights[i] = static_cast<float>(lo + static_cast<double>(v) * scale);
    }
    return map;
}

// [SECTION] raw float32 and 16-bit ------------------------------------------------------------
// .f32/.r32: float32 little-endian metres. .r16/.raw: uint16 little-endian, LO..HI like a PNG
// (the Unity/Unreal terrain convention). Neither has a header, so --size gives the grid.

Heightmap loadRaw(const fs::path& path, const LoadOptions& opt, bool is_u16) {
    const char* what = is_u16 ? "raw 16-bit" : "raw float32";
    if (opt.width <= 0 || opt.height <= 0) {
        throw InputError(quoted(path) + " is " + what + " without a size: it needs --size WxH (e.g. --size 512x512)");
    }
    checkGridSize(opt.width, opt.height, "--size");
    auto file = openForRead(path);

    const uint64_t bytes_per_cell = is_u16 ? 2 : 4;
    const uint64_t cells = static_cast<uint64_t>(opt.width) * static_cast<uint64_t>(opt.height);
    const uint64_t expected = cells * bytes_per_cell;
    std::error_code ec;
    const uint64_t actual = fs::file_size(path, ec);
    if (ec) throw InputError("cannot open " + quoted(path) + ": " + ec.message());
    if (actual != expected) {
        throw InputError(quoted(path) + " has " + std::to_string(actual) + " bytes but --size " +
                         std::to_string(opt.width) + "x" + std::to_string(opt.height) + " needs exactly " +
                         std::to_string(expected) + " (width*height*" + std::to_string(bytes_per_cell) + ")");
    }
    double lo = 0.0, hi = 1000.0;
    if (is_u16) detail::integerRange(path, opt, opt.width, opt.height, lo, hi);

    std::vector<unsigned char> raw(static_cast<std::size_t>(expected));
    if (std::fread(raw.data(), 1, raw.size(), file.get()) != raw.size()) {
        throw InputError("cannot read " + quoted(path) + ": " +
                         (std::ferror(file.get()) ? std::strerror(errno) : "file shrank"));
    }

    Heightmap map;
    map.width = opt.width;
    map.height = opt.height;
    map.heights.resize(static_cast<std::size_t>(cells));
    if (is_u16) {
        const double scale = (hi - lo) / 65535.0;
        for (std::size_t i = 0; i < map.heights.size(); ++i) {
            const unsigned v = static_cast<unsigned>(raw[2 * i]) | (static_cast<unsigned>(raw[2 * i + 1]) << 8);
            map.heights[i] = static_cast<float>(lo + static_cast<double>(v) * scale);
        }
        return map;
    }
    for (std::size_t i = 0; i < map.heights.size(); ++i) {
        const unsigned char* b = raw.data() + 4 * i;
        uint32_t u = static_cast<uint32_t>(b[0]) | (static_cast<uint32_t>(b[1]) << 8) |
                     (static_cast<uint32_t>(b[2]) << 16) | (static_cast<uint32_t>(b[3]) << 24);
        map.heights[i] = std::bit_cast<float>(u);
    }
    detail::checkFiniteHeights(map, path);
    return map;
}

std::vector<std::byte> encodeF32(const Heightmap& map) {
    std::vector<std::byte> out(map.heights.size() * 4);
    for (std::size_t i = 0; i < map.heights.size(); ++i) {
        uint32_t u = std::bit_cast<uint32_t>(map.heights[i]);
        for (int k = 0; k < 4; ++k)
            out[4 * i + static_cast<std::size_t>(k)] = static_cast<std::byte>((u >> (8 * k)) & 0xffu);
    }
    return out;
}

// 0 .. 65535 over lo .. hi (heights outside clamp; a flat map is all zeros).
std::vector<uint16_t> quantise16(const Heightmap& map, double lo, double hi) {
    const double range = hi - lo;
    std::vector<uint16_t> q(map.heights.size());
    for (std::size_t i = 0; i < map.heights.size(); ++i) {
        double t = range > 0.0 ? (static_cast<double>(map.heights[i]) - lo) / range : 0.0;
        q[i] = static_cast<uint16_t>(std::clamp(std::lround(t * 65535.0), 0L, 65535L));
    }
    return q;
}

std::string sidecarText(const Heightmap& map, double cell_size, double lo, double hi, const char* decode_key) {
    nlohmann::json side = {
        {"width", map.width}, {"height", map.height}, {"cell_size_m", cell_size},
        {"min_m", lo},        {"max_m", hi},          {decode_key, "h = min_m + v/65535*(max_m-min_m)"},
    };
    return side.dump(1) + "\n";
}

} // namespace

// [SECTION] loadHeightmap ---------------------------------------------------------------------

bool isHeightmapExtension(const fs::path& path) {
    static const char* const kExtensions[] = {".png", ".f32", ".r32", ".r16", ".raw", ".exr", ".tif", ".tiff", ".asc"};
    const std::string ext = lowerExtension(path);
    for (const char* e : kExtensions)
        if (ext == e) return true;
    return false;
}

bool isRawHeightmap(const fs::path& path) {
    const std::string ext = lowerExtension(path);
    return ext == ".f32" || ext == ".r32" || ext == ".r16" || ext == ".raw";
}

bool writesSidecar(const fs::path& path) {
    const std::string ext = lowerExtension(path);
    return ext == ".png" || ext == ".r16" || ext == ".raw";
}

namespace {

Heightmap decodeByExtension(const fs::path& path, const LoadOptions& opt) {
    const std::string ext = lowerExtension(path);
    if (ext == ".png") return loadPng(path, opt);
    if (ext == ".f32" || ext == ".r32") return loadRaw(path, opt, false);
    if (ext == ".r16" || ext == ".raw") return loadRaw(path, opt, true);
    if (ext == ".exr") return detail::loadExr(path, opt);
    if (ext == ".tif" || ext == ".tiff") return detail::loadTiff(path, opt);
    if (ext == ".asc") return detail::loadAsc(path, opt);
    throw InputError("cannot load " + quoted(path) + ": unknown extension '" + displayPath(path.extension()) + "'; " +
                     kSupported);
}

} // namespace

Heightmap loadHeightmap(const fs::path& path, const LoadOptions& opt) {
    if (isHeightmapExtension(path)) requireRegularFile(path, "heightmap");
    Heightmap map = decodeByExtension(path, opt);
    // The finite check of each codec comes first (it names NaN and Inf); this one catches the
    // absurd but finite: 1e30, a wrong unit, a corrupt sample.
    const auto worst = std::max_element(map.heights.begin(), map.heights.end(),
                                        [](float a, float b) { return std::abs(a) < std::abs(b); });
    if (worst != map.heights.end()) {
        const size_t i = size_t(worst - map.heights.begin());
        checkHeightValue(*worst, quoted(path) + " at cell (" + std::to_string(i % size_t(map.width)) + ", " +
                                     std::to_string(i / size_t(map.width)) + ")");
    }
    return map;
}

// [SECTION] saveHeightmap ---------------------------------------------------------------------

namespace {

// A grid of a size the formats take, every height finite.
void checkSavable(const fs::path& path, const Heightmap& map) {
    checkGridSize(map.width, map.height, "heightmap for " + quoted(path));
    if (map.heights.size() != static_cast<std::size_t>(map.width) * map.height) {
        throw std::invalid_argument("saveHeightmap: heights.size() != width*height");
    }
    int bx = 0, by = 0;
    if (findNonFinite(map, bx, by)) {
        throw InputError("refusing to save " + quoted(path) + ": cell (" + std::to_string(bx) + ", " +
                         std::to_string(by) + ") is " + valueName(map.at(bx, by)));
    }
}

} // namespace

void saveHeightmap(const fs::path& path, const Heightmap& map, double cell_size) {
    const std::string ext = lowerExtension(path);
    if (!isHeightmapExtension(path)) {
        throw InputError("cannot save " + quoted(path) + ": unknown extension '" + displayPath(path.extension()) +
                         "'; " + kSupported);
    }
    checkSavable(path, map);

    if (ext == ".f32" || ext == ".r32") {
        writeFileAtomic(path, encodeF32(map));
        return;
    }
    if (ext == ".exr") {
        writeFileAtomic(path, detail::encodeExr(map, path));
        return;
    }
    if (ext == ".tif" || ext == ".tiff") {
        writeFileAtomic(path, detail::encodeTiff(map, path));
        return;
    }

    if (!std::isfinite(cell_size) || cell_size <= 0.0) {
        throw InputError("cannot save " + quoted(path) + ": cell size must be finite and > 0");
    }
    if (ext == ".asc") {
        writeTextAtomic(path, detail::encodeAsc(map, cell_size));
        return;
    }

    const auto [mn, mx] = std::minmax_element(map.heights.begin(), map.heights.end());
    saveHeightmap16(path, map, cell_size, *mn, *mx);
}

void saveHeightmap16(const fs::path& path, const Heightmap& map, double cell_size, double lo, double hi) {
    const std::string ext = lowerExtension(path);
    if (ext != ".png" && ext != ".r16" && ext != ".raw") {
        throw InputError("cannot save " + quoted(path) + ": 16-bit heights are .png, .r16 or .raw");
    }
    if (!std::isfinite(lo) || !std::isfinite(hi) || hi < lo) {
        throw InputError("cannot save " + quoted(path) + ": height range must be finite and ordered");
    }
    checkSavable(path, map);
    if (!std::isfinite(cell_size) || cell_size <= 0.0) {
        throw InputError("cannot save " + quoted(path) + ": cell size must be finite and > 0");
    }
    const std::vector<uint16_t> q = quantise16(map, lo, hi);
    fs::path side_path = path;
    side_path += ".json";

    if (ext == ".r16" || ext == ".raw") {
        std::vector<std::byte> bytes(q.size() * 2);
        for (std::size_t i = 0; i < q.size(); ++i) {
            bytes[2 * i] = static_cast<std::byte>(q[i] & 0xffu);
            bytes[2 * i + 1] = static_cast<std::byte>(q[i] >> 8);
        }
        writeFileAtomic(path, bytes);
        writeTextAtomic(side_path, sidecarText(map, cell_size, lo, hi, "u16_decode"));
        return;
    }

    writeFileAtomic(path, detail::encodePng16(map.width, map.height, q, path));
    writeTextAtomic(side_path, sidecarText(map, cell_size, lo, hi, "png16_decode"));
}

namespace detail {

std::vector<std::byte> encodePng16(int width, int height, const std::vector<uint16_t>& samples, const fs::path& path) {
    const auto w = static_cast<uint32_t>(width);
    const auto h = static_cast<uint32_t>(height);
    std::vector<unsigned char> data(static_cast<std::size_t>(w) * h * 2);
    for (std::size_t i = 0; i < samples.size(); ++i) {
        data[2 * i] = static_cast<unsigned char>(samples[i] >> 8);
        data[2 * i + 1] = static_cast<unsigned char>(samples[i] & 0xffu);
    }
    std::vector<unsigned char*> rows(h);
    for (uint32_t y = 0; y < h; ++y) rows[y] = data.data() + static_cast<std::size_t>(y) * w * 2;

    PngErrorContext ctx;
    PngStructs<true> guard(ctx);
    PngWriteBuffer buf;
    if (!encodePngRows(guard.png, guard.info, w, h, 16, PNG_COLOR_TYPE_GRAY, rows.data(), &buf)) {
        throw InputError("cannot write " + quoted(path) + ": PNG encoding failed: " + ctx.message);
    }
    return std::move(buf.bytes);
}

std::vector<std::byte> encodePng8(int width, int height, int channels, const std::vector<uint8_t>& samples,
                                  const fs::path& path) {
    const auto w = static_cast<uint32_t>(width);
    const auto h = static_cast<uint32_t>(height);
    const std::size_t row_bytes = std::size_t(w) * std::size_t(channels);
    if (channels != 1 && channels != 4) throw std::invalid_argument("encodePng8: 1 or 4 channels");
    if (samples.size() != row_bytes * h) throw std::invalid_argument("encodePng8: samples != width*height*channels");
    std::vector<unsigned char> data(samples.begin(), samples.end());
    std::vector<unsigned char*> rows(h);
    for (uint32_t y = 0; y < h; ++y) rows[y] = data.data() + static_cast<std::size_t>(y) * row_bytes;

    PngErrorContext ctx;
    PngStructs<true> guard(ctx);
    PngWriteBuffer buf;
    const int colour_type = channels == 4 ? PNG_COLOR_TYPE_RGBA : PNG_COLOR_TYPE_GRAY;
    if (!encodePngRows(guard.png, guard.info, w, h, 8, colour_type, rows.data(), &buf)) {
        throw InputError("cannot write " + quoted(path) + ": PNG encoding failed: " + ctx.message);
    }
    return std::move(buf.bytes);
}

} // namespace detail

} // namespace alluvium
