// Shared between GLSL (#include "shared.h") and C++ (gpu/). Binding slots, workgroup size,
// reduction slots and the parameter block the passes read. Keep it plain: scalars only, so
// the std430 layout in GLSL and the C++ struct agree member for member.
#ifndef ALLUVIUM_SHARED_H
#define ALLUVIUM_SHARED_H

#ifdef __cplusplus
#include <cstdint>
namespace alluvium::gpu {
using uint = uint32_t;
#endif
#include "param_table.h"

// Every grid pass runs over tiles of WG_SIZE cells, one invocation per cell (on CPU drivers the
// pipe step's three passes with sums take SUM_ROWS cells each, shaders/partials.glsl), and
// bounds-checks its cells. The tile's shape (WG_X x WG_Y in GLSL: 8x32, 16x16, 32x8 or 64x4) is
// chosen per device (gpu::WorkgroupShape) and set by the specialization constants SPEC_WG_X and
// SPEC_WG_Y. The fluvial model's tiles are always FLUVIAL_TILE x FLUVIAL_TILE (its ring of
// tile-crossing cells, RING_CELLS, is built for that shape).
#define WG_SIZE 256
#define FLUVIAL_TILE 16
// The fold of the step's sums: each reduce_partials workgroup folds this many partials of a
// slot into one, in as many levels as the grid needs (reduce_totals folds the last <= this many).
#define REDUCE_SIZE 256
// At most this many subgroups in a workgroup (subgroups of 4 or more invocations).
#define MAX_SUBGROUPS 64

// Descriptor set 0: the storage buffers below, then the fields' images from FIELD_BINDING_FIRST
// (shaders/field_table.h: a row per field, its binding slots and its unit).
// clang-format off
#define B_PARAMS 0          // SimParams (storage buffer, read-only)
#define B_PARTIALS 1        // double[]: per-workgroup sums of one step by slot, then the fold's levels
#define B_TOTALS 2          // Totals: double accumulators over the run
#define B_SPRINGS 3         // vec4[] springs: x, y (cells), radius (cells), rate per cell (m^3/s)
#define B_DELTA 4           // int64[] per-cell fixed-point height changes (particles: integer atomics)
#define B_DRAINED 5         // this step's model totals: the droplets' int64[4] (particles.glsl), musgrave's and simple's water sums (grid_models.glsl)
#define B_SEA_CONTROL 6     // SeaControl: the relaxations' change counters and indirect dispatch
// The fluvial model: depression routing, receivers, drainage area and stream power.
#define B_FLUVIAL_LEVEL 7   // uint[cells]: W, the lake-filled surface (ordered float bits); FLUVIAL_NONE: no outlet reaches the cell
#define B_FLUVIAL_RCV 8     // uint[cells]: the receiver, as the index of its neighbour (NB order) or RCV_SELF
                            //   (an outlet, or a cell no outlet reaches); while the fill runs, the ground's ordered height bits
#define B_FLUVIAL_ACC 9     // uint64[cells]: drainage accumulation (units of 2^-16 cell), within the tile, then whole
#define B_FLUVIAL_ANC 10    // uint[cells]: the exit cell that a cell's implicit erosion map leads to (FLUVIAL_NONE: its root)
#define B_FLUVIAL_AB 11     // uvec2[cells]: implicit erosion z' = A + B z'(exit) (float bits); then sediment within the tile
#define B_FLUVIAL_CONTROL 12 // FluvialControl: round counters and the indirect dispatches of the iterative passes
#define B_FLUVIAL_TILES 13  // uint[2][tiles]: per tile, FLAT_TILE | the last flats round that changed it; the tiles to visit
#define B_FLUVIAL_STEPS 14  // uint[2][cells]: steps across a flat of W to its exit (ping-pong between flats rounds)
#define B_FLUVIAL_LABEL 15  // uint[cells]: each cell's basin (LABEL_* encoding), while the fill runs
#define B_FLUVIAL_EDGES 16  // uint[2][cells]: cells on a basin boundary, index << 4 | the EDGE_DIRS that cross it
#define B_FLUVIAL_BASIN 17  // uint[6][blocks]: per basin: component, spill, pointer[2], pass[2] (BASIN_* sections)
#define B_FLUVIAL_BEST 18   // uint64[blocks]: per component, its lowest pass to another (ordered height << 32 | edge)
#define B_FLUVIAL_LISTS 19  // uint[8][blocks]: the basins, the roots (two lists), the roots hooked this round; lakes (LAKE_*)
#define B_FLUVIAL_RING 20   // uint[6][ring nodes]: tile crossings (RING_CELLS per tile): pointers [2] (basin labels,
                            //   then the next exit), each ring cell's exit, the list of exits, sediment products [2]
#define B_FLUVIAL_RING_VAL 21 // uint64[4][ring nodes]: per exit, values [2] (drainage, erosion maps, sediment),
                            //   what it passes on (erosion: its a, b; sediment: 1 - f and the product to the next
                            //   exit); per ring cell, what the exits of other tiles pour into it
// A grid split over processes: the droplets this block runs next (particles.comp's resume), and
// those it hands on to other blocks.
#define B_DROPLETS_IN 22    // Droplet[]: born in this block this step, then handed to it
#define B_DROPLETS_OUT 23   // uint handed, overflow, born, pad; then Droplet[]: handed on
#define B_BUFFER_COUNT 24   // slots 0 .. B_BUFFER_COUNT - 1 are storage buffers
// clang-format on

// Specialization constants every compute pass may declare.
#define SPEC_SPLIT_WIDE 0 // bool: 4-channel fields are split into two rg32f images
#define SPEC_WG_X 1       // uint: the grid passes' workgroup shape (WG_X x WG_Y = WG_SIZE / SUM_ROWS)
#define SPEC_WG_Y 2
#define SPEC_SUBGROUP_PARTIALS 3 // bool: one partial per subgroup, without a barrier (partials.glsl)
#define SPEC_STEP_PARTS 4        // uint: the pipe step's optional parts compiled in (STEP_*, common.glsl)
#define SPEC_SUM_ROWS 5          // int: rows of cells per invocation in the passes with sums (partials.glsl)

// The pipe step's optional parts, each turned on by a parameter. The step's passes are built
// with exactly the parts the uploaded parameters turn on (gpu::stepParts); every other pipeline
// has them all (STEP_ALL) and tests the parameters as it runs.
#define STEP_RAIN_MASK 1u    // rain_uniform == 0: the rain mask is read
#define STEP_SPRINGS 2u      // spring_count > 0
#define STEP_SEA 4u          // enable_sea != 0
#define STEP_MAPS 8u         // record_maps != 0: the wear and flow maps
#define STEP_OPEN_EDGES 16u  // edge_mode == EDGE_OPEN
#define STEP_LAYERS 32u      // enable_layers != 0: the loose layer is read and written
#define STEP_STRATA 64u      // strata_contrast > 0: bedrock hardness in bands by elevation
#define STEP_WEATHER 128u    // noise rain, storms or orographic rain (weather.glsl)
#define STEP_VEGETATION 256u // enable_vegetation != 0 in the pipe model: roots, stems (vegetation.glsl)
#define STEP_ALL 511u

// Reduction slots: each pass that moves mass writes its per-subgroup sums (m^3) into its slot.
#define SLOT_RAIN 0
#define SLOT_SPRING 1
#define SLOT_BRUSH_WATER_ADD 2
#define SLOT_BRUSH_WATER_REMOVE 3
#define SLOT_BRUSH_SOIL_ADD 4
#define SLOT_BRUSH_SOIL_REMOVE 5
#define SLOT_EVAPORATED 6
#define SLOT_DRAINED_WATER 7
#define SLOT_ERODED 8
#define SLOT_DEPOSITED 9
#define SLOT_SED_BEFORE 10      // suspended sediment before transport
#define SLOT_SED_AFTER 11       // after the semi-Lagrangian advection, before correction
#define SLOT_SED_DRAINED 12     // carried out over open edges this step
#define SLOT_MAX_SPEED 13       // max, not sum (m/s)
#define SLOT_MAX_WAVE 14        // max of |v| + sqrt(g d), the speed in the CFL number (m/s)
#define SLOT_INFILTRATED 15     // surface water soaked into the ground (water_exchange)
#define SLOT_SEEPED 16          // groundwater seeped out where the table reached the surface
#define SLOT_SEA_IN 17          // water the sea added to ocean cells (rising tide, a new sea)
#define SLOT_SEA_OUT 18         // water that left into the sea (rivers, falling tide)
#define SLOT_SNOWFALL 19        // snow that fell (as water)
#define SLOT_MELT 20            // snow that melted into the water
#define SLOT_LAVA_ERUPTED 21    // lava erupted (the vent, m^3 of lava)
#define SLOT_LAVA_SOLIDIFIED 22 // lava turned into rock (m^3 of lava)
#define SLOT_BOILED 23          // water lava boiled away
#define SLOT_MAX_FROUDE 24      // max, not sum: the Froude number of the cells deeper than FROUDE_MIN_DEPTH
#define REDUCE_SLOTS 25

// Totals accumulated on the GPU in double precision (indices into Totals.acc; the slots above
// that are sums fold into the same index, the maxima into their own members).
#define TOTAL_CORRECTION_ABS 25 // sum over steps of |sediment correction| (m^3)
#define TOTAL_WATER_ABSORBED 26 // particles: water of droplets that ended on the map (m^3)
#define TOTAL_SLOTS 27
// The Froude number is measured where the water is at least this deep (m): thinner films are
// wet ground, not flows whose waves it compares with.
#define FROUDE_MIN_DEPTH 1e-3

#define EDGE_CLOSED 0
#define EDGE_OPEN 1

// Erosion families: all run on the same state images.
#define MODEL_PIPE 0      // shallow-water pipe model with hydraulic and thermal erosion (seed 004)
#define MODEL_THERMAL 1   // talus-angle thermal erosion (seed 001)
#define MODEL_OLSEN 2     // Olsen's improved erosion: flattens gentle ground, keeps cliffs (seed 001)
#define MODEL_PARTICLES 3 // droplets (seeds 000 and 002)
#define MODEL_MUSGRAVE 4  // grid hydraulic erosion, water to all lower neighbours (seed 000)
#define MODEL_SIMPLE 5    // four-step hydraulic erosion, water to the lowest neighbour (seed 001)
#define MODEL_FLUVIAL 6   // river networks and lakes: routing, filling, drainage area, stream power (seed 003)
#define MODEL_COUNT 7

// Fluvial model. Outlet sides (bits of fluvial_outlets), the fixed point of drainage counts,
// the end of a receiver chain, and what the single-invocation control pass does (push mode).
#define OUTLET_LEFT 1           // column 0
#define OUTLET_RIGHT 2          // column width - 1
#define OUTLET_TOP 4            // row 0
#define OUTLET_BOTTOM 8         // row height - 1
#define FLUVIAL_ACC_ONE 65536.0 // drainage units per cell of full rain
#define FLUVIAL_SED_ONE 256.0   // sediment units per m^3
#define FLUVIAL_NONE 0xFFFFFFFFu
// Depression routing (gpu/fluvial.cpp). A basin is identified by the 2x2 block of its pit (two
// pits are never neighbours); FLUVIAL_OCEAN is every basin that drains out at an outlet.
#define FLUVIAL_OCEAN 0x3FFFFFFFu
#define LABEL_RESOLVED 0x80000000u // label: | basin (or FLUVIAL_OCEAN)
#define LABEL_EXTERNAL 0x40000000u // label: | the ring node of the next tile on the way down
#define LABEL_INDEX 0x3FFFFFFFu
#define RING_CELLS 60 // the border cells of a FLUVIAL_TILE^2 tile: the tile-crossing nodes
#define RCV_SELF 8u   // B_FLUVIAL_RCV: the cell is its own receiver
#define FLAT_TILE 0x80000000u
#define LIST_PITS 0   // B_FLUVIAL_LISTS: every basin
#define LIST_HOOKED 3 // the roots that hooked onto another component this round (1, 2: the roots)
#define RING_NEXT 0u  // sections of B_FLUVIAL_RING, each ring nodes long: 0, 1 pointers
#define RING_EXIT 2u
#define RING_LIST 3u
#define RING_KEEP 4u // 4, 5
#define VAL_AUX 2u   // sections of B_FLUVIAL_RING_VAL after the two value halves
#define VAL_INFLOW 3u
#define TREE_ACCUMULATE 0 // the three sums and compositions along the receivers (push mode of the tree passes)
#define TREE_ERODE 1
#define TREE_SEDIMENT 2
// Indirect dispatches in FluvialControl.job (x, y, z each); the control pass empties them when
// their loop is done, so the host records a bounded number of each.
#define JOB_RING 0   // label pointer jumping over the ring nodes
#define JOB_EDGES 1  // the boundary cells of the previous round (the first round scans the grid)
#define JOB_HOOK 2   // the roots: hook onto the lowest pass
#define JOB_JUMP 3   // the hooked roots: pointer jumping to their new root
#define JOB_BASINS 4 // every basin: new component and spill
#define JOB_FLATS 5  // the flat tiles to relax
#define JOB_EXITS 6  // pointer jumping over the tiles' exits (accumulation, erosion, sediment)
#define FLUVIAL_JOBS 7
// A job's workgroups go in rows of this many (x), as many rows as needed (y): its lists outgrow
// 65535 workgroups at 8192^2, the most one dimension takes on some devices (lavapipe, Intel).
#define JOB_ROW_GROUPS 4096
#define CONTROL_START_FILL 0      // reset the counters and the jobs
#define CONTROL_AFTER_LABEL 1     // a label round ran: flip parity; nothing left to resolve: stop
#define CONTROL_AFTER_EDGES 2     // the roots' hooking job from the root list; swap the edge lists
#define CONTROL_AFTER_HOOK 3      // the hooked roots' jumping job; no hook: the basin graph is solved
#define CONTROL_AFTER_HOOK_JUMP 4 // a jump round ran: flip parity; every hooked root found its root: stop
#define CONTROL_AFTER_RELABEL 5   // the next round's edge job (none once no root is left)
#define CONTROL_START_FLATS 6     // steps half 0, the flat tiles
#define CONTROL_AFTER_FLATS 7     // a round ran: flip parity; it changed nothing: converged
#define CONTROL_START_TREE 8      // + TREE_*: parity 0, next dispatch = the exits
#define CONTROL_AFTER_TREE 11     // a round ran: flip parity; no exit has a pointer left: stop
#define CONTROL_START_PUSH 12     // the exits again (their values stay in the current half)

// Particles model: droplet variants, and the fixed point of delta64[] (int64 units of 2^-20 m;
// see shaders/particles.comp for the bound).
#define PARTICLES_MASS_TRANSFER 0
#define PARTICLES_CAPACITY 1
#define PARTICLE_FIXED_ONE 1048576.0 // fixed-point units per metre (2^20)
#define DROPLET_COUNTERS 5           // the step's droplet totals, int64, first in B_DRAINED (particles.glsl)
// particles.comp's modes: the step's droplets born and run (one device); a split grid's born into
// the block's inbox (those that fall on cells it owns), and the inbox's run.
#define PARTICLES_RUN 0
#define PARTICLES_BORN 1
#define PARTICLES_RESUME 2
// What a droplet does next, in the block that owns the cell the phase needs (DEPOSIT and LOOK:
// the cell it moved to; the others: the cell it stands on, which TRANSFER writes).
#define DROPLET_MOVE 0u     // an iteration starts: pushed by the normal, moved (reads around its cell)
#define DROPLET_DEPOSIT 1u  // capacity variant: the exchange at the cell it moved to
#define DROPLET_LOOK 2u     // mass transfer: the ground where it moved to (any block holding that cell)
#define DROPLET_TRANSFER 3u // mass transfer: the exchange at the cell it left, the ground ahead known
#define DROPLET_END 4u      // it stops: its load dropped where it stands
#define DROPLET_PHASE_BITS 3

// Groundwater: most flow sub-steps per step (more would be needed beyond the stability limit: the
// face conductance is capped there instead, see groundwater_head.comp).
#define GROUNDWATER_MAX_SUBSTEPS 16
// The sea's spill relaxation: rounds per step while a new spill surface is computed behind the
// one in use (gpu/sea.cpp), and the value of "not reached yet".
#define SEA_ROUNDS_PER_STEP 4
#define SEA_UNREACHED 3.0e38
// The equilibrium water table's rounds (water_table.comp), push mode bits besides the half read (1)
// and the colour (2): a plain Gauss-Seidel round (the last tenth: no over-relaxation), and the
// round's parity (the counter of moved cells it adds to; it empties the other one).
#define TABLE_POLISH 4
#define TABLE_ROUND_ODD 8

#define NEIGHBOURS_VON_NEUMANN 0
#define NEIGHBOURS_ROTATED 1
#define NEIGHBOURS_MOORE 2

// Everything a step reads, in SI units: a field per row of param_table.h (parameters with a
// block, and the fields the engine fills), in the rows' order.
#define ALLUVIUM_BLOCK_MEMBER_Float(name) float name;
#define ALLUVIUM_BLOCK_MEMBER_Int(name) int name;
#define ALLUVIUM_BLOCK_MEMBER_None(name)
#define ALLUVIUM_BLOCK_PARAM(name, group, def, lo, hi, unit, to_si, kind, block, meaning)                              \
    ALLUVIUM_BLOCK_MEMBER_##block(name)
#define ALLUVIUM_BLOCK_ENGINE(type, name, meaning) type name;
struct SimParams {
    ALLUVIUM_PARAMETER_BLOCK(ALLUVIUM_BLOCK_PARAM, ALLUVIUM_BLOCK_ENGINE)
};

// Per dispatch, in push constants (changes every step, unlike SimParams).
struct PushConstants {
    int step_index;    // steps since the simulation started (rain frequency, droplet seeds)
    int mode;          // fluvial passes: CONTROL_* (control), the round (edges, flats), TREE_* (tree passes)
    uint reduce_in;    // the fold: offset of its input level in partials[] (doubles)
    uint reduce_count; // partials per slot in that level
    uint reduce_out;   // offset of its output level (reduce_partials)
    float sea_surface; // this step's sea surface with the tide (m; the host computes it)
    float sim_time;    // simulated seconds at the step's start (the weather's clock)
};

// Written by the fluvial passes on the GPU; the host reads it after a step (host-visible).
struct FluvialControl {
    uint job[FLUVIAL_JOBS * 3]; // VkDispatchIndirectCommand of each JOB_*
    uint lists[4];              // entries in each B_FLUVIAL_LISTS list (LIST_PITS: the basins)
    uint edges[2];              // entries in each edge list
    uint edge_src;              // the edge list the next edge round reads (it appends to the other)
    uint root_src;              // the root list the next hook round reads (1 or 2; LIST_PITS first)
    uint graph_active;          // the basin graph still has roots to hook
    uint live;                  // work left after a jumping round (labels, hooks, cells)
    uint changed;               // tiles a flats round changed
    uint parity;                // which half of the current ping-pong buffers holds the values
    uint flat_parity;           // the half of B_FLUVIAL_STEPS that holds the steps
    uint exits;                 // cells whose receiver is in another tile (RING_LIST)
    uint tree;                  // the TREE_* loop running
    uint converged;             // the flats converged within the recorded rounds (the fill is exact)
    uint rounds_label;          // pointer-jumping rounds of the basin labels across tiles
    uint rounds_boruvka;        // rounds of the basin graph (each hooks every root onto its lowest pass)
    uint rounds_hook;           // pointer-jumping rounds of the hooked roots, all rounds together
    uint rounds_flats;          // rounds across flats (each relaxes the visited tiles to their fixed point)
    uint tiles_flats;           // tiles the flats rounds visited
    uint rounds_tree[3];        // pointer-jumping rounds over the exits: accumulation, erosion, sediment
    uint edges_first;           // boundary cells of the basins (the first edge round)
    uint flat_tiles;            // tiles with flats (fluvial_level.comp lists them; the flats job covers them)
};

// A droplet handed from block to block (a grid split over processes; particles.comp): its state
// between two phases, in whole-grid cells. 48 bytes.
struct Droplet {
    float pos_x, pos_y, speed_x, speed_y;
    float volume;
    int load;           // in PARTICLE_FIXED_ONE units
    float ground_next;  // DROPLET_TRANSFER: the ground at the cell it moved to
    uint age_phase;     // age << DROPLET_PHASE_BITS | DROPLET_*
    int cell_x, cell_y; // the cell it stands on (it left, in DROPLET_LOOK and DROPLET_TRANSFER)
    int to_x, to_y;     // the cell whose owner runs the phase
};

// The sea's spill relaxation and the water table's (gpu/sea.cpp): rounds count the cells they
// changed; a round that changed nothing ends the relaxation (its later rounds dispatch nothing).
struct SeaControl {
    uint dispatch_x; // VkDispatchIndirectCommand of the next round
    uint dispatch_y;
    uint dispatch_z;
    uint changed[2]; // cells the round of each parity changed
    uint commits;    // spill surfaces completed and put in use
    uint rounds;     // rounds of the relaxation in progress so far
    uint pad;
};

struct Totals {
    double acc[TOTAL_SLOTS];
    float sediment_scale; // this step's correction factor applied to suspended sediment
    float max_speed;      // running max (m/s)
    float step_wave;      // the last (sub-)step's max of |v| + sqrt(g d) (m/s): the next step's sub-steps
    float max_cfl;        // running max of (|v| + sqrt(g d)) dt / L over the (sub-)steps run
    float max_froude;     // running max of the Froude number (water_velocity.comp) over the cells deeper than
                          // FROUDE_MIN_DEPTH
};

// The pipe step's sub-steps: a step of dt runs n sub-steps of dt / n, n chosen from the last
// step's wave speed so that (|v| + sqrt(g d)) dt / (n L) <= CFL_TARGET, at most MAX_SUBSTEPS.
#define CFL_TARGET 0.5
#define MAX_SUBSTEPS 64
#define REDUCE_WAVE_ONLY 1 // reduce_totals' mode after wave_speed.comp
// The erosion pass's mode (erosion.comp, erosion_transport_thermal_evaporation.comp) when the step
// before left its sediment correction to it (gpu/pipe.cpp): the sediment is read as s * scale.
#define ERODE_CARRIED_CORRECTION 1
#define REDUCE_GROUNDWATER_ONLY 2 // musgrave and simple: only the groundwater's sums (their own go through grid_totals)

// Whether a slot holds a maximum (folded with max), not a sum.
#ifdef __cplusplus
inline
#endif
    bool
    slotIsMax(int slot) {
    return slot == SLOT_MAX_SPEED || slot == SLOT_MAX_WAVE || slot == SLOT_MAX_FROUDE;
}

// Whether `slot` is written this step. Features that are off (no springs, closed edges, a
// disabled pass) skip their reductions. Writers and the fold passes both ask this (and the
// bench, for the bytes of the sums).
#ifdef __cplusplus
inline
#endif
    bool
    slotActive(SimParams q, int slot) {
    switch (slot) {
    case SLOT_RAIN: return q.rain_rate > 0.0;
    case SLOT_SPRING: return q.spring_count > 0;
    // The brush is its own pass (gpu/brush.h) with its own totals; the host adds them into
    // these slots of the run's totals for the report.
    case SLOT_BRUSH_WATER_ADD: return false;
    case SLOT_BRUSH_WATER_REMOVE: return false;
    case SLOT_BRUSH_SOIL_ADD: return false;
    case SLOT_BRUSH_SOIL_REMOVE: return false;
    case SLOT_EVAPORATED: return q.enable_evaporation != 0;
    case SLOT_DRAINED_WATER: return q.edge_mode == EDGE_OPEN;
    case SLOT_ERODED: return q.enable_erosion != 0;
    case SLOT_DEPOSITED: return q.enable_erosion != 0;
    case SLOT_SED_DRAINED: return q.edge_mode == EDGE_OPEN && q.enable_transport != 0;
    case SLOT_INFILTRATED:
    case SLOT_SEEPED:
        return q.enable_groundwater != 0 &&
               (q.model == MODEL_PIPE || q.model == MODEL_MUSGRAVE || q.model == MODEL_SIMPLE);
    case SLOT_SEA_IN:
    case SLOT_SEA_OUT: return q.enable_sea != 0 && q.model == MODEL_PIPE;
    case SLOT_SNOWFALL:
    case SLOT_MELT: return q.enable_snow != 0 && q.model == MODEL_PIPE;
    case SLOT_LAVA_ERUPTED:
    case SLOT_LAVA_SOLIDIFIED:
    case SLOT_BOILED: return q.enable_lava != 0 && q.model == MODEL_PIPE;
    default: return true;
    }
}

#ifdef __cplusplus
// The groundwater's flow sub-steps come in pairs (groundwater -> groundwater_mid -> groundwater):
// the count the shaders see (Simulation::setParams) is rounded up to an even number,
// 2 .. GROUNDWATER_MAX_SUBSTEPS.
inline int evenGroundwaterSubsteps(int n) {
    n = n < 1 ? 1 : (n > GROUNDWATER_MAX_SUBSTEPS ? GROUNDWATER_MAX_SUBSTEPS : n);
    return (n + 1) / 2 * 2;
}
} // namespace alluvium::gpu
#endif
#endif
