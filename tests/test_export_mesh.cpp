// Tests of the export of the terrain mesh (app/io/mesh): building and simplifying it within its
// error bound, no holes nor folded triangles, and writing it as OBJ or glTF. No Vulkan. The maps:
// test_export.cpp; the helpers: export_files.h.
//
// [SECTION] mesh: building
// [SECTION] mesh: OBJ
// [SECTION] mesh: glTF
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/errors.h"
#include "io/heightmap.h"
#include "io/mesh.h"
#include "io/terrain_gen.h"

#include "export_files.h"
#include "test_util.h"

namespace fs = std::filesystem;
using namespace alluvium;

namespace {

using test::expectInputError;

// [SECTION] mesh: building --------------------------------------------------------------------

Heightmap grid(int w, int h, const std::function<float(int, int)>& fn) {
    Heightmap m{w, h, {}};
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) m.heights.push_back(fn(x, y));
    return m;
}

// Vertical error of a mesh against the heightmap at every grid point, and how many grid points
// no triangle covers (holes).
void verticalError(const TerrainMesh& m, const Heightmap& t, double cell, double& max_error, long long& uncovered) {
    std::vector<char> covered(t.heights.size(), 0);
    max_error = 0.0;
    for (std::size_t f = 0; f < m.indices.size(); f += 3) {
        double px[3], pz[3], py[3];
        for (int k = 0; k < 3; ++k) {
            const std::size_t v = m.indices[f + std::size_t(k)];
            px[k] = m.positions[3 * v] / cell;
            py[k] = m.positions[3 * v + 1];
            pz[k] = m.positions[3 * v + 2] / cell;
        }
        const double det = (pz[1] - pz[2]) * (px[0] - px[2]) + (px[2] - px[1]) * (pz[0] - pz[2]);
        if (std::abs(det) < 1e-12) continue;
        const int x0 = std::max(0, int(std::floor(std::min({px[0], px[1], px[2]}))));
        const int x1 = std::min(t.width - 1, int(std::ceil(std::max({px[0], px[1], px[2]}))));
        const int z0 = std::max(0, int(std::floor(std::min({pz[0], pz[1], pz[2]}))));
        const int z1 = std::min(t.height - 1, int(std::ceil(std::max({pz[0], pz[1], pz[2]}))));
        for (int z = z0; z <= z1; ++z) {
            for (int x = x0; x <= x1; ++x) {
                const double a = ((pz[1] - pz[2]) * (x - px[2]) + (px[2] - px[1]) * (z - pz[2])) / det;
                const double b = ((pz[2] - pz[0]) * (x - px[2]) + (px[0] - px[2]) * (z - pz[2])) / det;
                const double c = 1.0 - a - b;
                if (a < -1e-6 || b < -1e-6 || c < -1e-6) continue;
                covered[std::size_t(z) * std::size_t(t.width) + std::size_t(x)] = 1;
                max_error = std::max(max_error, std::abs(a * py[0] + b * py[1] + c * py[2] - t.at(x, z)));
            }
        }
    }
    uncovered = std::count(covered.begin(), covered.end(), 0);
}

// No triangle faces down in plan (folded over); triangles of zero area in plan (vertical
// slivers where the simplified surface steps) are at most max_slivers of them.
void expectFacingUp(const TerrainMesh& m, double max_slivers = 0.0) {
    std::size_t slivers = 0;
    for (std::size_t f = 0; f < m.indices.size(); f += 3) {
        const float* a = &m.positions[3 * m.indices[f]];
        const float* b = &m.positions[3 * m.indices[f + 1]];
        const float* c = &m.positions[3 * m.indices[f + 2]];
        // y of (b - a) x (c - a)
        const double ny = double(b[2] - a[2]) * (c[0] - a[0]) - double(b[0] - a[0]) * (c[2] - a[2]);
        ASSERT_GE(ny, 0.0) << "triangle " << f / 3 << " is folded over: (" << a[0] << ", " << a[2] << "), (" << b[0]
                           << ", " << b[2] << "), (" << c[0] << ", " << c[2] << ")";
        if (ny == 0.0) ++slivers;
    }
    EXPECT_LE(double(slivers), max_slivers * double(m.indices.size() / 3)) << slivers << " slivers";
}

TEST(Mesh, SmallNonSquareGridIsKeptWhole) {
    const double cell = 2.5;
    const Heightmap t = grid(3, 2, [](int x, int y) { return float(10 * x + y); });
    const TerrainMesh m = buildTerrainMesh(t, cell, 200000);
    ASSERT_EQ(m.indices.size(), 12u);
    ASSERT_EQ(m.positions.size(), 18u);
    expectFacingUp(m);
    std::set<std::pair<int, int>> seen;
    for (std::size_t v = 0; v < 6; ++v) {
        const int x = int(std::lround(m.positions[3 * v] / cell)), y = int(std::lround(m.positions[3 * v + 2] / cell));
        seen.insert({x, y});
        EXPECT_EQ(m.positions[3 * v + 1], t.at(x, y));
        EXPECT_FLOAT_EQ(m.uvs[2 * v], float((x + 0.5) / 3));
        EXPECT_FLOAT_EQ(m.uvs[2 * v + 1], float((y + 0.5) / 2));
        // Normal of h = 10 x + y (per cell) = 4 x' + 0.4 z' in metres: (-4, 1, -0.4) normalised.
        const double len = std::sqrt(16.0 + 1.0 + 0.16);
        EXPECT_NEAR(m.normals[3 * v], -4.0 / len, 1e-6);
        EXPECT_NEAR(m.normals[3 * v + 1], 1.0 / len, 1e-6);
        EXPECT_NEAR(m.normals[3 * v + 2], -0.4 / len, 1e-6);
    }
    EXPECT_EQ(seen.size(), 6u);
}

TEST(Mesh, TinyAndDegenerateGrids) {
    const TerrainMesh m = buildTerrainMesh(grid(2, 2, [](int, int) { return 1.0f; }), 1.0, 200000);
    EXPECT_EQ(m.indices.size(), 6u);
    expectFacingUp(m);
    for (auto [w, h] : {std::pair{1, 5}, std::pair{5, 1}, std::pair{1, 1}})
        expectInputError([&] { buildTerrainMesh(grid(w, h, [](int, int) { return 0.0f; }), 1.0, 100); },
                         {"a mesh needs at least 2x2 cells"});
    expectInputError([&] { buildTerrainMesh(grid(4, 4, [](int, int) { return 0.0f; }), 0.0, 100); }, {"cell size"});
    expectInputError([&] { buildTerrainMesh(grid(4, 4, [](int, int) { return 0.0f; }), 1.0, 1); }, {"at least 2"});
    expectInputError([&] { buildTerrainMesh(grid(4, 4, [](int x, int) { return x == 2 ? NAN : 0.0f; }), 1.0, 100); },
                     {"(2, 0)", "not finite"});
}

TEST(Mesh, ProceduralTerrainSimplifiesWithinTwoPercentOfTheRelief) {
    const double cell = 4.0;
    const Heightmap t = generateTerrain(256, 256, 7, cell).terrain;
    const auto [lo, hi] = std::minmax_element(t.heights.begin(), t.heights.end());
    const double relief = double(*hi) - *lo;
    const std::size_t target = 20000;
    const TerrainMesh m = buildTerrainMesh(t, cell, target);
    const std::size_t tris = m.indices.size() / 3;
    EXPECT_LE(tris, target);
    EXPECT_GT(tris, target / 4);
    expectFacingUp(m, 0.02);
    double max_error = 0.0;
    long long uncovered = 0;
    verticalError(m, t, cell, max_error, uncovered);
    EXPECT_EQ(uncovered, 0) << "holes in the mesh";
    EXPECT_LT(max_error, 0.02 * relief) << "relief " << relief;
    std::printf("256^2 -> %zu triangles, %zu vertices: max vertical error %.3f m (%.3f%% of %.1f m relief)\n", tris,
                m.positions.size() / 3, max_error, 100.0 * max_error / relief, relief);

    // Extent: the border is kept, so x and z span the grid exactly; heights stay within the
    // terrain's and reach near its extremes.
    float mn[3] = {1e30f, 1e30f, 1e30f}, mx[3] = {-1e30f, -1e30f, -1e30f};
    for (std::size_t i = 0; i < m.positions.size(); ++i) {
        mn[i % 3] = std::min(mn[i % 3], m.positions[i]);
        mx[i % 3] = std::max(mx[i % 3], m.positions[i]);
    }
    EXPECT_EQ(mn[0], 0.0f);
    EXPECT_EQ(mn[2], 0.0f);
    EXPECT_EQ(mx[0], float(255 * cell));
    EXPECT_EQ(mx[2], float(255 * cell));
    EXPECT_GE(mn[1], *lo);
    EXPECT_LE(mx[1], *hi);
    EXPECT_LT(mn[1] - *lo, 0.02 * relief);
    EXPECT_LT(*hi - mx[1], 0.02 * relief);

    // Normals come from the full-resolution grid (central differences), not the triangles.
    for (std::size_t v = 0; v < m.positions.size() / 3; ++v) {
        const int x = int(std::lround(m.positions[3 * v] / cell)), y = int(std::lround(m.positions[3 * v + 2] / cell));
        if (x == 0 || y == 0 || x == 255 || y == 255) continue;
        const double dx = (double(t.at(x + 1, y)) - t.at(x - 1, y)) / (2 * cell);
        const double dz = (double(t.at(x, y + 1)) - t.at(x, y - 1)) / (2 * cell);
        const double len = std::sqrt(dx * dx + 1 + dz * dz);
        ASSERT_NEAR(m.normals[3 * v], -dx / len, 1e-5);
        ASSERT_NEAR(m.normals[3 * v + 1], 1 / len, 1e-5);
        ASSERT_NEAR(m.normals[3 * v + 2], -dz / len, 1e-5);
    }
}

TEST(Mesh, TinyTargetSimplifiesTheBorderToo) {
    const Heightmap t = generateTerrain(64, 48, 3, 10.0).terrain;
    const TerrainMesh m = buildTerrainMesh(t, 10.0, 50);
    EXPECT_LE(m.indices.size() / 3, 50u);
    EXPECT_GE(m.indices.size() / 3, 2u);
    expectFacingUp(m, 0.2);
}

// [SECTION] mesh: OBJ -------------------------------------------------------------------------

struct Obj {
    std::vector<std::array<double, 3>> v, vn;
    std::vector<std::array<double, 2>> vt;
    std::vector<std::array<long, 9>> f; // v/vt/vn x 3
};

Obj parseObj(const fs::path& path) {
    Obj o;
    std::istringstream in(readText(path));
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream s(line);
        std::string tag;
        s >> tag;
        if (tag == "v" || tag == "vn") {
            std::array<double, 3> a{};
            s >> a[0] >> a[1] >> a[2];
            EXPECT_FALSE(s.fail()) << line;
            (tag == "v" ? o.v : o.vn).push_back(a);
        } else if (tag == "vt") {
            std::array<double, 2> a{};
            s >> a[0] >> a[1];
            EXPECT_FALSE(s.fail()) << line;
            o.vt.push_back(a);
        } else if (tag == "f") {
            std::array<long, 9> a{};
            for (int k = 0; k < 3; ++k) {
                char slash1 = 0, slash2 = 0;
                s >> a[std::size_t(3 * k)] >> slash1 >> a[std::size_t(3 * k + 1)] >> slash2 >>
                    a[std::size_t(3 * k + 2)];
                EXPECT_TRUE(slash1 == '/' && slash2 == '/') << line;
            }
            EXPECT_FALSE(s.fail()) << line;
            std::string rest;
            EXPECT_FALSE(s >> rest) << "a face with more than 3 vertices: " << line;
            o.f.push_back(a);
        } else {
            EXPECT_TRUE(tag.empty() || tag[0] == '#') << line;
        }
    }
    return o;
}

TEST(Mesh, ObjParsesWithIndicesInRange) {
    const fs::path dir = scratchDir();
    const double cell = 4.0;
    const Heightmap t = generateTerrain(96, 64, 5, cell).terrain;
    const std::size_t target = 2000;
    writeTerrainMesh(dir / "terrain.obj", t, cell, target);
    EXPECT_EQ(listDir(dir), std::set<std::string>{"terrain.obj"});
    const Obj o = parseObj(dir / "terrain.obj");
    ASSERT_GT(o.v.size(), 3u);
    EXPECT_EQ(o.vt.size(), o.v.size());
    EXPECT_EQ(o.vn.size(), o.v.size());
    EXPECT_LE(o.f.size(), target);
    EXPECT_GT(o.f.size(), target / 4);
    for (const auto& f : o.f)
        for (long i : f) ASSERT_TRUE(i >= 1 && i <= long(o.v.size())) << i;
    for (const auto& vt : o.vt) {
        ASSERT_GT(vt[0], 0.0);
        ASSERT_LT(vt[0], 1.0);
        ASSERT_GT(vt[1], 0.0);
        ASSERT_LT(vt[1], 1.0);
    }
    for (std::size_t i = 0; i < o.v.size(); ++i) {
        const auto& n = o.vn[i];
        ASSERT_NEAR(n[0] * n[0] + n[1] * n[1] + n[2] * n[2], 1.0, 1e-5);
        // The OBJ's v runs up: row 0 (z = 0) is at the top of the texture (v near 1).
        const double row = o.v[i][2] / cell;
        ASSERT_NEAR(o.vt[i][1], 1.0 - (row + 0.5) / 64.0, 1e-6);
        const double col = o.v[i][0] / cell;
        ASSERT_NEAR(o.v[i][1], t.at(int(std::lround(col)), int(std::lround(row))), 1e-3);
    }
}

TEST(Mesh, WriteErrorsLeaveNoFiles) {
    const fs::path dir = scratchDir();
    const Heightmap t = grid(4, 4, [](int x, int y) { return float(x * y); });
    expectInputError([&] { writeTerrainMesh(dir / "terrain.stl", t, 1.0, 100); }, {".stl", ".obj or .gltf"});
    std::ofstream(dir / "file") << "x";
    expectInputError([&] { writeTerrainMesh(dir / "file" / "terrain.obj", t, 1.0, 100); }, {"cannot write"});
    expectInputError([&] { writeTerrainMesh(dir / "thin.gltf", grid(1, 9, [](int, int) { return 0.0f; }), 1.0, 100); },
                     {"2x2"});
    EXPECT_EQ(listDir(dir), std::set<std::string>{"file"});
    writeTerrainMesh(dir / "sub" / "TERRAIN.OBJ", t, 1.0, 100); // creates the folder; any case
    EXPECT_TRUE(fs::is_regular_file(dir / "sub" / "TERRAIN.OBJ"));
}

// [SECTION] mesh: glTF ------------------------------------------------------------------------

std::vector<unsigned char> decodeBase64(const std::string& s) {
    std::vector<unsigned char> out;
    uint32_t acc = 0;
    int bits = 0;
    for (char c : s) {
        int v = -1;
        if (c >= 'A' && c <= 'Z')
            v = c - 'A';
        else if (c >= 'a' && c <= 'z')
            v = c - 'a' + 26;
        else if (c >= '0' && c <= '9')
            v = c - '0' + 52;
        else if (c == '+')
            v = 62;
        else if (c == '/')
            v = 63;
        else if (c == '=')
            break;
        else
            ADD_FAILURE() << "bad base64 character " << int(c);
        acc = (acc << 6) | uint32_t(v);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out.push_back(static_cast<unsigned char>((acc >> bits) & 0xffu));
        }
    }
    return out;
}

TEST(Mesh, GltfIsValidAndItsBufferMatchesTheAccessors) {
    const fs::path dir = scratchDir();
    const double cell = 3.0;
    const Heightmap t = generateTerrain(80, 120, 11, cell).terrain;
    const std::size_t target = 3000;
    writeTerrainMesh(dir / "terrain.gltf", t, cell, target);
    EXPECT_EQ(listDir(dir), std::set<std::string>{"terrain.gltf"});
    const nlohmann::json g = readJson(dir / "terrain.gltf");

    EXPECT_EQ(g["asset"]["version"], "2.0");
    ASSERT_EQ(g["scenes"].size(), 1u);
    EXPECT_EQ(g["scene"], 0);
    EXPECT_EQ(g["scenes"][0]["nodes"], nlohmann::json::array({0}));
    ASSERT_EQ(g["nodes"].size(), 1u);
    EXPECT_EQ(g["nodes"][0]["mesh"], 0);
    ASSERT_EQ(g["meshes"].size(), 1u);
    ASSERT_EQ(g["meshes"][0]["primitives"].size(), 1u);
    const auto& prim = g["meshes"][0]["primitives"][0];
    EXPECT_EQ(prim.value("mode", 4), 4);
    const auto& attr = prim["attributes"];
    ASSERT_TRUE(attr.contains("POSITION") && attr.contains("NORMAL") && attr.contains("TEXCOORD_0"));

    ASSERT_EQ(g["buffers"].size(), 1u);
    const std::string uri = g["buffers"][0]["uri"];
    const std::string prefix = "data:application/octet-stream;base64,";
    ASSERT_EQ(uri.rfind(prefix, 0), 0u);
    const std::vector<unsigned char> buf = decodeBase64(uri.substr(prefix.size()));
    ASSERT_EQ(buf.size(), g["buffers"][0]["byteLength"].get<std::size_t>());

    // Each accessor: its view lies in the buffer and holds exactly count elements.
    auto accessorData = [&](int index, int component_type, const std::string& type, std::size_t components) {
        const auto& a = g["accessors"][std::size_t(index)];
        EXPECT_EQ(a["componentType"], component_type);
        EXPECT_EQ(a["type"], type);
        const auto& view = g["bufferViews"][a["bufferView"].get<std::size_t>()];
        EXPECT_EQ(view["buffer"], 0);
        const std::size_t offset = view.value("byteOffset", std::size_t(0)) + a.value("byteOffset", std::size_t(0));
        const std::size_t length = view["byteLength"];
        EXPECT_EQ(offset % 4, 0u);
        EXPECT_LE(offset + length, buf.size());
        EXPECT_EQ(length, a["count"].get<std::size_t>() * components * 4);
        return std::pair{buf.data() + offset, a["count"].get<std::size_t>()};
    };
    const auto [pos_bytes, nv] = accessorData(attr["POSITION"], 5126, "VEC3", 3);
    const auto [nrm_bytes, nn] = accessorData(attr["NORMAL"], 5126, "VEC3", 3);
    const auto [uv_bytes, nuv] = accessorData(attr["TEXCOORD_0"], 5126, "VEC2", 2);
    const auto [idx_bytes, ni] = accessorData(prim["indices"], 5125, "SCALAR", 1);
    EXPECT_EQ(
        g["bufferViews"][g["accessors"][prim["indices"].get<std::size_t>()]["bufferView"].get<std::size_t>()]["target"],
        34963);
    EXPECT_EQ(nn, nv);
    EXPECT_EQ(nuv, nv);
    EXPECT_EQ(ni % 3, 0u);
    EXPECT_LE(ni / 3, target);
    EXPECT_GT(ni / 3, target / 4);

    std::vector<float> pos(nv * 3), nrm(nv * 3), uv(nv * 2);
    std::vector<uint32_t> idx(ni);
    std::memcpy(pos.data(), pos_bytes, pos.size() * 4);
    std::memcpy(nrm.data(), nrm_bytes, nrm.size() * 4);
    std::memcpy(uv.data(), uv_bytes, uv.size() * 4);
    std::memcpy(idx.data(), idx_bytes, idx.size() * 4);
    for (uint32_t i : idx) ASSERT_LT(i, nv);

    // POSITION min/max: required, and exactly the data's bounds; x and z span the grid.
    const auto& pa = g["accessors"][attr["POSITION"].get<std::size_t>()];
    for (std::size_t k = 0; k < 3; ++k) {
        float lo = 1e30f, hi = -1e30f;
        for (std::size_t v = 0; v < nv; ++v) {
            lo = std::min(lo, pos[3 * v + k]);
            hi = std::max(hi, pos[3 * v + k]);
        }
        EXPECT_EQ(pa["min"][k].get<float>(), lo);
        EXPECT_EQ(pa["max"][k].get<float>(), hi);
    }
    EXPECT_EQ(pa["min"][0].get<float>(), 0.0f);
    EXPECT_EQ(pa["max"][0].get<float>(), float(79 * cell));
    EXPECT_EQ(pa["min"][2].get<float>(), 0.0f);
    EXPECT_EQ(pa["max"][2].get<float>(), float(119 * cell));
    const auto [tlo, thi] = std::minmax_element(t.heights.begin(), t.heights.end());
    EXPECT_GE(pa["min"][1].get<float>(), *tlo);
    EXPECT_LE(pa["max"][1].get<float>(), *thi);

    for (std::size_t v = 0; v < nv; ++v) {
        const double len = std::sqrt(double(nrm[3 * v]) * nrm[3 * v] + double(nrm[3 * v + 1]) * nrm[3 * v + 1] +
                                     double(nrm[3 * v + 2]) * nrm[3 * v + 2]);
        ASSERT_NEAR(len, 1.0, 1e-5);
        ASSERT_GT(nrm[3 * v + 1], 0.0f);
        const int col = int(std::lround(pos[3 * v] / cell)), row = int(std::lround(pos[3 * v + 2] / cell));
        ASSERT_EQ(pos[3 * v + 1], t.at(col, row));
        ASSERT_FLOAT_EQ(uv[2 * v], float((col + 0.5) / 80));
        ASSERT_FLOAT_EQ(uv[2 * v + 1], float((row + 0.5) / 120)); // glTF: v = 0 at the top row
    }
}

TEST(Mesh, NoTriangleFoldsOverOnManyTerrains) {
    for (int seed : {1, 2, 3, 4}) {
        for (auto [w, h, target] : {std::tuple{128, 96, 1000}, std::tuple{200, 150, 8000}, std::tuple{64, 64, 300}}) {
            SCOPED_TRACE(std::to_string(seed) + ": " + std::to_string(w) + "x" + std::to_string(h) + " to " +
                         std::to_string(target));
            const Heightmap t = generateTerrain(w, h, uint64_t(seed), 5.0).terrain;
            const TerrainMesh m = buildTerrainMesh(t, 5.0, std::size_t(target));
            EXPECT_LE(m.indices.size() / 3, std::size_t(target));
            expectFacingUp(m, 0.03);
        }
    }
}

} // namespace
