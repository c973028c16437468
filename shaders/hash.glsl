// An integer hash (the same bits on every device), for what a seed places: strata bands, storms,
// noise rain. Included by compute and render shaders alike.
#ifndef ALLUVIUM_HASH_GLSL
#define ALLUVIUM_HASH_GLSL

uint hash32(uint x) {
    x ^= x >> 16;
    x *= 0x21f0aaadu;
    x ^= x >> 15;
    x *= 0x735a2d97u;
    x ^= x >> 15;
    return x;
}

// 0 .. 1 from a hashed key (24 bits).
float hashUnit(uint x) { return float(hash32(x) >> 8) * (1.0 / 16777216.0); }

#endif
