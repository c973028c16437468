// Atomic file output: a reader sees the old file or the complete new one, never a partial one.
#pragma once

#include <cstddef>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

namespace alluvium {

// The outputs of one command, all or nothing. While a batch is open on this thread,
// writeFileAtomic leaves each file as its complete temporary beside the target; commit() renames
// them all into place. A batch destroyed without commit (an error on the way) removes its
// temporaries and the folders it created, so a refused command leaves nothing new behind. A
// batch opened inside another joins it: only the outermost commits.
class OutputBatch {
public:
    OutputBatch();
    ~OutputBatch();
    OutputBatch(const OutputBatch&) = delete;
    OutputBatch& operator=(const OutputBatch&) = delete;
    // Renames every staged file into place (in the order written); throws InputError if one
    // cannot be, after removing the temporaries not yet renamed.
    void commit();

    // Used by writeFileAtomic: whether a batch is open, and staging into it.
    static OutputBatch* current();
    void stage(const std::filesystem::path& temporary, const std::filesystem::path& target);
    void createdFolder(const std::filesystem::path& folder);

private:
    void discard();
    bool outermost_ = false;
    bool done_ = false;
    std::vector<std::pair<std::filesystem::path, std::filesystem::path>> staged_; // (temporary, target)
    std::vector<std::filesystem::path> folders_;                                  // created, outermost first
};

// Writes bytes to path atomically: creates the parent directory if missing, writes
// "<path>.tmp-XXXXXX" in the same directory, fsyncs it and renames it over path. The temporary
// file is removed on any failure. Throws InputError "cannot write '<path>': <reason>".
void writeFileAtomic(const std::filesystem::path& path, std::span<const std::byte> bytes);

// Throws InputError "<what> '<path>': cannot write in '<dir>': <reason>" unless a file can be
// created where writeFileAtomic would put `path` (its folder, or the nearest existing folder
// above it, which writeFileAtomic would create the rest in): a read-only folder or file system
// is found before the work whose result would be lost. It creates and removes a probe file.
void checkWritableLocation(const std::filesystem::path& path, const std::string& what);

// Same as writeFileAtomic, for text (written as is, no newline translation).
void writeTextAtomic(const std::filesystem::path& path, const std::string& text);

// The path as a one-line string for messages: control characters become '?'.
std::string displayPath(const std::filesystem::path& path);

} // namespace alluvium
