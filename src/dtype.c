/* dtype.c - element types: names, sizes and exact conversions to and from float.
 *
 * Every narrow float conversion is done on the bits, so results do not depend on the
 * compiler's _Float16 support or on the FPU's rounding mode. Encoders round to nearest,
 * ties to even, the way PyTorch's c10 casts do (c10/util/Half.h, BFloat16.h,
 * Float8_e4m3fn.h, Float8_e5m2.h). */
#include "dtype.h"

#include <math.h>
#include <string.h>

static const char *const fib_names[DTYPE_COUNT] = {
    "float32", "float16", "bfloat16", "float8_e4m3fn", "float8_e5m2",
    "int64", "int32", "int16", "int8", "bool",
};

static const char *const st_names[DTYPE_COUNT] = {
    "F32", "F16", "BF16", "F8_E4M3", "F8_E5M2", "I64", "I32", "I16", "I8", "BOOL",
};

static const size_t sizes[DTYPE_COUNT] = { 4, 2, 2, 1, 1, 8, 4, 2, 1, 1 };

static int dtype_valid(kwb_dtype t)
{
    return (unsigned)t < DTYPE_COUNT;
}

size_t dtype_size(kwb_dtype t)
{
    return dtype_valid(t) ? sizes[t] : 0;
}

const char *dtype_name(kwb_dtype t)
{
    return dtype_valid(t) ? fib_names[t] : "unknown";
}

const char *dtype_safetensors_name(kwb_dtype t)
{
    return dtype_valid(t) ? st_names[t] : "UNKNOWN";
}

static int lookup(const char *const *names, const char *name, kwb_dtype *t)
{
    if (!name)
        return -1;
    for (int i = 0; i < DTYPE_COUNT; i++) {
        if (strcmp(names[i], name) == 0) {
            *t = (kwb_dtype)i;
            return 0;
        }
    }
    return -1;
}

int dtype_from_name(const char *name, kwb_dtype *t)
{
    return lookup(fib_names, name, t);
}

int dtype_from_safetensors_name(const char *name, kwb_dtype *t)
{
    return lookup(st_names, name, t);
}

int dtype_is_float(kwb_dtype t)
{
    return t == KWB_F32 || t == KWB_F16 || t == KWB_BF16 || t == KWB_F8_E4M3 ||
           t == KWB_F8_E5M2;
}

/* ---- bit helpers ------------------------------------------------------------------ */

static uint32_t f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static float f32_from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

#define F32_SIGN 0x80000000u
#define F32_INF 0x7f800000u
#define F32_QNAN 0x7fc00000u

/* Decodes a small binary float with the given field widths (sign on top). A field of
 * all-ones exponent is left to the caller; everything else is normal or subnormal and
 * exactly representable as a normal float. */
static float small_decode(uint32_t code, int ebits, int mbits, int bias)
{
    uint32_t sign = (code >> (ebits + mbits)) & 1u ? F32_SIGN : 0;
    uint32_t exp = (code >> mbits) & ((1u << ebits) - 1);
    uint32_t mant = code & ((1u << mbits) - 1);
    if (exp == 0) {
        if (mant == 0)
            return f32_from_bits(sign);
        /* Subnormal: shift the leading one up to the implicit-bit position. */
        int e = 1 - bias;
        while (!(mant & (1u << mbits))) {
            mant <<= 1;
            e--;
        }
        mant &= (1u << mbits) - 1;
        return f32_from_bits(sign | (uint32_t)(e + 127) << 23 | mant << (23 - mbits));
    }
    return f32_from_bits(sign | (uint32_t)((int)exp - bias + 127) << 23 | mant << (23 - mbits));
}

/* Encodes the finite magnitude bits `a` of a float (sign cleared) into a small format
 * with RNE. Returns exponent-and-mantissa bits without sign; a result at or past the
 * format's all-ones exponent means overflow, which the caller maps (inf, NaN). */
static uint32_t small_encode_mag(uint32_t a, int mbits, int bias)
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

float dtype_bf16_to_f32(uint16_t h)
{
    return f32_from_bits((uint32_t)h << 16);
}

uint16_t dtype_f32_to_bf16(float f)
{
    uint32_t u = f32_bits(f);
    if ((u & ~F32_SIGN) > F32_INF)
        return (uint16_t)((u >> 16 & 0x8000u) | 0x7fc0u);
    /* Adding 0x7fff plus the kept lsb rounds to nearest even; a carry into the exponent
     * is correct, including the overflow to infinity. */
    u += 0x7fffu + (u >> 16 & 1u);
    return (uint16_t)(u >> 16);
}

/* ---- IEEE binary16 ---------------------------------------------------------------- */

float dtype_f16_to_f32(uint16_t h)
{
    if ((h & 0x7c00u) == 0x7c00u) {
        uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
        uint32_t mant = h & 0x3ffu;
        /* Infinity, or a NaN made quiet with its payload kept (as c10 does). */
        return f32_from_bits(sign | F32_INF | (mant ? 0x400000u | mant << 13 : 0));
    }
    return small_decode(h, 5, 10, 15);
}

uint16_t dtype_f32_to_f16(float f)
{
    uint32_t u = f32_bits(f);
    uint16_t sign = (uint16_t)(u >> 16 & 0x8000u);
    uint32_t a = u & ~F32_SIGN;
    if (a > F32_INF)
        return sign | 0x7e00u; /* canonical quiet NaN, as c10 */
    if (a == F32_INF)
        return sign | 0x7c00u;
    uint32_t m = small_encode_mag(a, 10, 15);
    return sign | (uint16_t)(m >= 0x7c00u ? 0x7c00u : m);
}

/* ---- float8_e4m3fn ------------------------------------------------------------------ */

float dtype_e4m3_to_f32(uint8_t b)
{
    if ((b & 0x7fu) == 0x7fu) /* the only NaN; same bits as c10's decode gives */
        return f32_from_bits((b & 0x80u ? F32_SIGN : 0) | F32_QNAN | 0x300000u);
    return small_decode(b, 4, 3, 7);
}

/* c10 sends |x| >= 480, inf and NaN to NaN; below that it rounds RNE with no saturation,
 * so (464, 480) rounds up onto the NaN code 0x7f and only [448, 464] gives 448. */
uint8_t dtype_f32_to_e4m3(float f)
{
    uint32_t u = f32_bits(f);
    uint8_t sign = (uint8_t)(u >> 24 & 0x80u);
    uint32_t a = u & ~F32_SIGN;
    if (a >= F32_INF)
        return sign | 0x7fu;
    uint32_t m = small_encode_mag(a, 3, 7);
    return sign | (uint8_t)(m >= 0x7fu ? 0x7fu : m);
}

/* ---- float8_e5m2 -------------------------------------------------------------------- */

float dtype_e5m2_to_f32(uint8_t b)
{
    /* e5m2 is the top byte of a binary16. */
    return dtype_f16_to_f32((uint16_t)(b << 8));
}

/* As c10: RNE straight from float (no double rounding through fp16); overflow (from
 * 61440, the midpoint above 57344) gives inf; NaN gives 0x7f with the sign. */
uint8_t dtype_f32_to_e5m2(float f)
{
    uint32_t u = f32_bits(f);
    uint8_t sign = (uint8_t)(u >> 24 & 0x80u);
    uint32_t a = u & ~F32_SIGN;
    if (a > F32_INF)
        return sign | 0x7fu;
    if (a == F32_INF)
        return sign | 0x7cu;
    uint32_t m = small_encode_mag(a, 2, 15);
    return sign | (uint8_t)(m >= 0x7cu ? 0x7cu : m);
}

/* ---- load and store ---------------------------------------------------------------- */

/* Truncates v toward zero and reduces it modulo 2^64 (two's complement), for every
 * finite v, with no out-of-range conversion (UB in C). NaN and +-inf give 0. Narrower
 * ints keep the low bits of this, which is the "cast to int64, then to intN" rule for
 * |v| < 2^63 and its natural modular extension beyond. */
static uint64_t double_to_u64_wrap(double v)
{
    if (!isfinite(v))
        return 0;
    const double two64 = 18446744073709551616.0;
    double t = fmod(trunc(v), two64); /* exact; |t| < 2^64 */
    if (t < 0)
        return (uint64_t)0 - (uint64_t)(-t);
    return (uint64_t)t;
}

double dtype_load(const void *base, kwb_dtype t, size_t i)
{
    const unsigned char *p = (const unsigned char *)base + i * dtype_size(t);
    switch (t) {
    case KWB_F32: { float v; memcpy(&v, p, 4); return v; }
    case KWB_F16: { uint16_t v; memcpy(&v, p, 2); return dtype_f16_to_f32(v); }
    case KWB_BF16: { uint16_t v; memcpy(&v, p, 2); return dtype_bf16_to_f32(v); }
    case KWB_F8_E4M3: return dtype_e4m3_to_f32(*p);
    case KWB_F8_E5M2: return dtype_e5m2_to_f32(*p);
    case KWB_I64: { int64_t v; memcpy(&v, p, 8); return (double)v; }
    case KWB_I32: { int32_t v; memcpy(&v, p, 4); return v; }
    case KWB_I16: { int16_t v; memcpy(&v, p, 2); return v; }
    case KWB_I8: return (int8_t)*p;
    case KWB_BOOL: return *p != 0;
    }
    return 0;
}

/* Floats narrower than f32 go through float first (double -> float -> narrow, two
 * roundings), which is what PyTorch does when it casts a double tensor. */
void dtype_store(void *base, kwb_dtype t, size_t i, double v)
{
    unsigned char *p = (unsigned char *)base + i * dtype_size(t);
    uint64_t w;
    uint32_t w32;
    uint16_t w16;
    switch (t) {
    case KWB_F32: { float f = (float)v; memcpy(p, &f, 4); return; }
    case KWB_F16: w16 = dtype_f32_to_f16((float)v); memcpy(p, &w16, 2); return;
    case KWB_BF16: w16 = dtype_f32_to_bf16((float)v); memcpy(p, &w16, 2); return;
    case KWB_F8_E4M3: *p = dtype_f32_to_e4m3((float)v); return;
    case KWB_F8_E5M2: *p = dtype_f32_to_e5m2((float)v); return;
    case KWB_I64: w = double_to_u64_wrap(v); memcpy(p, &w, 8); return;
    case KWB_I32: w32 = (uint32_t)double_to_u64_wrap(v); memcpy(p, &w32, 4); return;
    case KWB_I16: w16 = (uint16_t)double_to_u64_wrap(v); memcpy(p, &w16, 2); return;
    case KWB_I8: *p = (uint8_t)double_to_u64_wrap(v); return;
    case KWB_BOOL: *p = v != 0; return;
    }
}
