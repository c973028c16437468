// A thread that writes captured frames outside the frame loop: into a video (ffmpeg) and/or as
// numbered PNGs. The frames' memory belongs to the caller (a readback ring): each frame's tag
// comes back from takeWritten() once the writer is done with it, so the memory in use is
// bounded by the ring, never by how far the writer falls behind.
#pragma once
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "video_encoder.h"

namespace alluvium::viewer {

class FrameWriter {
public:
    // Frames of width x height x 4 bytes (BGRA if bgra, else RGBA); `video` may be null.
    FrameWriter(uint32_t width, uint32_t height, bool bgra, std::unique_ptr<VideoEncoder> video);
    ~FrameWriter(); // abandons what is not written, and an unfinished video
    FrameWriter(const FrameWriter&) = delete;
    FrameWriter& operator=(const FrameWriter&) = delete;

    // Queues a frame; `pixels` must stay valid until `tag` comes back from takeWritten(). png: also
    // write the frame to this file (atomically).
    void push(const void* pixels, uint32_t tag, std::string png = {});
    // The tags of the frames written (or dropped after a failure) since the last call.
    std::vector<uint32_t> takeWritten();
    // Waits up to `timeout` for a frame to be written; true if one was (or is waiting in takeWritten).
    bool waitWritten(std::chrono::milliseconds timeout);
    // After the frames queued, ends the video on the writer's thread (ffmpeg finishes the file,
    // which can take a moment) without blocking the caller; done() tells when it is over.
    void close();
    bool done() const;
    // close(), then waits until done. Returns "" or the first error.
    std::string finish();
    // The first error so far (video or PNG). After a video error the video takes no more frames,
    // after a PNG error no more PNGs are written; the other output goes on.
    std::string error() const;
    std::string videoError() const;
    std::string pngError() const;
    // Kills a stalled ffmpeg so that a blocked write returns (the video is then lost).
    void killVideo();

    uint64_t framesWritten() const; // frames written without an error (into the video and as PNGs)
    bool hasVideo() const { return video_ != nullptr; }
    const VideoEncoder* video() const { return video_.get(); }

private:
    struct Job {
        const void* pixels;
        uint32_t tag;
        std::string png;
    };
    void run();

    uint32_t width_, height_;
    bool bgra_;
    std::unique_ptr<VideoEncoder> video_;
    mutable std::mutex mutex_;
    std::condition_variable wake_, written_cv_;
    std::deque<Job> queue_;
    std::vector<uint32_t> written_;
    bool closing_ = false, done_ = false, quit_ = false;
    std::string video_error_, png_error_;
    uint64_t frames_ = 0;
    std::thread thread_;
};

} // namespace alluvium::viewer
