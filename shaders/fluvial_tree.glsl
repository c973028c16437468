// Included by the tile passes that sum or compose along the receivers (accumulation, implicit
// erosion, sediment). Within a tile the receivers form a forest whose paths leave the tile at
// its exits (cells whose receiver is in another tile) or end at a root; each invocation walks
// its cell's path within the tile (at most WG_SIZE cells), adding into shared sums with
// integer atomics (exact, in any order) or composing maps in path order (the same float
// operations on every device). Across tiles, the exits form a much smaller forest that pointer
// jumping solves (fluvial_tree_jump.comp) in log2 of the tiles a path crosses.
#include "fluvial.glsl"

#define TREE_OUT 0x100u  // the receiver is in another tile: the cell is an exit
#define TREE_ROOT 0x200u // the cell is its own receiver (an outlet, unreached), or outside the grid
shared uint tree_parent[WG_SIZE];
shared uint tree_lo[WG_SIZE]; // 64-bit sums as two words: the low one's carries go to the high one
shared uint tree_hi[WG_SIZE];

ivec2 treeLocal(uint k) { return ivec2(int(k % uint(WG_X)), int(k / uint(WG_X))); }

// The local parent of a cell of the tile at `origin`, from its receiver.
uint treeParentOf(ivec2 origin, ivec2 c) {
    if (!inGrid(c)) return TREE_ROOT;
    uint code = fluvial_rcv[cellIndex(c)];
    if (code == RCV_SELF) return TREE_ROOT;
    ivec2 local = c + NB[code] - origin;
    if (local.x < 0 || local.y < 0 || local.x >= WG_X || local.y >= WG_Y) return TREE_OUT;
    return uint(local.y * WG_X + local.x);
}

void treeClear(uint li) {
    tree_lo[li] = 0u;
    tree_hi[li] = 0u;
}

void treeAdd(uint k, uint64_t v) {
    uvec2 w = unpackUint2x32(v);
    if (w.x != 0u) {
        uint old = atomicAdd(tree_lo[k], w.x);
        if (old + w.x < old) w.y += 1u; // the low word wrapped
    }
    if (w.y != 0u) atomicAdd(tree_hi[k], w.y);
}

uint64_t treeSum(uint k) { return packUint2x32(uvec2(tree_lo[k], tree_hi[k])); }

// Adds v to every cell from k down its path to the tile's exit or root.
void treeAddDown(uint k, uint64_t v) {
    for (int n = 0; n < WG_SIZE; ++n) { // a path holds at most the tile's cells
        treeAdd(k, v);
        uint parent = tree_parent[k];
        if (parent >= TREE_OUT) break;
        k = parent;
    }
}

// The exit cell (local index) at the end of k's path within the tile, or FLUVIAL_NONE (a root).
uint treeExit(uint k) {
    for (int n = 0; n < WG_SIZE && tree_parent[k] < TREE_OUT; ++n) k = tree_parent[k];
    return tree_parent[k] == TREE_OUT ? k : FLUVIAL_NONE;
}

