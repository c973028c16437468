// The timelapse of `run` (timelapse.h): one offscreen frame per call, drawn as the viewer draws,
// copied into a readback ring and written by a FrameWriter while the simulation runs on.
#include "timelapse.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "app.h"
#include "frame.h"
#include "frame_writer.h"
#include "io/atomic_file.h"
#include "io/errors.h"
#include "readback_ring.h"
#include "renderer.h"
#include "video_encoder.h"

namespace alluvium::viewer {

namespace {

namespace fs = std::filesystem;

constexpr VkFormat kFormat = VK_FORMAT_B8G8R8A8_UNORM;
// One buffer being filled, the rest waiting for (or in) the writer: PNG compression runs beside
// the next stretch of steps.
constexpr uint32_t kRingBuffers = 3;

class Timelapse final : public TimelapseSink {
public:
    Timelapse(gpu::Context& ctx, gpu::Simulation& sim, const TimelapseOptions& o, const Params& params)
        : ctx_(ctx), options_(o),
          renderer_(ctx, sim, kFormat, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, 1, 0, /*keeps_sunlight=*/false) {
        int w = 0, h = 0;
        parseSize(o.size, w, h); // checked by runCommand
        extent_ = {uint32_t(w), uint32_t(h)};
        const uint32_t limit = ctx.properties.limits.maxImageDimension2D;
        if (extent_.width > limit || extent_.height > limit)
            throw InputError("--timelapse-size: " + ctx.device_name + " renders at most " + std::to_string(limit) +
                             " pixels a side");
        createColorTarget(target_, ctx, kFormat, extent_);
        try {
            setUp(sim, params);
        } catch (...) {
            writer_.reset();
            ring_.reset();
            renderer_.setTargets({}, {});
            destroyColorTarget(target_, ctx_);
            throw;
        }
    }

    void setUp(gpu::Simulation& sim, const Params& params) {
        const TimelapseOptions& o = options_;
        renderer_.setTargets({target_.view}, extent_);
        ring_ = std::make_unique<ReadbackRing>(ctx_, extent_, kFormat, kRingBuffers);

        // The viewer's scene settings: no window, no panel, the whole terrain framed.
        app_.ctx = &ctx_;
        app_.sim = &sim;
        ViewerState& s = app_.state;
        s.params = params;
        s.model = sim.params().model;
        s.width = sim.width();
        s.height = sim.height();
        s.show_panel = false;
        s.show_water = o.water;
        const std::vector<float> ground = sim.download(gpu::Field::Terrain);
        const auto [lo, hi] = std::minmax_element(ground.begin(), ground.end());
        app_.relief_lo = *lo;
        app_.relief_hi = std::max(*hi, *lo + 1.0f);
        const float L = float(params[Param::cell_size]);
        frameAll(app_.camera, float(s.width) * L, float(s.height) * L, app_.relief_lo * s.exaggeration,
                 app_.relief_hi * s.exaggeration);

        std::unique_ptr<VideoEncoder> video;
        const std::string ffmpeg = findOnPath("ffmpeg");
        if (ffmpeg.empty()) {
            std::fprintf(stderr, "alluvium: ffmpeg was not found on PATH: %s skipped (the PNG frames are written)\n",
                         videoPath().c_str());
        } else {
            video = std::make_unique<VideoEncoder>(ffmpeg, VideoSettings{videoPath(), extent_.width, extent_.height,
                                                                         o.fps, kFormat == VK_FORMAT_B8G8R8A8_UNORM});
            codec_ = video->codec();
        }
        writer_ = std::make_unique<FrameWriter>(extent_.width, extent_.height, true, std::move(video));
    }

    ~Timelapse() override {
        writer_.reset(); // abandons an unfinished video (an error ended the run)
        ring_.reset();
        renderer_.setTargets({}, {});
        destroyColorTarget(target_, ctx_);
    }

    void frame(long long step) override {
        const int index = takeBuffer();
        fillUniforms(app_, renderer_, renderer_.uniforms(0), extent_, false);
        VkCommandBuffer cmd = gpu::beginOneShot(ctx_);
        Renderer::barrierSimulationToDraw(cmd); // the steps' writes, submitted before
        renderer_.recordPrepare(cmd, 0);
        renderer_.beginScene(cmd, 0, 0, app_.state.show_water);
        renderer_.endScene(cmd);
        ring_->recordCopy(cmd, index, target_.image, extent_);
        gpu::endOneShot(ctx_, cmd);
        // Uplift (the fluvial model) raises the land: the colours follow it, as in the viewer.
        if (const auto range = renderer_.takeGroundRange(0); range && app_.state.model == MODEL_FLUVIAL) {
            app_.relief_lo = range->first;
            app_.relief_hi = std::max(range->second, range->first + 1.0f);
        }
        char name[32];
        std::snprintf(name, sizeof name, "frame-%06d.png", frames_);
        writer_->push(ring_->pixels(index), uint32_t(index), (fs::path(options_.dir) / name).string());
        ++frames_;
        last_step_ = step;
    }

    bool finish() override {
        writer_->finish();
        for (uint32_t tag : writer_->takeWritten()) ring_->release(int(tag));
        if (const std::string e = writer_->pngError(); !e.empty()) throw InputError("--timelapse: " + e);
        const std::string dir = displayPath(options_.dir);
        std::fprintf(stderr, "alluvium: wrote %d timelapse frames (%ux%u, one every %d steps) to %s\n", frames_,
                     extent_.width, extent_.height, options_.every, dir.c_str());
        if (!writer_->hasVideo()) return true;
        video_error_ = writer_->videoError();
        if (!video_error_.empty()) {
            std::fprintf(stderr, "alluvium: %s failed: %s; no video written\n", videoPath().c_str(),
                         video_error_.c_str());
            return false;
        }
        std::fprintf(stderr, "alluvium: wrote %s (%d frames, %s at %d fps)\n", videoPath().c_str(), frames_,
                     codec_.c_str(), options_.fps);
        return true;
    }

    nlohmann::json summary() const override {
        nlohmann::json j = {{"dir", options_.dir},    {"every", options_.every},  {"frames", frames_},
                            {"width", extent_.width}, {"height", extent_.height}, {"water", options_.water},
                            {"last_step", last_step_}};
        j["video"] =
            writer_ && writer_->hasVideo() && video_error_.empty() ? nlohmann::json(videoPath()) : nlohmann::json();
        if (!codec_.empty()) j["codec"] = codec_;
        if (!video_error_.empty()) j["video_error"] = video_error_;
        return j;
    }

private:
    std::string videoPath() const { return (fs::path(options_.dir) / "timelapse.mp4").string(); }

    // A buffer of the ring, waiting for the writer if all are queued. A PNG that cannot be
    // written ends the run (the frames before it are whole files).
    int takeBuffer() {
        while (true) {
            for (uint32_t tag : writer_->takeWritten()) ring_->release(int(tag));
            if (const std::string e = writer_->pngError(); !e.empty()) throw InputError("--timelapse: " + e);
            const int index = ring_->acquire();
            if (index >= 0) return index;
            writer_->waitWritten(std::chrono::milliseconds(200));
        }
    }

    gpu::Context& ctx_;
    TimelapseOptions options_;
    Renderer renderer_;
    VkExtent2D extent_{};
    ColorTarget target_;
    std::unique_ptr<ReadbackRing> ring_;
    std::unique_ptr<FrameWriter> writer_;
    App app_;
    std::string codec_, video_error_;
    int frames_ = 0;
    long long last_step_ = 0;
};

} // namespace

std::unique_ptr<TimelapseSink> makeTimelapse(gpu::Context& ctx, gpu::Simulation& sim, const TimelapseOptions& options,
                                             const Params& params) {
    return std::make_unique<Timelapse>(ctx, sim, options, params);
}

} // namespace alluvium::viewer
