// Tests of the terrain generator (app/io/terrain_gen): deterministic, finite, layered hardness,
// shaped like mountains at any resolution, and saved like any heightmap. The heightmap files:
// test_io.cpp and test_io_errors.cpp; the helpers: io_files.h.
//
// [SECTION] helpers: roughness, summits, finite maps
// [SECTION] generated terrain
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "io/errors.h"
#include "io/heightmap.h"
#include "io/terrain_gen.h"

#include "io_files.h"
#include "test_util.h"

namespace fs = std::filesystem;
using namespace alluvium;

// [SECTION] helpers ---------------------------------------------------------------------------
namespace {

using test::expectInputError;

// Standard deviation of the 5-point Laplacian (m / cell^2 * cell^2 = m) over inner cells.
double laplacianStd(const Heightmap& m) {
    double s = 0.0, s2 = 0.0;
    long n = 0;
    for (int y = 1; y < m.height - 1; ++y) {
        for (int x = 1; x < m.width - 1; ++x) {
            const double l = static_cast<double>(m.at(x - 1, y)) + m.at(x + 1, y) + m.at(x, y - 1) + m.at(x, y + 1) -
                             4.0 * m.at(x, y);
            s += l;
            s2 += l * l;
            ++n;
        }
    }
    const double mean = s / static_cast<double>(n);
    return std::sqrt(std::max(0.0, s2 / static_cast<double>(n) - mean * mean));
}

// Cells strictly higher than all 8 neighbours.
int localMaxima(const Heightmap& m) {
    int count = 0;
    for (int y = 1; y < m.height - 1; ++y) {
        for (int x = 1; x < m.width - 1; ++x) {
            bool top = true;
            for (int dy = -1; dy <= 1 && top; ++dy)
                for (int dx = -1; dx <= 1 && top; ++dx)
                    if ((dx || dy) && m.at(x + dx, y + dy) >= m.at(x, y)) top = false;
            count += top;
        }
    }
    return count;
}

void expectAllFinite(const GeneratedTerrain& t) {
    ASSERT_EQ(t.terrain.heights.size(), static_cast<std::size_t>(t.terrain.width) * t.terrain.height);
    ASSERT_EQ(t.hardness.size(), t.terrain.heights.size());
    for (std::size_t i = 0; i < t.hardness.size(); ++i) {
        ASSERT_TRUE(std::isfinite(t.terrain.heights[i])) << "height " << i;
        ASSERT_GE(t.terrain.heights[i], 0.0f) << "height " << i;
        ASSERT_TRUE(std::isfinite(t.hardness[i])) << "hardness " << i;
        ASSERT_GE(t.hardness[i], 0.0f);
        ASSERT_LE(t.hardness[i], 1.0f);
    }
}

} // namespace

// [SECTION] generated terrain -----------------------------------------------------------------

TEST(TerrainGen, DeterministicForSameSeed) {
    const GeneratedTerrain a = generateTerrain(200, 120, 42, 5.0);
    const GeneratedTerrain b = generateTerrain(200, 120, 42, 5.0);
    ASSERT_EQ(a.terrain.heights.size(), b.terrain.heights.size());
    EXPECT_EQ(std::memcmp(a.terrain.heights.data(), b.terrain.heights.data(), a.terrain.heights.size() * sizeof(float)),
              0);
    EXPECT_EQ(std::memcmp(a.hardness.data(), b.hardness.data(), a.hardness.size() * 4), 0);
}

TEST(TerrainGen, DifferentSeedsDiffer) {
    const GeneratedTerrain a = generateTerrain(128, 128, 1, 4.0);
    const GeneratedTerrain b = generateTerrain(128, 128, 2, 4.0);
    std::size_t same = 0;
    for (std::size_t i = 0; i < a.terrain.heights.size(); ++i) same += a.terrain.heights[i] == b.terrain.heights[i];
    EXPECT_LT(same, a.terrain.heights.size() / 100);
    // Seeds differing only in high bits differ too.
    const GeneratedTerrain c = generateTerrain(128, 128, 1 | (1ull << 40), 4.0);
    EXPECT_NE(a.terrain.heights, c.terrain.heights);
}

TEST(TerrainGen, FiniteNonNegativeAndReliefAboutAQuarterOfTheExtent) {
    for (const auto& [w, h, cell] :
         std::vector<std::tuple<int, int, double>>{{256, 256, 4.0}, {200, 120, 10.0}, {97, 61, 1.0}, {64, 256, 2.0}}) {
        for (uint64_t seed : {1ull, 7ull, 123456789ull}) {
            SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h) + " seed " + std::to_string(seed));
            const GeneratedTerrain t = generateTerrain(w, h, seed, cell);
            expectAllFinite(t);
            const auto [lo, hi] = std::minmax_element(t.terrain.heights.begin(), t.terrain.heights.end());
            const double extent = std::min(w, h) * cell;
            EXPECT_NEAR(*lo, 0.0, 1e-6 * extent);
            EXPECT_GE((*hi - *lo) / extent, 0.15);
            EXPECT_LE((*hi - *lo) / extent, 0.35);
        }
    }
}

TEST(TerrainGen, HardnessIsLayeredStrata) {
    const GeneratedTerrain t = generateTerrain(256, 256, 3, 4.0);
    const auto [lo, hi] = std::minmax_element(t.hardness.begin(), t.hardness.end());
    EXPECT_LT(*lo, 0.25f);
    EXPECT_GT(*hi, 0.75f);
    // Layered by altitude: hard and soft both occur in quantity.
    std::size_t soft = 0, hard = 0;
    for (float v : t.hardness) {
        soft += v < 0.4f;
        hard += v > 0.6f;
    }
    EXPECT_GT(soft, t.hardness.size() / 10);
    EXPECT_GT(hard, t.hardness.size() / 10);
    // Bands: walking uphill crosses several hardness changes (about relief/12 thick).
    int changes = 0;
    std::vector<std::pair<float, float>> by_height;
    for (std::size_t i = 0; i < t.hardness.size(); i += 7) by_height.push_back({t.terrain.heights[i], t.hardness[i]});
    std::sort(by_height.begin(), by_height.end());
    bool was_hard = by_height.front().second > 0.5f;
    for (const auto& [hgt, hard_v] : by_height) {
        const bool is_hard = hard_v > 0.5f;
        changes += is_hard != was_hard;
        was_hard = is_hard;
    }
    EXPECT_GE(changes, 6);
}

TEST(TerrainGen, LooksLikeMountainsNotASinusoid) {
    const GeneratedTerrain t = generateTerrain(256, 256, 11, 8.0);
    const Heightmap& m = t.terrain;
    const double relief = 0.25 * 256 * 8.0;
    // Roughness at the cell scale: neither smooth (a sine of the extent's wavelength gives a
    // Laplacian std ~ 1e-3 of the relief here) nor white noise (which would be ~ the relief).
    const double lap = laplacianStd(m);
    EXPECT_GT(lap, 2e-3 * relief) << lap;
    EXPECT_LT(lap, 0.1 * relief) << lap;
    // Many separate summits, not one or two bumps.
    EXPECT_GE(localMaxima(m), 8);
    // Height distribution of a landscape: plenty of low ground, a few high peaks (the mean sits
    // below mid-relief), and every tenth of the range is used.
    double mean = 0.0;
    for (float v : m.heights) mean += v;
    mean /= static_cast<double>(m.heights.size());
    EXPECT_LT(mean, 0.6 * relief);
    EXPECT_GT(mean, 0.1 * relief);
    std::array<int, 10> histogram{};
    for (float v : m.heights) ++histogram[std::min(9, static_cast<int>(v / relief * 10.0))];
    for (int b = 0; b < 10; ++b) EXPECT_GT(histogram[b], 0) << "bin " << b;
    // Slopes of real mountains: mostly between flat and a cliff.
    double slope_sum = 0.0;
    long n = 0;
    for (int y = 1; y < 255; ++y) {
        for (int x = 1; x < 255; ++x) {
            const double gx = (m.at(x + 1, y) - m.at(x - 1, y)) / (2 * 8.0);
            const double gy = (m.at(x, y + 1) - m.at(x, y - 1)) / (2 * 8.0);
            slope_sum += std::sqrt(gx * gx + gy * gy);
            ++n;
        }
    }
    const double mean_gradient = slope_sum / static_cast<double>(n);
    EXPECT_GT(mean_gradient, 0.2); // > ~11 degrees
    EXPECT_LT(mean_gradient, 1.0); // < 45 degrees
}

TEST(TerrainGen, SameLandscapeAtDifferentResolutions) {
    // Same extent (2048 m): 256 cells of 8 m and 512 cells of 4 m.
    const GeneratedTerrain a = generateTerrain(256, 256, 5, 8.0);
    const GeneratedTerrain b = generateTerrain(512, 512, 5, 4.0);
    double sa = 0, sb = 0, sab = 0, saa = 0, sbb = 0, worst = 0;
    const double n = 256.0 * 256.0;
    for (int y = 0; y < 256; ++y) {
        for (int x = 0; x < 256; ++x) {
            const double va = a.terrain.at(x, y);
            const double vb = 0.25 * (static_cast<double>(b.terrain.at(2 * x, 2 * y)) + b.terrain.at(2 * x + 1, 2 * y) +
                                      b.terrain.at(2 * x, 2 * y + 1) + b.terrain.at(2 * x + 1, 2 * y + 1));
            sa += va;
            sb += vb;
            sab += va * vb;
            saa += va * va;
            sbb += vb * vb;
            worst = std::max(worst, std::fabs(va - vb));
        }
    }
    const double cov = sab / n - (sa / n) * (sb / n);
    const double corr = cov / std::sqrt((saa / n - (sa / n) * (sa / n)) * (sbb / n - (sb / n) * (sb / n)));
    EXPECT_GT(corr, 0.99);
    EXPECT_LT(worst, 0.05 * 512.0); // within 5% of the 512 m relief everywhere
}

TEST(TerrainGen, TinyAndThinGrids) {
    for (const auto& [w, h] : std::vector<std::pair<int, int>>{{1, 1}, {1, 50}, {50, 1}, {2, 2}, {3, 7}}) {
        SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
        const GeneratedTerrain t = generateTerrain(w, h, 9, 3.0);
        EXPECT_EQ(t.terrain.width, w);
        EXPECT_EQ(t.terrain.height, h);
        expectAllFinite(t);
        const auto [lo, hi] = std::minmax_element(t.terrain.heights.begin(), t.terrain.heights.end());
        EXPECT_LE(*hi - *lo, 0.35 * std::min(w, h) * 3.0 + 1e-6);
    }
}

TEST(TerrainGen, BadArgumentsAreInputErrors) {
    expectInputError([] { generateTerrain(0, 10, 1, 1.0); }, {"0x10"});
    expectInputError([] { generateTerrain(10, -3, 1, 1.0); }, {"10x-3"});
    expectInputError([] { generateTerrain(20000, 10, 1, 1.0); }, {"20000x10"});
    expectInputError([] { generateTerrain(10, 10, 1, 0.0); }, {"cell size"});
    expectInputError([] { generateTerrain(10, 10, 1, std::nan("")); }, {"cell size"});
}

TEST(TerrainGen, SavesAndLoadsAsPng) {
    const fs::path dir = scratchDir();
    const GeneratedTerrain t = generateTerrain(97, 61, 4, 2.0);
    saveHeightmap(dir / "gen.png", t.terrain, 2.0);
    const Heightmap back = loadHeightmap(dir / "gen.png", LoadOptions{});
    const auto [lo, hi] = std::minmax_element(t.terrain.heights.begin(), t.terrain.heights.end());
    const double step = (*hi - *lo) / 65535.0;
    for (std::size_t i = 0; i < back.heights.size(); ++i)
        ASSERT_NEAR(back.heights[i], t.terrain.heights[i], step + 1e-4);
}
