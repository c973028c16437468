// Procedural starting terrain (hashing and noise: io/terrain_noise.h).
//
// [SECTION] landscape plan: uplift from a domain-warped massif (regional slope, a few main
//           peaks, ridged multifractal variation), in world units
// [SECTION] drainage: steady-state river network on a coarse grid (Cordonnier et al. 2016)
// [SECTION] strata: hardness bands by altitude, warped by low-frequency noise
// [SECTION] generateTerrain: coarse rivers, bicubic upsampling, fine fBm detail, normalising
#include "io/terrain_gen.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "io/errors.h"
#include "io/terrain_noise.h"

// Bit-identical results need every a * b + c rounded twice, as written: GCC in ISO mode does
// not fuse them into FMAs, clang does by default.
#if defined(__clang__)
#pragma clang fp contract(off)
#endif

namespace alluvium {

namespace {

using namespace terrain_noise;

// [SECTION] landscape plan --------------------------------------------------------------------

// Everything about the landscape that depends only on the seed and the domain shape.
// Positions are in extent units: metres divided by the longer side's extent.
struct LandscapePlan {
    NoiseLayer warp_x, warp_y, massif, relief, detail, strata;
    double ext_x, ext_y; // domain size in extent units (the longer one is 1)
    Vec2 uphill;         // unit vector: the range rises toward this side, foothills opposite
    Vec2 peaks[3];       // main peaks
    double peak_radius[3];
    double peak_height[3];
    Vec2 dip; // tilt of the rock strata

    LandscapePlan(uint64_t seed, double ex, double ey)
        : warp_x(seed, 1), warp_y(seed, 2), massif(seed, 3), relief(seed, 4), detail(seed, 5), strata(seed, 6),
          ext_x(ex), ext_y(ey) {
        uint64_t s = seed ^ 0x5DEECE66Dull;
        // A random direction without trig: reject points outside the unit disc.
        double dx = 1.0, dy = 0.0;
        for (int i = 0; i < 64; ++i) {
            dx = 2.0 * uniform01(s) - 1.0;
            dy = 2.0 * uniform01(s) - 1.0;
            const double r2 = dx * dx + dy * dy;
            if (r2 > 0.05 && r2 <= 1.0) break;
        }
        const double len = std::sqrt(dx * dx + dy * dy);
        uphill = {dx / len, dy / len};
        for (int k = 0; k < 3; ++k) {
            const double u = 0.2 + 0.6 * uniform01(s), v = 0.2 + 0.6 * uniform01(s);
            peaks[k] = {ext_x * u + 0.1 * uphill.x, ext_y * v + 0.1 * uphill.y};
            peak_radius[k] = 0.2 + 0.15 * uniform01(s);
            peak_height[k] = 0.3 + 0.3 * uniform01(s);
        }
        dip = {0.3 * (2.0 * uniform01(s) - 1.0), 0.3 * (2.0 * uniform01(s) - 1.0)};
    }
};

// Domain warp: bends all shapes so ranges curve instead of following noise-lattice axes.
Vec2 warped(const LandscapePlan& P, Vec2 p) {
    return {p.x + 0.1 * fbm(P.warp_x, {p.x * 1.5, p.y * 1.5}, 3), p.y + 0.1 * fbm(P.warp_y, {p.x * 1.5, p.y * 1.5}, 3)};
}

// Tectonic uplift, always > 0 (about 0.02..1.5): a regional slope toward one side, large-scale
// undulation, a few main peaks and ridged mid-scale variation. High uplift makes high, steep
// mountains; low uplift, foothills.
double uplift(const LandscapePlan& P, Vec2 p, Vec2 q) {
    const double ramp = (p.x - 0.5 * P.ext_x) * P.uphill.x + (p.y - 0.5 * P.ext_y) * P.uphill.y;
    double m = 0.3 + 0.9 * ramp + 0.6 * fbm(P.massif, {q.x * 1.3, q.y * 1.3}, 4);
    for (int k = 0; k < 3; ++k) {
        const double dx = q.x - P.peaks[k].x, dy = q.y - P.peaks[k].y;
        const double t = 1.0 - (dx * dx + dy * dy) / (P.peak_radius[k] * P.peak_radius[k]);
        if (t > 0.0) m += P.peak_height[k] * t * t * t; // C2 at the rim: no visible edge
    }
    m = smoothstep(-0.3, 1.2, m);
    const double r = ridgedMultifractal(P.relief, {q.x * 4.0, q.y * 4.0}, 3);
    // Small-scale variation bends the rivers, which would otherwise run straight along D8
    // directions across uniform slopes.
    const double jitter = fbm(P.detail, {q.x * 16.0, q.y * 16.0}, 4);
    return 0.03 + 0.97 * m * (0.55 + 0.45 * std::min(1.0, r)) * (1.0 + 0.5 * jitter);
}

// [SECTION] drainage: a river network on a coarse grid fixed in world units ------------------
//
// Noise alone has no drainage network. Real ranges are shaped by rivers: at steady state
// between uplift U and stream-power erosion (rate K sqrt(A) S, A = drainage area) the slope
// along the flow is S = U / (K sqrt(A)). Following Cordonnier et al. 2016 ("Large scale terrain
// generation from tectonic uplift and fluvial erosion"), heights are rebuilt from the outlets
// upward with that slope, the flow is re-routed on the result, and this repeats: rivers settle
// into dendritic valleys with concave profiles and sharp divides between them. It runs on a
// grid of kDrainageCells per extent whatever the output resolution, so the network is the same
// at 256^2 and 4096^2; finer noise adds detail on top.

constexpr int kDrainageCells = 256;
// The coarse grid reaches this many cells beyond the domain on every side. Routing makes
// artefacts at the grid's own border (a divide along a closed edge); they stay out of sight.
constexpr int kDrainagePad = 16;
// Drainage area (cells) where channels begin. Below it the slope no longer grows as the area
// shrinks: planar hillslopes instead of a furrow along every D8 flow line.
constexpr double kChannelHead = 24.0;

struct Grid {
    int w = 0, h = 0;
    std::vector<double> v;
    double& at(int x, int y) { return v[static_cast<std::size_t>(y) * w + x]; }
    double at(int x, int y) const { return v[static_cast<std::size_t>(y) * w + x]; }
};

// Catmull-Rom weights for fraction t (C1, interpolating: valleys keep their depth).
void catmullRom(double t, double wt[4]) {
    const double t2 = t * t, t3 = t2 * t;
    wt[0] = 0.5 * (-t3 + 2.0 * t2 - t);
    wt[1] = 0.5 * (3.0 * t3 - 5.0 * t2 + 2.0);
    wt[2] = 0.5 * (-3.0 * t3 + 4.0 * t2 + t);
    wt[3] = 0.5 * (t3 - t2);
}

// Extent-unit position of coarse node (x, y).
Vec2 nodePosition(int x, int y) {
    return {(x - kDrainagePad + 0.5) / kDrainageCells, (y - kDrainagePad + 0.5) / kDrainageCells};
}

// Bicubic sample at p (extent units), edges clamped.
double sampleGrid(const Grid& g, Vec2 p) {
    const double gx = p.x * kDrainageCells - 0.5 + kDrainagePad;
    const double gy = p.y * kDrainageCells - 0.5 + kDrainagePad;
    const int32_t ix = floorToInt(gx), iy = floorToInt(gy);
    double wx[4], wy[4];
    catmullRom(gx - ix, wx);
    catmullRom(gy - iy, wy);
    double sum = 0.0;
    for (int j = 0; j < 4; ++j) {
        const int yy = std::clamp(iy - 1 + j, 0, g.h - 1);
        double row = 0.0;
        for (int i = 0; i < 4; ++i) row += wx[i] * g.at(std::clamp(ix - 1 + i, 0, g.w - 1), yy);
        sum += wy[j] * row;
    }
    return sum;
}

constexpr int kDx[8] = {1, -1, 0, 0, 1, 1, -1, -1};
constexpr int kDy[8] = {0, 0, 1, -1, 1, -1, 1, -1};
constexpr double kDist[8] = {
    1.0, 1.0, 1.0, 1.0, 1.4142135623730951, 1.4142135623730951, 1.4142135623730951, 1.4142135623730951};
constexpr double kInvDist[8] = {
    1.0, 1.0, 1.0, 1.0, 0.7071067811865476, 0.7071067811865476, 0.7071067811865476, 0.7071067811865476};

// Flow routing on z: receiver (-1 at the outlets), the D8 direction to it, and an order in
// which every cell comes after its receiver.
struct Routing {
    std::vector<uint8_t> outlet; // 1 on the open edges, where water leaves at base level 0
    std::vector<int32_t> receiver, order;
    std::vector<uint8_t> dir;
};

// Routing by priority flood (Barnes et al. 2014), for a surface that may have closed
// depressions: they drain over their spill point.
void routeByFlood(const Grid& z, Routing& R) {
    const int w = z.w, h = z.h;
    const std::size_t n = z.v.size();
    std::vector<double> filled(n);
    std::vector<int32_t> rank(n, -1);
    using Entry = std::pair<double, int32_t>; // (filled height, cell): a strict total order
    std::vector<Entry> heap;
    const auto later = std::greater<Entry>();
    R.order.clear();
    for (std::size_t i = 0; i < n; ++i) {
        if (!R.outlet[i]) continue;
        filled[i] = z.v[i];
        rank[i] = -2; // queued
        heap.push_back({z.v[i], static_cast<int32_t>(i)});
    }
    std::make_heap(heap.begin(), heap.end(), later);
    while (!heap.empty()) {
        std::pop_heap(heap.begin(), heap.end(), later);
        const int32_t c = heap.back().second;
        heap.pop_back();
        rank[c] = static_cast<int32_t>(R.order.size());
        R.order.push_back(c);
        const int cx = c % w, cy = c / w;
        for (int d = 0; d < 8; ++d) {
            const int x = cx + kDx[d], y = cy + kDy[d];
            if (x < 0 || y < 0 || x >= w || y >= h) continue;
            const int32_t i = y * w + x;
            if (rank[i] != -1) continue;
            filled[i] = std::max(z.v[i], filled[c]);
            rank[i] = -2;
            heap.push_back({filled[i], i});
            std::push_heap(heap.begin(), heap.end(), later);
        }
    }
    // Receiver: the steepest neighbour on the filled surface among those earlier in the order
    // (there is always one: the cell that flooded it).
    for (const int32_t c : R.order) {
        const int cx = c % w, cy = c / w;
        R.receiver[c] = -1;
        if (R.outlet[c]) continue;
        double best = -1.0;
        for (int d = 0; d < 8; ++d) {
            const int x = cx + kDx[d], y = cy + kDy[d];
            if (x < 0 || y < 0 || x >= w || y >= h) continue;
            const int32_t i = y * w + x;
            if (rank[i] >= rank[c]) continue;
            const double slope = (filled[c] - filled[i]) * kInvDist[d];
            if (slope > best) {
                best = slope;
                R.receiver[c] = i;
                R.dir[c] = static_cast<uint8_t>(d);
            }
        }
    }
}

// Routing by steepest descent, for a surface where every inner cell has a lower neighbour.
// The order is a breadth-first walk up the receiver trees from the outlets.
void routeBySteepestDescent(const Grid& z, Routing& R, std::vector<int32_t>& donor_start,
                            std::vector<int32_t>& donors) {
    const int w = z.w, h = z.h;
    const std::size_t n = z.v.size();
    std::fill(donor_start.begin(), donor_start.end(), 0);
    for (int y = 0; y < h; ++y) {
        for (int x = 0; x < w; ++x) {
            const int32_t c = y * w + x;
            R.receiver[c] = -1;
            if (R.outlet[c]) continue;
            const bool inner = x > 0 && y > 0 && x < w - 1 && y < h - 1; // no bounds checks
            const double zc = z.v[c];
            double best = 0.0;
            for (int d = 0; d < 8; ++d) {
                const int nx = x + kDx[d], ny = y + kDy[d];
                if (!inner && (nx < 0 || ny < 0 || nx >= w || ny >= h)) continue;
                const int32_t i = ny * w + nx;
                const double slope = (zc - z.v[i]) * kInvDist[d];
                if (slope > best) {
                    best = slope;
                    R.receiver[c] = i;
                    R.dir[c] = static_cast<uint8_t>(d);
                }
            }
            if (R.receiver[c] >= 0) ++donor_start[R.receiver[c] + 1];
        }
    }
    for (std::size_t i = 0; i < n; ++i) donor_start[i + 1] += donor_start[i];
    std::vector<int32_t> fill(donor_start.begin(), donor_start.end() - 1);
    for (std::size_t c = 0; c < n; ++c) {
        if (R.receiver[c] >= 0) donors[fill[R.receiver[c]]++] = static_cast<int32_t>(c);
    }
    R.order.clear();
    for (std::size_t c = 0; c < n; ++c) {
        if (R.receiver[c] < 0) R.order.push_back(static_cast<int32_t>(c));
    }
    for (std::size_t k = 0; k < R.order.size(); ++k) {
        const int32_t c = R.order[k];
        for (int32_t j = donor_start[c]; j < donor_start[c + 1]; ++j) R.order.push_back(donors[j]);
    }
}

// Builds the steady-state river landscape for the given uplift, starting the routing from
// the surface `z` (overwritten with the result). Edges facing `uphill` are closed (the range
// continues beyond them); the others are outlets at height 0.
void buildRiverLandscape(Grid& z, const Grid& uplift_field, Vec2 uphill, int iterations) {
    const std::size_t n = z.v.size();
    if (z.w < 3 || z.h < 3) return; // every cell is an edge: nothing to route
    Routing R;
    R.outlet.assign(n, 0);
    for (int y = 0; y < z.h; ++y) {
        for (int x = 0; x < z.w; ++x) {
            // Open unless the edge's outward normal points up the regional slope.
            const bool open = (x == 0 && -uphill.x < 0.4) || (x == z.w - 1 && uphill.x < 0.4) ||
                              (y == 0 && -uphill.y < 0.4) || (y == z.h - 1 && uphill.y < 0.4);
            if (open) {
                R.outlet[static_cast<std::size_t>(y) * z.w + x] = 1;
                z.at(x, y) = 0.0;
            }
        }
    }
    R.receiver.resize(n);
    R.dir.resize(n);
    R.order.reserve(n);
    std::vector<int32_t> donor_start(n + 1), donors(n);
    std::vector<double> area(n);
    const double cell = 1.0 / kDrainageCells; // extent units
    for (int it = 0; it < iterations; ++it) {
        if (it == 0)
            routeByFlood(z, R);
        else
            routeBySteepestDescent(z, R, donor_start, donors);
        if (R.order.size() != n) return; // cannot happen; keep what we have rather than loop
        // Drainage area in cells, accumulated from the top of the order down.
        std::fill(area.begin(), area.end(), 1.0);
        for (std::size_t k = n; k-- > 0;) {
            const int32_t c = R.order[k];
            if (R.receiver[c] >= 0) area[R.receiver[c]] += area[c];
        }
        // Steady state S = U / (K A^0.375) (concavity 0.375, a little under the textbook 0.5:
        // steeper rivers, gentler hillslopes), integrated from the outlets upward.
        for (const int32_t c : R.order) {
            const int32_t r = R.receiver[c];
            if (r < 0) continue;
            const double a = std::max(area[c], kChannelHead);
            const double a_quarter = std::sqrt(std::sqrt(a));
            const double slope = uplift_field.v[c] / (a_quarter * std::sqrt(a_quarter));
            z.v[c] = z.v[r] + kDist[R.dir[c]] * cell * slope; // slope ~ A^-0.375
        }
    }
}

// Binomial 3x3 blur, `passes` times, edges clamped: rounds off the D8 facets of the river
// landscape while keeping its valleys and divides.
void blurGrid(Grid& g, int passes) {
    Grid tmp = g;
    auto clampX = [&g](int x) { return std::clamp(x, 0, g.w - 1); };
    auto clampY = [&g](int y) { return std::clamp(y, 0, g.h - 1); };
    for (int pass = 0; pass < passes; ++pass) {
        for (int y = 0; y < g.h; ++y)
            for (int x = 0; x < g.w; ++x)
                tmp.at(x, y) = 0.25 * g.at(clampX(x - 1), y) + 0.5 * g.at(x, y) + 0.25 * g.at(clampX(x + 1), y);
        for (int y = 0; y < g.h; ++y)
            for (int x = 0; x < g.w; ++x)
                g.at(x, y) = 0.25 * tmp.at(x, clampY(y - 1)) + 0.5 * tmp.at(x, y) + 0.25 * tmp.at(x, clampY(y + 1));
    }
}

} // namespace

// [SECTION] generateTerrain -------------------------------------------------------------------

GeneratedTerrain generateTerrain(int width, int height, uint64_t seed, double cell_size, TerrainShape shape) {
    if (width < 1 || height < 1 || width > kMaxGridSide || height > kMaxGridSide ||
        static_cast<long long>(width) * height > kMaxGridCells) {
        throw InputError("terrain size " + std::to_string(width) + "x" + std::to_string(height) +
                         " is not supported (1.." + std::to_string(kMaxGridSide) + " per side, at most 2^28 cells)");
    }
    if (!std::isfinite(cell_size) || cell_size <= 0.0) {
        throw InputError("cell size must be finite and > 0 metres");
    }
    if (shape != TerrainShape::Carved) return generateRawTerrain(width, height, seed, cell_size, shape);

    // World coordinates in units of the longer side's extent, so features scale with the
    // physical size and not with the cell count.
    const int longest = std::max(width, height);
    const double extent = static_cast<double>(longest) * cell_size;
    const LandscapePlan plan(seed, static_cast<double>(width) / longest, static_cast<double>(height) / longest);

    // Coarse fields, fixed in world units: uplift, the initial surface for the first routing
    // (uplift plus noise, so rivers start out following its valleys) and strata folds.
    Grid coarse, up, fold;
    coarse.w = static_cast<int>(std::ceil(plan.ext_x * kDrainageCells)) + 2 * kDrainagePad;
    coarse.h = static_cast<int>(std::ceil(plan.ext_y * kDrainageCells)) + 2 * kDrainagePad;
    coarse.v.resize(static_cast<std::size_t>(coarse.w) * coarse.h);
    up = fold = coarse;
    for (int y = 0; y < coarse.h; ++y) {
        for (int x = 0; x < coarse.w; ++x) {
            const Vec2 p = nodePosition(x, y);
            const Vec2 q = warped(plan, p);
            up.at(x, y) = uplift(plan, p, q);
            coarse.at(x, y) = 0.3 * up.at(x, y) + 0.05 * fbm(plan.detail, {q.x * 8, q.y * 8}, 5);
            fold.at(x, y) = fbm(plan.strata, {p.x * 2.0, p.y * 2.0}, 3);
        }
    }
    buildRiverLandscape(coarse, up, plan.uphill, 20);
    blurGrid(coarse, 2);

    GeneratedTerrain out;
    Heightmap& map = out.terrain;
    map.width = width;
    map.height = height;
    const std::size_t n = static_cast<std::size_t>(width) * static_cast<std::size_t>(height);
    map.heights.resize(n); // unnormalised first
    auto cellCentre = [&](int x, int y) {
        return Vec2{(x + 0.5) * cell_size / extent, (y + 0.5) * cell_size / extent};
    };
    // Detail finer than the coarse grid, down to about 3 output cells.
    int detail_octaves = 0;
    for (double f = kDrainageCells / 8.0; f * 3.0 <= longest && detail_octaves < 8; f *= 2.0) ++detail_octaves;
    forEachRow(width, height, [&](int y) {
        for (int x = 0; x < width; ++x) {
            const Vec2 p = cellCentre(x, y);
            double h = sampleGrid(coarse, p);
            if (detail_octaves > 0) {
                const double f = kDrainageCells / 8.0;
                h += 0.0012 * sampleGrid(up, p) * fbm(plan.detail, {p.x * f, p.y * f}, detail_octaves, 0.4);
            }
            map.heights[static_cast<std::size_t>(y) * width + x] = static_cast<float>(h);
        }
    });
    const auto [mn, mx] = std::minmax_element(map.heights.begin(), map.heights.end());
    const double lo = *mn, hi = *mx;

    // Relief is a fixed share of the shorter side, so slopes look alike at any size.
    const double relief = 0.25 * std::min(width, height) * cell_size;
    const double scale = hi > lo ? relief / (hi - lo) : 0.0;
    const double band = relief / 12.0; // > 0 even for a flat 1x1: uses the target relief
    const auto strata_key = static_cast<uint32_t>(seed ^ (seed >> 32));
    out.hardness.resize(n);
    forEachRow(width, height, [&](int y) {
        for (int x = 0; x < width; ++x) {
            const std::size_t i = static_cast<std::size_t>(y) * width + x;
            const double h = (static_cast<double>(map.heights[i]) - lo) * scale;
            map.heights[i] = static_cast<float>(h);
            // Strata: gently dipping beds, bent by low-frequency folds.
            const Vec2 p = cellCentre(x, y);
            const double z = h + relief * (0.12 * sampleGrid(fold, p) + plan.dip.x * p.x + plan.dip.y * p.y);
            out.hardness[i] = strataHardness(strata_key, z / band);
        }
    });
    return out;
}

} // namespace alluvium
