// A grid split over processes (mpirun), one block each: where the blocks lie, the bytes the
// processes swap, and the fold of the step's sums in the order one device folds them.
//
// Each process holds its block (the cells it owns) and a ghost band around it, as wide as a step
// reaches (the pipe step's passes read one or two neighbours each): after every step the bands
// are swapped with the neighbours' owned cells, so the owned cells compute what the whole grid's
// would. The blocks' edges sit on the workgroup tiles of the whole grid, so the owned tiles'
// partial sums are the whole grid's; gathered, they fold in the one device's order
// (reduce_partials.comp) and every process keeps the same totals to the bit.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "shared.h"
#include "vk_check.h"
#include "workgroup.h"

namespace alluvium::gpu {

// What carries bytes between the processes (app/processes.cpp: MPI); the simulation knows no more.
// Every process makes the same calls in the same order.
class Transport {
public:
    virtual ~Transport() = default;
    virtual int rank() const = 0;
    virtual int size() const = 0;
    // Every process's `bytes[r]` bytes, rank after rank, into `all`; `mine` is this process's.
    virtual void allGather(const void* mine, void* all, const std::vector<size_t>& bytes) = 0;
    // Every process's `bytes[r]` bytes, rank after rank, into `all` on rank 0 (the others' `all`
    // is not written).
    virtual void gatherToRoot(const void* mine, void* all, const std::vector<size_t>& bytes) = 0;
    // Sends send[r] to process r and receives what every process sends this one, rank after rank,
    // into `recv` (all take part).
    virtual void allToAll(const std::vector<std::vector<char>>& send, std::vector<char>& recv) = 0;
    // Sends to `to` and receives from `from` at once (-1: no such process; nothing moves).
    virtual void swap(const void* send, size_t send_bytes, int to, void* recv, size_t recv_bytes, int from) = 0;
};

// Every process's `value`, rank after rank.
std::vector<double> everyValue(Transport& transport, double value);

// A vector's bytes, as a message.
template <class T> std::vector<char> bytesOf(const std::vector<T>& v) {
    std::vector<char> out(v.size() * sizeof(T));
    if (!v.empty()) std::memcpy(out.data(), v.data(), out.size());
    return out;
}

// Every process's `mine`, of any length, rank after rank, on rank 0 (the others get nothing
// back); adds the bytes this process sent or received (rank 0: all) to `bytes`.
template <class T> std::vector<T> gatherVectors(Transport& transport, const std::vector<T>& mine, uint64_t& bytes) {
    std::vector<size_t> sizes;
    size_t total = 0;
    for (double b : everyValue(transport, double(mine.size() * sizeof(T)))) total += sizes.emplace_back(size_t(b));
    std::vector<T> all(transport.rank() == 0 ? total / sizeof(T) : 0);
    transport.gatherToRoot(mine.data(), all.data(), sizes);
    bytes += transport.rank() == 0 ? total : mine.size() * sizeof(T);
    return all;
}

struct Rect {
    int x = 0, y = 0, w = 0, h = 0;
    size_t cells() const { return size_t(w) * size_t(h); }
};

// Rank 0's `whole` (row-major, `width` cells a row, `channels` floats a cell) cut into `rects[r]`
// for each process r: each gets its own, row by row (the others' `whole` is not read). Rank 0
// sends one rect at a time, in messages of at most `message_floats` (256 MiB).
std::vector<float> scatterRects(Transport& transport, const std::vector<float>& whole, int width, int channels,
                                const std::vector<Rect>& rects, size_t message_floats = size_t(64) << 20);

// Every process's `mine` (its `rects[r]`, row by row, `channels` values a cell) into the whole
// `width` x `height` grid on rank 0 (the others get nothing back).
template <class T>
std::vector<T> gatherRects(Transport& transport, const std::vector<T>& mine, int width, int height, int channels,
                           const std::vector<Rect>& rects) {
    std::vector<size_t> bytes;
    size_t total = 0;
    for (const Rect& r : rects) total += bytes.emplace_back(r.cells() * size_t(channels) * sizeof(T));
    if (transport.rank() != 0) {
        transport.gatherToRoot(mine.data(), nullptr, bytes);
        return {};
    }
    std::vector<T> all(total / sizeof(T));
    transport.gatherToRoot(mine.data(), all.data(), bytes);
    std::vector<T> whole(size_t(width) * size_t(height) * size_t(channels));
    size_t at = 0;
    for (const Rect& q : rects) {
        const size_t row = size_t(q.w) * size_t(channels);
        for (int y = q.y; y < q.y + q.h; ++y, at += row)
            std::copy_n(all.begin() + std::ptrdiff_t(at), row,
                        whole.begin() + std::ptrdiff_t((size_t(y) * size_t(width) + size_t(q.x)) * size_t(channels)));
    }
    return whole;
}

// The blocks: `cols` x `rows` of them, rank r at column r % cols, row r / cols.
struct BlockGrid {
    int width = 0, height = 0;    // the whole grid
    int cols = 1, rows = 1;       // blocks across and down
    std::vector<int> xs, ys;      // their edges: block i spans columns xs[i] .. xs[i + 1] - 1
    int halo_x = 0, halo_y = 0;   // the ghost band's width where a block has a neighbour
    WorkgroupShape shape{16, 16}; // the tiles the edges sit on

    int count() const { return cols * rows; }
    Rect owned(int rank) const;                    // whole-grid cells
    Rect local(int rank) const;                    // what the process holds: owned and its bands (whole-grid cells)
    int neighbour(int rank, int dx, int dy) const; // -1 at the grid's edge
    int ownerOf(int x, int y) const;               // the block owning whole-grid cell (x, y)
};

// A grid too small for its processes: every process finds it alike.
struct SplitError : DeviceError {
    using DeviceError::DeviceError;
};

// Cells a step reaches beyond its own under these parameters (the band's least width).
int stepReach(const SimParams& params);
// Splits a W x H grid into `ranks` blocks with the fewest band cells, their edges on the tiles of
// `shape`, each at least the band wide. Throws SplitError naming what does not fit.
BlockGrid splitGrid(int width, int height, int ranks, WorkgroupShape shape, int reach);

// The fold of the step's sums on the host, in reduce_partials.comp's order and arithmetic
// (doubles: blocks of REDUCE_SIZE, each in chunks of 16, level by level), from the whole grid's
// first level (slot-major, `groups` partials a slot) to one value a slot.
std::vector<double> foldOnHost(const std::vector<double>& level0, uint32_t groups);
// The fold's first level gathered from the blocks with fewer bytes, the same doubles: where the 16
// workgroups reduce_partials.comp adds first (a run) all lie in one block, that block sends their
// sum; where the 256 of a fold block (16 runs) do, their sum; elsewhere the workgroups' partials.
// Every process plans every block's message from the blocks alone, so it reads them all.
struct FoldPlan {
    enum Kind : uint8_t { kChunk, kRun, kGroup };
    struct Item {
        Kind kind;
        uint32_t index; // of the fold block, the run or the workgroup (whole grid, row-major)
    };
    uint32_t groups = 0, runs = 0, chunks = 0;
    std::vector<std::vector<Item>> items; // per rank, in the order its message holds them
};
FoldPlan planFold(const BlockGrid& grid);
// One slot's message of `rank`: its items' values from `partial` (a workgroup's partial, whole-grid
// index; called for the rank's own workgroups only).
template <class PartialOf>
std::vector<double> foldMessage(const FoldPlan& plan, int rank, bool is_max, PartialOf partial);
// One slot's first fold level (plan.chunks values) from every rank's message of that slot.
std::vector<double> foldFromMessages(const FoldPlan& plan, const std::vector<const double*>& messages, bool is_max);

// grid_totals.comp's sum of one slot of per-workgroup sums (`per_group` of them each), in its
// order: strided over REDUCE_SIZE lanes, then a tree.
double gridTotalOnHost(const double* sums, uint32_t groups, uint32_t per_group);

// [SECTION] the fold's messages (templates)

namespace fold_detail {
// reduce_partials.comp's innermost order: 16 values from 0.0 in turn, zeros from `end` on (the
// partials of a run, or a fold block's 16 runs).
template <class ValueOf> double sixteen(uint32_t first, uint32_t end, bool is_max, ValueOf value) {
    double acc = 0.0;
    for (uint32_t k = first; k < first + 16; ++k) {
        const double v = k < end ? value(k) : 0.0;
        acc = is_max ? (acc < v ? v : acc) : acc + v;
    }
    return acc;
}
} // namespace fold_detail

template <class PartialOf>
std::vector<double> foldMessage(const FoldPlan& plan, int rank, bool is_max, PartialOf partial) {
    using fold_detail::sixteen;
    // reduce_partials.comp's order: 16 partials a run, 16 runs a fold block.
    auto run = [&](uint32_t r) { return sixteen(r * 16, plan.groups, is_max, partial); };
    std::vector<double> out;
    out.reserve(plan.items[size_t(rank)].size());
    for (const FoldPlan::Item& item : plan.items[size_t(rank)]) {
        if (item.kind == FoldPlan::kGroup) {
            out.push_back(partial(item.index));
        } else if (item.kind == FoldPlan::kRun) {
            out.push_back(run(item.index));
        } else {
            out.push_back(sixteen(item.index * 16, plan.runs, is_max, run));
        }
    }
    return out;
}

} // namespace alluvium::gpu
