#version 450
// Fluvial model, one round of pointer jumping over the tiles' exits (pc.mode: TREE_*). After
// round k an exit's pointer is its 2^k-th exit downstream; the rounds end when no pointer is
// left: ceil(log2(exits on the longest path)) rounds, each reading one half and writing the other.
//   TREE_ACCUMULATE: T'(j) = T(j) + sum of T(x) over the exits x pointing to j (integer atomics:
//     exact in any order); after the last round T(x) is all the rain leaving by x.
//   TREE_ERODE: z'(x) = A + B z'(p), p's map A_p + B_p z'(p'): (A + B A_p, B B_p), pointer p'.
//   TREE_SEDIMENT: as the accumulation, each carried amount scaled by the product of (1 - f) on
//     the way and rounded to the fixed point on its own (integer atomics: exact in any order).
#include "fluvial.glsl"

void main() {
    uint k = listEntry();
    bool live = false;
    if (k < ctl.exits) {
        uint node = ringNode(unpackCell(fluvial_ring[ringAt(RING_LIST, k)]));
        uint cur = ctl.parity, nxt = ctl.parity ^ 1u;
        uint ptr = fluvial_ring[ringAt(RING_NEXT + cur, node)];
        uint ptr_next = FLUVIAL_NONE;
        if (pc.mode == TREE_ERODE) {
            precise vec2 m = unpackFloats(fluvial_ring_val[ringAt(cur, node)]);
            if (ptr != FLUVIAL_NONE) {
                vec2 mp = unpackFloats(fluvial_ring_val[ringAt(cur, ptr)]);
                m = vec2(m.x + m.y * mp.x, m.y * mp.y);
                ptr_next = m.y == 0.0 ? FLUVIAL_NONE : fluvial_ring[ringAt(RING_NEXT + cur, ptr)];
            }
            fluvial_ring_val[ringAt(nxt, node)] = packFloats(m.x, m.y);
        } else {
            uint64_t v = fluvial_ring_val[ringAt(cur, node)];
            fluvial_ring_val[ringAt(cur, node)] = 0ul; // the next round adds into this half
            if (v != 0ul) atomicAdd(fluvial_ring_val[ringAt(nxt, node)], v);
            precise float keep = uintBitsToFloat(fluvial_ring[ringAt(RING_KEEP + cur, node)]);
            if (ptr != FLUVIAL_NONE) {
                uint64_t carried = pc.mode == TREE_SEDIMENT ? uint64_t(double(v) * double(keep) + 0.5) : v;
                if (carried != 0ul) atomicAdd(fluvial_ring_val[ringAt(nxt, ptr)], carried);
                ptr_next = fluvial_ring[ringAt(RING_NEXT + cur, ptr)];
                if (pc.mode == TREE_SEDIMENT) keep *= uintBitsToFloat(fluvial_ring[ringAt(RING_KEEP + cur, ptr)]);
            }
            if (pc.mode == TREE_SEDIMENT) fluvial_ring[ringAt(RING_KEEP + nxt, node)] = floatBitsToUint(keep);
        }
        fluvial_ring[ringAt(RING_NEXT + nxt, node)] = ptr_next;
        live = ptr_next != FLUVIAL_NONE;
    }
    if (subgroupAny(live) && subgroupElect()) atomicAdd(ctl.live, 1u);
}
