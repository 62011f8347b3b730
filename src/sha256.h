/* sha256.h - SHA-256 (FIPS 180-4), streaming and one-shot; used to key the build cache. */
#ifndef KWB_SHA256_H
#define KWB_SHA256_H

#include <stddef.h>
#include <stdint.h>

/* Hashing state; treat as opaque, set up with sha256_init(). */
typedef struct sha256_ctx {
    uint32_t h[8];     /* chaining value */
    uint64_t total;    /* bytes hashed so far */
    uint8_t block[64]; /* pending partial block */
    size_t used;       /* bytes pending in block (0..63) */
} sha256_ctx;

/* Starts a new hash in *ctx. */
void sha256_init(sha256_ctx *ctx);
/* Feeds n bytes at p (p may be NULL when n is 0); any chunking gives the same digest. */
void sha256_update(sha256_ctx *ctx, const void *p, size_t n);
/* Finishes the hash into out; *ctx must be initialised again before reuse. */
void sha256_final(sha256_ctx *ctx, uint8_t out[32]);
/* Writes the digest as 64 lowercase hex digits and a terminating NUL into out. */
void sha256_hex(const uint8_t digest[32], char out[65]);
/* Hashes n bytes at p in one go and writes the lowercase hex digest into out. */
void sha256_buffer_hex(const void *p, size_t n, char out[65]);

#endif
