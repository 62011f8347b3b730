/* gdn-prefill-precision.c - CPU experiment (issue 23): which rounding of the chunked GDN prefill scan dominates its
 * error. Exact (double) token-by-token recurrence against a double emulation of the chunked algorithm of
 * kernels/gdn_prefill_qk4_v8_d128_k_last/cuda/chunked with chosen roundings per operand, on workload 410794d4 (8192
 * tokens, 39 sequences), inputs as kwb draws them (seed, trial). Build (from bench/sessions): cc -O3 -march=native
 * -fopenmp -I../../include gdn-prefill-precision.c -lm -o /tmp/prec Run:   /tmp/prec [trial] [heads] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kwb/rng_formula.h"

#define NQ 4
#define NV 8
#define DD 128
#define CC 64
#define TOT 8192
#define NS 39

static const char *UUID = "410794d4-6f70-4bb4-aed1-4669be9a610f";
static const char *BLOB = "../../workloads/blob/workloads/gdn/gdn_prefill_qk4_v8_d128_k_last/"
                          "gdn_prefill_qk4_v8_d128_k_last_410794d4-6f70-4bb4-aed1-4669be9a610f.safetensors";

static uint64_t key_of(uint64_t seed, const char *uuid, int trial, int idx)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (const unsigned char *p = (const unsigned char *)uuid; *p; p++)
        h = (h ^ *p) * 0x100000001b3ULL;
    uint64_t k = rng_formula_mix(seed ^ 0x6b7762ULL);
    k = rng_formula_mix(k ^ h);
    k = rng_formula_mix(k ^ (uint64_t)(uint32_t)trial);
    return rng_formula_mix(k ^ ((uint64_t)(uint32_t)idx << 32));
}

static float bf2f(uint16_t b)
{
    uint32_t u = (uint32_t)b << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}
static float rnd_bf16(double x)
{
    return bf2f(dtype_bits_f32_to_bf16((float)x));
}
static float rnd_f16(double x)
{
    return dtype_bits_f16_to_f32(dtype_bits_f32_to_f16((float)x));
}
static double rnd_tf32(double x) /* round to 10 explicit mantissa bits */
{
    float f = (float)x;
    uint32_t u;
    memcpy(&u, &f, 4);
    u += 0xfffu + (u >> 13 & 1u);
    u &= ~0x1fffu;
    memcpy(&f, &u, 4);
    return f;
}

enum { EX, F16, BF16, BF16X2, TF32, F32, F16X2 };
static double rnd(int m, double x)
{
    switch (m) {
    case F16: return rnd_f16(x);
    case BF16: return rnd_bf16(x);
    case BF16X2: {
        double hi = rnd_bf16(x);
        return hi + rnd_bf16(x - hi);
    }
    case TF32: return rnd_tf32(x);
    case F16X2: {
        double hi = rnd_f16(x);
        return hi + rnd_f16(x - hi);
    }
    case F32: return (float)x;
    }
    return x;
}

/* the partner operand of a product taken in fp16: q or k (bf16 values) converted to fp16 */
static double part(int m, double x)
{
    return m == F16 || m == F16X2 ? rnd_f16(x) : m == TF32 ? rnd_tf32(x) : x;
}

typedef struct {
    const char *name;
    int prep, sx, sy, dh, db;
    int sy0; /* Q S^T's state rounding in a sequence's first chunk; 0: as sy */
} config;

static float *q, *k, *v, *st0, alog[NV], dtb[NV], *a, *b;
static int64_t cu[NS + 1];

static double softplus(double x)
{
    return x > 20 ? x : log1p(exp(x));
}

static void load(int trial)
{
    FILE *f = fopen(BLOB, "rb");
    if (!f) {
        perror(BLOB);
        exit(1);
    }
    uint64_t n;
    if (fread(&n, 8, 1, f) != 1)
        exit(1);
    unsigned char *buf = malloc(8 + n + 131392);
    fseek(f, 0, SEEK_SET);
    if (fread(buf, 1, 8 + n + 131392, f) != 8 + n + 131392)
        exit(1);
    fclose(f);
    /* header order: b [0,131072), cu_seqlens [131072,131392) */
    const unsigned char *d = buf + 8 + n;
    b = malloc(sizeof(float) * TOT * NV);
    for (int i = 0; i < TOT * NV; i++) {
        uint16_t w;
        memcpy(&w, d + 2 * i, 2);
        b[i] = bf2f(w);
    }
    memcpy(cu, d + 131072, sizeof cu);
    free(buf);
    const uint64_t seed = 7919;
    q = malloc(sizeof(float) * TOT * NQ * DD);
    k = malloc(sizeof(float) * TOT * NQ * DD);
    v = malloc(sizeof(float) * TOT * NV * DD);
    st0 = malloc(sizeof(float) * (size_t)NS * NV * DD * DD);
    a = malloc(sizeof(float) * TOT * NV);
    uint64_t kq = key_of(seed, UUID, trial, 0), kk = key_of(seed, UUID, trial, 1), kv = key_of(seed, UUID, trial, 2),
             ks = key_of(seed, UUID, trial, 3), ka = key_of(seed, UUID, trial, 4), kA = key_of(seed, UUID, trial, 5),
             kd = key_of(seed, UUID, trial, 6);
    for (size_t i = 0; i < (size_t)TOT * NQ * DD; i++) {
        q[i] = bf2f(dtype_bits_f32_to_bf16(rng_formula_normal(kq, i)));
        k[i] = bf2f(dtype_bits_f32_to_bf16(rng_formula_normal(kk, i)));
    }
    for (size_t i = 0; i < (size_t)TOT * NV * DD; i++)
        v[i] = bf2f(dtype_bits_f32_to_bf16(rng_formula_normal(kv, i)));
    for (size_t i = 0; i < (size_t)NS * NV * DD * DD; i++)
        st0[i] = rng_formula_normal(ks, i);
    for (int i = 0; i < NV; i++) {
        alog[i] = rng_formula_normal(ka, i);
        dtb[i] = rng_formula_normal(kd, i);
    }
    for (int i = 0; i < TOT * NV; i++)
        a[i] = bf2f(dtype_bits_f32_to_bf16(rng_formula_normal(kA, i)));
}

static double lgate(int64_t t, int h)
{
    return -exp((double)alog[h]) * softplus((double)a[t * NV + h] + dtb[h]);
}
static double beta_of(int64_t t, int h)
{
    return 1.0 / (1.0 + exp(-(double)b[t * NV + h]));
}

/* exact recurrence, out[t][h][v] (pre-rounding) */
static void reference(int n, int h, double *out)
{
    static double S[DD][DD];
#pragma omp threadprivate(S)
    const int hq = h / 2;
    const double scale = 0.08838834764831845;
    for (int i = 0; i < DD; i++)
        for (int j = 0; j < DD; j++)
            S[i][j] = st0[(((size_t)n * NV + h) * DD + i) * DD + j];
    for (int64_t t = cu[n]; t < cu[n + 1]; t++) {
        const float *kt = k + (t * NQ + hq) * DD, *qt = q + (t * NQ + hq) * DD, *vt = v + (t * NV + h) * DD;
        const double g = exp(lgate(t, h)), be = beta_of(t, h);
        for (int i = 0; i < DD; i++) {
            double sk = 0;
            for (int j = 0; j < DD; j++)
                sk += S[i][j] * kt[j];
            const double d = be * (vt[i] - g * sk);
            double sq = 0;
            for (int j = 0; j < DD; j++) {
                S[i][j] = g * S[i][j] + d * kt[j];
                sq += S[i][j] * qt[j];
            }
            out[(t * NV + h) * DD + i] = scale * sq;
        }
    }
}

/* chunked emulation */
static void chunked(const config *cf, int n, int h, double *out)
{
    static double S[DD][DD], Sx[DD][DD], Sy[DD][DD], A[CC][CC], T[CC][CC], tbg[CC][CC], tb[CC][CC], W[CC][DD],
        U[CC][DD], P[CC][CC], Dh[CC][DD], Db[CC][DD], X[CC][DD], Y[CC][DD], kc[CC][DD], qc[CC][DD], vc[CC][DD],
        ky[CC][DD], qy[CC][DD], cum[CC], be[CC];
#pragma omp threadprivate(S, Sx, Sy, A, T, tbg, tb, W, U, P, Dh, Db, X, Y, kc, qc, vc, ky, qy, cum, be)
    const int hq = h / 2;
    const double scale = 0.08838834764831845;
    for (int i = 0; i < DD; i++)
        for (int j = 0; j < DD; j++)
            S[i][j] = st0[(((size_t)n * NV + h) * DD + i) * DD + j];
    for (int64_t t0 = cu[n]; t0 < cu[n + 1]; t0 += CC) {
        const int len = (int)(cu[n + 1] - t0 < CC ? cu[n + 1] - t0 : CC);
        double s = 0;
        for (int r = 0; r < CC; r++) {
            double lg = 0;
            be[r] = 0;
            for (int j = 0; j < DD; j++)
                kc[r][j] = qc[r][j] = vc[r][j] = 0;
            if (r < len) {
                const int64_t t = t0 + r;
                lg = lgate(t, h);
                be[r] = beta_of(t, h);
                for (int j = 0; j < DD; j++) {
                    kc[r][j] = k[(t * NQ + hq) * DD + j];
                    qc[r][j] = q[(t * NQ + hq) * DD + j];
                    vc[r][j] = v[(t * NV + h) * DD + j];
                }
            }
            s += lg;
            cum[r] = s;
            for (int j = 0; j < DD; j++) {
                qy[r][j] = part(cf->sy, qc[r][j]);
                ky[r][j] = part(cf->db, kc[r][j]);
            }
        }
        /* prep */
        for (int r = 0; r < CC; r++)
            for (int c = 0; c < CC; c++) {
                double kk = 0, qk = 0;
                if (c <= r)
                    for (int j = 0; j < DD; j++) {
                        kk += kc[r][j] * kc[c][j];
                        qk += qc[r][j] * kc[c][j];
                    }
                const double dec = c <= r ? exp(cum[r] - cum[c]) : 0;
                A[r][c] = c < r ? be[r] * dec * kk : 0;
                P[r][c] = c <= r ? scale * dec * qk : 0;
                if (cf->prep)
                    P[r][c] = rnd_f16(P[r][c]);
            }
        for (int r = 0; r < CC; r++)
            for (int j = 0; j < CC; j++) {
                double acc = 0;
                for (int i = j; i < r; i++)
                    acc += A[r][i] * T[i][j];
                T[r][j] = j < r ? -acc : (j == r ? 1.0 : 0.0);
            }
        for (int r = 0; r < CC; r++)
            for (int c = 0; c < CC; c++) {
                const double tv = T[r][c] * be[c];
                tbg[r][c] = tv * exp(cum[c]);
                tb[r][c] = tv;
                if (cf->prep) {
                    tbg[r][c] = rnd_f16(tbg[r][c]);
                    tb[r][c] = rnd_f16(tb[r][c]);
                }
            }
        for (int r = 0; r < CC; r++)
            for (int j = 0; j < DD; j++) {
                double w = 0, u = 0;
                for (int c = 0; c <= r; c++) {
                    w += tbg[r][c] * kc[c][j];
                    u += tb[r][c] * vc[c][j];
                }
                W[r][j] = cf->prep ? rnd_f16(w) : w;
                U[r][j] = cf->prep ? (float)u : u;
            }
        /* scan */
        for (int i = 0; i < DD; i++)
            for (int j = 0; j < DD; j++) {
                Sx[i][j] = rnd(cf->sx, S[i][j]);
                Sy[i][j] = rnd(t0 == cu[n] && cf->sy0 ? cf->sy0 : cf->sy, S[i][j]);
            }
        for (int r = 0; r < CC; r++)
            for (int i = 0; i < DD; i++) {
                double x = 0, y = 0;
                for (int j = 0; j < DD; j++) {
                    x += W[r][j] * Sx[i][j];
                    y += qy[r][j] * Sy[i][j];
                }
                X[r][i] = x;
                Y[r][i] = y;
            }
        const double lgc = cum[CC - 1];
        for (int r = 0; r < CC; r++) {
            const double gd = exp(lgc - cum[r]);
            for (int i = 0; i < DD; i++) {
                const double d = U[r][i] - X[r][i];
                Dh[r][i] = rnd(cf->dh, d);
                Db[r][i] = rnd(cf->db, d * gd);
            }
        }
        for (int r = 0; r < len; r++) {
            const double gt = scale * exp(cum[r]);
            for (int i = 0; i < DD; i++) {
                double o = gt * Y[r][i];
                for (int c = 0; c <= r; c++)
                    o += P[r][c] * Dh[c][i];
                out[((t0 + r) * NV + h) * DD + i] = o;
            }
        }
        const double gcd = exp(lgc);
        for (int i = 0; i < DD; i++)
            for (int j = 0; j < DD; j++) {
                double acc = 0;
                for (int r = 0; r < CC; r++)
                    acc += Db[r][i] * ky[r][j];
                S[i][j] = gcd * S[i][j] + acc;
            }
    }
}

int main(int argc, char **argv)
{
    const int trial = argc > 1 ? atoi(argv[1]) : 0;
    const int nheads = argc > 2 ? atoi(argv[2]) : NV;
    load(trial);
    const config cfs[] = {
        {"kernel(now)", 1, F16, BF16, F16, BF16},
        {"prep-only", 1, EX, EX, EX, EX},
        {"Sx-f16-only", 0, F16, EX, EX, EX},
        {"Sy-bf16-only", 0, EX, BF16, EX, EX},
        {"Dh-f16-only", 0, EX, EX, F16, EX},
        {"Db-bf16-only", 0, EX, EX, EX, BF16},
        {"candA:Sy-f16", 1, F16, F16, F16, BF16},
        {"candB:Sy-f16,Db-f16", 1, F16, F16, F16, F16},
        {"candC:Sy-bf16x2", 1, F16, BF16X2, F16, BF16},
        {"candD:Db-bf16x2", 1, F16, BF16, F16, BF16X2},
        {"pre-prec:both-x2", 1, F16, BF16X2, F16, BF16X2},
        {"candE:Sy-f16x2", 1, F16, F16X2, F16, BF16},
        {"candF:Sy-f16,first-f16x2", 1, F16, F16, F16, BF16, F16X2},
    };
    const int ncf = (int)(sizeof cfs / sizeof cfs[0]);
    const size_t no = (size_t)TOT * NV * DD;
    double *ref = calloc(no, sizeof(double)), *emu = calloc(no, sizeof(double));
#pragma omp parallel for schedule(dynamic)
    for (int w = 0; w < NS * nheads; w++)
        reference(w / nheads, w % nheads, ref);
    double maxo = 0;
    for (size_t i = 0; i < no; i++)
        if ((int)(i / DD % NV) < nheads && fabs(ref[i]) > maxo)
            maxo = fabs(ref[i]);
    printf("trial %d, heads %d: max |out| %.3f\n", trial, nheads, maxo);
    printf("%-22s %10s %10s %9s %9s %9s %6s %10s\n", "config", "rms err", "max err", ">2e-3", ">4e-3", ">8e-3", "fails",
           "max err/rms");
    for (int c = 0; c < ncf; c++) {
        if (argc > 3 && !strstr(cfs[c].name, argv[3]))
            continue;
#pragma omp parallel for schedule(dynamic)
        for (int w = 0; w < NS * nheads; w++)
            chunked(&cfs[c], w / nheads, w % nheads, emu);
        double ss = 0, mx = 0, mx0 = 0, mx1 = 0;
        long n2 = 0, n4 = 0, n8 = 0, fails = 0, cnt = 0;
        for (size_t i = 0; i < no; i++) {
            if ((int)(i / DD % NV) >= nheads)
                continue;
            const double e = fabs(emu[i] - ref[i]);
            cnt++;
            ss += e * e;
            if (e > mx)
                mx = e;
            {
                const int64_t t = (int64_t)(i / DD / NV);
                int sq = 0;
                while (cu[sq + 1] <= t)
                    sq++;
                if (t - cu[sq] < CC)
                    mx0 = e > mx0 ? e : mx0;
                else
                    mx1 = e > mx1 ? e : mx1;
            }
            n2 += e > 2e-3;
            n4 += e > 4e-3;
            n8 += e > 8e-3;
            const double ob = rnd_bf16(emu[i]), rb = rnd_bf16(ref[i]), ad = fabs(ob - rb);
            fails += ad > 1e-2 && ad > 1e-2 * fabs(rb);
        }
        const double rms = sqrt(ss / cnt);
        printf("%-22s %10.3e %10.3e %9ld %9ld %9ld %6ld %10.1f\n", cfs[c].name, rms, mx, n2, n4, n8, fails, mx / rms);
        printf("    max err in first chunks %.3e, later chunks %.3e\n", mx0, mx1);
        fflush(stdout);
    }
    return 0;
}
