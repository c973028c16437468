// The split lake fill's exchanges (fill_split.h): each block's fill and watersheds on its device,
// the spill graph gathered and solved on rank 0, the levels sent back.
#include "fill_split.h"

#include <chrono>
#include <cstring>

#include "simulation.h"

namespace alluvium::gpu {

namespace {

// The owned cells' heights out of the ring's.
std::vector<float> ownedGround(const FillBlock& block, const std::vector<float>& ring_ground) {
    const Rect& o = block.owned;
    const Rect& r = block.ring;
    std::vector<float> z(o.cells());
    for (int y = 0; y < o.h; ++y)
        std::memcpy(&z[size_t(y) * size_t(o.w)], &ring_ground[size_t(o.y - r.y + y) * size_t(r.w) + size_t(o.x - r.x)],
                    size_t(o.w) * sizeof(float));
    return z;
}

// Rank 0: every block's edge cells' levels, one message a rank (the others send nothing).
std::vector<std::vector<char>> levelsToSend(const BlockGrid& grid, const std::vector<SpillEdge>& edges) {
    const std::unordered_map<uint64_t, uint32_t> solved = solveSpillGraph(edges);
    std::vector<std::vector<char>> send(size_t(grid.count()));
    for (int r = 0; r < grid.count(); ++r) {
        std::vector<uint32_t> levels;
        for (uint64_t cell : edgeCells(grid.owned(r), grid.width)) {
            const auto it = solved.find(cell);
            levels.push_back(it == solved.end() ? FLUVIAL_NONE : it->second);
        }
        send[size_t(r)] = bytesOf(levels);
    }
    return send;
}

} // namespace

FillBlock fillBlock(const BlockGrid& grid, int rank) {
    BlockGrid ringed = grid;
    ringed.halo_x = ringed.halo_y = 1;
    return {grid.owned(rank), ringed.local(rank)};
}

SplitFill fillSplit(Simulation& sim, Transport& transport, const BlockGrid& grid, const FillBlock& block, int outlets,
                    const std::vector<float>& ring_ground) {
    const Rect& o = block.owned;
    using Clock = std::chrono::steady_clock;
    auto since = [](Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); };
    SplitFill result;
    auto start = Clock::now();
    for (bool next : {false, true}) sim.upload(Field::Terrain, ownedGround(block, ring_ground), next);
    sim.fluvialAnalyse(false); // the fill, its flats to the end, the receivers
    const std::vector<uint32_t> level = sim.fluvial().levels();
    const std::vector<uint32_t> receivers = sim.fluvial().receivers();
    result.fill_seconds = since(start);
    start = Clock::now();
    const std::vector<uint32_t> root = watershedRoots(receivers);
    for (uint32_t r : root) {
        const int x = int(r % uint32_t(o.w)), y = int(r / uint32_t(o.w));
        if (x != 0 && y != 0 && x != o.w - 1 && y != o.h - 1)
            throw DeviceError("the split lake fill's routing ended inside a block (cell " + std::to_string(x) + ", " +
                              std::to_string(y) + " of it)");
    }
    const std::vector<SpillEdge> edges = blockSpillEdges(grid, block, outlets, level, root, ring_ground);
    result.watershed_seconds = since(start);

    start = Clock::now();
    const std::vector<SpillEdge> all = gatherVectors(transport, edges, result.bytes); // the graph, in
    std::vector<std::vector<char>> send(size_t(grid.count()));
    if (transport.rank() == 0) {
        const auto solve = Clock::now();
        send = levelsToSend(grid, all);
        result.solve_seconds = since(solve);
        result.graph_edges = all.size();
    }
    std::vector<char> received;
    transport.allToAll(send, received);
    std::vector<uint32_t> edge_level(received.size() / sizeof(uint32_t));
    if (!received.empty()) std::memcpy(edge_level.data(), received.data(), received.size());
    for (const std::vector<char>& s : send) result.bytes += s.size(); // the levels, out
    if (transport.rank() != 0) result.bytes += received.size();
    result.exchange_seconds = since(start);
    if (edge_level.size() != edgeCells(o, grid.width).size())
        throw DeviceError("the split lake fill's levels came back short");
    start = Clock::now();
    result.level = combineLevels(o, grid.width, level, root, edge_level);
    result.watershed_seconds += since(start);
    return result;
}

} // namespace alluvium::gpu
