// The fluvial model's recording (seed 003): depression routing (the lake fill), routing,
// drainage accumulation and the implicit stream-power erosion and deposition, each a phase of
// dispatches on the GPU; the analysis of a terrain (`alluvium fill`, the maps) and the lakes that
// balance evaporation.
//
// Every loop is recorded a bounded number of times: as often as the worst terrain of the grid's
// size can need (fluvialRoundBounds), except the flats' rounds, which follow the flats'
// geodesics (at most fluvial_flat_rounds per iteration; `alluvium fill` and the analysis of a
// final terrain go on until they converge). A control pass after each round empties the loop's
// next indirect dispatches once it is done, so the rounds that run, and their results, depend
// on the terrain only.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <limits>

#include "fluvial.h"
#include "lakes.h"

namespace alluvium::gpu {

namespace {

int ceilLog2(uint64_t n) {
    int k = 0;
    while ((uint64_t(1) << k) < n) ++k;
    return k;
}

int floorLog2(uint64_t n) {
    int k = 0;
    while ((n >> (k + 1)) != 0) ++k;
    return k;
}

} // namespace

int FluvialRoundBounds::hookTotal() const {
    int total = 0;
    for (int h : hook) total += h;
    return total;
}

FluvialRoundBounds fluvialRoundBounds(int width, int height) {
    const uint64_t tiles =
        uint64_t((width + FLUVIAL_TILE - 1) / FLUVIAL_TILE) * uint64_t((height + FLUVIAL_TILE - 1) / FLUVIAL_TILE);
    const uint64_t blocks = uint64_t((width + 1) / 2) * uint64_t((height + 1) / 2);
    FluvialRoundBounds b;
    // A path down the unfilled ground visits each ring node at most once; after k rounds a node
    // has looked 2^k nodes ahead.
    b.label = std::max(1, ceilLog2(tiles * RING_CELLS));
    // Pits are never neighbours: at most one per 2 x 2 block. Every round at least halves the
    // components that can still hook, and hooks chain at most all of them.
    b.boruvka = floorLog2(blocks) + 1;
    for (int k = 0; k < b.boruvka; ++k) b.hook.push_back(std::max(1, ceilLog2(std::max<uint64_t>(blocks >> k, 1))));
    // A path leaves each tile at most once by each of its exits: the chain of exits holds at
    // most every ring node.
    b.tree = std::max(1, ceilLog2(tiles * RING_CELLS));
    return b;
}

double fluvialPhaseBytes(size_t phase, const FluvialControl& c, int width, int height, bool deposition) {
    // Estimates from what each pass reads and writes (buffers 4 or 8 bytes an entry, images 4
    // or 16 bytes a texel; a tile pass reads its 18 x 18 border once: x 1.27). Lists shrink
    // from round to round; the estimate takes their first length for every round: an upper
    // bound.
    const double cells = double(width) * height;
    const double tiles =
        double((width + FLUVIAL_TILE - 1) / FLUVIAL_TILE) * ((height + FLUVIAL_TILE - 1) / FLUVIAL_TILE);
    const double ring = tiles * RING_CELLS, halo = 1.27;
    const double pits = c.lists[LIST_PITS], exits = c.exits;
    const double tree = 4 + 4 + 8 + 8 + 2 * 16 + 4 + 4; // an exit's round: list, pointers, values, two atomic adds
    switch (phase) {
    case 0: // basins: the descent (ground, ground bits, label, ring), pits, label rounds over ring nodes
        return cells * (4 * halo + 4 + 4) + ring * 4 + pits * 24 + c.rounds_label * ring * 12;
    case 1: // pass points: labels and ground bits of a cell and 4 neighbours, boundary cells' atomics
        return cells * (4 + 4 * 4 + 4 + 4 * 4 + 4) + c.edges_first * (4 + 2 * 16);
    case 2: // spill solve: per round, the edge list, roots, hooks, relabelling every basin
        return c.rounds_boruvka * (c.edges_first * (4 + 4 * 16 + 2 * 16) + pits * (8 + 20 + 24)) +
               c.rounds_hook * pits * 24;
    case 3: // flats: the level (labels, basins, ground) and steps; each visited tile's round
        return cells * (16 * halo + 4 + 8) + c.tiles_flats * (WG_SIZE * halo * 8 + WG_SIZE * 4);
    case 4: // route: level and steps with borders, ground bits, rain; receiver, lake, local drainage
        return cells * (8 * halo + 4 + 4 + 4 + 4 + 8) + ring * 4 + exits * 4;
    case 5: // accumulate: rounds over the exits; drainage and erosion maps (receivers, images, maps)
        return exits * (4 + 4 + 4 + 8 + 16) + c.rounds_tree[TREE_ACCUMULATE] * exits * tree +
               cells * (4 + 16 + 4 + 4 * 5 + 12 + 8 + 4) + ring * 8;
    case 6: // erode: rounds over the exits; the new ground and the fields carried over
        return exits * (4 + 4 + 4 + 16 + 8) + c.rounds_tree[TREE_ERODE] * exits * tree +
               cells * (8 + 4 + 8 + 4 * 5 + 4 + 16 + 2 * (4 + 4 + 16) + 8 + (deposition ? 4 + 8 : 0));
    case 7: // deposit: rounds over the exits; the deposits
        if (!deposition) return 0.0;
        return exits * (4 + 4 + 4 + 16 + 8 + 4) + c.rounds_tree[TREE_SEDIMENT] * exits * (tree + 8) +
               cells * (4 + 8 + 4 + 8 + 16) + ring * 16;
    default: return 0.0;
    }
}

namespace {

void control(Step& step, int mode) { step.rec.pass(Pass::FluvialControl, mode); }

void job(Step& step, Pass pass, int job, int mode = 0) {
    step.rec.dispatchIndirect(pass, mode, step.state.fluvial->control(), VkDeviceSize(job) * 3 * sizeof(uint32_t));
    step.rec.barrier();
}

void recordFluvialFlats(Step& step, int rounds) {
    for (int r = 0; r < rounds; ++r) {
        job(step, Pass::FluvialFlats, JOB_FLATS);
        control(step, CONTROL_AFTER_FLATS);
    }
}

// The basins: the descent, labels within tiles, then across them.
void recordBasins(Step& step) {
    control(step, CONTROL_START_FILL);
    step.rec.pass(Pass::FluvialDescend);
    for (int r = 0, n = fluvialRoundBounds(step.params.width, step.params.height).label; r < n; ++r) {
        job(step, Pass::FluvialLabelJump, JOB_RING);
        control(step, CONTROL_AFTER_LABEL);
    }
}

// One loop over the tiles' exits (TREE_*): init, then as many rounds as the longest possible
// chain of exits needs; those after the last live exit are empty indirect dispatches (the control
// pass zeroes them on the GPU).
void recordTree(Step& step, int tree) {
    control(step, CONTROL_START_TREE + tree);
    job(step, Pass::FluvialTreeInit, JOB_EXITS, tree);
    for (int r = 0, n = fluvialRoundBounds(step.params.width, step.params.height).tree; r < n; ++r) {
        job(step, Pass::FluvialTreeJump, JOB_EXITS, tree);
        control(step, CONTROL_AFTER_TREE);
    }
    if (tree != TREE_ERODE) { // the exits pour into their receivers' ring nodes
        control(step, CONTROL_START_PUSH);
        job(step, Pass::FluvialTreePush, JOB_EXITS, tree);
    }
}

void recordFluvialStep(Step& step) {
    recordFluvialFill(step, step.params.fluvial_flat_rounds);
    recordFluvialRoute(step);
    step.rec.timestamp();
    recordTree(step, TREE_ACCUMULATE);
    step.rec.pass(Pass::FluvialDrainage);
    step.rec.timestamp();
    recordFluvialErode(step);
    step.state.fluvial->recordReadback(step.rec);
}

} // namespace

void recordFluvialFill(Step& step, int flat_rounds) {
    StepRecorder& rec = step.rec;
    const FluvialRoundBounds bounds = fluvialRoundBounds(step.params.width, step.params.height);
    recordBasins(step);
    rec.timestamp();
    // Pass points: every boundary between basins offers its passes (and is listed).
    rec.pass(Pass::FluvialEdges, 0);
    control(step, CONTROL_AFTER_EDGES);
    rec.timestamp();
    // Spill solve: rounds of the basin graph.
    for (int k = 0; k < bounds.boruvka; ++k) {
        if (k > 0) {
            job(step, Pass::FluvialEdges, JOB_EDGES, 1);
            control(step, CONTROL_AFTER_EDGES);
        }
        job(step, Pass::FluvialHook, JOB_HOOK);
        control(step, CONTROL_AFTER_HOOK);
        for (int j = 0; j < bounds.hook[size_t(k)]; ++j) {
            job(step, Pass::FluvialHookJump, JOB_JUMP);
            control(step, CONTROL_AFTER_HOOK_JUMP);
        }
        job(step, Pass::FluvialRelabel, JOB_BASINS);
        control(step, CONTROL_AFTER_RELABEL);
    }
    rec.timestamp();
    // Flats: the filled level, then steps to the exits.
    rec.pass(Pass::FluvialLevel);
    control(step, CONTROL_START_FLATS);
    recordFluvialFlats(step, flat_rounds);
    rec.timestamp();
}

void recordFluvialMoreFlats(Step& step, int flat_rounds) { recordFluvialFlats(step, flat_rounds); }

void recordFluvialRoute(Step& step) {
    step.rec.pass(Pass::FluvialRoute); // receivers, lakes, drainage within tiles, the exits
}

void recordFluvialErode(Step& step) {
    StepRecorder& rec = step.rec;
    const SimParams& p = step.params;
    // FluvialDrainage composed the erosion maps within tiles; across them, then the new ground.
    // Only the terrain flips its half (the model's writes): water, sediment and outflow stay.
    recordTree(step, TREE_ERODE);
    rec.pass(Pass::FluvialApply);
    rec.timestamp();
    if (p.fluvial_deposition > 0.0f || p.lake_evaporation > 0.0f) { // closed lakes keep what reaches them
        recordTree(step, TREE_SEDIMENT);
        rec.pass(Pass::FluvialDeposit);
        if (p.lake_evaporation > 0.0f) rec.pass(Pass::FluvialLakeFill);
    }
    rec.timestamp();
}

FluvialControl fluvialAnalyse(ModelHost& host, bool drainage) {
    // The whole fill, then more flats rounds until they converge (exact for any terrain); then
    // routing, accumulation and the drainage area (nothing else of the step runs).
    prepareFluvialLakes(host);
    FluvialState& fluvial = *host.state().fluvial;
    host.submit([&](Step& step) {
        recordFluvialFill(step, step.params.fluvial_flat_rounds);
        fluvial.recordReadback(step.rec);
    });
    while (fluvial.hostControl().converged == 0)
        host.submit([&](Step& step) {
            recordFluvialMoreFlats(step, 64);
            fluvial.recordReadback(step.rec);
        });
    const FluvialControl fill = fluvial.hostControl();
    host.submit([&](Step& step) {
        recordFluvialRoute(step);
        if (drainage) {
            recordTree(step, TREE_ACCUMULATE);
            step.rec.pass(Pass::FluvialDrainage); // the drainage area (and the erosion's maps, unused)
        }
        fluvial.recordReadback(step.rec);
    });
    return fill;
}

bool fluvialLakesOn(const SimParams& p) { return p.model == MODEL_FLUVIAL && p.lake_evaporation > 0.0f; }

void prepareFluvialLakes(ModelHost& host) {
    const SimParams& p = host.params();
    if (!fluvialLakesOn(p)) return;
    const auto start = std::chrono::steady_clock::now();
    FluvialState& fluvial = *host.state().fluvial;
    // The basins of the current ground, as this iteration's fill will find them again: the
    // descent, the label rounds, and the first edge round (which resolves every label).
    host.submit([&](Step& step) {
        recordBasins(step);
        step.rec.pass(Pass::FluvialEdges, 0);
    });
    const int w = p.width, h = p.height;
    const size_t n = size_t(w) * size_t(h);
    std::vector<uint32_t> labels = fluvial.basins();
    const std::vector<float> z = host.read(Field::Terrain);
    const std::vector<float> mask = host.read(Field::RainMask);
    const double cell_area = double(p.cell_size) * double(p.cell_size);
    std::vector<double> inflow(n);
    for (size_t i = 0; i < n; ++i)
        inflow[i] = double(p.fluvial_rainfall) * std::clamp(double(mask[i]), 0.0, 1.0) * cell_area;
    const float sea = p.enable_sea != 0 ? p.sea_level : -std::numeric_limits<float>::infinity();
    const LakeSolve s = solveLakes(w, h, z, labels, inflow, double(p.lake_evaporation) * cell_area, sea);
    const size_t blocks = s.level.size();
    // LAKE_LEVEL, LAKE_SINK, LAKE_VOLUME and LAKE_SEDIMENT (zero: the deposit writes it).
    std::vector<uint32_t> sections(4 * blocks, 0u);
    std::copy(s.level.begin(), s.level.end(), sections.begin());
    std::copy(s.sink.begin(), s.sink.end(), sections.begin() + std::ptrdiff_t(blocks));
    for (size_t b = 0; b < blocks; ++b) {
        const float v = float(s.volume[b] * cell_area);
        std::memcpy(&sections[2 * blocks + b], &v, 4);
    }
    fluvial.uploadLakes(sections);
    fluvial.lakes.closed_lakes = s.closed_lakes;
    fluvial.lakes.closed_area_m2 = double(s.closed_cells) * cell_area;
    fluvial.lakes.host_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

const Model& fluvialModel() {
    static const Model model = {
        MODEL_FLUVIAL,
        "fluvial",
        "river networks and lakes: routing, filling, drainage area, stream power (seed 003)",
        {Field::Terrain, Field::Loose}, // the pipe model's fields stay as they are
        {Pass::FluvialDescend, Pass::FluvialEdges, Pass::FluvialHook, Pass::FluvialFlats, Pass::FluvialRoute,
         Pass::FluvialDrainage, Pass::FluvialApply, Pass::FluvialDeposit},
        {},
        {"basins", "pass_points", "spill_solve", "flats", "route", "accumulate", "erode", "deposit"},
        recordFluvialStep,
        "the fluvial model keeps no water budget: its water is the lakes of the fill",
        fluvialLakesOn,
        prepareFluvialLakes,
    };
    return model;
}

const char* fluvialPhaseName(size_t phase) {
    const std::vector<const char*>& names = fluvialModel().phases;
    return phase < names.size() ? names[phase] : "?";
}

} // namespace alluvium::gpu
