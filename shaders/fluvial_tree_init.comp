#version 450
// Fluvial model, start of a loop over the tiles' exits (pc.mode: TREE_*). An exit x's receiver
// e lies on the ring of another tile, whose pass noted the exit y that e's path leaves by: x's
// pointer is y (FLUVIAL_NONE if e's path ends at a root). Its value:
//   TREE_ACCUMULATE: the rain gathered within x's tile down to x; the rounds sum the exits upstream.
//   TREE_ERODE: the map z'(x) = A + B z'(y): x's own a + b z'(e) composed with e's map to y
//     (fluvial_drainage.comp); the rounds compose the maps down to a root (B = 0).
//   TREE_SEDIMENT: the sediment passing x from within its tile, and the fraction of it that
//     reaches y: (1 - f(x)) times the product of (1 - f) from e to y (fluvial_apply.comp).
#include "fluvial.glsl"

void main() {
    uint k = listEntry();
    if (k >= ctl.exits) return;
    ivec2 c = unpackCell(fluvial_ring[ringAt(RING_LIST, k)]);
    uint node = ringNode(c), i = cellIndex(c);
    ivec2 ce = receiverCell(c, fluvial_rcv[i]);
    uint e = cellIndex(ce), entry = ringNode(ce);
    uint next = fluvial_ring[ringAt(RING_EXIT, entry)];
    uint cur = ringAt(0u, node), other = ringAt(1u, node); // the value halves
    switch (pc.mode) {
    case TREE_ACCUMULATE:
        fluvial_ring_val[cur] = fluvial_acc[i];
        fluvial_ring_val[other] = 0ul;
        break;
    case TREE_ERODE: {
        vec2 own = unpackFloats(fluvial_ring_val[ringAt(VAL_AUX, node)]); // a, b of x
        vec2 map = uintBitsToFloat(fluvial_ab[e]);                    // e's map to y
        precise vec2 m = vec2(own.x + own.y * map.x, own.y * map.y);
        if (m.y == 0.0) next = FLUVIAL_NONE; // a root on the way: z'(x) = A
        fluvial_ring_val[cur] = packFloats(m.x, m.y);
        break;
    }
    case TREE_SEDIMENT: {
        precise float keep = unpackFloats(fluvial_ring_val[ringAt(VAL_AUX, node)]).x * unpackFloats(fluvial_ring_val[ringAt(VAL_AUX, entry)]).y;
        if (keep == 0.0) next = FLUVIAL_NONE;
        fluvial_ring_val[cur] = packUint2x32(fluvial_ab[i]);
        fluvial_ring_val[other] = 0ul;
        fluvial_ring[ringAt(RING_KEEP, node)] = floatBitsToUint(keep);
        break;
    }
    }
    fluvial_ring[ringAt(RING_NEXT, node)] = next;
}
