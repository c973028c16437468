// Recording the viewer's frames to a video (`view --record`, F9, the panel's button). Each frame
// drawn while recording is copied on the GPU into a readback ring, handed a frame or two later
// (after its fence) to a writer thread that streams it to ffmpeg. Frames are numbered: the video
// plays at its fixed rate however fast the viewer ran. If the writer falls behind and the ring is
// full, the loop waits for it: every frame drawn is in the video, the waits are counted and
// reported, and the memory held is the ring's, never more.
#pragma once
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <vulkan/vulkan.h>

#include "context.h"
#include "state.h"

namespace alluvium::viewer {

struct RecordSettings {
    std::string path; // .mp4, .mkv or .mov
    int fps = 30;
    uint32_t width = 0, height = 0; // 0: the view's size (rounded down to even)
    bool from_command_line = false; // --record: its failure makes the exit status 1
};

// Checks the rate and the size (even, at least 16x16, or 0x0). Throws InputError naming `option`.
void checkRecordFormat(const RecordSettings& settings, const std::string& option);
// Checks what can be checked before anything runs: the format, the container, the folder, and
// that ffmpeg is on PATH (returned). Throws InputError naming `option` ("--record").
std::string checkRecordSettings(const RecordSettings& settings, const std::string& option);
// "alluvium-YYYYMMDD-HHMMSS.mp4" in the current folder (with "-2", "-3", ... if taken).
std::string generatedRecordingPath();

// A recording once finished (or failed), for stderr, the panel and the report.
struct RecordingSummary {
    RecordSettings settings;
    std::string error; // "" if the video was written
    uint32_t width = 0, height = 0;
    std::string codec;
    uint64_t frames = 0;   // frames in the video: every frame drawn while recording
    double seconds = 0;    // wall time from the first frame captured to the last
    double viewer_fps = 0; // frames drawn per second while recording
    uint64_t waits = 0;    // frames that waited for the writer (the encoder was behind)
    double wait_ms = 0;    // how long they waited in all
};
nlohmann::json toJson(const RecordingSummary& r);
// One line: "wrote FILE: N frames, WxH at F fps ...", or why it failed.
std::string describe(const RecordingSummary& r);

class Recorder {
public:
    Recorder(const gpu::Context& ctx, uint32_t frames_in_flight);
    ~Recorder(); // abandons unfinished videos: call finishAll() first to keep them
    Recorder(const Recorder&) = delete;
    Recorder& operator=(const Recorder&) = delete;

    // Starts recording frames of the view's size `view` and `format` (8-bit BGRA or RGBA).
    // Throws InputError (ffmpeg missing, file not writable, already recording, ...).
    void start(const RecordSettings& settings, VkExtent2D view, VkFormat format);
    // Stops capturing; the frames captured still reach the file, which ffmpeg finishes on the
    // writer's thread (takeFinished() reports it).
    void stop();
    bool recording() const { return capturing_ != nullptr; }
    // The recording under way: its settings, frames so far, seconds since its first frame, and
    // whether the loop had to wait for the encoder lately.
    const RecordSettings* current() const;
    uint64_t framesCaptured() const;
    double secondsRecording() const;
    bool behind() const;

    // The frame loop. After the fence of `slot`: hands the frame captured in it to the writer.
    void collect(uint32_t slot);
    // Before recording a frame in `slot`: whether it is captured (a buffer of the ring is taken;
    // waits for the writer if none is free). If true, recordCapture must follow.
    bool beginCapture(uint32_t slot);
    // Records the copy of the drawn image (TRANSFER_SRC_OPTIMAL, `extent`) into the ring.
    void recordCapture(VkCommandBuffer cmd, uint32_t slot, VkImage image, VkExtent2D extent);
    // Recordings finished (or failed) since the last call.
    std::vector<RecordingSummary> takeFinished();
    // At exit, after the device is idle: collects every slot and waits until ffmpeg has finished.
    void finishAll();

private:
    struct Session;
    void service();

    const gpu::Context& ctx_;
    std::vector<std::unique_ptr<Session>> sessions_; // the one capturing and those finishing
    Session* capturing_ = nullptr;
    struct Pending {
        Session* session = nullptr;
        int index = -1;
    };
    std::vector<Pending> pending_; // per frame slot
    std::vector<RecordingSummary> finished_;
};

// The viewer's requests (F9, the panel): starts or stops a recording, and mirrors the
// recorder's state into s.recording for the panel. Errors become the panel's message, and so do
// the recordings finished since the last frame (also on stderr), which it returns.
std::vector<RecordingSummary> handleRecording(ViewerState& s, Recorder& recorder, VkExtent2D view, VkFormat format);

} // namespace alluvium::viewer
