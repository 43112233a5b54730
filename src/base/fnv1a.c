/* fnv1a.c — FNV-1a 64 (see fnv1a.h). */
#include "base/fnv1a.h"

const uint64_t FNV1A_START = 0xCBF29CE484222325ULL;
const uint64_t FNV1A_START_SHORT = 1469598103934665603ULL;

uint64_t fnv1a(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001B3ULL;
    }
    return h;
}

uint64_t fnv1a_bytes(const void *data, size_t n)
{
    return fnv1a(FNV1A_START, data, n);
}
