// Atomic file output: a reader sees the old file or the complete new one, never a partial one.
#pragma once

#include <cstddef>
#include <filesystem>
#include <span>
#include <string>

namespace alluvium {

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
