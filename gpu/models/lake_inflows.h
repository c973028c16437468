// The inflows of the lake solve (lakes.cpp): per basin, by its position in the merge tree's
// depth-first order (so every node's basins are a range), its rain and the spills that enter it.
// A node's inflow is a double sum in a fixed order: its basins' rain by position, then the
// spills in the order they were added. Summed that way at every level of a deep merge tree, it
// would cost O(n) a level; so a range's sum is kept (a segment tree: O(log n) a query or a spill)
// in some other order, with a rigorous bound on how far the ordered sum can lie from it, and the
// ordered sum is taken only where a decision falls inside the bound (or a spill's amount needs
// it): the decisions, and so the lakes, are those of the ordered sum bit for bit.
#pragma once
#include <cstdint>
#include <vector>

namespace alluvium::gpu {

class LakeInflows {
public:
    // The ordered sum lies in [lo, hi]; lo == hi: it is exactly that value.
    struct Bounds {
        double lo = 0.0, hi = 0.0;
    };

    // rain: each basin's, by position.
    explicit LakeInflows(const std::vector<double>& rain);
    // A spill of `amount` into the basin at `position`, after every spill added before it.
    void add(int position, double amount);
    // The ordered sum over the positions [first, first + count): bounded in O(log n) ...
    Bounds bounds(int first, int count) const;
    // ... and summed in its order, in O(count + the spills there, log).
    double ordered(int first, int count) const;

private:
    // Some terms: their sum in some order, the sum of their magnitudes, how many, and the
    // power of two every one of them is a multiple of (kNoGrain: all zero).
    struct Sum {
        double value = 0.0, magnitude = 0.0;
        double terms = 0.0;
        int grain = kNoGrain;
    };
    static constexpr int kNoGrain = 1 << 20;
    static Sum term(double x);
    static Sum combine(const Sum& a, const Sum& b);
    Sum query(int first, int count) const;

    struct Spill {
        double amount;
        int previous; // the spill into the same basin before it (-1: none)
    };
    int size_;
    std::vector<double> rain_;
    std::vector<Sum> tree_;       // tree_[size_ + p]: position p; tree_[i]: tree_[2i] and tree_[2i + 1]
    std::vector<Spill> spills_;   // in the order added
    std::vector<int> last_spill_; // per position (-1: none)
};

} // namespace alluvium::gpu
