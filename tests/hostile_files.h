// Mutated files for the hostile-input tests (test_hostile.cpp): byte-level mutations (bit flips,
// interesting integers written over sizes and offsets, truncation, duplicated or deleted slices,
// junk), and the checksums fixed afterwards where a format has them (PNG chunk CRCs, the session's
// FNV-1a), so a lie reaches the reader's own checks instead of stopping at the checksum.
#pragma once
#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include <zlib.h>

namespace alluvium::test::hostile {

using Bytes = std::vector<unsigned char>;

inline uint32_t readBE32(const Bytes& b, size_t at) {
    return uint32_t(b[at]) << 24 | uint32_t(b[at + 1]) << 16 | uint32_t(b[at + 2]) << 8 | uint32_t(b[at + 3]);
}
inline void writeBE32(Bytes& b, size_t at, uint32_t v) {
    for (int i = 0; i < 4; ++i) b[at + size_t(i)] = static_cast<unsigned char>(v >> (24 - 8 * i));
}

// One to three mutations of `in`.
inline Bytes mutate(const Bytes& in, std::mt19937_64& rng) {
    Bytes b = in;
    auto pick = [&](size_t n) {
        return n == 0 ? size_t(0) : size_t(std::uniform_int_distribution<uint64_t>(0, n - 1)(rng));
    };
    static const uint32_t kInteresting[] = {0u,     1u,          2u,          0x7fu,       0x80u,       0xffu,
                                            0x100u, 0x7fffu,     0x8000u,     0xffffu,     0x10000u,    16384u,
                                            16385u, 0x7fffffffu, 0x80000000u, 0xffffffffu, 0xfffffffeu, 1u << 28};
    const int ops = 1 + int(pick(3));
    for (int k = 0; k < ops && !b.empty(); ++k) {
        switch (pick(7)) {
        case 0: // flip a few bits
            for (size_t i = 0, n = 1 + pick(4); i < n; ++i)
                b[pick(b.size())] ^= static_cast<unsigned char>(1u << pick(8));
            break;
        case 1: // a byte of an interesting value
            b[pick(b.size())] = static_cast<unsigned char>(kInteresting[pick(6)]);
            break;
        case 2: { // an interesting 16- or 32-bit integer, either byte order: a lying size or offset
            const uint32_t v = kInteresting[pick(sizeof kInteresting / sizeof kInteresting[0])];
            const size_t width = pick(2) ? 4 : 2, at = pick(b.size());
            const bool big = pick(2) != 0;
            for (size_t i = 0; i < width && at + i < b.size(); ++i)
                b[at + i] = static_cast<unsigned char>(v >> (8 * (big ? width - 1 - i : i)));
            break;
        }
        case 3: // truncated
            b.resize(pick(b.size()));
            break;
        case 4: { // a slice duplicated elsewhere
            const size_t from = pick(b.size()), n = std::min(pick(64) + 1, b.size() - from);
            const Bytes slice(b.begin() + long(from), b.begin() + long(from + n));
            b.insert(b.begin() + long(pick(b.size() + 1)), slice.begin(), slice.end());
            break;
        }
        case 5: { // a slice deleted
            const size_t from = pick(b.size()), n = std::min(pick(64) + 1, b.size() - from);
            b.erase(b.begin() + long(from), b.begin() + long(from + n));
            break;
        }
        default: // junk appended
            for (size_t i = 0, n = 1 + pick(32); i < n; ++i) b.push_back(static_cast<unsigned char>(pick(256)));
            break;
        }
    }
    return b;
}

// Recomputes every PNG chunk's CRC (the chunks the length fields describe, as far as they fit).
inline void fixPngCrcs(Bytes& b) {
    size_t at = 8;
    while (at + 12 <= b.size()) {
        const uint64_t length = readBE32(b, at);
        if (at + 12 + length > b.size()) break;
        const uLong crc = crc32(0L, b.data() + at + 4, static_cast<uInt>(length + 4));
        writeBE32(b, at + 8 + size_t(length), static_cast<uint32_t>(crc));
        at += 12 + size_t(length);
    }
}

// Recomputes a session file's trailing FNV-1a 64 checksum over bytes 24 .. end - 8.
inline void fixSessionChecksum(Bytes& b) {
    if (b.size() < 32) return;
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 24; i < b.size() - 8; ++i) {
        h ^= b[i];
        h *= 0x100000001b3ull;
    }
    for (int i = 0; i < 8; ++i) b[b.size() - 8 + size_t(i)] = static_cast<unsigned char>(h >> (8 * i));
}

} // namespace alluvium::test::hostile
