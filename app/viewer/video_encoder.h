// A video written by the ffmpeg program, found on PATH at run time (no link-time dependency):
// raw 8-bit frames go down a pipe to its stdin. ffmpeg writes "<path>.part-PID-N" beside the
// video; it is renamed to <path> only once ffmpeg has finished it, so a failed or abandoned
// video leaves no file under its name (a killed process leaves the .part file, finalised by
// ffmpeg when its input closes).
#pragma once
#include <atomic>
#include <cstdint>
#include <string>

#include <sys/types.h>

namespace alluvium::viewer {

// The full path of `program` in a folder of PATH, or "" if none holds an executable of that name.
std::string findOnPath(const std::string& program);

// The containers a recording can be written in: .mp4, .mkv, .mov.
bool isVideoExtension(const std::string& path);
constexpr const char* kVideoExtensions = ".mp4, .mkv or .mov";

struct VideoSettings {
    std::string path;               // .mp4, .mkv or .mov
    uint32_t width = 0, height = 0; // even (4:2:0 chroma)
    int fps = 30;                   // frames are numbered: the video plays at fps whatever their pace
    bool bgra = true;               // byte order of the frames (else RGBA)
};

class VideoEncoder {
public:
    // Starts `ffmpeg` (a path from findOnPath) on a pipe. H.264 (libx264) if ffmpeg has it, else
    // MPEG-4 part 2. Throws InputError when the file cannot be created or ffmpeg cannot start.
    VideoEncoder(const std::string& ffmpeg, const VideoSettings& settings);
    ~VideoEncoder(); // abandons an unfinished video: abort()
    VideoEncoder(const VideoEncoder&) = delete;
    VideoEncoder& operator=(const VideoEncoder&) = delete;

    // Writes one frame (width * height * 4 bytes); blocks while ffmpeg's pipe is full. False once
    // ffmpeg has gone (finish() then says why).
    bool write(const void* pixels);
    // Ends the input, waits for ffmpeg and renames the finished file to its path. Returns "" or a
    // one-line reason; on failure no file is left (neither the video nor the .part file).
    std::string finish();
    // Kills ffmpeg and removes its partial file.
    void abort();
    // Makes a write() blocked on a stalled ffmpeg return (from another thread): kills ffmpeg.
    void kill();

    const VideoSettings& settings() const { return settings_; }
    const std::string& codec() const { return codec_; }
    uint64_t frames() const { return frames_; }

private:
    void reap(int& status);
    std::string lastErrorLine() const;

    VideoSettings settings_;
    std::string codec_;
    std::string part_; // the file ffmpeg writes
    int input_ = -1;   // our end of its stdin
    int log_ = -1;     // its stderr (an unlinked temporary file)
    std::atomic<pid_t> pid_{-1};
    uint64_t frames_ = 0;
    bool broken_ = false; // a write failed
};

} // namespace alluvium::viewer
