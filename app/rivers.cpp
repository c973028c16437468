// Seed 003's sustained rivers (rivers.h): a host analysis run once by `alluvium watertable` after
// the GPU's relaxation (the table it reads back is needed on the host for the report anyway).
#include "rivers.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace alluvium {

RiverMap classifyRivers(const std::vector<float>& ground, const std::vector<float>& surface,
                        const std::vector<uint8_t>& water_body, const std::vector<uint8_t>& base_level, int width,
                        int height, double min_cells) {
    static constexpr int dx[8] = {1, -1, 0, 0, 1, 1, -1, -1};
    static constexpr int dy[8] = {0, 0, 1, -1, 1, -1, 1, -1};
    static const double inv_dist[8] = {
        1.0, 1.0, 1.0, 1.0, 1.0 / std::sqrt(2.0), 1.0 / std::sqrt(2.0), 1.0 / std::sqrt(2.0), 1.0 / std::sqrt(2.0)};
    const std::size_t cells = std::size_t(width) * std::size_t(height);
    RiverMap out;
    out.kind.assign(cells, RiverKind::None);
    out.drainage.assign(cells, 1.0f);

    // Receivers: the steepest strictly lower neighbour; none inside water bodies (paths end there)
    // and at pits. fed: a water body's surface above the cell's ground next to it.
    std::vector<int64_t> receiver(cells, -1);
    std::vector<uint8_t> reaches(cells, 0), fed(cells, 0);
    std::vector<std::size_t> end(cells); // the last cell of each path
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            const std::size_t i = std::size_t(y) * width + x;
            if (water_body[i]) continue;
            double best = 0.0;
            for (int k = 0; k < 8; ++k) {
                const int nx = x + dx[k], ny = y + dy[k];
                if (nx < 0 || ny < 0 || nx >= width || ny >= height) continue;
                const std::size_t n = std::size_t(ny) * width + nx;
                if (water_body[n] && surface[n] > ground[i]) fed[i] = 1;
                const double slope = (double(ground[i]) - double(ground[n])) * inv_dist[k];
                if (slope > best) {
                    best = slope;
                    receiver[i] = int64_t(n);
                }
            }
        }
    // Cells from high to low (ties by index): every receiver is strictly lower, so it comes after
    // its donors; the reverse order has each receiver before its donors.
    std::vector<std::size_t> order(cells);
    std::iota(order.begin(), order.end(), std::size_t(0));
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return ground[a] > ground[b]; });
    for (std::size_t i : order)
        if (receiver[i] >= 0) {
            out.drainage[std::size_t(receiver[i])] += out.drainage[i];
            if (fed[i]) fed[std::size_t(receiver[i])] = 1;
        }
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
        const std::size_t i = *it;
        const int64_t r = receiver[i];
        reaches[i] = water_body[i] || base_level[i] || (r >= 0 && reaches[std::size_t(r)]);
        end[i] = r >= 0 ? end[std::size_t(r)] : i;
    }
    std::vector<uint8_t> end_point(cells, 0);
    for (std::size_t i = 0; i < cells; ++i) {
        if (water_body[i] || double(out.drainage[i]) < min_cells) continue;
        ++out.river_cells;
        if (reaches[i] || fed[i]) {
            out.kind[i] = RiverKind::Sustained;
            ++out.sustained_cells;
            continue;
        }
        out.kind[i] = RiverKind::Dry;
        ++out.dry_cells;
        const std::size_t e = end[i]; // the pit where this dry river ends
        if (!end_point[e]) {
            end_point[e] = 1;
            ++out.dry_end_points;
        }
    }
    return out;
}

} // namespace alluvium
