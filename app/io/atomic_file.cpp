#include "io/atomic_file.h"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <system_error>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/errors.h"

namespace alluvium {

namespace fs = std::filesystem;

std::string displayPath(const fs::path& path) {
    std::string s = path.string();
    for (char& c : s) {
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
    }
    return s;
}

namespace {

[[noreturn]] void failWrite(const fs::path& path, const std::string& reason) {
    throw InputError("cannot write '" + displayPath(path) + "': " + reason);
}

// A name suffix that differs between processes, threads and calls; O_EXCL catches the rest.
std::string tempSuffix(unsigned attempt) {
    static std::atomic<uint64_t> counter{0};
    uint64_t x = static_cast<uint64_t>(::getpid()) * 0x9E3779B97F4A7C15ull;
    x ^= static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
    x ^= (counter.fetch_add(1) + attempt) * 0xBF58476D1CE4E5B9ull;
    x ^= x >> 31;
    x *= 0x94D049BB133111EBull;
    x ^= x >> 29;
    static const char kDigits[] = "abcdefghijklmnopqrstuvwxyz0123456789";
    std::string s = ".tmp-";
    for (int i = 0; i < 6; ++i) {
        s += kDigits[x % 36];
        x /= 36;
    }
    return s;
}

// Removes the temporary file unless released; closes the descriptor if still open.
struct TempFile {
    std::string path;
    int fd = -1;
    bool keep = false;
    ~TempFile() {
        if (fd >= 0) ::close(fd);
        if (!keep && !path.empty()) ::unlink(path.c_str());
    }
};

thread_local OutputBatch* t_batch = nullptr;

// Makes `dir` and its missing parents; tells the open batch which of them are new.
void createFolders(const fs::path& dir, const fs::path& path) {
    std::vector<fs::path> missing;
    std::error_code ec;
    for (fs::path d = dir; !d.empty() && !fs::exists(d, ec) && d.has_relative_path(); d = d.parent_path())
        missing.push_back(d);
    fs::create_directories(dir, ec);
    if (ec) failWrite(path, "cannot create directory '" + displayPath(dir) + "': " + ec.message());
    if (OutputBatch* batch = OutputBatch::current())
        for (auto it = missing.rbegin(); it != missing.rend(); ++it) batch->createdFolder(*it);
}

void syncFolder(const fs::path& dir) {
    // Makes a rename durable; best effort (some file systems refuse fsync on a folder).
    int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        (void)::fsync(dfd);
        ::close(dfd);
    }
}

} // namespace

OutputBatch::OutputBatch() {
    if (t_batch) return; // joins the open one
    t_batch = this;
    outermost_ = true;
}

OutputBatch::~OutputBatch() {
    if (!outermost_) return;
    if (!done_) discard();
    t_batch = nullptr;
}

OutputBatch* OutputBatch::current() { return t_batch; }

void OutputBatch::stage(const fs::path& temporary, const fs::path& target) {
    for (auto& [tmp, to] : staged_)
        if (to == target) { // written again: the newer content replaces the staged one
            ::unlink(tmp.c_str());
            tmp = temporary;
            return;
        }
    staged_.emplace_back(temporary, target);
}

void OutputBatch::createdFolder(const fs::path& folder) { folders_.push_back(folder); }

void OutputBatch::commit() {
    if (!outermost_ || done_) return;
    done_ = true;
    t_batch = nullptr;
    for (size_t i = 0; i < staged_.size(); ++i) {
        const auto& [tmp, target] = staged_[i];
        if (::rename(tmp.c_str(), target.c_str()) != 0) {
            const int err = errno;
            staged_.erase(staged_.begin(), staged_.begin() + std::ptrdiff_t(i));
            discard();
            failWrite(target, std::strerror(err));
        }
        fs::path dir = target.parent_path();
        syncFolder(dir.empty() ? fs::path(".") : dir);
    }
    staged_.clear();
}

void OutputBatch::discard() {
    for (const auto& staged : staged_) ::unlink(staged.first.c_str());
    staged_.clear();
    std::error_code ec;
    for (auto it = folders_.rbegin(); it != folders_.rend(); ++it) fs::remove(*it, ec); // only if empty
    folders_.clear();
}

void writeFileAtomic(const fs::path& path, std::span<const std::byte> bytes) {
    if (path.empty() || !path.has_filename()) failWrite(path, "not a file name");
    fs::path dir = path.parent_path();
    if (dir.empty()) dir = ".";

    std::error_code ec;
    if (!fs::is_directory(dir, ec)) createFolders(dir, path);

    TempFile tmp;
    for (unsigned attempt = 0; attempt < 100 && tmp.fd < 0; ++attempt) {
        tmp.path = (dir / (path.filename().string() + tempSuffix(attempt))).string();
        tmp.fd = ::open(tmp.path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (tmp.fd < 0) {
            int err = errno;
            tmp.path.clear(); // nothing of ours to remove
            if (err != EEXIST) failWrite(path, std::strerror(err));
        }
    }
    if (tmp.fd < 0) failWrite(path, "cannot create a unique temporary file");

    const std::byte* data = bytes.data();
    std::size_t left = bytes.size();
    while (left > 0) {
        ssize_t n = ::write(tmp.fd, data, left);
        if (n < 0) {
            if (errno == EINTR) continue;
            failWrite(path, std::strerror(errno));
        }
        data += n;
        left -= static_cast<std::size_t>(n);
    }
    if (::fsync(tmp.fd) != 0) failWrite(path, std::strerror(errno));
    int fd = tmp.fd;
    tmp.fd = -1;
    if (::close(fd) != 0) failWrite(path, std::strerror(errno));
    if (OutputBatch* batch = OutputBatch::current()) {
        if (fs::is_directory(path, ec)) failWrite(path, std::strerror(EISDIR)); // commit's rename would fail
        batch->stage(tmp.path, path);                                           // renamed with the others at commit
        tmp.keep = true;
        return;
    }
    if (::rename(tmp.path.c_str(), path.c_str()) != 0) failWrite(path, std::strerror(errno));
    tmp.keep = true;
    syncFolder(dir);
}

void checkWritableLocation(const fs::path& path, const std::string& what) {
    std::error_code ec;
    fs::path dir = path.parent_path();
    while (!dir.empty() && !fs::exists(dir, ec) && dir.has_relative_path()) dir = dir.parent_path();
    if (dir.empty()) dir = ".";
    if (!fs::is_directory(dir, ec)) return; // reported by the caller's own checks
    for (unsigned attempt = 0; attempt < 100; ++attempt) {
        const std::string probe = (dir / (".alluvium-probe" + tempSuffix(attempt))).string();
        const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd >= 0) {
            ::close(fd);
            ::unlink(probe.c_str());
            return;
        }
        if (errno != EEXIST)
            throw InputError(what + " '" + displayPath(path) + "': cannot write in '" + displayPath(dir) +
                             "': " + std::strerror(errno));
    }
}

void writeTextAtomic(const fs::path& path, const std::string& text) {
    writeFileAtomic(path, std::as_bytes(std::span<const char>(text.data(), text.size())));
}

} // namespace alluvium
