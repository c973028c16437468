// Splat maps (io/splat.h): eight weights a cell that sum to one, 255 exactly in the PNGs, each
// cover where the simulation put it. No Vulkan.
#include <gtest/gtest.h>

#include <png.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <random>
#include <vector>

#include "io/splat.h"

#include "test_util.h"

namespace fs = std::filesystem;
using namespace alluvium;
using namespace alluvium::test;

namespace {

// Random fields of every input on an odd grid: hills with cliffs, water, flow, snow, lava.
SplatInputs randomInputs(int w, int h, uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    SplatInputs in;
    in.width = w;
    in.height = h;
    in.cell_size = 2.0;
    in.layered = seed % 2 == 0;
    const std::size_t cells = std::size_t(w) * std::size_t(h);
    for (auto* v : {&in.ground, &in.water_depth, &in.flow, &in.eroded, &in.deposited, &in.loose, &in.vegetation,
                    &in.snow, &in.lava})
        v->resize(cells);
    for (std::size_t i = 0; i < cells; ++i) {
        in.ground[i] = 5.0f * u(rng) + float(i % std::size_t(w)) * 0.3f;
        in.water_depth[i] = u(rng) < 0.3f ? 0.1f * u(rng) : 0.0f;
        in.flow[i] = std::exp(12.0f * u(rng)) - 1.0f;
        in.eroded[i] = 0.3f * u(rng);
        in.deposited[i] = 0.4f * u(rng);
        in.loose[i] = 0.5f * u(rng);
        in.vegetation[i] = u(rng);
        in.snow[i] = u(rng) < 0.2f ? 0.2f * u(rng) : 0.0f;
        in.lava[i] = u(rng) < 0.05f ? 0.1f * u(rng) : 0.0f;
    }
    return in;
}

// An RGBA 8-bit PNG's samples (libpng's simplified reader).
std::vector<uint8_t> readRgba(const fs::path& path, int& w, int& h) {
    png_image image{};
    image.version = PNG_IMAGE_VERSION;
    EXPECT_TRUE(png_image_begin_read_from_file(&image, path.c_str())) << path;
    image.format = PNG_FORMAT_RGBA;
    std::vector<uint8_t> data(PNG_IMAGE_SIZE(image));
    EXPECT_TRUE(png_image_finish_read(&image, nullptr, data.data(), 0, nullptr)) << path;
    w = int(image.width);
    h = int(image.height);
    return data;
}

// The weights of one cell of a 3x3 flat grid whose centre has the given covers.
std::vector<float> centreWeights(SplatInputs in) {
    in.width = 3;
    in.height = 3;
    for (auto* v : {&in.ground, &in.water_depth, &in.flow, &in.eroded, &in.deposited, &in.loose, &in.vegetation,
                    &in.snow, &in.lava})
        if (v->size() == 1) v->assign(9, (*v)[0]);
    const std::vector<float> w = splatWeights(in);
    return std::vector<float>(w.begin() + 4 * kSplatChannels, w.begin() + 5 * kSplatChannels);
}

int channel(const char* name) {
    for (int k = 0; k < kSplatChannels; ++k)
        if (std::string(kSplatNames[k]) == name) return k;
    return -1;
}

} // namespace

TEST(Splat, WeightsSumToOneAndThePngsTo255) {
    for (uint32_t seed : {1u, 2u, 3u}) {
        SCOPED_TRACE(seed);
        const int w = 37 + int(seed) * 6, h = 23 + int(seed) * 4;
        const SplatInputs in = randomInputs(w, h, seed);
        const std::vector<float> weights = splatWeights(in);
        ASSERT_EQ(weights.size(), std::size_t(w) * std::size_t(h) * kSplatChannels);
        for (std::size_t c = 0; c < weights.size(); c += kSplatChannels) {
            double sum = 0.0;
            for (int k = 0; k < kSplatChannels; ++k) {
                EXPECT_GE(weights[c + k], 0.0f);
                sum += weights[c + k];
            }
            ASSERT_NEAR(sum, 1.0, 1e-6) << "cell " << c / kSplatChannels;
        }
        const fs::path dir = scratchDir("splat");
        writeSplatMaps(dir, w, h, weights);
        int w0 = 0, h0 = 0, w1 = 0, h1 = 0;
        const std::vector<uint8_t> s0 = readRgba(dir / "splat0.png", w0, h0), s1 = readRgba(dir / "splat1.png", w1, h1);
        ASSERT_EQ(w0, w);
        ASSERT_EQ(h1, h);
        for (std::size_t i = 0; i < std::size_t(w) * std::size_t(h); ++i) {
            int sum = 0;
            for (int k = 0; k < 4; ++k) {
                sum += s0[4 * i + std::size_t(k)] + s1[4 * i + std::size_t(k)];
                // Each channel within one unit of its weight (1/255).
                EXPECT_NEAR(s0[4 * i + std::size_t(k)] / 255.0, weights[i * kSplatChannels + std::size_t(k)],
                            1.0 / 255.0);
                EXPECT_NEAR(s1[4 * i + std::size_t(k)] / 255.0, weights[i * kSplatChannels + 4 + std::size_t(k)],
                            1.0 / 255.0);
            }
            ASSERT_EQ(sum, 255) << "pixel " << i;
        }
        EXPECT_TRUE(fs::exists(dir / "splat.json"));
    }
}

TEST(Splat, QuantisingAlwaysSums255) {
    std::mt19937 rng(9);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    std::vector<float> weights(1000 * kSplatChannels);
    for (std::size_t c = 0; c < weights.size(); c += kSplatChannels) {
        float total = 0.0f;
        for (int k = 0; k < kSplatChannels; ++k) total += weights[c + k] = u(rng) < 0.5f ? u(rng) : 0.0f;
        for (int k = 0; k < kSplatChannels; ++k) weights[c + k] = total > 0.0f ? weights[c + k] / total : 0.0f;
    }
    for (int k = 0; k < kSplatChannels; ++k) weights[k] = 1.0f / kSplatChannels; // every remainder equal
    const std::vector<uint8_t> q = quantiseSplat(weights);
    for (std::size_t c = 0; c < q.size(); c += kSplatChannels) {
        int sum = 0;
        for (int k = 0; k < kSplatChannels; ++k) sum += q[c + k];
        ASSERT_EQ(sum, 255) << "cell " << c / kSplatChannels;
    }
}

TEST(Splat, EachCoverLiesWhereTheSimulationPutIt) {
    SplatInputs flat;
    flat.ground = {0.0f};
    flat.cell_size = 1.0;
    SplatInputs snow = flat;
    snow.snow = {0.5f};
    EXPECT_FLOAT_EQ(centreWeights(snow)[channel("snow")], 1.0f);
    SplatInputs lava = snow;
    lava.lava = {0.2f}; // lava over snow: the lava shows
    EXPECT_FLOAT_EQ(centreWeights(lava)[channel("lava")], 1.0f);
    SplatInputs wet = flat;
    wet.water_depth = {0.3f};
    EXPECT_FLOAT_EQ(centreWeights(wet)[channel("wet")], 1.0f);
    SplatInputs soil = flat; // without layered ground, gentle ground is soil
    EXPECT_FLOAT_EQ(centreWeights(soil)[channel("loose")], 1.0f);
    SplatInputs bare = flat; // layered, no loose layer: bedrock
    bare.layered = true;
    bare.loose = {0.0f};
    EXPECT_FLOAT_EQ(centreWeights(bare)[channel("rock")], 1.0f);
    SplatInputs green = flat;
    green.vegetation = {0.75f};
    const std::vector<float> g = centreWeights(green);
    EXPECT_FLOAT_EQ(g[channel("vegetation")], 0.75f);
    EXPECT_FLOAT_EQ(g[channel("loose")], 0.25f);

    // A cliff (60 degrees) keeps no plants or soil: rock.
    SplatInputs cliff;
    cliff.width = 3;
    cliff.height = 3;
    cliff.cell_size = 1.0;
    cliff.ground = {0, 1.732f, 3.464f, 0, 1.732f, 3.464f, 0, 1.732f, 3.464f};
    cliff.vegetation.assign(9, 1.0f);
    const std::vector<float> c = splatWeights(cliff);
    EXPECT_FLOAT_EQ(c[4 * kSplatChannels + channel("rock")], 1.0f);
}
