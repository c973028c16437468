#include "reference.h"

#include "groundwater.h"
#include "layers.h"
#include "vegetation.h"

#include <algorithm>
#include <cmath>

namespace alluvium::ref {

State::State(int width, int height) : w(width), h(height) {
    const size_t n = static_cast<size_t>(width) * static_cast<size_t>(height);
    terrain.assign(n, 0.0);
    water.assign(n, 0.0);
    sediment.assign(n, 0.0);
    hardness.assign(n, 0.0);
    loose.assign(n, 0.0);
    snow.assign(n, 0.0);
    vegetation.assign(n, Vec2{});
    lava.assign(n, Vec2{});
    rain_mask.assign(n, 1.0);
    outflow.assign(n, Vec4{});
    velocity.assign(n, Vec2{});
    thermal_axis.assign(n, Vec4{});
    thermal_diag.assign(n, Vec4{});
    wear.assign(n, Vec2{});
    flow.assign(n, 0.0);
    scratch.assign(n, Vec4{});
    groundwater.assign(n, 0.0);
    aquifer_base.assign(n, 0.0);
    sea_spill.assign(n, SEA_UNREACHED);
    seepage.assign(n, 0.0);
    water_table.assign(n, 0.0);
}

namespace {

constexpr int LEFT = 0, RIGHT = 1, TOP = 2, BOTTOM = 3;

// ---------------------------------------------------------------------------------------------
// Outflow flux: one signed speed per cell face, positive toward +x (or +y).
// ---------------------------------------------------------------------------------------------
struct Face {
    double U; // face speed (m/s), positive toward +axis
    double q; // discharge per unit width (m^2/s), same sign
};

struct FluxGrid {
    const State& s;
    const gpu::SimParams& p;
    double sea_surface = 0.0; // the step's: the ghost cell beyond an open edge holds it
    double d(int x, int y) const { return s.water[s.index(x, y)]; }
    double eta(int x, int y) const { return s.terrain[s.index(x, y)] + s.water[s.index(x, y)]; }
    const Vec4& w(int x, int y) const { return s.outflow[s.index(x, y)]; }

    // Face `f` along `axis` (0: x, 1: y) on line `k`: between cells f-1 and f (f in 0..n).
    Face face(int axis, int f, int k) const {
        const int n = axis == 0 ? s.w : s.h;
        auto cell = [&](int i) { return axis == 0 ? std::pair{i, k} : std::pair{k, i}; };
        const int lo = axis == 0 ? LEFT : TOP, hi = axis == 0 ? RIGHT : BOTTOM;
        if (f <= 0 || f >= n) {
            if (p.edge_mode != EDGE_OPEN || f < 0 || f > n) return {0.0, 0.0};
            auto [x, y] = cell(f == 0 ? 0 : n - 1);
            const double U = f == 0 ? -w(x, y)[lo] : w(x, y)[hi];
            return {U, U * d(x, y)};
        }
        auto [ax, ay] = cell(f - 1);
        auto [ex, ey] = cell(f);
        return {w(ax, ay)[hi] - w(ex, ey)[lo], w(ax, ay)[hi] * d(ax, ay) - w(ex, ey)[lo] * d(ex, ey)};
    }

    // An ocean cell, held at the sea's surface; none leaves over the grid's edge.
    bool sea(int x, int y) const {
        const size_t i = s.index(x, y);
        return p.enable_sea && s.terrain[i] < sea_surface && s.sea_spill[i] < sea_surface;
    }

    // Friction implicit in the new speed: linear drag plus Manning (n: the face's, vegetation.h),
    // over the upwind depth hf (sources_flux.comp).
    double friction(double U, double hf, double n) const {
        const double n2 = n * n;
        const double lin = 1.0 + double(p.time_step) * p.flux_damping;
        const double a = double(p.time_step) * p.gravity * n2 / std::pow(hf, 4.0 / 3.0);
        return 2.0 * U / (lin + std::sqrt(lin * lin + 4.0 * a * std::abs(U)));
    }

    // Manning's n over a steep face: at least the n that holds a sheet's terminal speed on the
    // water surface's slope across the face to froude_max sqrt(g R), R the upwind depth; and the
    // face's speed held to that, whatever drives it (sources_flux.comp).
    double steepRoughness(double n, double slope, double hf) const {
        if (p.froude_max <= 0.0f) return n;
        return std::max(n, std::pow(hf, 1.0 / 6.0) * std::sqrt(slope) / (p.froude_max * std::sqrt(double(p.gravity))));
    }
    double froudeLimited(double U, double hf) const {
        if (p.froude_max <= 0.0f) return U;
        const double most = p.froude_max * std::sqrt(double(p.gravity) * hf);
        return std::clamp(U, -most, most);
    }

    // New speed of interior face f (0 < f < n): gravity on the surface slope, momentum-
    // conservative upwind advection (Stelling & Duinmeijer 2003), friction, dry upwind cell.
    double interiorFace(int axis, int f, int k) const {
        auto cell = [&](int i) { return axis == 0 ? std::pair{i, k} : std::pair{k, i}; };
        auto [ax, ay] = cell(f - 1);
        auto [ex, ey] = cell(f);
        const double da = d(ax, ay), de = d(ex, ey);
        const Face f0 = face(axis, f, k);
        const double U = f0.U;
        const double acc = -double(p.gravity) * (eta(ex, ey) - eta(ax, ay)) / p.cell_size;
        double adv = 0.0;
        const double hm = 0.5 * (da + de);
        if (hm > p.dry_depth) {
            const Face fu = face(axis, f - 1, k), fd = face(axis, f + 1, k);
            const double qa = 0.5 * (fu.q + f0.q), qe = 0.5 * (f0.q + fd.q);
            if (qa > 0.0 && U >= 0.0) adv += qa / hm * (U - fu.U) / p.cell_size;
            if (qe < 0.0 && U <= 0.0) adv += qe / hm * (fd.U - U) / p.cell_size;
        }
        double Un = U + p.time_step * (acc - adv);
        const double hf = Un > 0.0 ? da : de;
        if (hf <= p.dry_depth) return 0.0;
        const double slope = std::abs(eta(ex, ey) - eta(ax, ay)) / p.cell_size;
        const double n = steepRoughness(faceRoughness(s, p, s.index(ax, ay), s.index(ex, ey)), slope, hf);
        return froudeLimited(friction(Un, hf, n), hf);
    }

    // Outflow over an open edge into a dry ghost cell whose ground is level with this one.
    double edgeOutflow(int x, int y, int dir) const {
        const double dc = d(x, y);
        if (dc <= p.dry_depth || sea(x, y)) return 0.0;
        const double drop = p.enable_sea ? std::min(dc, eta(x, y) - sea_surface) : dc;
        const double Un = w(x, y)[dir] + p.time_step * double(p.gravity) * drop / p.cell_size;
        return std::max(0.0, froudeLimited(friction(Un, dc, faceRoughness(s, p, s.index(x, y), s.index(x, y))), dc));
    }
};

// ---------------------------------------------------------------------------------------------
// Reductions
// ---------------------------------------------------------------------------------------------
void add(Sums& sums, int slot, double v) { sums[static_cast<size_t>(slot)] += v; }

double storedAsFloat(double v) { return static_cast<double>(static_cast<float>(v)); }

} // namespace

void sources(State& s, const gpu::SimParams& p, const std::vector<Spring>& springs, Sums& sums) {
    const double area = double(p.cell_size) * p.cell_size;
    for (int y = 0; y < s.h; ++y)
        for (int x = 0; x < s.w; ++x) {
            const size_t i = s.index(x, y);
            const double rain = double(p.time_step) * p.rain_rate * s.rain_mask[i];
            s.water[i] += rain;
            add(sums, SLOT_RAIN, rain * area);
            for (const Spring& sp : springs) {
                const double dx = (x + 0.5) - sp.x, dy = (y + 0.5) - sp.y;
                if (dx * dx + dy * dy <= sp.radius * sp.radius) {
                    const double v = double(p.time_step) * sp.rate_per_cell / area;
                    s.water[i] += v;
                    add(sums, SLOT_SPRING, v * area);
                }
            }
        }
}

std::vector<Vec4> outflowFlux(const State& s, const gpu::SimParams& p) {
    std::vector<Vec4> out(s.outflow.size(), Vec4{});
    if (!p.enable_flow) return out;
    const FluxGrid g{s, p, seaSurface(p, s.time)};
    const bool open = p.edge_mode == EDGE_OPEN;
    for (int y = 0; y < s.h; ++y)
        for (int x = 0; x < s.w; ++x) {
            Vec4 o{};
            o[LEFT] = x > 0 ? std::max(0.0, -g.interiorFace(0, x, y)) : (open ? g.edgeOutflow(x, y, LEFT) : 0.0);
            o[RIGHT] =
                x < s.w - 1 ? std::max(0.0, g.interiorFace(0, x + 1, y)) : (open ? g.edgeOutflow(x, y, RIGHT) : 0.0);
            o[TOP] = y > 0 ? std::max(0.0, -g.interiorFace(1, y, x)) : (open ? g.edgeOutflow(x, y, TOP) : 0.0);
            o[BOTTOM] =
                y < s.h - 1 ? std::max(0.0, g.interiorFace(1, y + 1, x)) : (open ? g.edgeOutflow(x, y, BOTTOM) : 0.0);
            // Limiter: the volume leaving in one step, dt * L * d * sum(w), may not exceed the
            // cell's water L^2 d, i.e. sum(w) <= L / dt.
            const double sum = o[0] + o[1] + o[2] + o[3];
            if (sum * p.time_step > p.cell_size) {
                const double k = p.cell_size / (sum * p.time_step);
                for (double& v : o) v *= k;
            }
            out[s.index(x, y)] = o;
        }
    return out;
}

std::vector<double> waterUpdate(const State& s, const std::vector<Vec4>& w, const gpu::SimParams& p, Sums& sums) {
    std::vector<double> next(s.water.size());
    const bool open = p.edge_mode == EDGE_OPEN;
    for (int y = 0; y < s.h; ++y)
        for (int x = 0; x < s.w; ++x) {
            const size_t i = s.index(x, y);
            double in = 0.0;
            if (x > 0) in += s.water[s.index(x - 1, y)] * w[s.index(x - 1, y)][RIGHT];
            if (x < s.w - 1) in += s.water[s.index(x + 1, y)] * w[s.index(x + 1, y)][LEFT];
            if (y > 0) in += s.water[s.index(x, y - 1)] * w[s.index(x, y - 1)][BOTTOM];
            if (y < s.h - 1) in += s.water[s.index(x, y + 1)] * w[s.index(x, y + 1)][TOP];
            const Vec4& o = w[i];
            const double out = s.water[i] * (o[0] + o[1] + o[2] + o[3]);
            next[i] = std::max(0.0, s.water[i] + p.time_step * (in - out) / p.cell_size);
            if (open) {
                double edge = 0.0;
                if (x == 0) edge += o[LEFT];
                if (x == s.w - 1) edge += o[RIGHT];
                if (y == 0) edge += o[TOP];
                if (y == s.h - 1) edge += o[BOTTOM];
                add(sums, SLOT_DRAINED_WATER, double(p.time_step) * p.cell_size * s.water[i] * edge);
            }
        }
    return next;
}

std::vector<Vec2> velocity(State& s, const std::vector<Vec4>& w, const std::vector<double>& water_next,
                           const gpu::SimParams& p, Sums& sums) {
    std::vector<Vec2> v(s.velocity.size(), Vec2{});
    double max_speed = 0.0, max_froude = 0.0;
    auto q = [&](int x, int y, int dir) { // discharge per unit width out of (x, y), or 0 outside
        if (x < 0 || y < 0 || x >= s.w || y >= s.h) return 0.0;
        return s.water[s.index(x, y)] * w[s.index(x, y)][static_cast<size_t>(dir)];
    };
    // The upwind depth of the face between (x, y) and the neighbour (nx, ny): the neighbour's
    // when it flows in (its outflow `in_dir`), the cell's own when the cell's outflow `out_dir`
    // through it is positive, else 0.
    auto faceDepth = [&](int x, int y, int nx, int ny, int in_dir, int out_dir) {
        if (q(nx, ny, in_dir) > 0.0) return s.water[s.index(nx, ny)];
        return w[s.index(x, y)][static_cast<size_t>(out_dir)] > 0.0 ? s.water[s.index(x, y)] : 0.0;
    };
    double max_wave = 0.0;
    for (int y = 0; y < s.h; ++y)
        for (int x = 0; x < s.w; ++x) {
            const size_t i = s.index(x, y);
            const double mean_depth = 0.5 * (s.water[i] + water_next[i]);
            const double gravity_wave = std::sqrt(double(p.gravity) * water_next[i]);
            max_wave = std::max(max_wave, gravity_wave);
            if (mean_depth <= p.dry_depth) continue;
            // Mei et al. 2007: mean of the net flow through the two faces on each axis, over the
            // mean of the faces' upwind depths, never less than the cell's mean depth.
            const double qx = 0.5 * (q(x - 1, y, RIGHT) - q(x, y, LEFT) + q(x, y, RIGHT) - q(x + 1, y, LEFT));
            const double qy = 0.5 * (q(x, y - 1, BOTTOM) - q(x, y, TOP) + q(x, y, BOTTOM) - q(x, y + 1, TOP));
            const double hx = 0.5 * (faceDepth(x, y, x - 1, y, RIGHT, LEFT) + faceDepth(x, y, x + 1, y, LEFT, RIGHT));
            const double hy = 0.5 * (faceDepth(x, y, x, y - 1, BOTTOM, TOP) + faceDepth(x, y, x, y + 1, TOP, BOTTOM));
            const double h_x = std::max(mean_depth, hx), h_y = std::max(mean_depth, hy);
            const double u = qx / h_x, vv = qy / h_y;
            const double speed = std::sqrt(u * u + vv * vv);
            max_wave = std::max(max_wave, gravity_wave + speed);
            v[i] = {u, vv};
            max_speed = std::max(max_speed, speed);
            // On each axis over the critical speed of the depth the velocity was averaged over.
            if (water_next[i] > FROUDE_MIN_DEPTH)
                max_froude = std::max(max_froude, std::hypot(u / std::sqrt(double(p.gravity) * h_x),
                                                             vv / std::sqrt(double(p.gravity) * h_y)));
            if (p.record_maps) s.flow[i] += std::hypot(qx, qy) * p.cell_size * p.time_step;
        }
    sums[SLOT_MAX_SPEED] = std::max(sums[SLOT_MAX_SPEED], max_speed);
    sums[SLOT_MAX_WAVE] = std::max(sums[SLOT_MAX_WAVE], max_wave);
    sums[SLOT_MAX_FROUDE] = std::max(sums[SLOT_MAX_FROUDE], max_froude);
    return v;
}

void erosionDeposition(State& s, const gpu::SimParams& p, Sums& sums) {
    if (!p.enable_erosion) return;
    const double area = double(p.cell_size) * p.cell_size;
    const std::vector<double> b = s.terrain; // neighbours read the heights before this pass
    auto at = [&](int x, int y) { return b[s.index(x, y)]; };
    for (int y = 0; y < s.h; ++y)
        for (int x = 0; x < s.w; ++x) {
            const size_t i = s.index(x, y);
            // Central differences inside, one-sided at the edges, zero on a 1-cell axis.
            const int xl = std::max(x - 1, 0), xr = std::min(x + 1, s.w - 1);
            const int yt = std::max(y - 1, 0), yb = std::min(y + 1, s.h - 1);
            const double gx = xr > xl ? (at(xr, y) - at(xl, y)) / ((xr - xl) * double(p.cell_size)) : 0.0;
            const double gy = yb > yt ? (at(x, yb) - at(x, yt)) / ((yb - yt) * double(p.cell_size)) : 0.0;
            const double g2 = gx * gx + gy * gy;
            const double sin_tilt = std::sqrt(g2 / (1.0 + g2));
            const Vec2& v = s.velocity[i];
            const double speed = std::sqrt(v[0] * v[0] + v[1] * v[1]);
            double capacity = p.sediment_capacity * std::max(sin_tilt, double(p.min_tilt)) * speed;
            if (p.capacity_depth > 0.0f) capacity *= std::min(1.0, s.water[i] / p.capacity_depth);
            const double sed = s.sediment[i];
            // The ground is stored as float32 on the GPU and the sediment gains exactly what the
            // stored height lost (see the shader): the amount moved is the change of the height
            // rounded to float, modelled here on the float value of b.
            const double bf = storedAsFloat(s.terrain[i]);
            if (capacity > sed) {
                const double e = layeredErosion(
                    p, std::min(1.0, double(p.time_step) * p.dissolve_rate) * (capacity - sed) * rootBinding(s, p, i),
                    s.loose[i], s.hardness[i]);
                const double applied = bf - storedAsFloat(bf - e);
                s.terrain[i] -= applied;
                s.sediment[i] += applied;
                if (p.record_maps) s.wear[i][0] += applied;
                add(sums, SLOT_ERODED, applied * area);
            } else {
                const double settle = p.settling_velocity > 0.0
                                          ? double(p.settling_velocity) / std::max(s.water[i], double(p.dry_depth))
                                          : 0.0;
                const double dep =
                    std::min(1.0, double(p.time_step) * (double(p.deposit_rate) + settle)) * (sed - capacity);
                const double applied = storedAsFloat(bf + dep) - bf;
                s.terrain[i] += applied;
                s.sediment[i] = std::max(0.0, s.sediment[i] - applied);
                if (p.record_maps) s.wear[i][1] += applied;
                add(sums, SLOT_DEPOSITED, applied * area);
            }
        }
}

std::vector<double> sedimentTransport(const State& s, const gpu::SimParams& p, Sums& sums) {
    const double area = double(p.cell_size) * p.cell_size;
    std::vector<double> next = s.sediment;
    for (size_t i = 0; i < s.sediment.size(); ++i) add(sums, SLOT_SED_BEFORE, s.sediment[i] * area);
    if (!p.enable_transport) {
        for (size_t i = 0; i < s.sediment.size(); ++i) add(sums, SLOT_SED_AFTER, s.sediment[i] * area);
        return next;
    }
    auto at = [&](int x, int y) { return s.sediment[s.index(x, y)]; };
    for (int y = 0; y < s.h; ++y)
        for (int x = 0; x < s.w; ++x) {
            const size_t i = s.index(x, y);
            // Semi-Lagrangian: s(x) = s(x - v dt), bilinear, positions clamped to the grid.
            const Vec2& v = s.velocity[i];
            const double px = std::clamp(x - v[0] * p.time_step / p.cell_size, 0.0, double(s.w - 1));
            const double py = std::clamp(y - v[1] * p.time_step / p.cell_size, 0.0, double(s.h - 1));
            const int x0 = std::min(static_cast<int>(std::floor(px)), s.w - 1);
            const int y0 = std::min(static_cast<int>(std::floor(py)), s.h - 1);
            const int x1 = std::min(x0 + 1, s.w - 1), y1 = std::min(y0 + 1, s.h - 1);
            const double fx = px - x0, fy = py - y0;
            const double top = at(x0, y0) + fx * (at(x1, y0) - at(x0, y0));
            const double bottom = at(x0, y1) + fx * (at(x1, y1) - at(x0, y1));
            next[i] = top + fy * (bottom - top);
            add(sums, SLOT_SED_AFTER, next[i] * area);
            if (p.edge_mode == EDGE_OPEN) {
                // The water leaving over the edge this step takes its share of the sediment.
                const Vec4& o = s.outflow[i];
                double edge = 0.0;
                if (x == 0) edge += o[LEFT];
                if (x == s.w - 1) edge += o[RIGHT];
                if (y == 0) edge += o[TOP];
                if (y == s.h - 1) edge += o[BOTTOM];
                add(sums, SLOT_SED_DRAINED,
                    s.sediment[i] * std::min(1.0, double(p.time_step) * edge / p.cell_size) * area);
            }
        }
    return next;
}

double sedimentScale(const Sums& sums) {
    const double target = std::max(0.0, sums[SLOT_SED_BEFORE] - sums[SLOT_SED_DRAINED]);
    const double after = sums[SLOT_SED_AFTER];
    return after > 0.0 ? target / after : 1.0;
}

namespace {

constexpr int kDx[8] = {-1, 1, 0, 0, -1, 1, -1, 1};
constexpr int kDy[8] = {0, 0, -1, 1, -1, -1, 1, 1};

// Cell (x, y)'s excess over the talus drop toward each neighbour, and the move it makes: half
// the largest excess (times the rate), shared in proportion to the excesses (never overshoots).
ThermalChoice thermalAt(const State& s, const gpu::SimParams& p, int x, int y, double tan_talus,
                        std::array<double, 8>& excess) {
    const size_t i = s.index(x, y);
    double largest = 0.0, total = 0.0;
    for (int k = 0; k < 8; ++k) {
        excess[size_t(k)] = 0.0;
        const int nx = x + kDx[k], ny = y + kDy[k];
        if (nx < 0 || ny < 0 || nx >= s.w || ny >= s.h) continue;
        const double dist = (k < 4 ? 1.0 : std::sqrt(2.0)) * p.cell_size;
        const double e = (s.terrain[i] - s.terrain[s.index(nx, ny)]) - tan_talus * dist;
        if (e > 0.0) {
            excess[size_t(k)] = e;
            largest = std::max(largest, e);
            total += e;
        }
    }
    if (total <= 0.0) return {0.0, tan_talus, 0.0};
    const double share = double(p.time_step) * p.thermal_rate / (double(p.cell_size) * p.cell_size);
    const double factor = 0.5 * std::min(1.0, share) * largest / total;
    return {factor, tan_talus, factor * total};
}

} // namespace

void thermalOutflow(State& s, const gpu::SimParams& p, const std::vector<double>& loose) {
    const double max_angle = 89.0 * 3.14159265358979323846 / 180.0;
    for (int y = 0; y < s.h; ++y)
        for (int x = 0; x < s.w; ++x) {
            const size_t i = s.index(x, y);
            Vec4 axis{}, diag{};
            if (p.enable_thermal) {
                std::array<double, 8> rock_excess{}, slide_excess{};
                const ThermalChoice rock = thermalAt(
                    s, p, x, y,
                    std::tan(std::min(double(p.talus_angle) + s.hardness[i] * p.talus_hardness_gain, max_angle)),
                    rock_excess);
                ThermalChoice slide;
                if (layersOn(p) && loose[i] > 0.0)
                    slide = thermalAt(s, p, x, y, std::tan(double(p.loose_repose_angle)), slide_excess);
                const ThermalChoice chosen = layeredThermal(p, rock, slide, loose[i]);
                const std::array<double, 8>& excess = chosen.tan_talus == rock.tan_talus ? rock_excess : slide_excess;
                const double factor = chosen.factor * creepSlowing(s, p, i);
                for (size_t k = 0; k < 4; ++k) axis[k] = factor * excess[k];
                for (size_t k = 0; k < 4; ++k) diag[k] = factor * excess[k + 4];
            }
            s.thermal_axis[i] = axis;
            s.thermal_diag[i] = diag;
        }
}

void thermalGather(State& s) {
    // Neighbour k sends to us through its opposite slot.
    static constexpr int dx[8] = {-1, 1, 0, 0, -1, 1, -1, 1};
    static constexpr int dy[8] = {0, 0, -1, 1, -1, -1, 1, 1};
    static constexpr int opposite[8] = {1, 0, 3, 2, 7, 6, 5, 4};
    std::vector<double> next = s.terrain;
    auto slot = [&](size_t i, int k) {
        return k < 4 ? s.thermal_axis[i][static_cast<size_t>(k)] : s.thermal_diag[i][static_cast<size_t>(k - 4)];
    };
    for (int y = 0; y < s.h; ++y)
        for (int x = 0; x < s.w; ++x) {
            const size_t i = s.index(x, y);
            double out = 0.0, in = 0.0;
            for (int k = 0; k < 8; ++k) {
                out += slot(i, k);
                const int nx = x + dx[k], ny = y + dy[k];
                if (nx < 0 || ny < 0 || nx >= s.w || ny >= s.h) continue;
                in += slot(s.index(nx, ny), opposite[k]);
            }
            next[i] = s.terrain[i] - out + in;
        }
    s.terrain = next;
}

void talusGather(State& s, const gpu::SimParams& p) {
    const std::vector<double> start = s.terrain;
    thermalGather(s);
    if (layersOn(p))
        for (size_t i = 0; i < start.size(); ++i) s.loose[i] = looseAfter(s.loose[i], start[i], s.terrain[i]);
}

void evaporation(State& s, const gpu::SimParams& p, Sums& sums) {
    if (!p.enable_evaporation) return;
    const double area = double(p.cell_size) * p.cell_size;
    const double k = std::min(1.0, double(p.evaporation_rate) * p.time_step);
    for (double& d : s.water) {
        const double e = d * k;
        d -= e;
        add(sums, SLOT_EVAPORATED, e * area);
    }
}

void talusOutflow(State& s, const gpu::SimParams& p) {
    static constexpr int dx[8] = {-1, 1, 0, 0, -1, 1, -1, 1};
    static constexpr int dy[8] = {0, 0, -1, 1, -1, -1, 1, 1};
    for (int y = 0; y < s.h; ++y)
        for (int x = 0; x < s.w; ++x) {
            const size_t i = s.index(x, y);
            std::array<double, 8> drop{}, dist{}, sent{};
            std::array<bool, 8> use{};
            for (size_t k = 0; k < 8; ++k) {
                const int nx = x + dx[k], ny = y + dy[k];
                const bool in_set = p.talus_neighbourhood == NEIGHBOURS_MOORE ||
                                    (p.talus_neighbourhood == NEIGHBOURS_VON_NEUMANN) == (k < 4);
                use[k] = in_set && nx >= 0 && ny >= 0 && nx < s.w && ny < s.h;
                drop[k] = use[k] ? s.terrain[i] - s.terrain[s.index(nx, ny)] : 0.0;
                dist[k] = (k < 4 ? 1.0 : std::sqrt(2.0)) * p.cell_size;
            }
            if (p.model == MODEL_THERMAL) {
                // The move at one slope: (factor, slope, volume per area that leaves).
                auto at = [&](double slope) {
                    double largest = 0.0, total = 0.0;
                    for (size_t k = 0; k < 8; ++k) {
                        const double e = drop[k] - slope * dist[k];
                        if (use[k] && e > 0.0) largest = std::max(largest, e), total += e;
                    }
                    const double factor = total > 0.0 ? p.talus_fraction * largest / total : 0.0;
                    return ThermalChoice{factor, slope, factor * total};
                };
                ThermalChoice chosen = at(p.talus_slope);
                if (layersOn(p)) { // rock steeper by hardness, loose at its angle of repose
                    const double max_angle = 89.0 * 3.14159265358979323846 / 180.0;
                    const ThermalChoice rock = at(std::tan(
                        std::min(std::atan(double(p.talus_slope)) + s.hardness[i] * p.talus_hardness_gain, max_angle)));
                    const ThermalChoice slide = s.loose[i] > 0.0 ? at(std::tan(double(p.loose_repose_angle))) : rock;
                    chosen = layeredThermal(p, rock, slide, s.loose[i]);
                }
                for (size_t k = 0; k < 8; ++k) {
                    const double e = drop[k] - chosen.tan_talus * dist[k];
                    if (use[k] && e > 0.0) sent[k] = chosen.factor * e;
                }
            } else if (p.model == MODEL_OLSEN) {
                int steepest = -1;
                double steepest_slope = 0.0;
                for (size_t k = 0; k < 8; ++k)
                    if (use[k] && drop[k] / dist[k] > steepest_slope) {
                        steepest_slope = drop[k] / dist[k];
                        steepest = static_cast<int>(k);
                    }
                if (steepest >= 0 && steepest_slope <= p.olsen_talus_slope)
                    sent[size_t(steepest)] = layersOn(p) ? layeredErosion(p, p.talus_fraction * drop[size_t(steepest)],
                                                                          s.loose[i], s.hardness[i])
                                                         : p.talus_fraction * drop[size_t(steepest)];
            }
            s.thermal_axis[i] = {sent[0], sent[1], sent[2], sent[3]};
            s.thermal_diag[i] = {sent[4], sent[5], sent[6], sent[7]};
        }
}

std::vector<Vec4> sourcesFlux(const State& s, const gpu::SimParams& p, const std::vector<Spring>& springs) {
    State sourced = s;
    Sums ignored{};
    sources(sourced, p, springs, ignored);
    return outflowFlux(sourced, p);
}

void waterVelocity(State& s, const std::vector<Vec4>& outflow, const gpu::SimParams& p,
                   const std::vector<Spring>& springs, Sums& sums) {
    sources(s, p, springs, sums);
    std::vector<double> water_next = waterUpdate(s, outflow, p, sums);
    s.velocity = velocity(s, outflow, water_next, p, sums);
    s.outflow = outflow;
    s.water = water_next;
}

void erosionTransportThermalEvaporation(State& s, const gpu::SimParams& p, Sums& sums) {
    const std::vector<double> start = s.terrain;
    erosionDeposition(s, p, sums);
    std::vector<double> loose = s.loose; // after the erosion: the thermal move's
    if (layersOn(p))
        for (size_t i = 0; i < loose.size(); ++i) loose[i] = looseAfter(s.loose[i], start[i], s.terrain[i]);
    s.sediment = sedimentTransport(s, p, sums);
    thermalOutflow(s, p, loose);
    thermalGather(s);
    if (layersOn(p))
        for (size_t i = 0; i < loose.size(); ++i) s.loose[i] = looseAfter(s.loose[i], start[i], s.terrain[i]);
    evaporation(s, p, sums);
}

double step(State& s, const gpu::SimParams& p, const std::vector<Spring>& springs, Sums& sums) {
    waterVelocity(s, sourcesFlux(s, p, springs), p, springs, sums);
    Sums sed{}; // this step's erosion, transport and evaporation sums
    erosionTransportThermalEvaporation(s, p, sed);
    waterExchange(s, p, seaSurface(p, s.time), sed); // groundwater.cpp
    groundwaterFlow(s, p);
    s.time += p.time_step;
    const double scale = sedimentScale(sed);
    for (double& v : s.sediment) v *= scale;
    for (size_t slot = 0; slot < sums.size(); ++slot)
        if (!gpu::slotIsMax(int(slot))) sums[slot] += sed[slot];
    return std::abs(sed[SLOT_SED_AFTER] * scale - sed[SLOT_SED_AFTER]);
}

Vec2 groundGradient(const State& s, double cell_size, int x, int y) {
    const int x0 = std::max(x - 1, 0), x1 = std::min(x + 1, s.w - 1);
    const int y0 = std::max(y - 1, 0), y1 = std::min(y + 1, s.h - 1);
    return {(s.terrain[s.index(x1, y)] - s.terrain[s.index(x0, y)]) / (std::max(x1 - x0, 1) * cell_size),
            (s.terrain[s.index(x, y1)] - s.terrain[s.index(x, y0)]) / (std::max(y1 - y0, 1) * cell_size)};
}

} // namespace alluvium::ref
