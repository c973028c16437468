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
    std::unique_lock<std::mutex> lock(mutex_);
    written_cv_.wait(lock, [&] { return done_; });
    return error_;
}

std::string FrameWriter::error() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return error_;
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
        std::string failure;
        if (error().empty()) {
            try {
                if (!job.png.empty()) writeScreenshot(job.png, width_, height_, job.pixels, bgra_);
                // finish() says why ffmpeg stopped and removes its partial file.
                if (video_ && !video_->write(job.pixels)) failure = video_->finish();
            } catch (const std::exception& e) {
                failure = e.what();
            }
        }
        {
            std::lock_guard<std::mutex> lock(mutex_);
            if (!failure.empty() && error_.empty()) error_ = failure;
            else if (failure.empty() && error_.empty()) ++frames_;
            written_.push_back(job.tag);
        }
        written_cv_.notify_all();
    }
    std::string failure;
    bool closing;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        closing = closing_ && !quit_;
        failure = error_;
    }
    // A finished video is renamed to its path; a failed or abandoned one leaves no file.
    if (video_) {
        if (closing && failure.empty()) failure = video_->finish();
        else video_->abort();
    }
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (error_.empty()) error_ = failure;
        // Frames still queued (abandoned) go back to their owner too.
        for (const Job& j : queue_) written_.push_back(j.tag);
        queue_.clear();
        done_ = true;
    }
    written_cv_.notify_all();
}

} // namespace alluvium::viewer
