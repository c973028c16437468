// One process's block of a split grid (gpu/block_exchange.h).
//
// The bands swap in two phases, so the corners need no diagonal messages: first left and right
// (the owned rows), then up and down whole rows of the block, their ends taken from what the first
// phase brought (a diagonal neighbour's corner reaches this block through the one beside it).
#include "block_exchange.h"

#include <algorithm>
#include <array>
#include <cstring>

#include "passes.h"
#include "vk_check.h"

namespace alluvium::gpu {

// The strips of a block, in the block's cells: what it sends (the top and bottom ones only over
// its owned columns: the ends come from the first phase) and where what it receives goes. (Not
// in the anonymous namespace: BlockExchange::Strips holds one.)
struct BandRects {
    std::array<Rect, 4> send, recv;
};

namespace {

enum { kLeft, kRight, kTop, kBottom };

BandRects bandRects(const BlockGrid& g, int rank) {
    const Rect l = g.local(rank), o = g.owned(rank);
    const int ox0 = o.x - l.x, oy0 = o.y - l.y, ox1 = ox0 + o.w, oy1 = oy0 + o.h;
    const int hl = ox0, hr = l.w - ox1, ht = oy0, hb = l.h - oy1;
    BandRects b;
    b.send = {Rect{ox0, oy0, hl, o.h}, Rect{ox1 - hr, oy0, hr, o.h}, Rect{ox0, oy0, o.w, ht},
              Rect{ox0, oy1 - hb, o.w, hb}};
    b.recv = {Rect{0, oy0, hl, o.h}, Rect{ox1, oy0, hr, o.h}, Rect{0, 0, l.w, ht}, Rect{0, oy1, l.w, hb}};
    return b;
}

size_t align16(size_t v) { return (v + 15) / 16 * 16; }

// Copies `rows` rows of `row_bytes` between two row-major layouts.
void copyRows(char* dst, size_t dst_pitch, const char* src, size_t src_pitch, size_t row_bytes, int rows) {
    for (int r = 0; r < rows; ++r) std::memcpy(dst + size_t(r) * dst_pitch, src + size_t(r) * src_pitch, row_bytes);
}

VkBufferImageCopy region(VkDeviceSize offset, const Rect& r) {
    VkBufferImageCopy c{};
    c.bufferOffset = offset;
    c.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    c.imageOffset = {r.x, r.y, 0};
    c.imageExtent = {uint32_t(r.w), uint32_t(r.h), 1};
    return c;
}

} // namespace

struct BlockExchange::Strips {
    BandRects rects;
    std::vector<std::array<size_t, 4>> out_at, in_at; // per image and side: its offset in out_, in_
};

BlockExchange::BlockExchange(const Context& ctx, Transport& transport, const BlockGrid& grid)
    : ctx_(ctx), transport_(transport), grid_(grid), rank_(transport.rank()) {
    ALLUVIUM_ASSERT(grid.count() == transport.size());
}

BlockExchange::~BlockExchange() {
    destroyBuffer(out_, ctx_);
    destroyBuffer(in_, ctx_);
    destroyBuffer(sums_, ctx_);
}

std::vector<float> BlockExchange::scatter(const std::vector<float>& whole, int channels) {
    if (rank_ == 0) ALLUVIUM_ASSERT(whole.size() == size_t(grid_.width) * size_t(grid_.height) * size_t(channels));
    std::vector<Rect> rects;
    for (int r = 0; r < ranks(); ++r) rects.push_back(grid_.local(r));
    return scatterRects(transport_, whole, grid_.width, channels, rects);
}

std::vector<float> BlockExchange::gather(const std::vector<float>& block, int channels) {
    const auto start = std::chrono::steady_clock::now();
    const Rect l = local(), o = owned();
    const size_t ch = size_t(channels);
    std::vector<float> mine(o.cells() * ch);
    copyRows(reinterpret_cast<char*>(mine.data()), size_t(o.w) * ch * sizeof(float),
             reinterpret_cast<const char*>(block.data() + (size_t(o.y - l.y) * size_t(l.w) + size_t(o.x - l.x)) * ch),
             size_t(l.w) * ch * sizeof(float), size_t(o.w) * ch * sizeof(float), o.h);
    // (rank 0 alone writes what the fields make: the others send their blocks)
    std::vector<Rect> rects;
    for (int r = 0; r < ranks(); ++r) rects.push_back(grid_.owned(r));
    std::vector<float> whole = gatherRects(transport_, mine, grid_.width, grid_.height, channels, rects);
    countTime(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    return whole;
}

void BlockExchange::setImages(std::vector<const Image*> images) {
    // The same images (parameters changed, not what a step writes): the staging a recorded
    // command buffer may still copy through stays.
    if (images == images_ && strips_) return;
    images_ = std::move(images);
    on_.assign(images_.size(), true);
    texel_.clear();
    strips_ = std::make_unique<Strips>();
    strips_->rects = bandRects(grid_, rank_);
    size_t out = 0, in = 0;
    for (const Image* img : images_) {
        const size_t t = formatTexelBytes(img->format);
        texel_.push_back(t);
        std::array<size_t, 4> o{}, i{};
        for (int k = 0; k < 4; ++k) {
            o[size_t(k)] = out;
            out = align16(out + strips_->rects.send[size_t(k)].cells() * t);
            i[size_t(k)] = in;
            in = align16(in + strips_->rects.recv[size_t(k)].cells() * t);
        }
        strips_->out_at.push_back(o);
        strips_->in_at.push_back(i);
    }
    destroyBuffer(out_, ctx_);
    destroyBuffer(in_, ctx_);
    createBuffer(out_, ctx_, std::max<size_t>(out, 16), 0, true);
    createBuffer(in_, ctx_, std::max<size_t>(in, 16), 0, true);
}

void BlockExchange::recordBandsOut(VkCommandBuffer cmd) {
    computeBarrier(cmd);
    for (size_t i = 0; i < images_.size(); ++i)
        for (size_t k = 0; k < 4 && on_[i]; ++k) {
            const Rect& r = strips_->rects.send[k];
            if (r.cells() == 0) continue;
            const VkBufferImageCopy c = region(strips_->out_at[i][k], r);
            vkCmdCopyImageToBuffer(cmd, images_[i]->image, VK_IMAGE_LAYOUT_GENERAL, out_.buffer, 1, &c);
        }
}

void BlockExchange::swapBands(VkCommandBuffer cmd) {
    recordBandsOut(cmd);
    submitAndRestart(ctx_, cmd);
    swapOnHost();
    recordBandsIn(cmd);
}

void BlockExchange::swapOnHost() {
    const auto start = std::chrono::steady_clock::now();
    const BandRects& b = strips_->rects;
    const char* out = static_cast<const char*>(out_.mapped);
    char* in = static_cast<char*>(in_.mapped);
    // One message per side: every image's strip, image after image.
    auto pack = [&](const std::array<Rect, 4>& rects, int side) {
        size_t bytes = 0;
        for (size_t i = 0; i < images_.size(); ++i)
            if (on_[i]) bytes += rects[size_t(side)].cells() * texel_[i];
        return bytes;
    };
    auto gatherOut = [&](int side) {
        std::vector<char> msg(pack(b.send, side));
        size_t at = 0;
        for (size_t i = 0; i < images_.size(); ++i) {
            if (!on_[i]) continue;
            const size_t n = b.send[size_t(side)].cells() * texel_[i];
            std::memcpy(msg.data() + at, out + strips_->out_at[i][size_t(side)], n);
            at += n;
        }
        return msg;
    };
    const int left = grid_.neighbour(rank_, -1, 0), right = grid_.neighbour(rank_, 1, 0);
    const int up = grid_.neighbour(rank_, 0, -1), down = grid_.neighbour(rank_, 0, 1);
    // Phase 1: left and right.
    const std::vector<char> to_left = gatherOut(kLeft), to_right = gatherOut(kRight);
    from_left_.assign(pack(b.recv, kLeft), 0);
    from_right_.assign(pack(b.recv, kRight), 0);
    transport_.swap(to_left.data(), to_left.size(), left, from_right_.data(), from_right_.size(), right);
    transport_.swap(to_right.data(), to_right.size(), right, from_left_.data(), from_left_.size(), left);
    // Phase 2: up and down, whole rows of the block: the ends from phase 1.
    auto rowsOut = [&](int side) {
        const Rect& own = b.send[size_t(side)];
        const int first = side == kTop ? 0 : b.recv[kLeft].h - own.h; // in the phase-1 strips
        std::vector<char> msg(pack(b.recv, side == kTop ? kTop : kBottom));
        size_t at = 0, at_left = 0, at_right = 0;
        for (size_t i = 0; i < images_.size(); ++i) {
            if (!on_[i]) continue;
            const size_t t = texel_[i];
            const size_t wl = size_t(b.recv[kLeft].w) * t, wo = size_t(own.w) * t, wr = size_t(b.recv[kRight].w) * t;
            for (int r = 0; r < own.h; ++r) {
                char* row = msg.data() + at + size_t(r) * (wl + wo + wr);
                // (An edge block's missing side: no bytes, and no pointer into an empty vector.)
                if (wl > 0) std::memcpy(row, from_left_.data() + at_left + size_t(first + r) * wl, wl);
                std::memcpy(row + wl, out + strips_->out_at[i][size_t(side)] + size_t(r) * wo, wo);
                if (wr > 0) std::memcpy(row + wl + wo, from_right_.data() + at_right + size_t(first + r) * wr, wr);
            }
            at += size_t(own.h) * (wl + wo + wr);
            at_left += size_t(b.recv[kLeft].h) * wl;
            at_right += size_t(b.recv[kRight].h) * wr;
        }
        return msg;
    };
    const std::vector<char> to_up = rowsOut(kTop), to_down = rowsOut(kBottom);
    std::vector<char> from_up(pack(b.recv, kTop)), from_down(pack(b.recv, kBottom));
    transport_.swap(to_up.data(), to_up.size(), up, from_down.data(), from_down.size(), down);
    transport_.swap(to_down.data(), to_down.size(), down, from_up.data(), from_up.size(), up);
    // Into the staging of the copies in.
    const std::array<const std::vector<char>*, 4> received = {&from_left_, &from_right_, &from_up, &from_down};
    for (size_t side = 0; side < 4; ++side) {
        size_t at = 0;
        for (size_t i = 0; i < images_.size(); ++i) {
            if (!on_[i]) continue;
            const size_t n = b.recv[side].cells() * texel_[i];
            std::memcpy(in + strips_->in_at[i][side], received[side]->data() + at, n);
            at += n;
        }
    }
    ++counters_.swaps;
    counters_.band_bytes += double(to_left.size() + to_right.size() + to_up.size() + to_down.size() +
                                   from_left_.size() + from_right_.size() + from_up.size() + from_down.size());
    countTime(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
}

void BlockExchange::recordBandsIn(VkCommandBuffer cmd) {
    for (size_t i = 0; i < images_.size(); ++i)
        for (size_t k = 0; k < 4 && on_[i]; ++k) {
            const Rect& r = strips_->rects.recv[k];
            if (r.cells() == 0) continue;
            const VkBufferImageCopy c = region(strips_->in_at[i][k], r);
            vkCmdCopyBufferToImage(cmd, in_.buffer, images_[i]->image, VK_IMAGE_LAYOUT_GENERAL, 1, &c);
        }
    computeBarrier(cmd);
}

uint32_t BlockExchange::localGroups() const {
    const Rect l = local();
    return groupsCovering(l.w, grid_.shape.x) * groupsCovering(l.h, grid_.shape.y);
}

uint32_t BlockExchange::wholeGroups() const { return workgroupCount(grid_.width, grid_.height, grid_.shape); }

std::vector<uint32_t> BlockExchange::ownedGroups(int rank) const {
    const Rect o = grid_.owned(rank);
    const int sx = grid_.shape.x, sy = grid_.shape.y;
    const uint32_t across = groupsCovering(grid_.width, sx);
    std::vector<uint32_t> groups;
    for (int gy = o.y / sy; gy * sy < o.y + o.h; ++gy)
        for (int gx = o.x / sx; gx * sx < o.x + o.w; ++gx) groups.push_back(uint32_t(gy) * across + uint32_t(gx));
    return groups;
}

void BlockExchange::recordSumsOut(VkCommandBuffer cmd, const Buffer& src, VkDeviceSize offset, uint32_t slots,
                                  uint32_t per_group) {
    const VkDeviceSize bytes = VkDeviceSize(slots) * localGroups() * per_group * sizeof(double);
    if (sums_.size < bytes) {
        destroyBuffer(sums_, ctx_); // no submission uses it: each waits before the next records
        createBuffer(sums_, ctx_, bytes, 0, true);
    }
    sum_slots_ = slots;
    sum_per_group_ = per_group;
    computeBarrier(cmd);
    const VkBufferCopy copy{offset, 0, bytes};
    vkCmdCopyBuffer(cmd, src.buffer, sums_.buffer, 1, &copy);
}

const double* BlockExchange::localSums(uint32_t slot, uint32_t g) const {
    const Rect l = local();
    const int sx = grid_.shape.x, sy = grid_.shape.y;
    const uint32_t across = groupsCovering(grid_.width, sx), local_across = groupsCovering(l.w, sx);
    const uint32_t lx = g % across - uint32_t(l.x / sx), ly = g / across - uint32_t(l.y / sy);
    return static_cast<const double*>(sums_.mapped) +
           (size_t(slot) * localGroups() + size_t(ly) * local_across + lx) * sum_per_group_;
}

std::vector<double> BlockExchange::gatherSums() {
    const auto start = std::chrono::steady_clock::now();
    const uint32_t pg = sum_per_group_, slots = sum_slots_;
    // This block's owned workgroups, slot by slot, in the whole grid's order.
    const std::vector<uint32_t> mine_groups = ownedGroups(rank_);
    std::vector<double> mine;
    mine.reserve(size_t(slots) * mine_groups.size() * pg);
    for (uint32_t slot = 0; slot < slots; ++slot)
        for (uint32_t g : mine_groups) {
            const double* sums = localSums(slot, g);
            mine.insert(mine.end(), sums, sums + pg);
        }
    std::vector<std::vector<uint32_t>> groups(static_cast<size_t>(ranks()));
    std::vector<size_t> bytes(static_cast<size_t>(ranks()));
    size_t total = 0;
    for (int r = 0; r < ranks(); ++r) {
        groups[size_t(r)] = ownedGroups(r);
        total += bytes[size_t(r)] = size_t(slots) * groups[size_t(r)].size() * pg * sizeof(double);
    }
    std::vector<double> all(total / sizeof(double));
    transport_.allGather(mine.data(), all.data(), bytes);
    const uint32_t whole = wholeGroups();
    std::vector<double> sorted(size_t(slots) * whole * pg, 0.0);
    size_t at = 0;
    for (int r = 0; r < ranks(); ++r)
        for (uint32_t slot = 0; slot < slots; ++slot)
            for (uint32_t g : groups[size_t(r)]) {
                std::copy_n(all.data() + at, pg, sorted.data() + (size_t(slot) * whole + g) * pg);
                at += pg;
            }
    ++counters_.gathers;
    counters_.sum_bytes += double(total);
    countTime(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    return sorted;
}

std::vector<double> BlockExchange::foldSums(const std::vector<bool>& active) {
    const auto start = std::chrono::steady_clock::now();
    if (!fold_plan_) fold_plan_ = std::make_unique<FoldPlan>(planFold(grid_));
    const FoldPlan& plan = *fold_plan_;
    std::vector<int> slots; // the active ones, in order
    for (int slot = 0; slot < REDUCE_SLOTS; ++slot)
        if (active[size_t(slot)]) slots.push_back(slot);
    std::vector<double> mine;
    for (int slot : slots) {
        const std::vector<double> m =
            foldMessage(plan, rank_, slotIsMax(slot), [&](uint32_t g) { return *localSums(uint32_t(slot), g); });
        mine.insert(mine.end(), m.begin(), m.end());
    }
    std::vector<size_t> bytes(static_cast<size_t>(ranks())), at(static_cast<size_t>(ranks()));
    size_t total = 0;
    for (size_t r = 0; r < bytes.size(); ++r) {
        at[r] = total / sizeof(double);
        total += bytes[r] = slots.size() * plan.items[r].size() * sizeof(double);
    }
    std::vector<double> all(total / sizeof(double));
    transport_.allGather(mine.data(), all.data(), bytes);
    std::vector<double> level1(size_t(REDUCE_SLOTS) * plan.chunks, 0.0);
    for (size_t k = 0; k < slots.size(); ++k) {
        std::vector<const double*> messages;
        for (size_t r = 0; r < bytes.size(); ++r) messages.push_back(all.data() + at[r] + k * plan.items[r].size());
        const std::vector<double> chunks = foldFromMessages(plan, messages, slotIsMax(slots[k]));
        std::copy(chunks.begin(), chunks.end(), level1.begin() + std::ptrdiff_t(size_t(slots[k]) * plan.chunks));
    }
    ++counters_.gathers;
    counters_.sum_bytes += double(total);
    countTime(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    return plan.chunks > 1 ? foldOnHost(level1, plan.chunks) : level1;
}

std::vector<double> BlockExchange::everyProcess(double value) { return everyValue(transport_, value); }

} // namespace alluvium::gpu
