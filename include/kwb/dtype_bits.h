/* dtype_bits.h - bit-exact conversions between float32 and the narrow float formats
 * (bfloat16, binary16, float8_e4m3fn, float8_e5m2), as static inline functions that
 * compile as C, as C++ and as CUDA device code, so that the host (dtype.c, rng.c) and the
 * GPU (src/runner/cuda_rng.cu, CUDA references) share one source of truth.
 *
 * Everything is done on the bits with integer operations, so results do not depend on the
 * compiler's _Float16 support, the FPU's rounding mode or nvcc's FMA contraction. Encoders
 * round to nearest, ties to even, the way PyTorch's c10 casts do (c10/util/Half.h,
 * BFloat16.h, Float8_e4m3fn.h, Float8_e5m2.h); the host versions were checked bit-exact
 * against PyTorch for all 2^32 float inputs. dtype.h documents each conversion. */
#ifndef KWB_DTYPE_BITS_H
#define KWB_DTYPE_BITS_H

#include <stdint.h>

/* Marks a function for both host and device under nvcc; empty in plain C. */
#ifndef KWB_HD
#ifdef __CUDACC__
#define KWB_HD __host__ __device__
#else
#define KWB_HD
#endif
#endif

#define DTYPE_BITS_F32_SIGN 0x80000000u
#define DTYPE_BITS_F32_INF 0x7f800000u
#define DTYPE_BITS_F32_QNAN 0x7fc00000u

/* ---- bit casts -------------------------------------------------------------------- */

/* The bits of F. A union on the host (defined in C, and supported by gcc and clang in
 * C++), the intrinsic on the device. */
static inline KWB_HD uint32_t dtype_bits_of_f32(float f)
{
#ifdef __CUDA_ARCH__
    return __float_as_uint(f);
#else
    union {
        float f;
        uint32_t u;
    } c;
    c.f = f;
    return c.u;
#endif
}

/* The float whose bits are U. */
static inline KWB_HD float dtype_bits_to_f32(uint32_t u)
{
#ifdef __CUDA_ARCH__
    return __uint_as_float(u);
#else
    union {
        uint32_t u;
        float f;
    } c;
    c.u = u;
    return c.f;
#endif
}

/* ---- generic small formats -------------------------------------------------------- */

/* Decodes a small binary float with the given field widths (sign on top). A field of
 * all-ones exponent is left to the caller; everything else is normal or subnormal and
 * exactly representable as a normal float. */
static inline KWB_HD float dtype_bits_small_decode(uint32_t code, int ebits, int mbits, int bias)
{
    uint32_t sign = (code >> (ebits + mbits)) & 1u ? DTYPE_BITS_F32_SIGN : 0;
    uint32_t exp = (code >> mbits) & ((1u << ebits) - 1);
    uint32_t mant = code & ((1u << mbits) - 1);
    if (exp == 0) {
        if (mant == 0)
            return dtype_bits_to_f32(sign);
        /* Subnormal: shift the leading one up to the implicit-bit position. */
        int e = 1 - bias;
        while (!(mant & (1u << mbits))) {
            mant <<= 1;
            e--;
        }
        mant &= (1u << mbits) - 1;
        return dtype_bits_to_f32(sign | (uint32_t)(e + 127) << 23 | mant << (23 - mbits));
    }
    return dtype_bits_to_f32(sign | (uint32_t)((int)exp - bias + 127) << 23 | mant << (23 - mbits));
}

/* Encodes the finite magnitude bits `a` of a float (sign cleared) into a small format
 * with RNE. Returns exponent-and-mantissa bits without sign; a result at or past the
 * format's all-ones exponent means overflow, which the caller maps (inf, NaN). */
static inline KWB_HD uint32_t dtype_bits_small_encode_mag(uint32_t a, int mbits, int bias)
{
    int fexp = (int)(a >> 23);
    uint32_t sig = a & 0x7fffffu;
    if (fexp == 0) {
        if (sig == 0)
            return 0;
        fexp = 1; /* f32 subnormal: same scale as exponent 1, no implicit bit */
    } else {
        sig |= 0x800000u;
    }
    /* value = sig * 2^(fexp - 150); unbiased exponent of its leading one: */
    int e = fexp - 127;
    for (uint32_t s = sig; !(s & 0x800000u); s <<= 1)
        e--;
    int emin = 1 - bias;
    int quantum = (e < emin ? emin : e) - mbits; /* exponent of the target's last bit */
    int shift = quantum - (fexp - 150);
    if (shift > 24)
        return 0; /* below half the smallest subnormal (sig < 2^24 <= 2^(shift-1)) */
    uint32_t q = sig >> shift;
    uint32_t rem = sig & ((1u << shift) - 1);
    uint32_t half = 1u << (shift - 1);
    if (rem > half || (rem == half && (q & 1)))
        q++;
    /* Subnormal results are q itself; a carry into 1<<mbits lands on the smallest
     * normal. Normal results add the biased exponent, and a mantissa carry bumps it. */
    if (e < emin)
        return q;
    return ((uint32_t)(e + bias - 1) << mbits) + q;
}

/* ---- bfloat16 --------------------------------------------------------------------- */

static inline KWB_HD float dtype_bits_bf16_to_f32(uint16_t h)
{
    return dtype_bits_to_f32((uint32_t)h << 16);
}

static inline KWB_HD uint16_t dtype_bits_f32_to_bf16(float f)
{
    uint32_t u = dtype_bits_of_f32(f);
    if ((u & ~DTYPE_BITS_F32_SIGN) > DTYPE_BITS_F32_INF)
        return (uint16_t)((u >> 16 & 0x8000u) | 0x7fc0u);
    /* Adding 0x7fff plus the kept lsb rounds to nearest even; a carry into the exponent
     * is correct, including the overflow to infinity. */
    u += 0x7fffu + (u >> 16 & 1u);
    return (uint16_t)(u >> 16);
}

/* ---- IEEE binary16 ---------------------------------------------------------------- */

static inline KWB_HD float dtype_bits_f16_to_f32(uint16_t h)
{
    if ((h & 0x7c00u) == 0x7c00u) {
        uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
        uint32_t mant = h & 0x3ffu;
        /* Infinity, or a NaN made quiet with its payload kept (as c10 does). */
        return dtype_bits_to_f32(sign | DTYPE_BITS_F32_INF | (mant ? 0x400000u | mant << 13 : 0));
    }
    return dtype_bits_small_decode(h, 5, 10, 15);
}

static inline KWB_HD uint16_t dtype_bits_f32_to_f16(float f)
{
    uint32_t u = dtype_bits_of_f32(f);
    uint16_t sign = (uint16_t)(u >> 16 & 0x8000u);
    uint32_t a = u & ~DTYPE_BITS_F32_SIGN;
    if (a > DTYPE_BITS_F32_INF)
        return sign | 0x7e00u; /* canonical quiet NaN, as c10 */
    if (a == DTYPE_BITS_F32_INF)
        return sign | 0x7c00u;
    uint32_t m = dtype_bits_small_encode_mag(a, 10, 15);
    return sign | (uint16_t)(m >= 0x7c00u ? 0x7c00u : m);
}

/* ---- float8_e4m3fn ------------------------------------------------------------------ */

static inline KWB_HD float dtype_bits_e4m3_to_f32(uint8_t b)
{
    if ((b & 0x7fu) == 0x7fu) /* the only NaN; same bits as c10's decode gives */
        return dtype_bits_to_f32((b & 0x80u ? DTYPE_BITS_F32_SIGN : 0) | DTYPE_BITS_F32_QNAN | 0x300000u);
    return dtype_bits_small_decode(b, 4, 3, 7);
}

/* c10 sends |x| >= 480, inf and NaN to NaN; below that it rounds RNE with no saturation,
 * so (464, 480) rounds up onto the NaN code 0x7f and only [448, 464] gives 448. */
static inline KWB_HD uint8_t dtype_bits_f32_to_e4m3(float f)
{
    uint32_t u = dtype_bits_of_f32(f);
    uint8_t sign = (uint8_t)(u >> 24 & 0x80u);
    uint32_t a = u & ~DTYPE_BITS_F32_SIGN;
    if (a >= DTYPE_BITS_F32_INF)
        return sign | 0x7fu;
    /* dtype_bits_small_encode_mag(a, 3, 7) without its branches (the same code for every float;
     * fp8 inputs and the DSA K cache make hundreds of millions a set). From 2^-6 up, e4m3 is
     * normal: the float's bits rounded to nearest even at mantissa bit 20, rebiased (127 to 7). */
    uint32_t normal = ((a + 0x7ffffu + ((a >> 20) & 1u)) >> 20) - (120u << 3);
    /* Below, a multiple of the quantum 2^-9: the significand sig * 2^(fexp - 150) shifted right
     * by 141 - fexp, rounded to nearest even (a carry to 8 is the smallest normal's code). */
    int fexp = (int)(a >> 23);
    uint32_t sig = (a & 0x7fffffu) | (fexp ? 0x800000u : 0u);
    int shift = 141 - (fexp ? fexp : 1);
    shift = shift < 1 ? 1 : shift > 31 ? 31 : shift; /* unused outside [21, 31] */
    uint32_t sub = (sig + (1u << (shift - 1)) - 1u + ((sig >> shift) & 1u)) >> shift;
    uint32_t m = a < 0x3c800000u ? sub : normal;
    return sign | (uint8_t)(m >= 0x7fu ? 0x7fu : m);
}

/* ---- float8_e5m2 -------------------------------------------------------------------- */

static inline KWB_HD float dtype_bits_e5m2_to_f32(uint8_t b)
{
    /* e5m2 is the top byte of a binary16. */
    return dtype_bits_f16_to_f32((uint16_t)(b << 8));
}

/* As c10: RNE straight from float (no double rounding through fp16); overflow (from
 * 61440, the midpoint above 57344) gives inf; NaN gives 0x7f with the sign. */
static inline KWB_HD uint8_t dtype_bits_f32_to_e5m2(float f)
{
    uint32_t u = dtype_bits_of_f32(f);
    uint8_t sign = (uint8_t)(u >> 24 & 0x80u);
    uint32_t a = u & ~DTYPE_BITS_F32_SIGN;
    if (a > DTYPE_BITS_F32_INF)
        return sign | 0x7fu;
    if (a == DTYPE_BITS_F32_INF)
        return sign | 0x7cu;
    uint32_t m = dtype_bits_small_encode_mag(a, 2, 15);
    return sign | (uint8_t)(m >= 0x7cu ? 0x7cu : m);
}

#endif
