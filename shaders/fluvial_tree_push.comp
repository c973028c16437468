#version 450
// Fluvial model, end of a loop over the tiles' exits (pc.mode: TREE_ACCUMULATE or
// TREE_SEDIMENT): each exit pours what leaves it into its receiver's ring node (integer atomics:
// exact in any order), where the receiver's tile pass picks it up with one read:
//   TREE_ACCUMULATE: all the rain that passes the exit;
//   TREE_SEDIMENT: the sediment passing it, less the fraction f it keeps, rounded on its own.
#include "fluvial.glsl"

void main() {
    uint k = listEntry();
    if (k >= ctl.exits) return;
    ivec2 c = unpackCell(fluvial_ring[ringAt(RING_LIST, k)]);
    uint node = ringNode(c);
    uint64_t v = fluvial_ring_val[ringAt(ctl.parity, node)];
    if (pc.mode == TREE_SEDIMENT) v = uint64_t(double(v) * double(unpackFloats(fluvial_ring_val[ringAt(VAL_AUX, node)]).x) + 0.5);
    uint entry = ringNode(receiverCell(c, fluvial_rcv[cellIndex(c)]));
    if (v != 0ul) atomicAdd(fluvial_ring_val[ringAt(VAL_INFLOW, entry)], v);
}
