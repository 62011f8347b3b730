/* dtype.h - element types: names, sizes and exact conversions to and from float. */
#ifndef KWB_DTYPE_H
#define KWB_DTYPE_H

#include <stddef.h>
#include <stdint.h>

#include "kwb/kernel.h"

/* Number of kwb_dtype values. */
#define DTYPE_COUNT 10

/* Bytes per element of t (1 for bool and the fp8 types). */
size_t dtype_size(kwb_dtype t);
/* FlashInfer-Bench name of t ("float32", "bfloat16", "float8_e4m3fn", ...); never NULL. */
const char *dtype_name(kwb_dtype t);
/* Parses a FlashInfer-Bench dtype name into *t; returns 0, or -1 when the name is unknown. */
int dtype_from_name(const char *name, kwb_dtype *t);
/* safetensors name of t ("F32", "BF16", "F8_E4M3", "F8_E5M2", "I64", "BOOL", ...); never NULL. */
const char *dtype_safetensors_name(kwb_dtype t);
/* Parses a safetensors dtype name into *t; returns 0, or -1 when unknown or unsupported. */
int dtype_from_safetensors_name(const char *name, kwb_dtype *t);
/* True for f32, f16, bf16 and both fp8 types. */
int dtype_is_float(kwb_dtype t);

/* bfloat16 bits to float (exact). */
float dtype_bf16_to_f32(uint16_t h);
/* float to bfloat16 bits, round to nearest even; NaN stays NaN (quiet, sign kept). */
uint16_t dtype_f32_to_bf16(float f);
/* IEEE binary16 bits to float (exact, subnormals included). */
float dtype_f16_to_f32(uint16_t h);
/* float to binary16 bits, round to nearest even; overflow gives infinity; NaN stays NaN. */
uint16_t dtype_f32_to_f16(float f);
/* float8_e4m3fn bits to float (exact; 0x7f/0xff are NaN; no infinities). */
float dtype_e4m3_to_f32(uint8_t b);
/* float to float8_e4m3fn as PyTorch (c10) casts: round to nearest even with no clamping, so
 * values in [448, 464] round to 448 and larger values, infinities and NaN give NaN (0x7f
 * with the sign). */
uint8_t dtype_f32_to_e4m3(float f);
/* float8_e5m2 bits to float (exact; infinities and NaNs as IEEE). */
float dtype_e5m2_to_f32(uint8_t b);
/* float to float8_e5m2 as PyTorch casts: round to nearest even, overflow gives infinity,
 * NaN stays NaN. */
uint8_t dtype_f32_to_e5m2(float f);

/* Element i of an array of type t, widened to double (exact but for int64 beyond 2^53). */
double dtype_load(const void *base, kwb_dtype t, size_t i);
/* Stores v as element i of an array of type t: floats rounded as above, ints truncated
 * toward zero and wrapped, bool as v != 0. */
void dtype_store(void *base, kwb_dtype t, size_t i, double v);

#endif
