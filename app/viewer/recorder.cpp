// Recording the viewer's frames (recorder.h).
// [SECTION] settings, names and summaries
// [SECTION] Recorder: sessions, the ring and the writer
// [SECTION] the viewer's requests
#include "recorder.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>

#include <unistd.h>

#include "frame_writer.h"
#include "io/atomic_file.h"
#include "io/errors.h"
#include "readback_ring.h"
#include "video_encoder.h"

namespace alluvium::viewer {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

// Buffers of the ring beyond one per frame in flight: how far the writer may fall behind before
// the loop waits for it.
constexpr uint32_t kQueuedFrames = 3;
// A writer that takes no frame for this long has stalled (ffmpeg hung): the recording fails.
constexpr auto kStallTimeout = std::chrono::seconds(30);

double secondsBetween(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

} // namespace

// [SECTION] settings, names and summaries

void checkRecordFormat(const RecordSettings& r, const std::string& option) {
    if (r.fps < 1 || r.fps > 240) throw InputError(option + "-fps: 1..240 frames per second");
    if ((r.width | r.height) != 0) {
        if (r.width < 16 || r.height < 16) throw InputError(option + "-size: at least 16x16 pixels");
        if (r.width % 2 || r.height % 2)
            throw InputError(option + "-size: width and height must be even (the video's 4:2:0 chroma)");
    }
}

std::string checkRecordSettings(const RecordSettings& r, const std::string& option) {
    const std::string shown = displayPath(r.path);
    if (!isVideoExtension(r.path)) throw InputError(option + " '" + shown + "': use a " + kVideoExtensions + " file");
    checkRecordFormat(r, option);
    std::error_code ec;
    if (fs::is_directory(r.path, ec)) throw InputError(option + " '" + shown + "' is a directory");
    const fs::path dir = fs::path(r.path).parent_path().empty() ? fs::path(".") : fs::path(r.path).parent_path();
    if (!fs::is_directory(dir, ec))
        throw InputError(option + " '" + shown + "': the folder '" + displayPath(dir) + "' does not exist");
    if (access(dir.c_str(), W_OK | X_OK) != 0)
        throw InputError(option + " '" + shown + "': cannot write in '" + displayPath(dir) +
                         "': " + std::strerror(errno));
    const std::string ffmpeg = findOnPath("ffmpeg");
    if (ffmpeg.empty())
        throw InputError(option +
                         ": ffmpeg was not found on PATH (recording needs the ffmpeg program: apt install ffmpeg)");
    return ffmpeg;
}

std::string generatedRecordingPath() {
    const std::time_t now = std::time(nullptr);
    std::tm local{};
    localtime_r(&now, &local);
    char stamp[32];
    std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &local);
    std::string path = std::string("alluvium-") + stamp + ".mp4";
    std::error_code ec;
    for (int n = 2; fs::exists(path, ec); ++n)
        path = std::string("alluvium-") + stamp + "-" + std::to_string(n) + ".mp4";
    return path;
}

nlohmann::json toJson(const RecordingSummary& r) {
    nlohmann::json j = {
        {"file", r.settings.path},   {"written", r.error.empty()},
        {"frames", r.frames},        {"fps", r.settings.fps},
        {"width", r.width},          {"height", r.height},
        {"codec", r.codec},          {"video_seconds", r.settings.fps > 0 ? double(r.frames) / r.settings.fps : 0.0},
        {"wall_seconds", r.seconds}, {"viewer_fps", r.viewer_fps},
        {"encoder_waits", r.waits},  {"encoder_wait_ms", r.wait_ms},
    };
    if (!r.error.empty()) j["error"] = r.error;
    return j;
}

std::string describe(const RecordingSummary& r) {
    const std::string file = displayPath(r.settings.path);
    char text[512];
    if (!r.error.empty()) {
        std::snprintf(text, sizeof text, "recording %s failed after %llu frames: %s; no file written", file.c_str(),
                      static_cast<unsigned long long>(r.frames), r.error.c_str());
        return text;
    }
    std::snprintf(text, sizeof text,
                  "wrote %s: %llu frames, %ux%u %s at %d fps (%.2f s of video); the viewer drew %.1f frames/s while "
                  "recording; %llu frames waited for the encoder (%.0f ms)",
                  file.c_str(), static_cast<unsigned long long>(r.frames), r.width, r.height, r.codec.c_str(),
                  r.settings.fps, double(r.frames) / std::max(r.settings.fps, 1), r.viewer_fps,
                  static_cast<unsigned long long>(r.waits), r.wait_ms);
    return text;
}

// [SECTION] Recorder: sessions, the ring and the writer

struct Recorder::Session {
    RecordSettings settings;
    std::unique_ptr<ReadbackRing> ring;
    std::unique_ptr<FrameWriter> writer; // declared after the ring: gone before it
    std::string codec;
    uint32_t in_flight = 0; // frames captured whose fence has not been seen yet
    bool capturing = true;
    bool closed = false;
    uint64_t captured = 0;
    Clock::time_point first{}, last{}, last_wait{};
    uint64_t waits = 0;
    double wait_ms = 0;
    std::string error; // the recorder's own reason to fail (a stalled encoder)

    void releaseWritten() {
        for (uint32_t tag : writer->takeWritten()) ring->release(int(tag));
    }
};

Recorder::Recorder(const gpu::Context& ctx, uint32_t frames_in_flight) : ctx_(ctx), pending_(frames_in_flight) {}

Recorder::~Recorder() {
    // Abandoned (an error left the loop): the writers kill ffmpeg and remove the partial files,
    // once no frame in flight copies into a ring.
    if (!sessions_.empty()) vkDeviceWaitIdle(ctx_.device);
    for (Pending& p : pending_) p = {};
    sessions_.clear();
}

void Recorder::start(const RecordSettings& settings, VkExtent2D view, VkFormat format) {
    if (capturing_) throw InputError("already recording " + displayPath(capturing_->settings.path));
    const std::string ffmpeg = checkRecordSettings(settings, settings.from_command_line ? "--record" : "record");
    auto session = std::make_unique<Session>();
    session->settings = settings;
    VkExtent2D size{settings.width, settings.height};
    if (size.width == 0 || size.height == 0) size = {view.width & ~1u, view.height & ~1u};
    if (size.width < 16 || size.height < 16)
        throw InputError("the view is too small to record (at least 16x16 pixels)");
    const uint32_t limit = ctx_.properties.limits.maxImageDimension2D;
    if (size.width > limit || size.height > limit)
        throw InputError("the recording's size: " + ctx_.device_name + " handles at most " + std::to_string(limit) +
                         " pixels a side");
    session->settings.width = size.width;
    session->settings.height = size.height;
    const bool bgra = format == VK_FORMAT_B8G8R8A8_UNORM || format == VK_FORMAT_B8G8R8A8_SRGB;
    VideoSettings video{settings.path, size.width, size.height, settings.fps, bgra};
    auto encoder = std::make_unique<VideoEncoder>(ffmpeg, video);
    session->codec = encoder->codec();
    session->ring = std::make_unique<ReadbackRing>(ctx_, size, format, uint32_t(pending_.size()) + kQueuedFrames);
    session->writer = std::make_unique<FrameWriter>(size.width, size.height, bgra, std::move(encoder));
    capturing_ = session.get();
    sessions_.push_back(std::move(session));
}

void Recorder::stop() {
    if (capturing_) capturing_->capturing = false;
    capturing_ = nullptr;
}

const RecordSettings* Recorder::current() const { return capturing_ ? &capturing_->settings : nullptr; }
uint64_t Recorder::framesCaptured() const { return capturing_ ? capturing_->captured : 0; }
double Recorder::secondsRecording() const {
    return capturing_ && capturing_->captured > 0 ? secondsBetween(capturing_->first, Clock::now()) : 0.0;
}
bool Recorder::behind() const {
    return capturing_ && capturing_->waits > 0 && Clock::now() - capturing_->last_wait < std::chrono::seconds(2);
}

void Recorder::collect(uint32_t slot) {
    Pending& p = pending_[slot];
    if (p.session) {
        p.session->writer->push(p.session->ring->pixels(p.index), uint32_t(p.index));
        --p.session->in_flight;
        p = {};
    }
    service();
}

void Recorder::service() {
    for (size_t i = 0; i < sessions_.size();) {
        Session& s = *sessions_[i];
        s.releaseWritten();
        if (s.capturing && !s.writer->error().empty()) {
            s.capturing = false; // the summary says why
            if (capturing_ == &s) capturing_ = nullptr;
        }
        if (!s.capturing && s.in_flight == 0 && !s.closed) {
            s.writer->close(); // ffmpeg finishes the file on the writer's thread
            s.closed = true;
        }
        if (!s.closed || !s.writer->done()) {
            ++i;
            continue;
        }
        RecordingSummary r;
        r.settings = s.settings;
        r.error = s.error.empty() ? s.writer->error() : s.error;
        r.width = s.settings.width;
        r.height = s.settings.height;
        r.codec = s.codec;
        r.frames = r.error.empty() ? s.captured : s.writer->framesWritten();
        r.seconds = s.captured > 1 ? secondsBetween(s.first, s.last) : 0.0;
        r.viewer_fps = r.seconds > 0 ? double(s.captured - 1) / r.seconds : 0.0;
        r.waits = s.waits;
        r.wait_ms = s.wait_ms;
        finished_.push_back(r);
        sessions_.erase(sessions_.begin() + long(i));
    }
}

bool Recorder::beginCapture(uint32_t slot) {
    Session* s = capturing_;
    if (!s) return false;
    int index = s->ring->acquire();
    if (index < 0) {
        // The writer is behind and the ring is full: wait for it (every frame drawn reaches the
        // video). Only frames already handed to it are waited for, never the GPU.
        const Clock::time_point t0 = Clock::now();
        if (s->waits++ == 0)
            std::fprintf(stderr, "alluvium: recording: the encoder is behind; the viewer waits for it\n");
        while (index < 0) {
            s->writer->waitWritten(std::chrono::milliseconds(200));
            s->releaseWritten();
            if (!s->writer->error().empty()) break;
            if (Clock::now() - t0 > kStallTimeout) {
                s->error = "ffmpeg took no frame for 30 s";
                s->writer->killVideo();
                break;
            }
            index = s->ring->acquire();
        }
        s->last_wait = Clock::now();
        s->wait_ms += 1e3 * secondsBetween(t0, s->last_wait);
        if (index < 0) {
            stop();
            return false;
        }
    }
    pending_[slot] = {s, index};
    ++s->in_flight;
    const Clock::time_point now = Clock::now();
    if (s->captured++ == 0) s->first = now;
    s->last = now;
    return true;
}

void Recorder::recordCapture(VkCommandBuffer cmd, uint32_t slot, VkImage image, VkExtent2D extent) {
    const Pending& p = pending_[slot];
    p.session->ring->recordCopy(cmd, p.index, image, extent);
}

std::vector<RecordingSummary> Recorder::takeFinished() {
    std::vector<RecordingSummary> out;
    out.swap(finished_);
    return out;
}

void Recorder::finishAll() {
    stop();
    for (uint32_t slot = 0; slot < pending_.size(); ++slot) collect(slot);
    for (auto& s : sessions_) s->writer->finish();
    service();
}

// [SECTION] the viewer's requests

std::vector<RecordingSummary> handleRecording(ViewerState& s, Recorder& recorder, VkExtent2D view, VkFormat format) {
    RecordingControl& r = s.recording;
    std::vector<RecordingSummary> finished = recorder.takeFinished();
    for (const RecordingSummary& f : finished) {
        s.message = describe(f);
        std::fprintf(stderr, "alluvium: %s\n", s.message.c_str());
    }
    if (r.toggle_requested) {
        r.toggle_requested = false;
        if (recorder.recording()) {
            recorder.stop();
            s.message = "stopped recording " + r.file + " (finishing the file)";
        } else {
            RecordSettings settings;
            settings.path = r.path.empty() ? generatedRecordingPath() : r.path;
            settings.fps = r.fps;
            settings.width = uint32_t(std::max(r.width, 0));
            settings.height = uint32_t(std::max(r.height, 0));
            try {
                recorder.start(settings, view, format);
                s.message = "recording " + settings.path;
                std::fprintf(stderr, "alluvium: recording %s\n", displayPath(settings.path).c_str());
            } catch (const std::exception& e) {
                s.message = e.what();
                std::fprintf(stderr, "alluvium: %s\n", e.what());
            }
        }
    }
    const RecordSettings* current = recorder.current();
    r.active = current != nullptr;
    r.file = current ? current->path : "";
    r.frames = recorder.framesCaptured();
    r.seconds = recorder.secondsRecording();
    r.behind = recorder.behind();
    return finished;
}

} // namespace alluvium::viewer
