#version 450
// Particles model (seeds 002 and 000): one invocation per droplet. A droplet starts at a random
// point (a counter-based hash of the seed, the step and its index: deterministic), is pushed by
// the surface normal, slowed by friction, moves, exchanges soil with the ground, evaporates,
// and dies off the map, below the minimum volume or at the end of its lifetime.
//   mass_transfer (seed 002): c_eq = Kc V |v| (b(old cell) - b(new cell)), at least 0;
//                             the ground at the old cell gives min(1, dt k) (V c_eq - S).
//   capacity (seed 000):      C = Kc |v| V; at the new cell deposit Kd (S - C) if S > C, else
//                             dissolve Ks (C - S).
// Dissolving is scaled by 1 - hardness. Every droplet reads the terrain as it was before the
// dispatch (terrain_cur) and adds its height changes to delta64[] in fixed point (units of
// 2^-20 m) with 64-bit integer atomics, which commute: the result is independent of the order.
// Each exchange is rounded to the fixed-point grid before it is added both to the droplet's
// load S and to delta, so sum(delta) + S = 0 exactly; a droplet that dies on the map drops S
// where it stands, one that leaves an open edge takes S away, one that hits a closed edge
// stops there and drops S.
// Overflow bound: an exchange is at most 2^24 units (16 m) and a load at most 2^30 units
// (1024 m), so one droplet changes one cell by at most lifetime * 2^24 + 2^30 units. With the
// table's limits (4,000,000 < 2^22 droplets, lifetime <= 4096 = 2^12) a cell's sum over a step
// stays below 2^22 * (2^36 + 2^30) < 2^59, inside int64 (an int32 sum overflowed at 2048 m, which
// a million droplets on ten thousand cells exceed). The step's water and drained soil sums are
// smaller still (below 2^22 * 10 * 2^32 < 2^58 and 2^22 * 2^30). Droplet water is counted per
// droplet: what evaporated on the way, and what is left when it leaves an open edge (drained)
// or ends on the map (absorbed).
// Floating-point: the arithmetic is `precise` (no fused multiply-add) so that the reference
// (tests/reference/particles.cpp) in float reproduces it operation for operation.
// A grid split over processes (gpu/droplet_mail.h): each block runs the droplets born on its
// cells, hands one on where its next phase needs a cell of another block, and runs those handed
// to it, in rounds; the same arithmetic in any block, so the same bits as one device.
#include "common.glsl"
#include "particles.glsl"

const float kMaxExchange = 16.0;       // m per exchange
const int kMaxLoad = 1073741824;       // 2^30 units

uvec3 pcg3d(uvec3 v) {
    v = v * 1664525u + 1013904223u;
    v.x += v.y * v.z;
    v.y += v.z * v.x;
    v.z += v.x * v.y;
    v ^= v >> 16u;
    v.x += v.y * v.z;
    v.y += v.z * v.x;
    v.z += v.x * v.y;
    return v;
}

// Droplets move over the whole grid (cells and positions in its coordinates); a block of a grid
// split over processes reads the images at the cell's place in its own (`local`).
// (Read once: the droplets' atomics may alias the parameters' buffer for all the compiler knows,
// and it would load them again after each.)
ivec2 origin, last_cell;
ivec2 local(ivec2 c) { return c - origin; }
ivec2 clampWhole(ivec2 q) { return clamp(q, ivec2(0), last_cell); }
// One device (PARTICLES_RUN) owns every cell: a uniform test, before the per-droplet one.
bool mine(ivec2 c) { return pc.mode == PARTICLES_RUN || ownedCell(local(c)); }
bool held(ivec2 c) { return pc.mode == PARTICLES_RUN || inGrid(local(c)); }
float ground(ivec2 c) { return imageLoad(terrain_cur, local(c)).r; }
uint cellIndex(ivec2 c) { return uint(local(c).y) * uint(p.width) + uint(local(c).x); }

// Horizontal part of the unit surface normal: central differences of the height in metres
// over the distance in metres (one-sided at the edges).
vec2 normalXY(ivec2 c) {
    ivec2 l = clampWhole(c - ivec2(1, 0)), r = clampWhole(c + ivec2(1, 0));
    ivec2 t = clampWhole(c - ivec2(0, 1)), b = clampWhole(c + ivec2(0, 1));
    precise float gx = (ground(r) - ground(l)) / (float(max(r.x - l.x, 1)) * p.cell_size);
    precise float gy = (ground(b) - ground(t)) / (float(max(b.y - t.y, 1)) * p.cell_size);
    precise float inv = 1.0 / sqrt(1.0 + gx * gx + gy * gy);
    precise vec2 n = vec2(-gx * inv, -gy * inv);
    return n;
}

// The droplet's water at its end: what evaporated since it was released, and what is left,
// which drains (off an open edge) or soaks into the ground where it ends.
void countWater(float volume, bool left_map) {
    const int64_t left = int64_t(round(double(volume) * PARTICLE_WATER_ONE));
    const int64_t evaporated =
        int64_t(round((double(p.particle_volume) - double(volume)) * PARTICLE_WATER_ONE));
    if (evaporated != 0) atomicAdd(water_evaporated, evaporated);
    if (left != 0) {
        if (left_map) atomicAdd(water_drained, left);
        else atomicAdd(water_absorbed, left);
    }
}

// A grid split over processes (one block holds every cell otherwise): a droplet runs while this
// block owns the cell its next phase needs, and is then handed to the block that does. Its writes
// land on cells this block owns; reads reach one cell around the one it stands on, and the cell it
// moved to (DROPLET_LOOK, wherever that is). The phases do the same arithmetic in any block.
layout(std430, binding = B_DROPLETS_IN) buffer DropletsIn { Droplet droplets_in[]; };
layout(std430, binding = B_DROPLETS_OUT) buffer DropletsOut {
    uint handed_count;
    uint handed_overflow; // past the end of a mailbox (room for every droplet: never)
    uint born_count;      // PARTICLES_BORN: droplets_in's first
    uint handed_pad;
    Droplet droplets_out[];
};

struct State {
    vec2 pos, speed;
    float volume;
    int load;
    float ground_next;
    int age;
    uint phase;
    ivec2 cell;
};

// Into a mailbox: the outbox (handed on to the block owning `to`), or this block's inbox (born
// here, run in the next dispatch). Each has room for every droplet: the overflow count says
// otherwise, never past the end.
void post(State s, ivec2 to, bool born) {
    const Droplet d = Droplet(s.pos.x, s.pos.y, s.speed.x, s.speed.y, s.volume, s.load, s.ground_next,
                              uint(s.age) << DROPLET_PHASE_BITS | s.phase, s.cell.x, s.cell.y, to.x, to.y);
    const uint k = born ? atomicAdd(born_count, 1u) : atomicAdd(handed_count, 1u);
    if (k >= uint(born ? droplets_in.length() : droplets_out.length())) atomicAdd(handed_overflow, 1u);
    else if (born) droplets_in[k] = d;
    else droplets_out[k] = d;
}

State handedIn(uint i) {
    const Droplet d = droplets_in[i];
    return State(vec2(d.pos_x, d.pos_y), vec2(d.speed_x, d.speed_y), d.volume, d.load, d.ground_next,
                 int(d.age_phase >> DROPLET_PHASE_BITS), d.age_phase & ((1u << DROPLET_PHASE_BITS) - 1u),
                 ivec2(d.cell_x, d.cell_y));
}

// One trip of the loop is one iteration, as on one device; a droplet handed on mid-iteration
// resumes at its phase.
void run(State s) {
    const float w = float(p.full_width), h = float(p.full_height);
    const float dt = p.particle_time_step;
    const bool mass_transfer = p.particle_variant == PARTICLES_MASS_TRANSFER;
    precise vec2 pos = s.pos;
    precise vec2 speed = s.speed;
    precise float volume = s.volume;
    int load = s.load; // S in units of 2^-20 m
    ivec2 cell = s.cell;
    uint phase = s.phase;
    ivec2 to = ivec2(-1); // the cell whose block takes the droplet on; none while negative
    int age = s.age;
    for (; phase != DROPLET_END && age < p.particle_lifetime; ++age) {
        if (phase == DROPLET_MOVE) {
            if (!mine(cell)) {
                to = cell;
                break;
            }
            const vec2 n = normalXY(cell);
            precise float inertia = volume * p.particle_density;
            speed += vec2(dt * n.x / inertia, dt * n.y / inertia);
            pos += vec2(dt * speed.x, dt * speed.y);
            speed *= 1.0 - dt * p.particle_friction;
            if (!(pos.x >= 0.0 && pos.y >= 0.0 && pos.x < w && pos.y < h)) {
                if (p.edge_mode == EDGE_OPEN) { // leaves with its load: counted, 64-bit exact
                    if (load != 0) atomicAdd(soil_drained, int64_t(load));
                    countWater(volume, true);
                    return;
                }
                cell = ivec2(clamp(floor(pos), vec2(0.0), vec2(w - 1.0, h - 1.0))); // stops at the wall
                break;
            }
            phase = mass_transfer ? DROPLET_LOOK : DROPLET_DEPOSIT;
        }
        const ivec2 next = clampWhole(ivec2(floor(pos)));
        if (phase == DROPLET_LOOK) {
            if (!held(next)) {
                to = next;
                break;
            }
            s.ground_next = ground(next);
            phase = DROPLET_TRANSFER;
        }
        const ivec2 at = mass_transfer ? cell : next; // where it exchanges: the cell it left, or ahead
        if (!mine(at)) {
            to = at;
            break;
        }
        precise float v = sqrt(speed.x * speed.x + speed.y * speed.y);
        precise float carried = float(load) * (1.0 / PARTICLE_FIXED_ONE);
        precise float amount;
        if (mass_transfer) {
            precise float drop = ground(cell) - s.ground_next;
            precise float c_eq = max(0.0, p.particle_capacity * volume * v * drop);
            amount = min(1.0, dt * p.particle_deposition) * (volume * c_eq - carried);
        } else {
            precise float capacity = p.particle_capacity * v * volume;
            amount = carried > capacity ? -p.particle_deposition * (carried - capacity)
                                        : p.particle_softness * (capacity - carried);
        }
        if (amount > 0.0) {
            float loose = looseAt(local(at));
            amount = layeredErosion(amount, loose, cellHardness(local(at), ground(at), loose));
        }
        int q = int(roundEven(clamp(amount, -kMaxExchange, kMaxExchange) * PARTICLE_FIXED_ONE));
        q = clamp(q, -load, kMaxLoad - load);
        if (q != 0) {
            atomicAdd(delta64[cellIndex(at)], int64_t(-q));
            load += q;
        }
        // (The capacity variant's loss is at most what is left, so the water counts stay >= 0.)
        volume = mass_transfer ? volume * (1.0 - dt * p.particle_evaporation)
                               : max(0.0, volume - dt * p.particle_evaporation * p.particle_volume);
        cell = next;
        phase = volume < p.particle_min_volume ? DROPLET_END : DROPLET_MOVE;
    }
    if (to.x < 0 && !mine(cell)) { // it ends on another block's cell, which takes its load
        phase = DROPLET_END;
        to = cell;
    }
    if (to.x >= 0) {
        post(State(pos, speed, volume, load, s.ground_next, age, phase, cell), to, false);
        return;
    }
    // It ends: its load dropped where it stands.
    if (load != 0) atomicAdd(delta64[cellIndex(cell)], int64_t(load));
    countWater(volume, false);
}

// The droplet this invocation runs, if any: a new one (PARTICLES_RUN), one of the inbox's
// (PARTICLES_RESUME); PARTICLES_BORN lists the block's new ones in the inbox and runs none.
bool dropletOf(uint id, out State s) {
    if (pc.mode == PARTICLES_RESUME) {
        if (id >= pc.reduce_count) return false;
        s = handedIn(id);
        return true;
    }
    if (id >= uint(p.particle_count)) return false;
    const uvec3 r = pcg3d(uvec3(id, uint(pc.step_index), p.particle_seed));
    const float w = float(p.full_width), h = float(p.full_height);
    precise vec2 pos = vec2(float(r.x >> 8u) * (1.0 / 16777216.0) * w,
                            float(r.y >> 8u) * (1.0 / 16777216.0) * h);
    const ivec2 cell = clampWhole(ivec2(floor(pos)));
    if (!mine(cell)) return false; // another block's droplet
    // Droplets fall where it rains: one drawn on a cell of rain mask m falls with probability m
    // (the hash's third word), so their density follows the mask; the others are not rain.
    if (rainVaries() && float(r.z >> 8u) * (1.0 / 16777216.0) >= rainMaskAt(local(cell))) {
        atomicAdd(droplets_unborn, int64_t(1));
        return false;
    }
    s = State(pos, vec2(0.0), p.particle_volume, 0, 0.0, 0, DROPLET_MOVE, cell);
    if (pc.mode == PARTICLES_RUN) return true;
    // A block's droplets listed and then run together: most of a split grid's ids fall on other
    // blocks, and a workgroup runs as long as its longest droplet.
    post(s, cell, true);
    return false;
}

void main() {
    origin = ivec2(p.origin_x, p.origin_y);
    last_cell = ivec2(p.full_width - 1, p.full_height - 1);
    State s;
    if (dropletOf(gl_WorkGroupID.x * uint(WG_SIZE) + gl_LocalInvocationIndex, s)) run(s);
}
