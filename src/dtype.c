/* dtype.c - element types: names, sizes and exact conversions to and from float.
 *
 * Every narrow float conversion is done on the bits, so results do not depend on the
 * compiler's _Float16 support or on the FPU's rounding mode. Encoders round to nearest,
 * ties to even, the way PyTorch's c10 casts do (c10/util/Half.h, BFloat16.h,
 * Float8_e4m3fn.h, Float8_e5m2.h). The bit code itself is in dtype_bits.h, which CUDA
 * code includes too, so host and device convert identically. */
#include "dtype.h"

#include "kwb/dtype_bits.h"

#include <math.h>
#include <string.h>

static const char *const fib_names[DTYPE_COUNT] = {
    "float32", "float16", "bfloat16", "float8_e4m3fn", "float8_e5m2", "int64", "int32", "int16", "int8", "bool",
};

static const char *const st_names[DTYPE_COUNT] = {
    "F32", "F16", "BF16", "F8_E4M3", "F8_E5M2", "I64", "I32", "I16", "I8", "BOOL",
};

static const size_t sizes[DTYPE_COUNT] = {4, 2, 2, 1, 1, 8, 4, 2, 1, 1};

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
    return t == KWB_F32 || t == KWB_F16 || t == KWB_BF16 || t == KWB_F8_E4M3 || t == KWB_F8_E5M2;
}

/* ---- narrow floats: the bit code lives in dtype_bits.h, shared with CUDA ------------ */

float dtype_bf16_to_f32(uint16_t h)
{
    return dtype_bits_bf16_to_f32(h);
}

uint16_t dtype_f32_to_bf16(float f)
{
    return dtype_bits_f32_to_bf16(f);
}

float dtype_f16_to_f32(uint16_t h)
{
    return dtype_bits_f16_to_f32(h);
}

uint16_t dtype_f32_to_f16(float f)
{
    return dtype_bits_f32_to_f16(f);
}

float dtype_e4m3_to_f32(uint8_t b)
{
    return dtype_bits_e4m3_to_f32(b);
}

uint8_t dtype_f32_to_e4m3(float f)
{
    return dtype_bits_f32_to_e4m3(f);
}

float dtype_e5m2_to_f32(uint8_t b)
{
    return dtype_bits_e5m2_to_f32(b);
}

uint8_t dtype_f32_to_e5m2(float f)
{
    return dtype_bits_f32_to_e5m2(f);
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
    case KWB_F32: {
        float v;
        memcpy(&v, p, 4);
        return v;
    }
    case KWB_F16: {
        uint16_t v;
        memcpy(&v, p, 2);
        return dtype_f16_to_f32(v);
    }
    case KWB_BF16: {
        uint16_t v;
        memcpy(&v, p, 2);
        return dtype_bf16_to_f32(v);
    }
    case KWB_F8_E4M3: return dtype_e4m3_to_f32(*p);
    case KWB_F8_E5M2: return dtype_e5m2_to_f32(*p);
    case KWB_I64: {
        int64_t v;
        memcpy(&v, p, 8);
        return (double)v;
    }
    case KWB_I32: {
        int32_t v;
        memcpy(&v, p, 4);
        return v;
    }
    case KWB_I16: {
        int16_t v;
        memcpy(&v, p, 2);
        return v;
    }
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
    case KWB_F32: {
        float f = (float)v;
        memcpy(p, &f, 4);
        return;
    }
    case KWB_F16:
        w16 = dtype_f32_to_f16((float)v);
        memcpy(p, &w16, 2);
        return;
    case KWB_BF16:
        w16 = dtype_f32_to_bf16((float)v);
        memcpy(p, &w16, 2);
        return;
    case KWB_F8_E4M3: *p = dtype_f32_to_e4m3((float)v); return;
    case KWB_F8_E5M2: *p = dtype_f32_to_e5m2((float)v); return;
    case KWB_I64:
        w = double_to_u64_wrap(v);
        memcpy(p, &w, 8);
        return;
    case KWB_I32:
        w32 = (uint32_t)double_to_u64_wrap(v);
        memcpy(p, &w32, 4);
        return;
    case KWB_I16:
        w16 = (uint16_t)double_to_u64_wrap(v);
        memcpy(p, &w16, 2);
        return;
    case KWB_I8: *p = (uint8_t)double_to_u64_wrap(v); return;
    case KWB_BOOL: *p = v != 0; return;
    }
}
