// The lake solve's inflows: range sums with a bound on the ordered sum (see lake_inflows.h).
#include "lake_inflows.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

namespace alluvium::gpu {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// The exponent of the lowest set bit of x: x is a multiple of 2^grain.
int grainOf(double x, int none) {
    if (x == 0.0) return none;
    if (!std::isfinite(x)) return -none; // never exact
    uint64_t bits;
    std::memcpy(&bits, &x, 8);
    const int exponent = int((bits >> 52) & 0x7FFu);
    uint64_t mantissa = bits & ((uint64_t(1) << 52) - 1u);
    if (exponent == 0) return -1074 + std::countr_zero(mantissa); // subnormal
    mantissa |= uint64_t(1) << 52;
    return exponent - 1075 + std::countr_zero(mantissa);
}

} // namespace

LakeInflows::LakeInflows(const std::vector<double>& rain)
    : size_(int(rain.size())), rain_(rain), tree_(2 * rain.size()), last_spill_(rain.size(), -1) {
    for (int p = 0; p < size_; ++p) tree_[size_t(size_ + p)] = term(rain[size_t(p)]);
    for (int i = size_ - 1; i >= 1; --i) tree_[size_t(i)] = combine(tree_[size_t(2 * i)], tree_[size_t(2 * i + 1)]);
}

LakeInflows::Sum LakeInflows::term(double x) { return {x, std::fabs(x), 1.0, grainOf(x, kNoGrain)}; }

LakeInflows::Sum LakeInflows::combine(const Sum& a, const Sum& b) {
    return {a.value + b.value, a.magnitude + b.magnitude, a.terms + b.terms, std::min(a.grain, b.grain)};
}

void LakeInflows::add(int position, double amount) {
    spills_.push_back({amount, last_spill_[size_t(position)]});
    last_spill_[size_t(position)] = int(spills_.size()) - 1;
    size_t i = size_t(size_ + position);
    tree_[i] = combine(tree_[i], term(amount));
    for (i >>= 1; i >= 1; i >>= 1) tree_[i] = combine(tree_[2 * i], tree_[2 * i + 1]);
}

LakeInflows::Sum LakeInflows::query(int first, int count) const {
    Sum left, right;
    for (int l = size_ + first, r = size_ + first + count; l < r; l >>= 1, r >>= 1) {
        if (l & 1) left = combine(left, tree_[size_t(l++)]);
        if (r & 1) right = combine(tree_[size_t(--r)], right);
    }
    return combine(left, right);
}

LakeInflows::Bounds LakeInflows::bounds(int first, int count) const {
    const Sum s = query(first, count);
    // Every term a multiple of 2^g and their magnitudes summing to at most 2^(53 + g): every
    // partial sum, in any order, is exact, and so is this one. (Summed magnitudes round up to
    // 2^(53 + g) at least once the exact sum passes it: below it, the sum is exact.)
    if (s.magnitude < std::ldexp(1.0, 53 + s.grain)) return {s.value, s.value};
    // Any order of summing n terms lies within gamma_n = n u / (1 - n u) of their magnitudes
    // from the exact sum (u = 2^-53; Higham, Accuracy and Stability, 4.2): the ordered sum and
    // this one, within 2 gamma_n of each other; 4 n u covers it and the roundings of the bound.
    const double nu = s.terms * 0x1p-53;
    const double err = nu < 0.25 ? 4.0 * nu * s.magnitude : kInfinity;
    return {std::nextafter(s.value - err, -kInfinity), std::nextafter(s.value + err, kInfinity)};
}

double LakeInflows::ordered(int first, int count) const {
    double q = 0.0;
    for (int p = first; p < first + count; ++p) q += rain_[size_t(p)];
    std::vector<int> in;
    for (int p = first; p < first + count; ++p)
        for (int s = last_spill_[size_t(p)]; s >= 0; s = spills_[size_t(s)].previous) in.push_back(s);
    std::sort(in.begin(), in.end());
    for (int s : in) q += spills_[size_t(s)].amount;
    return q;
}

} // namespace alluvium::gpu
