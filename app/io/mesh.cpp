// Terrain mesh export: the full grid, simplified with meshoptimizer, written as OBJ or glTF 2.0.
//
// [SECTION] building the mesh (grid, simplification, compaction, normals, UVs)
// [SECTION] OBJ
// [SECTION] glTF 2.0 (embedded base64 buffer)
// [SECTION] writeTerrainMesh
#include "io/mesh.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

#include <meshoptimizer.h>
#include <nlohmann/json.hpp>

#include "io/atomic_file.h"
#include "io/errors.h"
#include "io/format_checks.h"

namespace alluvium {

namespace fs = std::filesystem;

namespace {

using detail::lowerExtension;
using detail::quoted;

// [SECTION] building the mesh -----------------------------------------------------------------

// Two triangles per grid quad, counter-clockwise seen from +y (x right, z toward the viewer).
std::vector<uint32_t> gridIndices(int w, int h) {
    std::vector<uint32_t> idx;
    idx.reserve(static_cast<std::size_t>(w - 1) * static_cast<std::size_t>(h - 1) * 6);
    const auto uw = static_cast<uint32_t>(w);
    for (uint32_t j = 0; j + 1 < static_cast<uint32_t>(h); ++j) {
        for (uint32_t i = 0; i + 1 < uw; ++i) {
            const uint32_t a = j * uw + i, b = a + uw, c = a + 1, d = b + 1;
            idx.insert(idx.end(), {a, b, c, c, b, d});
        }
    }
    return idx;
}

// Simplifies to at most target_indices where meshoptimizer can. The border is locked first (the
// tile's outline and its seams stay exact); if the locked border alone needs more triangles than
// the target, the border is simplified too.
std::vector<uint32_t> simplify(const std::vector<uint32_t>& indices, const std::vector<float>& positions,
                               std::size_t target_indices) {
    if (indices.size() <= target_indices) return indices;
    const std::size_t vertex_count = positions.size() / 3;
    // A target count, not an error bound, decides where it stops: the error limit is the whole
    // extent of the mesh (meshoptimizer's errors are relative to it).
    const float error_limit = 1e3f;
    std::vector<uint32_t> out(indices.size());
    std::size_t n = indices.size();
#if MESHOPTIMIZER_VERSION >= 180
    n = meshopt_simplify(out.data(), indices.data(), indices.size(), positions.data(), vertex_count, 3 * sizeof(float),
                         target_indices, error_limit, meshopt_SimplifyLockBorder, nullptr);
    if (n > target_indices)
#endif
        n = meshopt_simplify(out.data(), indices.data(), indices.size(), positions.data(), vertex_count,
                             3 * sizeof(float), target_indices, error_limit);
    out.resize(n);
    return out;
}

// What meshoptimizer simplifies in place of the grid. Its flip guard (0.18) only rejects a
// collapse that turns a triangle's 3D normal by more than 90 degrees, which lets a height field
// fold over in plan: a triangle turns vertical, then past it. So the proxy has
//  - heights scaled by 0.01: the 3D flip test becomes nearly the plan-view orientation test, and
//    the quadric error nearly the vertical error (what matters for a height field);
//  - the border bowed inward by up to 0.3 cells: a triangle folded onto three vertices of one
//    border edge is then a flip, not an exactly flat sliver the guard lets through;
//  - interior vertices moved by up to 0.01 cells (a fixed hash): grid-aligned triples are not
//    exactly collinear.
// Rarely, a series of collapses still folds a triangle over; simplify() then tries another salt.
// The mesh keeps the true positions; only the choice of collapses comes from the proxy.
std::vector<float> simplificationProxy(int w, int h, double cell, const std::vector<float>& grid, uint64_t salt) {
    constexpr double kHeightScale = 0.01, kBorderBow = 0.3, kJitter = 0.02;
    std::vector<float> proxy(grid.size());
    for (std::size_t i = 0; i < grid.size() / 3; ++i) {
        const double x = double(i % std::size_t(w)), z = double(i / std::size_t(w));
        const double tx = x / (w - 1), tz = z / (h - 1);
        double px = x + kBorderBow * 4.0 * tz * (1.0 - tz) * (1.0 - 2.0 * tx);
        double pz = z + kBorderBow * 4.0 * tx * (1.0 - tx) * (1.0 - 2.0 * tz);
        if (x > 0 && z > 0 && x < w - 1 && z < h - 1) {
            uint64_t k = (i + 1 + salt * 0x632BE59BD9B4E019ull) * 0x9E3779B97F4A7C15ull; // splitmix64
            k = (k ^ (k >> 30)) * 0xBF58476D1CE4E5B9ull;
            k = (k ^ (k >> 27)) * 0x94D049BB133111EBull;
            k ^= k >> 31;
            px += kJitter * (double(k & 0xffffu) / 65535.0 - 0.5);
            pz += kJitter * (double((k >> 16) & 0xffffu) / 65535.0 - 0.5);
        }
        proxy[3 * i] = static_cast<float>(px * cell);
        proxy[3 * i + 1] = static_cast<float>(kHeightScale * grid[3 * i + 1]);
        proxy[3 * i + 2] = static_cast<float>(pz * cell);
    }
    return proxy;
}

// Triangles that face down in plan (x, z): folded over by the simplification.
std::size_t foldedTriangles(const std::vector<uint32_t>& indices, const std::vector<float>& positions) {
    std::size_t folds = 0;
    for (std::size_t f = 0; f < indices.size(); f += 3) {
        const float* a = &positions[3 * std::size_t(indices[f])];
        const float* b = &positions[3 * std::size_t(indices[f + 1])];
        const float* c = &positions[3 * std::size_t(indices[f + 2])];
        // y of (b - a) x (c - a): > 0 for a counter-clockwise triangle seen from above
        const double up = double(b[2] - a[2]) * (c[0] - a[0]) - double(b[0] - a[0]) * (c[2] - a[2]);
        if (up < 0.0) ++folds;
    }
    return folds;
}

float heightAt(const Heightmap& t, int x, int y) { return t.at(x, y); }

// Unit normal of the surface y = h(x, z) at a grid point: (-dh/dx, 1, -dh/dz), central
// differences inside, one-sided at the border.
void gridNormal(const Heightmap& t, int x, int y, double cell, float* n) {
    const int x0 = std::max(0, x - 1), x1 = std::min(t.width - 1, x + 1);
    const int y0 = std::max(0, y - 1), y1 = std::min(t.height - 1, y + 1);
    const double dhdx = (double(heightAt(t, x1, y)) - heightAt(t, x0, y)) / (cell * (x1 - x0));
    const double dhdz = (double(heightAt(t, x, y1)) - heightAt(t, x, y0)) / (cell * (y1 - y0));
    const double len = std::sqrt(dhdx * dhdx + 1.0 + dhdz * dhdz);
    n[0] = static_cast<float>(-dhdx / len);
    n[1] = static_cast<float>(1.0 / len);
    n[2] = static_cast<float>(-dhdz / len);
}

// [SECTION] OBJ -------------------------------------------------------------------------------

void appendNumber(std::string& s, float v) {
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof(buf), v);
    s.append(buf, r.ptr);
}

void appendNumber(std::string& s, std::size_t v) {
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof(buf), v);
    s.append(buf, r.ptr);
}

std::string encodeObj(const TerrainMesh& m, const Heightmap& t, double cell_size) {
    const std::size_t nv = m.positions.size() / 3;
    std::string s;
    s.reserve(nv * 110 + m.indices.size() * 12);
    char header[160];
    std::snprintf(header, sizeof(header), "# Alluvium terrain: %d x %d cells of %g m, y up, metres; %zu triangles\n",
                  t.width, t.height, cell_size, m.indices.size() / 3);
    s += header;
    for (std::size_t i = 0; i < nv; ++i) {
        s += "v ";
        for (int k = 0; k < 3; ++k) {
            appendNumber(s, m.positions[3 * i + std::size_t(k)]);
            s += k < 2 ? ' ' : '\n';
        }
    }
    for (std::size_t i = 0; i < nv; ++i) { // OBJ's v runs up from the bottom of a texture
        s += "vt ";
        appendNumber(s, m.uvs[2 * i]);
        s += ' ';
        appendNumber(s, 1.0f - m.uvs[2 * i + 1]);
        s += '\n';
    }
    for (std::size_t i = 0; i < nv; ++i) {
        s += "vn ";
        for (int k = 0; k < 3; ++k) {
            appendNumber(s, m.normals[3 * i + std::size_t(k)]);
            s += k < 2 ? ' ' : '\n';
        }
    }
    for (std::size_t f = 0; f < m.indices.size(); f += 3) {
        s += 'f';
        for (std::size_t k = 0; k < 3; ++k) {
            const std::size_t v = std::size_t(m.indices[f + k]) + 1;
            s += ' ';
            appendNumber(s, v);
            s += '/';
            appendNumber(s, v);
            s += '/';
            appendNumber(s, v);
        }
        s += '\n';
    }
    return s;
}

// [SECTION] glTF 2.0 --------------------------------------------------------------------------

std::string base64(const std::vector<unsigned char>& bytes) {
    static const char* const kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    std::size_t i = 0;
    for (; i + 2 < bytes.size(); i += 3) {
        const uint32_t v = (uint32_t(bytes[i]) << 16) | (uint32_t(bytes[i + 1]) << 8) | bytes[i + 2];
        for (int k = 3; k >= 0; --k) out += kAlphabet[(v >> (6 * k)) & 63u];
    }
    if (i < bytes.size()) {
        uint32_t v = uint32_t(bytes[i]) << 16;
        if (i + 1 < bytes.size()) v |= uint32_t(bytes[i + 1]) << 8;
        out += kAlphabet[(v >> 18) & 63u];
        out += kAlphabet[(v >> 12) & 63u];
        out += i + 1 < bytes.size() ? kAlphabet[(v >> 6) & 63u] : '=';
        out += '=';
    }
    return out;
}

template <typename T> void appendBytes(std::vector<unsigned char>& buf, const std::vector<T>& v) {
    const std::size_t at = buf.size();
    buf.resize(at + v.size() * sizeof(T));
    std::memcpy(buf.data() + at, v.data(), v.size() * sizeof(T)); // little-endian hosts only
}

std::string encodeGltf(const TerrainMesh& m) {
    using nlohmann::json;
    constexpr int kFloat = 5126, kUnsignedInt = 5125, kArrayBuffer = 34962, kElementArrayBuffer = 34963;
    const std::size_t nv = m.positions.size() / 3;
    std::vector<unsigned char> buf;
    json views = json::array(), accessors = json::array();
    auto addView = [&](const auto& data, int target) {
        const std::size_t offset = buf.size();
        appendBytes(buf, data);
        views.push_back(
            {{"buffer", 0}, {"byteOffset", offset}, {"byteLength", buf.size() - offset}, {"target", target}});
        return views.size() - 1;
    };
    std::array<float, 3> lo{}, hi{};
    for (int k = 0; k < 3; ++k) {
        lo[std::size_t(k)] = std::numeric_limits<float>::max();
        hi[std::size_t(k)] = std::numeric_limits<float>::lowest();
    }
    for (std::size_t i = 0; i < nv; ++i) {
        for (std::size_t k = 0; k < 3; ++k) {
            lo[k] = std::min(lo[k], m.positions[3 * i + k]);
            hi[k] = std::max(hi[k], m.positions[3 * i + k]);
        }
    }
    accessors.push_back({{"bufferView", addView(m.positions, kArrayBuffer)},
                         {"componentType", kFloat},
                         {"count", nv},
                         {"type", "VEC3"},
                         {"min", lo},
                         {"max", hi}});
    accessors.push_back(
        {{"bufferView", addView(m.normals, kArrayBuffer)}, {"componentType", kFloat}, {"count", nv}, {"type", "VEC3"}});
    accessors.push_back(
        {{"bufferView", addView(m.uvs, kArrayBuffer)}, {"componentType", kFloat}, {"count", nv}, {"type", "VEC2"}});
    accessors.push_back({{"bufferView", addView(m.indices, kElementArrayBuffer)},
                         {"componentType", kUnsignedInt},
                         {"count", m.indices.size()},
                         {"type", "SCALAR"}});

    json gltf = {
        {"asset", {{"version", "2.0"}, {"generator", "Alluvium"}}},
        {"scene", 0},
        {"scenes", json::array({{{"name", "terrain"}, {"nodes", {0}}}})},
        {"nodes", json::array({{{"name", "terrain"}, {"mesh", 0}}})},
        {"meshes",
         json::array({{{"name", "terrain"},
                       {"primitives", json::array({{{"attributes", {{"POSITION", 0}, {"NORMAL", 1}, {"TEXCOORD_0", 2}}},
                                                    {"indices", 3},
                                                    {"mode", 4}}})}}})},
        {"accessors", accessors},
        {"bufferViews", views},
        {"buffers",
         json::array({{{"byteLength", buf.size()}, {"uri", "data:application/octet-stream;base64," + base64(buf)}}})},
    };
    return gltf.dump() + "\n";
}

} // namespace

// [SECTION] writeTerrainMesh ------------------------------------------------------------------

TerrainMesh buildTerrainMesh(const Heightmap& terrain, double cell_size, std::size_t target_triangles) {
    const int w = terrain.width, h = terrain.height;
    if (w < 2 || h < 2) {
        throw InputError("a mesh needs at least 2x2 cells (the terrain is " + std::to_string(w) + "x" +
                         std::to_string(h) + ")");
    }
    if (terrain.heights.size() != std::size_t(w) * std::size_t(h))
        throw std::invalid_argument("buildTerrainMesh: heights.size() != width*height");
    if (!std::isfinite(cell_size) || cell_size <= 0.0) throw InputError("a mesh needs a finite cell size > 0");
    if (target_triangles < 2) throw InputError("a mesh needs a target of at least 2 triangles");
    for (std::size_t i = 0; i < terrain.heights.size(); ++i) {
        if (!std::isfinite(terrain.heights[i])) {
            throw InputError("refusing to write a mesh: cell (" + std::to_string(i % std::size_t(w)) + ", " +
                             std::to_string(i / std::size_t(w)) + ") is not finite");
        }
    }

    const std::size_t cells = terrain.heights.size();
    std::vector<float> grid(cells * 3);
    for (std::size_t i = 0; i < cells; ++i) {
        grid[3 * i] = static_cast<float>(double(i % std::size_t(w)) * cell_size);
        grid[3 * i + 1] = terrain.heights[i];
        grid[3 * i + 2] = static_cast<float>(double(i / std::size_t(w)) * cell_size);
    }
    // Up to four proxies (another jitter each) until no triangle is folded over in plan.
    const std::vector<uint32_t> full = gridIndices(w, h);
    std::vector<uint32_t> indices;
    std::size_t fewest_folds = std::numeric_limits<std::size_t>::max();
    for (uint64_t salt = 0; salt < 4 && fewest_folds > 0; ++salt) {
        std::vector<uint32_t> attempt =
            simplify(full, simplificationProxy(w, h, cell_size, grid, salt), target_triangles * 3);
        const std::size_t folds = foldedTriangles(attempt, grid);
        if (folds < fewest_folds) {
            fewest_folds = folds;
            indices = std::move(attempt);
        }
    }
    meshopt_optimizeVertexCache(indices.data(), indices.data(), indices.size(), cells);

    // Keep the vertices the triangles use, in the order they first use them.
    constexpr uint32_t kUnused = std::numeric_limits<uint32_t>::max();
    std::vector<uint32_t> remap(cells, kUnused);
    std::vector<uint32_t> kept;
    for (uint32_t& v : indices) {
        if (remap[v] == kUnused) {
            remap[v] = static_cast<uint32_t>(kept.size());
            kept.push_back(v);
        }
        v = remap[v];
    }

    TerrainMesh m;
    m.indices = std::move(indices);
    m.positions.resize(kept.size() * 3);
    m.normals.resize(kept.size() * 3);
    m.uvs.resize(kept.size() * 2);
    for (std::size_t k = 0; k < kept.size(); ++k) {
        const int x = static_cast<int>(kept[k] % uint32_t(w)), y = static_cast<int>(kept[k] / uint32_t(w));
        std::copy_n(grid.data() + 3 * std::size_t(kept[k]), 3, m.positions.data() + 3 * k);
        gridNormal(terrain, x, y, cell_size, m.normals.data() + 3 * k);
        m.uvs[2 * k] = static_cast<float>((x + 0.5) / w);
        m.uvs[2 * k + 1] = static_cast<float>((y + 0.5) / h);
    }
    return m;
}

void writeTerrainMesh(const fs::path& path, const Heightmap& terrain, double cell_size, std::size_t target_triangles) {
    const std::string ext = lowerExtension(path);
    if (ext != ".obj" && ext != ".gltf") {
        throw InputError("cannot write the mesh " + quoted(path) + ": unknown extension '" +
                         displayPath(path.extension()) + "' (use .obj or .gltf)");
    }
    const TerrainMesh mesh = buildTerrainMesh(terrain, cell_size, target_triangles);
    writeTextAtomic(path, ext == ".obj" ? encodeObj(mesh, terrain, cell_size) : encodeGltf(mesh));
}

} // namespace alluvium
