// The writer's thread (frame_writer.h).
#include "frame_writer.h"

#include <csignal>
#include <exception>

#include <pthread.h>

#include "window.h"

namespace alluvium::viewer {

FrameWriter::FrameWriter(uint32_t width, uint32_t height, bool bgra, std::unique_ptr<VideoEncoder> video)
    : width_(width), height_(height), bgra_(bgra), video_(std::move(video)) {
    thread_ = std::thread([this] { run(); });
}

FrameWriter::~FrameWriter() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        quit_ = true;
    }
    wake_.notify_all();
    if (video_) video_->kill(); // a write blocked on ffmpeg returns
    thread_.join();
    video_.reset(); // removes an unfinished video's partial file
}

void FrameWriter::push(const void* pixels, uint32_t tag, std::string png) {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        queue_.push_back({pixels, tag, std::move(png)});
    }
    wake_.notify_one();
}

std::vector<uint32_t> FrameWriter::takeWritten() {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<uint32_t> tags;
    tags.swap(written_);
    return tags;
}

bool FrameWriter::waitWritten(std::chrono::milliseconds timeout) {
    std::unique_lock<std::mutex> lock(mutex_);
    return written_cv_.wait_for(lock, timeout, [&] { return !written_.empty() || done_; });
}

void FrameWriter::close() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        closing_ = true;
    }
    wake_.notify_one();
}

bool FrameWriter::done() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return done_;
}

std::string FrameWriter::finish() {
    close();
    {
        std::unique_lock<std::mutex> lock(mutex_);
        written_cv_.wait(lock, [&] { return done_; });
    }
    return error();
}

std::string FrameWriter::error() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return video_error_.empty() ? png_error_ : video_error_;
}

std::string FrameWriter::videoError() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return video_error_;
}

std::string FrameWriter::pngError() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return png_error_;
}

void FrameWriter::killVideo() {
    if (video_) video_->kill();
}

uint64_t FrameWriter::framesWritten() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return frames_;
}

void FrameWriter::run() {
    // A write to a pipe whose reader has gone returns EPIPE here instead of ending the process.
    sigset_t pipe_signal;
    sigemptyset(&pipe_signal);
    sigaddset(&pipe_signal, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_signal, nullptr);
    while (true) {
        Job job;
        {
            std::unique_lock<std::mutex> lock(mutex_);
            wake_.wait(lock, [&] { return quit_ || closing_ || !queue_.empty(); });
            if (quit_) break;
            if (queue_.empty()) break; // closing, everything written
            job = queue_.front();
            queue_.pop_front();
        }
        bool png_ok, video_ok;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            png_ok = png_error_.empty();
            video_ok = video_error_.empty();
        }
        std::string png_failure, video_failure;
        if (!job.png.empty() && png_ok) {
            try {
                writeScreenshot(job.png, width_, height_, job.pixels, bgra_);
            } catch (const std::exception& e) {
                png_failure = e.what();
            }
        }
        // finish() says why ffmpeg stopped and removes its partial file.
        if (video_ && video_ok && !video_->write(job.pixels)) video_failure = video_->finish();
        {
            std::lock_guard<std::mutex> lock(mutex_);
            if (png_error_.empty()) png_error_ = png_failure;
            if (video_error_.empty()) video_error_ = video_failure;
            if (png_error_.empty() && video_error_.empty()) ++frames_;
            written_.push_back(job.tag);
        }
        written_cv_.notify_all();
    }
    bool finish_video;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        finish_video = closing_ && !quit_ && video_error_.empty();
    }
    // A finished video is renamed to its path; a failed or abandoned one leaves no file.
    std::string video_failure;
    if (video_) {
        if (finish_video)
            video_failure = video_->finish();
        else
            video_->abort();
    }
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (video_error_.empty()) video_error_ = video_failure;
        // Frames still queued (abandoned) go back to their owner too.
        for (const Job& j : queue_) written_.push_back(j.tag);
        queue_.clear();
        done_ = true;
    }
    written_cv_.notify_all();
}

} // namespace alluvium::viewer
