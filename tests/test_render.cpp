// The viewer's renderer: picking (shaders/pick.comp), the point under the cursor,
// found by marching the ray over the current heightfield, against the exact intersection with a
// steep plane (slope 3), from several directions; and a ray that misses; and the NaN watchdog of surface_prepare.comp.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "gpu_fixture.h"
#include "io/errors.h"
#include "render_shared.h"
#include "renderer.h"

namespace alluvium::test {
namespace {

class Render : public GpuTest {};

TEST_F(Render, PickHitsASteepSlopeWhereTheRayMeetsIt) {
    const int w = 41, h = 23;
    const float L = 4.0f, slope = 3.0f;
    gpu::Simulation sim(ctx(), w, h);
    // Cell centres at (i + 0.5) L on a plane of height slope * x: bilinear between centres is
    // exactly that plane for x in [0.5, w - 0.5] cells.
    std::vector<float> terrain(size_t(w) * h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) terrain[size_t(y) * w + x] = slope * L * (float(x) + 0.5f);
    sim.upload(gpu::Field::Terrain, terrain);
    viewer::Renderer renderer(ctx(), sim, VK_FORMAT_B8G8R8A8_UNORM, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, 1);

    auto pick = [&](const float origin[3], const float dir[3]) {
        viewer::FrameUniforms& u = renderer.uniforms(0);
        std::memset(&u, 0, sizeof u);
        const float grid[4] = {float(w), float(h), L, 1.0f};
        std::memcpy(u.grid, grid, sizeof grid);
        std::memcpy(u.ray_origin, origin, 3 * sizeof(float));
        std::memcpy(u.ray_dir, dir, 3 * sizeof(float));
        VkCommandBuffer cmd = gpu::beginOneShot(ctx());
        renderer.recordPick(cmd, 0);
        gpu::endOneShot(ctx(), cmd);
        return renderer.pick(0);
    };

    // Rays towards points of the slope from various directions, starting 200 m back along them:
    // steep, grazing uphill (against the steep face), from the low side, straight down.
    const float cases[][5] = {
        {20.3f, 11.7f, -0.3f, -1.0f, 0.05f},
        {12.6f, 5.2f, 1.0f, -0.35f, 0.1f},
        {33.1f, 17.9f, 0.2f, -1.0f, 0.3f},
        {7.5f, 19.25f, 0.0f, -1.0f, 0.0f},
    };
    for (const auto& c : cases) {
        float dir[3] = {c[2], c[3], c[4]};
        const float n = std::sqrt(dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]);
        for (float& d : dir) d /= n;
        const float target[3] = {c[0] * L, slope * c[0] * L, c[1] * L};
        const float origin[3] = {target[0] - 200.0f * dir[0], target[1] - 200.0f * dir[1], target[2] - 200.0f * dir[2]};
        const viewer::PickResult r = pick(origin, dir);
        ASSERT_TRUE(r.hit) << "ray to cell " << c[0] << "," << c[1];
        EXPECT_NEAR(r.x, c[0], 1e-3) << "ray to cell " << c[0] << "," << c[1];
        EXPECT_NEAR(r.y, c[1], 1e-3) << "ray to cell " << c[0] << "," << c[1];
        EXPECT_NEAR(r.height, target[1], 1e-2);
    }
    const float up_origin[3] = {80.0f, 600.0f, 40.0f}, up[3] = {0.0f, 1.0f, 0.0f};
    EXPECT_FALSE(pick(up_origin, up).hit);
    const float away_origin[3] = {-50.0f, 600.0f, -50.0f}, away[3] = {-1.0f, -0.1f, 0.0f};
    EXPECT_FALSE(pick(away_origin, away).hit);
}

TEST_F(Render, TheWatchdogSeesANonFiniteHeight) {
    const int w = 300, h = 200; // larger than the drawn grid on CPU drivers: samples, not every cell
    gpu::Simulation sim(ctx(), w, h);
    std::vector<float> terrain(size_t(w) * h, 10.0f);
    sim.upload(gpu::Field::Terrain, terrain);
    viewer::Renderer renderer(ctx(), sim, VK_FORMAT_B8G8R8A8_UNORM, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, 1);
    auto prepare = [&] {
        viewer::FrameUniforms& u = renderer.uniforms(0);
        std::memset(&u, 0, sizeof u);
        const float grid[4] = {float(w), float(h), 4.0f, 1.0f};
        const float mesh[4] = {float(renderer.meshX()), float(renderer.meshY()), 0.0f, 0.0f};
        const float sun[4] = {0.5f, 0.6f, 0.3f, 3.0f};
        std::memcpy(u.grid, grid, sizeof grid);
        std::memcpy(u.mesh, mesh, sizeof mesh);
        std::memcpy(u.sun_dir, sun, sizeof sun);
        VkCommandBuffer cmd = gpu::beginOneShot(ctx());
        renderer.recordPrepare(cmd, 0);
        gpu::endOneShot(ctx(), cmd);
        return renderer.takeNonFinite(0);
    };
    EXPECT_FALSE(prepare());
    // A NaN spreads to its neighbours within a step or two: a 3x3 patch, as the watchdog meets it.
    for (int y = 99; y <= 101; ++y)
        for (int x = 149; x <= 151; ++x) terrain[size_t(y) * w + x] = std::nanf("");
    sim.upload(gpu::Field::Terrain, terrain);
    EXPECT_TRUE(prepare());
    terrain.assign(terrain.size(), 10.0f);
    sim.upload(gpu::Field::Terrain, terrain);
    EXPECT_FALSE(prepare()) << "the flag is cleared once read";
}

// Frames that ran no step keep the sunlight unless what it reads changed (surface_sun_check.comp):
// a cell's ground or water, whatever wrote it (here uploads: the brush and undo are writers too),
// the sun, the height scale, the lakes' drawing. What is kept or computed always equals the
// sunlight a new renderer computes. Two frames in flight share the check's image and block.
TEST_F(Render, FramesWithoutStepsComputeTheSunlightOnlyWhenWhatItReadsChanged) {
    const int w = 97, h = 61;
    gpu::Simulation sim(ctx(), w, h);
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> noise(0.0f, 2.0f);
    std::vector<float> terrain(size_t(w) * h), water(size_t(w) * h, 0.0f);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            terrain[size_t(y) * w + x] = 25.0f * std::sin(0.21f * float(x)) * std::cos(0.17f * float(y)) + noise(rng);
    for (int x = 30; x < 50; ++x) water[size_t(20) * w + x] = 0.8f;
    sim.upload(gpu::Field::Terrain, terrain);
    sim.upload(gpu::Field::Water, water);
    struct View {
        float sun[4];
        float scale = 1.0f, lakes = 0.0f;
    };
    const View low{{0.8f, 0.25f, 0.3f, 3.0f}}, other{{-0.5f, 0.4f, -0.6f, 3.0f}};
    View steep = low, lakes = low;
    steep.scale = 2.0f;
    lakes.lakes = 1.0f;
    uint32_t slot = 0;
    auto frame = [&](viewer::Renderer& r, bool check, const View& v) {
        slot = (slot + 1) % 2;
        viewer::FrameUniforms& u = r.uniforms(slot);
        std::memset(&u, 0, sizeof u);
        const float grid[4] = {float(w), float(h), 4.0f, v.scale};
        const float mesh[4] = {float(r.meshX()), float(r.meshY()), 0.0f, 0.0f};
        std::memcpy(u.grid, grid, sizeof grid);
        std::memcpy(u.mesh, mesh, sizeof mesh);
        std::memcpy(u.sun_dir, v.sun, sizeof v.sun);
        u.relief[3] = v.lakes;
        VkCommandBuffer cmd = gpu::beginOneShot(ctx());
        r.recordPrepare(cmd, slot, check);
        gpu::endOneShot(ctx(), cmd);
    };
    auto fresh = [&](const View& v) {
        viewer::Renderer r(ctx(), sim, VK_FORMAT_B8G8R8A8_UNORM, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, 2);
        frame(r, false, v);
        return r.sunlight();
    };
    viewer::Renderer renderer(ctx(), sim, VK_FORMAT_B8G8R8A8_UNORM, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, 2);
    // The checks' count of sunlight passes, and whether the last check dispatched the grid's.
    auto expectChecks = [&](uint32_t recomputed, bool dispatched, const char* why) {
        const viewer::SunControl c = renderer.sunControl();
        EXPECT_EQ(c.recomputed, recomputed) << why;
        EXPECT_EQ(c.dispatch[0], dispatched ? uint32_t(w + 15) / 16 : 0u) << why;
        EXPECT_EQ(c.dispatch[1], dispatched ? uint32_t(h + 15) / 16 : 1u) << why;
    };

    frame(renderer, true, low);
    expectChecks(1, true, "the first check computes the sunlight");
    const std::vector<float> first = renderer.sunlight();
    EXPECT_EQ(first, fresh(low));
    EXPECT_LT(*std::min_element(first.begin(), first.end()), 0.1f) << "the low sun casts shadows";
    EXPECT_EQ(*std::max_element(first.begin(), first.end()), 1.0f);

    frame(renderer, true, low);
    frame(renderer, true, low);
    expectChecks(1, false, "nothing changed: kept");
    EXPECT_EQ(renderer.sunlight(), first);

    // One cell's ground: a tower whose shadow falls across the grid.
    const std::vector<float> before_tower = terrain;
    terrain[size_t(30) * w + 40] += 60.0f;
    sim.upload(gpu::Field::Terrain, terrain);
    frame(renderer, true, low);
    expectChecks(2, true, "a cell's ground changed");
    const std::vector<float> tower = renderer.sunlight();
    EXPECT_NE(tower, first);
    EXPECT_EQ(tower, fresh(low));

    // One cell's water only.
    water[size_t(40) * w + 60] = 5.0f;
    sim.upload(gpu::Field::Water, water);
    frame(renderer, true, low);
    expectChecks(3, true, "a cell's water changed");
    EXPECT_EQ(renderer.sunlight(), fresh(low));
    frame(renderer, true, low);
    expectChecks(3, false, "kept again");

    uint32_t n = 3;
    for (const auto& [view, why] : {std::pair{other, "the sun moved"}, std::pair{low, "the sun moved back"},
                                    std::pair{steep, "the height scale changed"},
                                    std::pair{lakes, "lakes drawn as water"}, std::pair{low, "lakes not drawn"}}) {
        frame(renderer, true, view);
        expectChecks(++n, true, why);
        EXPECT_EQ(renderer.sunlight(), fresh(view)) << why;
    }

    // A frame that steps computes the sunlight without a check; the next check computes it again
    // even where the fields are back to what the last check saw (an undo right after the steps).
    terrain = before_tower;
    sim.upload(gpu::Field::Terrain, terrain);
    frame(renderer, false, low);
    EXPECT_EQ(renderer.sunControl().recomputed, n);
    terrain[size_t(30) * w + 40] += 60.0f; // the fields the last check saw
    sim.upload(gpu::Field::Terrain, terrain);
    frame(renderer, true, low);
    expectChecks(n + 1, true, "the sunlight was computed from other fields than the check saw");
    EXPECT_EQ(renderer.sunlight(), fresh(low));

    // A renderer without the check (the time-lapse's) computes the sunlight every frame.
    viewer::Renderer plain(ctx(), sim, VK_FORMAT_B8G8R8A8_UNORM, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, 2, 0, false);
    frame(plain, true, low);
    terrain = before_tower;
    sim.upload(gpu::Field::Terrain, terrain);
    frame(plain, true, low);
    EXPECT_EQ(plain.sunControl().recomputed, 0u);
    EXPECT_EQ(plain.sunlight(), fresh(low));
}

// The drawn grid (`view --mesh`): its buffers must fit one storage binding, the vertices
// ((x + 2)(y + 2) of 16 bytes) and the water's indices ((x + 1)(y + 1) quads of 24 bytes).
TEST(RenderMesh, SizesFitTheDevicesStorageBinding) {
    const uint64_t lavapipe = uint64_t(128) << 20, largest = 0xFFFFFFFFull;
    EXPECT_EQ(viewer::meshSideLimit(lavapipe), 2363u);
    EXPECT_TRUE(viewer::meshFits(2363, 2363, lavapipe));
    EXPECT_FALSE(viewer::meshFits(2364, 2364, lavapipe)); // 2365^2 x 24 bytes of indices
    EXPECT_TRUE(viewer::meshFits(16384, 2, lavapipe));    // long and thin is fine
    EXPECT_EQ(viewer::meshSideLimit(largest), 13376u);
    EXPECT_FALSE(viewer::meshFits(16384, 16384, largest)); // above any device's range
    EXPECT_GE(viewer::meshSideLimit(uint64_t(1) << 30), uint32_t(MESH_MAX_DISCRETE));
}

// The renderer draws min(--mesh, cells) a side, or the device's default; one it cannot bind is
// one clear error, before it creates anything (the validation layer sees no leak).
TEST_F(Render, MeshFollowsTheOptionTheGridAndTheDevice) {
    gpu::Simulation sim(ctx(), 300, 200);
    const uint32_t side = viewer::defaultMeshSide(ctx());
    {
        viewer::Renderer r(ctx(), sim, VK_FORMAT_B8G8R8A8_UNORM, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, 1);
        EXPECT_EQ(r.meshX(), std::min(side, 300u));
        EXPECT_EQ(r.meshY(), std::min(side, 200u));
    }
    {
        viewer::Renderer r(ctx(), sim, VK_FORMAT_B8G8R8A8_UNORM, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, 1, 40);
        EXPECT_EQ(r.meshX(), 40u);
        EXPECT_EQ(r.meshY(), 40u);
    }
    {
        viewer::Renderer r(ctx(), sim, VK_FORMAT_B8G8R8A8_UNORM, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, 1, 250);
        EXPECT_EQ(r.meshX(), 250u);
        EXPECT_EQ(r.meshY(), 200u);
    }
    const uint64_t range = ctx().properties.limits.maxStorageBufferRange;
    const uint32_t limit = viewer::meshSideLimit(range);
    EXPECT_LE(side, limit);
    // The smallest grid one vertex wider than the largest square that does not fit: about that
    // square (2364 x 2364 cells on lavapipe, 0.5 s), so where the device binds more it is skipped.
    uint32_t h = 2;
    while (viewer::meshFits(limit + 1, h, range)) ++h;
    if (uint64_t(limit + 1) * h > (uint64_t(8) << 20))
        GTEST_SKIP() << "the device binds a mesh larger than this test makes";
    gpu::Simulation wide(ctx(), int(limit + 1), int(h));
    try {
        viewer::Renderer r(ctx(), wide, VK_FORMAT_B8G8R8A8_UNORM, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, 1, limit + 1);
        ADD_FAILURE() << "a " << limit + 1 << "x" << h << " mesh was accepted";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("--mesh"), std::string::npos) << e.what();
    }
}

// A mesh of more vertices than 65535 workgroups of PREPARE_WG hold (Vulkan's minimum
// maxComputeWorkGroupCount, lavapipe's and Intel's): surface_prepare's dispatch stays within the
// device's counts (the validation layer checks it; GpuTest fails on any error).
TEST_F(Render, PrepareDispatchOfALargeMeshStaysWithinTheWorkgroupCount) {
    const int side = 2100; // 2102^2 vertices, 69,040 workgroups of 64
    gpu::Simulation sim(ctx(), side, side);
    viewer::Renderer renderer(ctx(), sim, VK_FORMAT_B8G8R8A8_UNORM, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, 1, side);
    ASSERT_EQ(renderer.meshX(), uint32_t(side));
    viewer::FrameUniforms& u = renderer.uniforms(0);
    std::memset(&u, 0, sizeof u);
    const float grid[4] = {float(side), float(side), 4.0f, 1.0f};
    const float mesh[4] = {float(renderer.meshX()), float(renderer.meshY()), 0.0f, 0.0f};
    std::memcpy(u.grid, grid, sizeof grid);
    std::memcpy(u.mesh, mesh, sizeof mesh);
    VkCommandBuffer cmd = gpu::beginOneShot(ctx());
    renderer.recordPrepare(cmd, 0);
    gpu::endOneShot(ctx(), cmd);
    EXPECT_FALSE(renderer.takeNonFinite(0));
}

} // namespace
} // namespace alluvium::test
