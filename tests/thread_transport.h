// Processes as threads, for the tests of what split processes exchange (gpu/blocks.h's Transport):
// each call moves messages as MPI does (a message waits for its receiver to take it), so a
// process that calls out of turn waits for ever, as it would under mpirun.
#pragma once
#include <gtest/gtest.h>

#include <condition_variable>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "blocks.h"

namespace alluvium::test {
namespace {

class ThreadTransport final : public gpu::Transport {
public:
    struct Shared {
        std::mutex lock;
        std::condition_variable changed;
        std::map<std::pair<int, int>, std::deque<std::vector<char>>> messages; // (from, to)
    };
    ThreadTransport(Shared& shared, int rank, int size) : shared_(shared), rank_(rank), size_(size) {}
    int rank() const override { return rank_; }
    int size() const override { return size_; }
    void allGather(const void* mine, void* all, const std::vector<size_t>& bytes) override {
        const char* p = static_cast<const char*>(mine);
        for (int r = 0; r < size_; ++r) send(r, std::vector<char>(p, p + bytes[size_t(rank_)]));
        receiveAll(static_cast<char*>(all), &bytes);
    }
    void gatherToRoot(const void* mine, void* all, const std::vector<size_t>& bytes) override {
        const char* p = static_cast<const char*>(mine);
        send(0, std::vector<char>(p, p + bytes[size_t(rank_)]));
        if (rank_ == 0) receiveAll(static_cast<char*>(all), &bytes);
    }
    void allToAll(const std::vector<std::vector<char>>& out, std::vector<char>& in) override {
        for (int r = 0; r < size_; ++r) send(r, out[size_t(r)]);
        in.clear();
        for (int r = 0; r < size_; ++r) {
            const std::vector<char> part = receive(r);
            in.insert(in.end(), part.begin(), part.end());
        }
    }
    void swap(const void* out, size_t out_bytes, int to, void* in, size_t in_bytes, int from) override {
        if (to >= 0)
            send(to, std::vector<char>(static_cast<const char*>(out), static_cast<const char*>(out) + out_bytes));
        if (from < 0) return;
        std::vector<char> got = receive(from);
        EXPECT_EQ(got.size(), in_bytes);
        std::memcpy(in, got.data(), std::min(got.size(), in_bytes));
    }

private:
    void receiveAll(char* all, const std::vector<size_t>* bytes) {
        size_t at = 0;
        for (int r = 0; r < size_; ++r) {
            const std::vector<char> part = receive(r);
            EXPECT_EQ(part.size(), (*bytes)[size_t(r)]);
            if (!part.empty()) std::memcpy(all + at, part.data(), part.size());
            at += part.size();
        }
    }
    void send(int to, std::vector<char> bytes) {
        std::lock_guard<std::mutex> hold(shared_.lock);
        shared_.messages[{rank_, to}].push_back(std::move(bytes));
        shared_.changed.notify_all();
    }
    std::vector<char> receive(int from) {
        std::unique_lock<std::mutex> hold(shared_.lock);
        auto& queue = shared_.messages[{from, rank_}];
        shared_.changed.wait(hold, [&] { return !queue.empty(); });
        std::vector<char> bytes = std::move(queue.front());
        queue.pop_front();
        return bytes;
    }
    Shared& shared_;
    int rank_, size_;
};

// Runs `body(transport)` on `ranks` threads at once.
inline void onProcesses(int ranks, const std::function<void(gpu::Transport&)>& body) {
    ThreadTransport::Shared shared;
    std::vector<std::thread> threads;
    for (int r = 0; r < ranks; ++r)
        threads.emplace_back([&, r] {
            ThreadTransport t(shared, r, ranks);
            body(t);
        });
    for (std::thread& t : threads) t.join();
}

} // namespace
} // namespace alluvium::test
