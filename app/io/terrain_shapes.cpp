// The raw procedural terrains (io/terrain_gen.h): relief that no water has shaped, so a run
// shows erosion cutting its valleys from scratch. Each is a height function of the position in
// extent units (metres over the longer side's extent), so a seed gives the same landscape at any
// resolution, bit for bit on every platform (terrain_noise.h's arithmetic only).
#include <algorithm>
#include <cmath>
#include <string>

#include "io/terrain_gen.h"
#include "io/terrain_noise.h"

namespace alluvium {

using namespace terrain_noise;

namespace {

constexpr std::pair<const char*, TerrainShape> kShapes[] = {
    {"carved", TerrainShape::Carved},
    {"fractal", TerrainShape::Fractal},
    {"ridged", TerrainShape::Ridged},
    {"faults", TerrainShape::Faults},
    {"volcano", TerrainShape::Volcano},
    {"island", TerrainShape::Island},
    {"mountain-front", TerrainShape::MountainFront},
    {"river-mouth", TerrainShape::RiverMouth},
};

// Octaves down to about three cells of the longer side.
int octavesFor(int longest, double base_frequency) {
    int octaves = 1;
    for (double f = base_frequency * 2.0; f * 3.0 <= longest && octaves < 12; f *= 2.0) ++octaves;
    return octaves;
}

// A random unit vector without trig (rejection from the square).
Vec2 randomDirection(uint64_t& s) {
    for (int i = 0; i < 64; ++i) {
        const double dx = 2.0 * uniform01(s) - 1.0, dy = 2.0 * uniform01(s) - 1.0;
        const double r2 = dx * dx + dy * dy;
        if (r2 > 0.05 && r2 <= 1.0) {
            const double len = std::sqrt(r2);
            return {dx / len, dy / len};
        }
    }
    return {1.0, 0.0};
}

// Seed 000's faulting: the plane is cut again and again by random lines and one side raised, by
// less each time; a step 1/64 of the extent wide (not a cliff one cell wide) and a little fBm.
struct Faults {
    static constexpr int kCount = 120;
    static constexpr double kHalfWidth = 1.0 / 128.0;
    Vec2 point[kCount], normal[kCount];
    double lift[kCount];
    Faults(uint64_t seed, double ex, double ey) {
        uint64_t s = seed ^ 0xFA017ull;
        for (int i = 0; i < kCount; ++i) {
            point[i] = {ex * uniform01(s), ey * uniform01(s)};
            normal[i] = randomDirection(s);
            lift[i] = (0.4 + 0.6 * uniform01(s)) * (1.0 - 0.8 * double(i) / kCount);
        }
    }
    double at(Vec2 p) const {
        double h = 0.0;
        for (int i = 0; i < kCount; ++i) {
            const double d = (p.x - point[i].x) * normal[i].x + (p.y - point[i].y) * normal[i].y;
            if (d >= kHalfWidth)
                h += lift[i];
            else if (d > -kHalfWidth)
                h += lift[i] * smoothstep(-kHalfWidth, kHalfWidth, d);
        }
        return h;
    }
};

struct Layers {
    NoiseLayer main, detail, shape;
    explicit Layers(uint64_t seed) : main(seed, 11), detail(seed, 12), shape(seed, 13) {}
};

// A range meeting a plain (in units of the relief): the range's basin, rising away from the front
// and toward its sides, drains through one notch in the ridge along its front (0.4 of the way
// down) onto a plain sloping gently away (falling 1.8 % of the relief from the front to the far
// edge); what the notch's stream carries spreads there as an alluvial fan. Only + - * / and the
// noise: the same bits everywhere.
double mountainFront(const Layers& L, Vec2 p, Vec2 ext, int octaves) {
    constexpr double kFront = 0.4;
    const double u = p.x / ext.x, v = p.y / ext.y; // 0..1 across, and from the back to the plain's end
    const double across = std::abs(u - 0.5) / 0.5;
    const double plain = 0.03 * (1.0 - v), at_front = 0.03 * (1.0 - kFront);
    const double behind = std::max(kFront - v, 0.0);
    const double notch = smoothstep(0.0, 0.24, across); // the ridge's gap at the middle
    const double ridge = 0.2 * (1.0 - smoothstep(0.0, 0.08, behind)) * notch;
    const double range = smoothstep(0.0, 0.01, behind); // the front: a step one hundredth wide
    const double noise = fbm(L.detail, {p.x * 8.0, p.y * 8.0}, octaves, 0.5);
    const double sides = 0.45 * across * (0.6 + 0.4 * across);
    return plain + 0.002 * noise + range * (at_front - plain + 0.5 * behind + sides + ridge + 0.01 * noise);
}

// A river mouth, in units of the relief (a quarter of the shorter side: a raw gradient of 1 is a
// real slope of 1/4): a V-shaped valley (its sides 0.25 relief high at the edges) falling 8 % to
// the coast halfway down; there its sides drop into the sea as bluffs of 36 % (below the loose
// ground's angle of repose), so the sea reaches up the valley as a bay between headlands, and the
// shelf deepens from 0.25 % to 1.25 % of the relief (0.2 m to 1 m at 80 x 80 cells of 4 m).
constexpr double kRiverCoast = 0.5;
double riverMouth(const Layers& L, Vec2 p, Vec2 ext, int octaves) {
    const double u = p.x / ext.x, v = p.y / ext.y, coast = kRiverCoast * ext.y;
    const double sides = 0.25 * std::abs(u - 0.5) / 0.5;
    const double noise = 0.004 * fbm(L.detail, {p.x * 8.0, p.y * 8.0}, octaves, 0.5);
    if (p.y < coast) return 0.32 * (coast - p.y) + sides + noise;
    const double shelf = -(0.0025 + 0.01 * (v - kRiverCoast) / (1.0 - kRiverCoast));
    return std::max(sides - 1.44 * (p.y - coast), shelf) + noise;
}

// Its rain: on the catchment, none on the last eighth of the valley and the bluffs (their runoff
// would spread its load along the whole coast: the delta is the river's).
double riverMouthRain(Vec2 p, Vec2 ext) { return 1.0 - smoothstep(0.40, 0.44, p.y / ext.y); }

// The shape's height at p (extent units) before scaling; the island, the volcano and the mountain
// front are in units of the relief (they place the sea level, the crater, the plain themselves),
// the others are normalised.
double rawHeight(TerrainShape shape, const Layers& L, const Faults* faults, Vec2 p, Vec2 ext, int octaves) {
    switch (shape) {
    case TerrainShape::Fractal: return fbm(L.main, {p.x * 3.0, p.y * 3.0}, octaves);
    case TerrainShape::Ridged:
        return ridgedMultifractal(L.main, {p.x * 2.5, p.y * 2.5}, octaves) +
               0.3 * fbm(L.shape, {p.x * 1.5, p.y * 1.5}, 3);
    case TerrainShape::Faults: return faults->at(p) + 0.6 * fbm(L.detail, {p.x * 6.0, p.y * 6.0}, octaves, 0.45);
    case TerrainShape::Volcano: {
        // A cone (slopes steepening upwards), a crater at its top, gullies on its flanks.
        const double dx = p.x - 0.5 * ext.x, dy = p.y - 0.5 * ext.y;
        const double r = std::sqrt(dx * dx + dy * dy) / (0.45 * std::min(ext.x, ext.y));
        const double cone = r < 1.0 ? (1.0 - r) * (1.0 - r) * (1.0 + r) : 0.0;
        const double crater = 0.12, rim = (1.0 - crater) * (1.0 - crater) * (1.0 + crater);
        double h = r < crater ? rim - 0.35 * (1.0 - (r / crater) * (r / crater)) : cone;
        h += 0.06 * (0.3 + cone) * fbm(L.detail, {p.x * 8.0, p.y * 8.0}, octaves, 0.5);
        return std::max(h, 0.0) + 0.02 * (1.0 + fbm(L.shape, {p.x * 2.0, p.y * 2.0}, 3));
    }
    case TerrainShape::Island: {
        // Land inside a noisy coast, a shelf 4 % of the relief deep around it, then the deep sea.
        const double dx = (p.x - 0.5 * ext.x) / ext.x, dy = (p.y - 0.5 * ext.y) / ext.y;
        const double d = std::sqrt(dx * dx + dy * dy) + 0.12 * fbm(L.shape, {p.x * 3.0, p.y * 3.0}, 4);
        const double envelope = 0.7 * (1.0 - smoothstep(0.1, 0.42, d));
        const double land = envelope * (0.6 + 0.7 * fbm(L.main, {p.x * 5.0, p.y * 5.0}, octaves, 0.55)) - 0.03;
        const double shelf = -0.04 - 0.16 * smoothstep(0.4, 0.55, d);
        return std::max(land, shelf);
    }
    case TerrainShape::MountainFront: return mountainFront(L, p, ext, octaves);
    case TerrainShape::RiverMouth: return riverMouth(L, p, ext, octaves);
    case TerrainShape::Carved: break;
    }
    return 0.0;
}

} // namespace

const char* terrainShapeName(TerrainShape shape) {
    for (const auto& [name, s] : kShapes)
        if (s == shape) return name;
    return "carved";
}

std::optional<TerrainShape> terrainShapeFromName(const std::string& name) {
    for (const auto& [n, s] : kShapes)
        if (name == n) return s;
    return std::nullopt;
}

std::string terrainShapeList() {
    std::string list;
    for (const auto& [name, s] : kShapes) list += (list.empty() ? "" : ", ") + std::string(name);
    return list;
}

GeneratedTerrain generateRawTerrain(int width, int height, uint64_t seed, double cell_size, TerrainShape shape) {
    const int longest = std::max(width, height);
    const double extent = double(longest) * cell_size;
    const Vec2 ext{double(width) / longest, double(height) / longest};
    const Layers layers(seed);
    const Faults faults(seed, ext.x, ext.y);
    const int octaves = octavesFor(longest, 3.0);
    GeneratedTerrain out;
    Heightmap& map = out.terrain;
    map.width = width;
    map.height = height;
    const size_t n = size_t(width) * size_t(height);
    map.heights.resize(n);
    std::vector<double> raw(n);
    forEachRow(width, height, [&](int y) {
        for (int x = 0; x < width; ++x) {
            const Vec2 p{(x + 0.5) * cell_size / extent, (y + 0.5) * cell_size / extent};
            raw[size_t(y) * size_t(width) + size_t(x)] = rawHeight(shape, layers, &faults, p, ext, octaves);
        }
    });
    // The same relief as the carved terrain (a fixed share of the shorter side). The volcano, the
    // island and the mountain front keep their own zero (the plain, the sea level, the plain's
    // far edge); the others span 0 .. relief.
    const double relief = 0.25 * std::min(width, height) * cell_size;
    const auto [mn, mx] = std::minmax_element(raw.begin(), raw.end());
    const bool own_zero = shape == TerrainShape::Volcano || shape == TerrainShape::Island ||
                          shape == TerrainShape::MountainFront || shape == TerrainShape::RiverMouth;
    const double lo = own_zero ? 0.0 : *mn, scale = own_zero ? relief : (*mx > *mn ? relief / (*mx - *mn) : 0.0);
    const double band = relief / 12.0;
    const auto strata_key = static_cast<uint32_t>(seed ^ (seed >> 32));
    out.hardness.resize(n);
    for (size_t i = 0; i < n; ++i) {
        const double h = (raw[i] - lo) * scale;
        map.heights[i] = float(h);
        out.hardness[i] = strataHardness(strata_key, std::max(h, 0.0) / band); // level beds
    }
    if (shape == TerrainShape::RiverMouth) {
        out.rain.resize(n);
        for (size_t i = 0; i < n; ++i)
            out.rain[i] = float(riverMouthRain({(double(i % size_t(width)) + 0.5) * cell_size / extent,
                                                (double(i / size_t(width)) + 0.5) * cell_size / extent},
                                               ext));
    }
    return out;
}

} // namespace alluvium
