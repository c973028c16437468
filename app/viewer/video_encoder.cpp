// The ffmpeg program on a pipe (video_encoder.h).
// [SECTION] finding and starting programs
// [SECTION] VideoEncoder
#include "video_encoder.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <vector>

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "io/atomic_file.h"
#include "io/errors.h"

extern char** environ;

namespace alluvium::viewer {

namespace fs = std::filesystem;

namespace {

// [SECTION] finding and starting programs

// Starts argv[0] with its stdin, stdout and stderr on the given descriptors (-1: /dev/null), in
// a process group of its own (so a Ctrl+C in the terminal reaches only Alluvium, which then
// finishes the video properly), with default signal handling and no other inherited
// descriptors. Returns its pid, or -1 with errno set.
pid_t spawn(const std::vector<std::string>& args, int in, int out, int err) {
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    const int fds[3] = {in, out, err};
    for (int target = 0; target < 3; ++target) {
        if (fds[target] >= 0)
            posix_spawn_file_actions_adddup2(&actions, fds[target], target);
        else
            posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0);
    }
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
    posix_spawn_file_actions_addclosefrom_np(&actions, 3);
#endif
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t none, defaults;
    sigemptyset(&none);
    sigemptyset(&defaults);
    for (int sig : {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT}) sigaddset(&defaults, sig);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    posix_spawnattr_setpgroup(&attr, 0);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);
    std::vector<char*> argv;
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    pid_t pid = -1;
    const int r = posix_spawn(&pid, args[0].c_str(), &actions, &attr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    if (r != 0) {
        errno = r;
        return -1;
    }
    return pid;
}

int waitFor(pid_t pid) {
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return status;
}

// Whether `ffmpeg` can encode H.264 (`ffmpeg -encoders` lists libx264); asked once per program.
bool hasLibx264(const std::string& ffmpeg) {
    static std::mutex mutex;
    static std::map<std::string, bool> known;
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = known.find(ffmpeg); it != known.end()) return it->second;
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0) return false;
    const pid_t pid = spawn({ffmpeg, "-hide_banner", "-encoders"}, -1, p[1], -1);
    close(p[1]);
    std::string listing;
    char buffer[4096];
    for (ssize_t n; pid > 0 && ((n = read(p[0], buffer, sizeof buffer)) > 0 || (n < 0 && errno == EINTR));)
        if (n > 0) listing.append(buffer, size_t(n));
    close(p[0]);
    if (pid > 0) waitFor(pid);
    return known[ffmpeg] = listing.find(" libx264 ") != std::string::npos;
}

// ffmpeg's muxer for a container.
const char* muxer(const std::string& path) {
    const std::string ext = fs::path(path).extension().string();
    return ext == ".mkv" ? "matroska" : ext == ".mov" ? "mov" : "mp4";
}

} // namespace

std::string findOnPath(const std::string& program) {
    const char* env = std::getenv("PATH");
    const std::string path = env ? env : "/usr/local/bin:/usr/bin:/bin";
    for (size_t start = 0; start <= path.size();) {
        size_t end = path.find(':', start);
        if (end == std::string::npos) end = path.size();
        const std::string dir = end > start ? path.substr(start, end - start) : ".";
        const std::string candidate = dir + "/" + program;
        struct stat st {};
        if (stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(candidate.c_str(), X_OK) == 0)
            return candidate;
        start = end + 1;
    }
    return "";
}

bool isVideoExtension(const std::string& path) {
    const std::string ext = fs::path(path).extension().string();
    return ext == ".mp4" || ext == ".mkv" || ext == ".mov";
}

// [SECTION] VideoEncoder

VideoEncoder::VideoEncoder(const std::string& ffmpeg, const VideoSettings& settings) : settings_(settings) {
    const std::string shown = displayPath(settings.path);
    // The file ffmpeg writes: new and unique, beside the video (the rename at the end stays on one
    // file system), with the permissions of any new file (mkstemp's would be private).
    static std::atomic<unsigned> serial{0};
    for (int attempt = 0; part_.empty(); ++attempt) {
        const std::string part = settings.path + ".part-" + std::to_string(getpid()) + "-" + std::to_string(serial++);
        const int fd = open(part.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0) {
            close(fd);
            part_ = part;
        } else if (errno != EEXIST || attempt > 100) {
            throw InputError("cannot write '" + shown + "': " + std::strerror(errno));
        }
    }
    auto fail = [&](const std::string& why) {
        if (input_ >= 0) close(input_), input_ = -1;
        if (log_ >= 0) close(log_), log_ = -1;
        unlink(part_.c_str());
        throw InputError("cannot record '" + shown + "': " + why);
    };
    // ffmpeg's messages go to an unlinked temporary file: read back if it fails, never a pipe
    // that could fill and stall it.
    FILE* log = std::tmpfile();
    if (!log) fail(std::string("no temporary file for ffmpeg's messages: ") + std::strerror(errno));
    log_ = dup(fileno(log));
    std::fclose(log);
    if (log_ < 0) fail(std::strerror(errno));
    fcntl(log_, F_SETFD, FD_CLOEXEC);
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0) fail(std::string("pipe: ") + std::strerror(errno));
    input_ = p[1];
    fcntl(input_, F_SETPIPE_SZ, 1 << 20); // fewer wake-ups per frame; the default (64 KiB) also works

    const bool x264 = hasLibx264(ffmpeg);
    codec_ = x264 ? "h264" : "mpeg4";
    const std::string size = std::to_string(settings.width) + "x" + std::to_string(settings.height);
    std::vector<std::string> args = {ffmpeg, "-hide_banner", "-nostats", "-loglevel", "error",
                                     // The input: numbered raw frames at a fixed rate.
                                     "-f", "rawvideo", "-pix_fmt", settings.bgra ? "bgra" : "rgba", "-video_size", size,
                                     "-framerate", std::to_string(settings.fps), "-i", "pipe:0", "-an",
                                     // The frames are sRGB-encoded: BT.709 YUV 4:2:0, tagged so, plays everywhere.
                                     "-vf", "scale=out_color_matrix=bt709:out_range=tv,format=yuv420p", "-colorspace",
                                     "bt709", "-color_primaries", "bt709", "-color_trc", "bt709"};
    if (x264)
        args.insert(args.end(), {"-c:v", "libx264", "-preset", "veryfast", "-crf", "18"});
    else
        args.insert(args.end(), {"-c:v", "mpeg4", "-q:v", "3"});
    if (std::string(muxer(settings.path)) != "matroska") args.insert(args.end(), {"-movflags", "+faststart"});
    args.insert(args.end(), {"-f", muxer(settings.path), "-y", part_});
    const pid_t pid = spawn(args, p[0], -1, log_);
    const int spawn_errno = errno;
    close(p[0]);
    if (pid < 0) fail("cannot start " + ffmpeg + ": " + std::strerror(spawn_errno));
    pid_ = pid;
}

VideoEncoder::~VideoEncoder() { abort(); }

bool VideoEncoder::write(const void* pixels) {
    if (broken_ || input_ < 0) return false;
    const char* p = static_cast<const char*>(pixels);
    size_t left = size_t(settings_.width) * settings_.height * 4;
    // A closed pipe must return EPIPE here, not end the process: the writer's thread blocks
    // SIGPIPE (frame_writer.cpp), and so does this call if it runs elsewhere.
    while (left > 0) {
        const ssize_t n = ::write(input_, p, left);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            broken_ = true;
            return false;
        }
        p += n;
        left -= size_t(n);
    }
    ++frames_;
    return true;
}

void VideoEncoder::reap(int& status) {
    const pid_t pid = pid_.exchange(-1);
    status = pid > 0 ? waitFor(pid) : -1;
}

std::string VideoEncoder::lastErrorLine() const {
    std::string text;
    char buffer[4096];
    if (log_ >= 0 && lseek(log_, 0, SEEK_SET) == 0)
        for (ssize_t n; (n = read(log_, buffer, sizeof buffer)) > 0;) text.append(buffer, size_t(n));
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) text.pop_back();
    const size_t nl = text.find_last_of('\n');
    return nl == std::string::npos ? text : text.substr(nl + 1);
}

std::string VideoEncoder::finish() {
    if (input_ >= 0) close(input_), input_ = -1;
    int status = -1;
    reap(status);
    std::string error;
    const std::string detail = lastErrorLine();
    if (status == -1)
        error = "ffmpeg was stopped";
    else if (WIFSIGNALED(status))
        error = "ffmpeg was killed by signal " + std::to_string(WTERMSIG(status));
    else if (WEXITSTATUS(status) != 0)
        error = "ffmpeg failed (exit status " + std::to_string(WEXITSTATUS(status)) + ")";
    else if (broken_)
        error = "ffmpeg stopped reading frames";
    else if (frames_ == 0)
        error = "no frame was recorded";
    if (error.empty()) {
        std::error_code ec;
        if (fs::file_size(part_, ec) == 0 || ec)
            error = "ffmpeg wrote an empty file";
        else if (std::rename(part_.c_str(), settings_.path.c_str()) != 0)
            error = std::string("cannot rename the finished video: ") + std::strerror(errno);
        else
            part_.clear();
    }
    if (!error.empty() && !detail.empty()) error += ": " + detail;
    for (char& c : error)
        if (c == '\n' || c == '\r') c = ' ';
    if (!part_.empty()) unlink(part_.c_str()), part_.clear();
    if (log_ >= 0) close(log_), log_ = -1;
    return error;
}

void VideoEncoder::kill() {
    const pid_t pid = pid_.load();
    if (pid > 0) ::kill(pid, SIGKILL);
}

void VideoEncoder::abort() {
    if (input_ >= 0) close(input_), input_ = -1;
    kill();
    int status;
    reap(status);
    if (!part_.empty()) unlink(part_.c_str()), part_.clear();
    if (log_ >= 0) close(log_), log_ = -1;
}

} // namespace alluvium::viewer
