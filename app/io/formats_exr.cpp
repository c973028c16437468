// OpenEXR heightmaps: load one channel (half, float or uint) as metres; save one 32-bit float
// channel "Y", uncompressed. OpenEXR reports every problem by throwing; all of it becomes one
// InputError line.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <exception>
#include <limits>
#include <mutex>
#include <string>
#include <thread>

#include <OpenEXR/ImfChannelList.h>
#include <OpenEXR/ImfFrameBuffer.h>
#include <OpenEXR/ImfHeader.h>
#include <OpenEXR/ImfIO.h>
#include <OpenEXR/ImfInputFile.h>
#include <OpenEXR/ImfOutputFile.h>
#include <OpenEXR/ImfThreading.h>

#include "io/errors.h"
#include "io/formats.h"

namespace alluvium::detail {

namespace fs = std::filesystem;

namespace {

// OpenEXR messages can span lines; ours are one line.
std::string oneLine(std::string s) {
    std::replace(s.begin(), s.end(), '\n', ' ');
    std::replace(s.begin(), s.end(), '\r', ' ');
    return s;
}

// Headers larger than our grid limit are refused while the header is read, before OpenEXR
// allocates its tables. (De)compression runs on one thread per core.
void setUpOpenExr() {
    static std::once_flag once;
    std::call_once(once, [] {
        Imf::Header::setMaxImageSize(kMaxGridSide, kMaxGridSide);
        Imf::Header::setMaxTileSize(kMaxGridSide, kMaxGridSide);
        Imf::setGlobalThreadCount(static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
    });
}

// An OpenEXR output stream into memory, so the file itself is written atomically.
class MemoryOStream : public Imf::OStream {
public:
    MemoryOStream() : Imf::OStream("memory") {}
    void write(const char c[], int n) override {
        const auto count = static_cast<std::size_t>(n);
        if (pos_ + count > bytes.size()) bytes.resize(pos_ + count);
        std::memcpy(bytes.data() + pos_, c, count);
        pos_ += count;
    }
    uint64_t tellp() override { return pos_; }
    void seekp(uint64_t pos) override { pos_ = static_cast<std::size_t>(pos); }
    std::vector<std::byte> bytes;

private:
    std::size_t pos_ = 0;
};

Heightmap readExr(const fs::path& path, const LoadOptions& opt) {
    Imf::InputFile file(path.c_str());
    const Imf::Header& header = file.header();
    const Imath::Box2i dw = header.dataWindow();
    const long long w = static_cast<long long>(dw.max.x) - dw.min.x + 1;
    const long long h = static_cast<long long>(dw.max.y) - dw.min.y + 1;
    checkGridSize(w, h, quoted(path));
    checkSizeOption(opt, w, h, path);

    const Imf::ChannelList& channels = header.channels();
    std::string names;
    for (auto it = channels.begin(); it != channels.end(); ++it)
        names += (names.empty() ? "" : ", ") + std::string(it.name());
    if (names.empty()) throw InputError(quoted(path) + " has no channels");
    std::string name = opt.channel.empty() ? std::string(channels.begin().name()) : opt.channel;
    const Imf::Channel* channel = channels.findChannel(name);
    if (!channel) {
        throw InputError(quoted(path) + " has no channel '" + name + "'; its channels are: " + names);
    }
    if (channel->xSampling != 1 || channel->ySampling != 1) {
        throw InputError(quoted(path) + ": channel '" + name +
                         "' is subsampled; only full-resolution channels are supported");
    }

    // No codec packs a sample into less than 1/4096 of its bytes (ZIP: 1/1032): a header that
    // claims more than the file can hold is refused before the grid is allocated.
    std::error_code ec;
    const uint64_t file_bytes = fs::file_size(path, ec);
    const uint64_t sample_bytes = channel->type == Imf::HALF ? 2 : 4;
    if (ec || uint64_t(w) * uint64_t(h) * sample_bytes > 4096 * file_bytes + 65536)
        throw InputError(quoted(path) + " is truncated: its header claims " + std::to_string(w) + "x" +
                         std::to_string(h) + " cells, more than its " + std::to_string(file_bytes) + " bytes can hold");
    Heightmap map;
    map.width = static_cast<int>(w);
    map.height = static_cast<int>(h);
    map.heights.assign(static_cast<std::size_t>(w * h), 0.0f);
    Imf::FrameBuffer fb;
    // OpenEXR converts half and uint samples to float while reading.
    fb.insert(name, Imf::Slice::Make(Imf::FLOAT, map.heights.data(), dw, sizeof(float),
                                     sizeof(float) * static_cast<std::size_t>(w)));
    file.setFrameBuffer(fb);
    file.readPixels(dw.min.y, dw.max.y);
    checkFiniteHeights(map, path);
    return map;
}

} // namespace

Heightmap loadExr(const fs::path& path, const LoadOptions& opt) {
    setUpOpenExr();
    {
        std::error_code ec;
        if (!fs::exists(path, ec)) {
            throw InputError("cannot open " + quoted(path) + ": No such file or directory");
        }
        if (fs::is_directory(path, ec)) throw InputError("cannot open " + quoted(path) + ": Is a directory");
    }
    try {
        return readExr(path, opt);
    } catch (const InputError&) {
        throw;
    } catch (const std::bad_alloc&) {
        throw InputError(quoted(path) + ": out of memory while reading the OpenEXR file");
    } catch (const std::exception& e) {
        throw InputError(quoted(path) + " is truncated or not a valid OpenEXR file (OpenEXR: " + oneLine(e.what()) +
                         ")");
    }
}

std::vector<std::byte> encodeExrChannels(int width, int height, const std::vector<ExrChannel>& channels, bool compress,
                                         const fs::path& path) {
    setUpOpenExr();
    try {
        Imf::Header header(width, height);
        header.compression() = compress ? Imf::ZIP_COMPRESSION : Imf::NO_COMPRESSION;
        for (const ExrChannel& c : channels) header.channels().insert(c.name, Imf::Channel(Imf::FLOAT));
        MemoryOStream stream;
        {
            Imf::OutputFile file(stream, header);
            Imf::FrameBuffer fb;
            for (const ExrChannel& c : channels)
                fb.insert(c.name, Imf::Slice(Imf::FLOAT, reinterpret_cast<char*>(const_cast<float*>(c.first)),
                                             sizeof(float) * c.stride,
                                             sizeof(float) * c.stride * static_cast<std::size_t>(width)));
            file.setFrameBuffer(fb);
            file.writePixels(height);
        }
        return std::move(stream.bytes);
    } catch (const std::exception& e) {
        throw InputError("cannot write " + quoted(path) + ": OpenEXR: " + oneLine(e.what()));
    }
}

std::vector<std::byte> encodeExr(const Heightmap& map, const fs::path& path) {
    // Uncompressed: float heights shrink by under 10% with ZIP, at ten times the write time
    // (4096^2: 59 MiB in ~4 s against 64 MiB in ~0.4 s on 2 cores).
    return encodeExrChannels(map.width, map.height, {{"Y", map.heights.data(), 1}}, false, path);
}

} // namespace alluvium::detail
