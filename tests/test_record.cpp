// Recording (`view --record`, F9, the panel's button) and timelapses (`run --timelapse`): the
// videos are checked with ffprobe (codec, size, rate, every frame there) and their pictures
// against the viewer's own screenshots; missing or failing ffmpeg, bad options and an
// interrupted recording leave a clear line and no misleading file; a real session under Xvfb
// (tests/record_e2e.sh) records with F9 and the button.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "cli_run.h"
#include "test_util.h"

namespace fs = std::filesystem;
using namespace alluvium::test;

namespace {

struct VideoInfo {
    std::string codec, pix_fmt, rate;
    int width = 0, height = 0;
    long frames = -1; // decoded, not the container's claim
};

// ffprobe's view of the first video stream (frames counted by decoding them all).
VideoInfo probe(const fs::path& video, const fs::path& dir) {
    const fs::path json = dir / "probe.json";
    const std::string cmd = "ffprobe -v error -count_frames -select_streams v:0 -show_entries "
                            "stream=codec_name,width,height,nb_read_frames,r_frame_rate,pix_fmt -of json " +
                            quote(video.string()) + " >" + quote(json.string()) + " 2>&1";
    VideoInfo info;
    if (exitStatus(std::system(cmd.c_str())) != 0) {
        ADD_FAILURE() << "ffprobe failed on " << video << " (scripts/deps installs ffmpeg): " << readText(json);
        return info;
    }
    const nlohmann::json streams = nlohmann::json::parse(readText(json))["streams"];
    if (streams.empty()) {
        ADD_FAILURE() << "no video stream in " << video;
        return info;
    }
    const nlohmann::json& s = streams[0];
    info.codec = s.value("codec_name", "");
    info.pix_fmt = s.value("pix_fmt", "");
    info.rate = s.value("r_frame_rate", "");
    info.width = s.value("width", 0);
    info.height = s.value("height", 0);
    info.frames = std::stol(s.value("nb_read_frames", "-1"));
    return info;
}

// Frame n of a video, decoded by ffmpeg to raw RGBA (not to a PNG: ffmpeg tags it with the
// video's transfer curve, which a PNG reader would then "correct").
Rgba videoFrame(const fs::path& video, int n, const fs::path& dir) {
    const fs::path raw = dir / ("frame-" + std::to_string(n) + ".rgba");
    const VideoInfo info = probe(video, dir);
    const std::string cmd = "ffmpeg -v error -y -i " + quote(video.string()) + " -vf 'select=eq(n\\," +
                            std::to_string(n) + ")' -frames:v 1 -f rawvideo -pix_fmt rgba " + quote(raw.string()) +
                            " 2>&1";
    EXPECT_EQ(exitStatus(std::system(cmd.c_str())), 0) << cmd;
    Rgba img{uint32_t(info.width), uint32_t(info.height), {}};
    const std::vector<unsigned char> bytes = readBytes(raw);
    if (bytes.size() != size_t(info.width) * size_t(info.height) * 4) {
        ADD_FAILURE() << "frame " << n << " of " << video << ": " << bytes.size() << " bytes";
        return {};
    }
    img.pixels.assign(bytes.begin(), bytes.end());
    return img;
}

// The names in dir that a recording left half-written (ffmpeg's .part files).
std::vector<std::string> partFiles(const fs::path& dir) {
    std::vector<std::string> parts;
    for (const std::string& name : listDir(dir))
        if (name.find(".part-") != std::string::npos) parts.push_back(name);
    return parts;
}

std::string path(const fs::path& p) { return quote(p.string()); }

// Writes an executable `ffmpeg` into dir/fake that reads `bytes` of its input, then fails.
fs::path fakeFfmpeg(const fs::path& dir, int bytes) {
    fs::create_directories(dir / "fake");
    const fs::path exe = dir / "fake" / "ffmpeg";
    std::ofstream(exe) << "#!/bin/sh\n"
                          "case \"$*\" in *-encoders*) exit 0;; esac\n"
                          "head -c "
                       << bytes
                       << " >/dev/null\n"
                          "echo 'fake ffmpeg: no space left on device' >&2\n"
                          "exit 1\n";
    fs::permissions(exe, fs::perms::owner_all);
    return dir / "fake";
}

} // namespace

TEST(Record, OffscreenVideoHoldsEveryFrameDrawn) {
    const fs::path dir = scratchDir("record");
    const fs::path video = dir / "out.mp4";
    ASSERT_EQ(
        runAlluvium("--validation view --offscreen --size 64x64 --window 320x180 --exit-after-frames 12 --record " +
                        path(video) + " --record-fps 24 --screenshot " + path(dir / "last.png") + " --report " +
                        path(dir / "report.json"),
                    dir),
        0)
        << readText(dir / "stderr.txt");
    const std::string err = readText(dir / "stderr.txt");
    EXPECT_NE(err.find("validation errors: 0"), std::string::npos) << err;
    EXPECT_NE(err.find("wrote " + video.string() + ": 12 frames, 320x180"), std::string::npos) << err;
    EXPECT_NE(err.find("frames/s while recording"), std::string::npos) << err;

    const VideoInfo v = probe(video, dir);
    EXPECT_EQ(v.codec, "h264");
    EXPECT_EQ(v.pix_fmt, "yuv420p");
    EXPECT_EQ(v.width, 320);
    EXPECT_EQ(v.height, 180);
    EXPECT_EQ(v.rate, "24/1");
    EXPECT_EQ(v.frames, 12) << "one video frame per frame drawn";
    EXPECT_TRUE(partFiles(dir).empty());

    const nlohmann::json report = nlohmann::json::parse(readText(dir / "report.json"));
    ASSERT_EQ(report["recordings"].size(), 1u);
    const nlohmann::json& r = report["recordings"][0];
    EXPECT_EQ(r["written"], true);
    EXPECT_EQ(r["frames"], 12);
    EXPECT_EQ(r["frames"], report["frames"]);
    EXPECT_EQ(r["fps"], 24);
    EXPECT_EQ(r["codec"], "h264");
    EXPECT_GT(r["viewer_fps"].get<double>(), 0.0);
    EXPECT_DOUBLE_EQ(r["video_seconds"].get<double>(), 0.5);

    // The last frame of the video is the last frame drawn (as --screenshot saw it), colours and
    // orientation included, up to the encoding.
    const Rgba shot = readPng(dir / "last.png"), last = videoFrame(video, 11, dir);
    ASSERT_EQ(last.width, 320u);
    ASSERT_EQ(shot.width, 320u);
    EXPECT_LT(meanDiff(shot, last, 0, 0, 320, 180), 4.0);
}

TEST(Record, ScaledWithBarsAndWithoutThePanel) {
    const fs::path dir = scratchDir("record");
    const fs::path video = dir / "v.mkv";
    const std::string common = "view --offscreen --size 64x64 --window 320x180 --exit-after-frames 3 ";
    ASSERT_EQ(runAlluvium(common + "--record " + path(video) +
                              " --record-size 160x120 --record-no-panel --screenshot " + path(dir / "clean.png"),
                          dir),
              0)
        << readText(dir / "stderr.txt");
    ASSERT_EQ(runAlluvium(common + "--no-panel --screenshot " + path(dir / "nopanel.png"), dir), 0);
    ASSERT_EQ(runAlluvium(common + "--screenshot " + path(dir / "panel.png"), dir), 0);
    const VideoInfo v = probe(video, dir);
    EXPECT_EQ(v.width, 160);
    EXPECT_EQ(v.height, 120);
    EXPECT_EQ(v.frames, 3);

    // --record-no-panel: the screenshot shows the scene as if the panel were hidden (framed for
    // the whole view), while the panel is drawn on screen.
    const Rgba clean = readPng(dir / "clean.png"), nopanel = readPng(dir / "nopanel.png"),
               panel = readPng(dir / "panel.png");
    ASSERT_EQ(clean.width, 320u);
    ASSERT_EQ(panel.width, 320u);
    EXPECT_LT(meanDiff(clean, nopanel, 0, 0, 320, 180), 0.5);
    EXPECT_GT(meanDiff(clean, panel, 0, 0, 160, 90), 20.0) << "the panel's corner should differ";

    // 320x180 into 160x120: scaled to 160x90 between black bars of 15 rows.
    const Rgba frame = videoFrame(video, 2, dir);
    ASSERT_EQ(frame.width, 160u);
    ASSERT_EQ(frame.height, 120u);
    const Rgba black{160, 120, std::vector<uint8_t>(160 * 120 * 4, 0)};
    EXPECT_LT(meanDiff(frame, black, 0, 0, 160, 13), 6.0);
    EXPECT_LT(meanDiff(frame, black, 0, 107, 160, 120), 6.0);
    EXPECT_GT(meanDiff(frame, black, 0, 17, 160, 103), 60.0) << "the scene (sky and terrain) between the bars";
    // And it is the screenshot, halved: the sky's corner and the terrain's middle.
    auto mean = [](const Rgba& img, uint32_t x0, uint32_t y0, uint32_t x1, uint32_t y1, int c) {
        double sum = 0;
        for (uint32_t y = y0; y < y1; ++y)
            for (uint32_t x = x0; x < x1; ++x) sum += img.at(x, y)[c];
        return sum / double((x1 - x0) * (y1 - y0));
    };
    for (int c = 0; c < 3; ++c) {
        EXPECT_NEAR(mean(frame, 4, 19, 30, 35, c), mean(clean, 8, 8, 60, 40, c), 6.0) << "channel " << c;
        EXPECT_NEAR(mean(frame, 60, 55, 100, 80, c), mean(clean, 120, 80, 200, 130, c), 12.0) << "channel " << c;
    }
}

TEST(Record, MissingFfmpegIsOneLineAndNoFile) {
    const fs::path dir = scratchDir("record");
    fs::create_directories(dir / "empty");
    const std::string no_ffmpeg = "PATH=" + quote((dir / "empty").string());
    EXPECT_EQ(
        runAlluvium("view --offscreen --size 32x32 --window 128x128 --record " + path(dir / "x.mp4"), dir, no_ffmpeg),
        2);
    const std::string err = readText(dir / "stderr.txt");
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
    EXPECT_NE(err.find("ffmpeg was not found on PATH"), std::string::npos) << err;
    EXPECT_FALSE(fs::exists(dir / "x.mp4"));

    // A timelapse still writes its frames, and says in one line that the video was skipped.
    ASSERT_EQ(runAlluvium("run --size 32x32 --steps 4 --every 2 --timelapse " + path(dir / "tl") +
                              " --timelapse-size 64x48 --out " + path(dir / "out.png"),
                          dir, no_ffmpeg),
              0)
        << readText(dir / "stderr.txt");
    EXPECT_NE(readText(dir / "stderr.txt")
                  .find("ffmpeg was not found on PATH: " + (dir / "tl" / "timelapse.mp4").string() + " skipped"),
              std::string::npos)
        << readText(dir / "stderr.txt");
    EXPECT_EQ(listDir(dir / "tl"),
              (std::vector<std::string>{"frame-000000.png", "frame-000001.png", "frame-000002.png"}));
}

TEST(Record, AFailingEncoderLeavesNoFile) {
    const fs::path dir = scratchDir("record");
    // ffmpeg takes a frame and a half (320x180x4 bytes each), then fails.
    const std::string env = "PATH=" + quote(fakeFfmpeg(dir, 300000).string() + ":/usr/bin:/bin");
    EXPECT_EQ(runAlluvium("view --offscreen --size 32x32 --window 320x180 --exit-after-frames 8 --record " +
                              path(dir / "v.mp4") + " --report " + path(dir / "report.json"),
                          dir, env),
              1);
    const std::string err = readText(dir / "stderr.txt");
    EXPECT_NE(err.find("recording " + (dir / "v.mp4").string() + " failed"), std::string::npos) << err;
    EXPECT_NE(err.find("fake ffmpeg: no space left on device; no file written"), std::string::npos) << err;
    EXPECT_FALSE(fs::exists(dir / "v.mp4"));
    EXPECT_TRUE(partFiles(dir).empty()) << "the partial file is removed";
    const nlohmann::json report = nlohmann::json::parse(readText(dir / "report.json"));
    EXPECT_EQ(report["recordings"][0]["written"], false);
    EXPECT_EQ(report["frames"], 8) << "the viewer went on";

    // The timelapse keeps its frames, loses only the video, and exits 1.
    EXPECT_EQ(runAlluvium("run --size 32x32 --steps 6 --every 2 --timelapse " + path(dir / "tl") +
                              " --timelapse-size 320x180 --out " + path(dir / "out.png"),
                          dir, env),
              1);
    EXPECT_NE(readText(dir / "stderr.txt").find("timelapse.mp4 failed"), std::string::npos)
        << readText(dir / "stderr.txt");
    EXPECT_EQ(listDir(dir / "tl").size(), 4u) << "frames 0..3 and no video";
    EXPECT_FALSE(fs::exists(dir / "tl" / "timelapse.mp4"));
}

TEST(Record, InterruptedRecordingIsFinished) {
    const fs::path dir = scratchDir("record");
    const fs::path video = dir / "v.mp4";
    // Ctrl+C (SIGINT) quits the viewer like Ctrl+Q: the video holds every frame drawn.
    const std::string cache = (fs::path(ALLUVIUM_TEST_TMP_DIR).parent_path() / "mesa-cache").string();
    const fs::path script = dir / "interrupt.sh";
    // Job control (set -m), as in a terminal: a background job does not ignore SIGINT then.
    std::ofstream(script) << "set -m\nMESA_SHADER_CACHE_DIR=" << quote(cache) << " " << quote(ALLUVIUM_EXE)
                          << " view --offscreen --size 32x32 --window 160x90 --exit-after-frames 100000 --record "
                          << path(video) << " --report " << path(dir / "report.json") << " 2>"
                          << path(dir / "stderr.txt") << " &\npid=$!\n"
                          << "for i in $(seq 1 200); do grep -q 'alluvium: recording' " << path(dir / "stderr.txt")
                          << " && break; sleep 0.1; done\nsleep 1\nkill -INT $pid\nwait $pid\n";
    ASSERT_EQ(exitStatus(std::system(("timeout 60 bash " + path(script)).c_str())), 0) << readText(dir / "stderr.txt");
    const nlohmann::json report = nlohmann::json::parse(readText(dir / "report.json"));
    const long frames = report["recordings"][0]["frames"].get<long>();
    EXPECT_GT(frames, 1);
    EXPECT_EQ(probe(video, dir).frames, frames);
    EXPECT_TRUE(partFiles(dir).empty());
}

TEST(Record, BadOptionsAreOneLineErrors) {
    const fs::path dir = scratchDir("record");
    fs::create_directories(dir / "tl-used");
    std::ofstream(dir / "tl-used" / "frame-000000.png") << "old";
    std::ofstream(dir / "a-file") << "x";
    const std::string out = " --out " + path(dir / "o.png");
    const struct {
        std::string args, needle;
    } cases[] = {
        {"view --offscreen --record x.avi", "--record 'x.avi'"},
        {"view --offscreen --record x.mp4 --record-fps 0", "--record-fps"},
        {"view --offscreen --record-fps 1000", "--record-fps"},
        {"view --offscreen --record x.mp4 --record-size 641x480", "even"},
        {"view --offscreen --record x.mp4 --record-size 8x8", "--record-size"},
        {"view --offscreen --record x.mp4 --record-size wide", "--record-size"},
        {"view --offscreen --record " + path(dir / "no" / "x.mp4"), "does not exist"},
        {"view --offscreen --record " + path(dir), "--record"},
        {"run --size 16x16 --steps 2 --timelapse t --every 0" + out, "--every"},
        {"run --size 16x16 --steps 2 --timelapse t --every -3" + out, "--every"},
        {"run --size 16x16 --steps 2 --every 3" + out, "--every"},
        {"run --size 16x16 --steps 2 --timelapse t --timelapse-size 321x180" + out, "even"},
        {"run --size 16x16 --steps 2 --timelapse t --timelapse-fps 0" + out, "--timelapse-fps"},
        {"run --size 16x16 --steps 2 --timelapse " + path(dir / "a-file") + out, "not a directory"},
        {"run --size 16x16 --steps 2 --timelapse " + path(dir / "a-file" / "tl") + out, "not a directory"},
        {"run --size 16x16 --steps 2 --timelapse " + path(dir / "tl-used") + out, "already holds a timelapse"},
    };
    for (const auto& c : cases) {
        EXPECT_EQ(runAlluvium(c.args, dir), 2) << c.args;
        const std::string err = readText(dir / "stderr.txt");
        EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << c.args << ": " << err;
        EXPECT_NE(err.find(c.needle), std::string::npos) << c.args << ": " << err;
    }
    EXPECT_FALSE(fs::exists(dir / "o.png")) << "nothing ran";
    EXPECT_FALSE(fs::exists(dir / "t")) << "no folder made";
    EXPECT_EQ(listDir(dir / "tl-used"), std::vector<std::string>{"frame-000000.png"}) << "old frames left alone";
}

TEST(Timelapse, AFrameEveryNStepsAndTheSameResult) {
    const fs::path dir = scratchDir("record");
    const std::string run = "run --size 48x48 --steps 10 --set rain_rate=50 ";
    ASSERT_EQ(runAlluvium("--validation " + run + "--every 3 --timelapse " + path(dir / "tl") +
                              " --timelapse-size 160x90 --timelapse-fps 12 --out " + path(dir / "with.png") +
                              " --report " + path(dir / "report.json"),
                          dir),
              0)
        << readText(dir / "stderr.txt");
    EXPECT_EQ(readText(dir / "stderr.txt").find("validation error"), std::string::npos) << readText(dir / "stderr.txt");
    // Steps 0, 3, 6 and 9.
    EXPECT_EQ(listDir(dir / "tl"), (std::vector<std::string>{"frame-000000.png", "frame-000001.png", "frame-000002.png",
                                                             "frame-000003.png", "timelapse.mp4"}));
    for (int i = 0; i < 4; ++i) {
        const Rgba f = readPng(dir / "tl" / ("frame-00000" + std::to_string(i) + ".png"));
        EXPECT_EQ(f.width, 160u);
        EXPECT_EQ(f.height, 90u);
    }
    const VideoInfo v = probe(dir / "tl" / "timelapse.mp4", dir);
    EXPECT_EQ(v.frames, 4);
    EXPECT_EQ(v.width, 160);
    EXPECT_EQ(v.rate, "12/1");
    const nlohmann::json report = nlohmann::json::parse(readText(dir / "report.json"));
    EXPECT_EQ(report["timelapse"]["frames"], 4);
    EXPECT_EQ(report["timelapse"]["last_step"], 9);
    // The last PNG is the video's last frame.
    EXPECT_LT(meanDiff(readPng(dir / "tl" / "frame-000003.png"), videoFrame(dir / "tl" / "timelapse.mp4", 3, dir), 0, 0,
                       160, 90),
              4.0);

    // Without the timelapse the heightmap is the same, bit for bit.
    ASSERT_EQ(runAlluvium(run + "--out " + path(dir / "without.png"), dir), 0);
    EXPECT_EQ(readBytes(dir / "with.png"), readBytes(dir / "without.png"));

    // Without water: the first frame (dry) is the same, the last (after heavy rain) is not.
    ASSERT_EQ(runAlluvium(run + "--every 3 --timelapse " + path(dir / "dry") +
                              " --timelapse-size 160x90 --timelapse-no-water --out " + path(dir / "dry.png"),
                          dir),
              0);
    EXPECT_LT(
        meanDiff(readPng(dir / "tl" / "frame-000000.png"), readPng(dir / "dry" / "frame-000000.png"), 0, 0, 160, 90),
        0.01);
    EXPECT_GT(
        meanDiff(readPng(dir / "tl" / "frame-000003.png"), readPng(dir / "dry" / "frame-000003.png"), 40, 20, 120, 70),
        5.0);
}

TEST(Record, F9AndThePanelButtonUnderXvfb) {
    if (std::system("command -v xvfb-run >/dev/null 2>&1") != 0)
        GTEST_SKIP() << "xvfb-run is missing (scripts/deps installs it)";
    const fs::path dir = scratchDir("record");
    const int status = runXvfbScript("record_e2e.sh", dir, 150);
    const std::string log = readText(dir / "e2e.log") + readText(dir / "viewer.log");
    ASSERT_EQ(status, 0) << log;
    const nlohmann::json report = nlohmann::json::parse(readText(dir / "report.json"));
    EXPECT_EQ(report["validation_errors"], 0) << log;
    // F9 started the first and the button stopped it; the button started the second, F9 stopped it.
    ASSERT_EQ(report["recordings"].size(), 2u) << log;
    for (const nlohmann::json& r : report["recordings"]) {
        EXPECT_EQ(r["written"], true) << log;
        const std::string file = r["file"].get<std::string>();
        EXPECT_EQ(file.rfind("alluvium-", 0), 0u) << file;
        const VideoInfo v = probe(dir / file, dir);
        EXPECT_EQ(v.width, 640);
        EXPECT_EQ(v.height, 400);
        EXPECT_EQ(v.frames, r["frames"].get<long>());
        EXPECT_GT(v.frames, 5) << "about 1.5 s of frames";
        EXPECT_GT(r["viewer_fps"].get<double>(), 0.0);
    }
    EXPECT_TRUE(partFiles(dir).empty());
}
