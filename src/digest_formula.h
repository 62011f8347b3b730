/* digest_formula.h - a keyed digest of a byte range, computed alike on the host and on a GPU
 * (KWB_HD): the sum modulo 2^64 of a mix of each 8-byte word (little-endian, the last one
 * zero-padded) with its index and the key. The sum does not depend on the order the words are
 * added in, so a GPU adds them in any order. Used to see that a call left its inputs as they
 * were without reading them back. */
#ifndef KWB_DIGEST_FORMULA_H
#define KWB_DIGEST_FORMULA_H

#include <stddef.h>
#include <stdint.h>

#include "kwb/dtype_bits.h" /* KWB_HD */

/* SplitMix64's finalizer: every input bit reaches every output bit. */
static inline KWB_HD uint64_t digest_mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* The term of word W at index I under KEY. */
static inline KWB_HD uint64_t digest_term(uint64_t key, uint64_t i, uint64_t w)
{
    return digest_mix(digest_mix(key + i * 0x9e3779b97f4a7c15ULL) ^ w);
}

/* The last, partial word of N bytes at P (N % 8 of them, the rest zero), or 0 when there is none. */
static inline KWB_HD uint64_t digest_tail(const unsigned char *p, size_t n)
{
    uint64_t w = 0;
    for (size_t b = 0; b < n % 8; b++)
        w |= (uint64_t)p[n - n % 8 + b] << (8 * b);
    return w;
}

/* The digest of N bytes at P (host memory) under KEY. */
static inline uint64_t digest_host(const void *p, size_t n, uint64_t key)
{
    const unsigned char *c = (const unsigned char *)p;
    uint64_t sum = 0, w;
    size_t words = n / 8;
    for (size_t i = 0; i < words; i++) {
        __builtin_memcpy(&w, c + 8 * i, 8); /* little-endian hosts only, as the GPUs kwb runs with */
        sum += digest_term(key, i, w);
    }
    if (n % 8)
        sum += digest_term(key, words, digest_tail(c, n));
    return sum;
}

#endif
