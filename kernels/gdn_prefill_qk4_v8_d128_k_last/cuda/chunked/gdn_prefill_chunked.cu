/* gdn_prefill_chunked.cu - chunked CUDA solution of gdn_prefill_qk4_v8_d128_k_last (kwb ABI), with a
 * recurrent path for calls of at most SHORT_TOTAL tokens (gdn_short, below the chunked kernels).
 *
 * The recurrence per (sequence, value head), state S in its k-last layout [V][K]:
 *   S_t = g_t S_{t-1} + d_t k_t^T,  d_t = beta_t (v_t - g_t S_{t-1} k_t),  o_t = scale S_t q_t
 * (the reference's M - k(x)u + k(x)(beta v + (1 - beta) u)). Over a chunk of C = 64 tokens,
 * with G_t = g_1...g_t (kept as log sums) and S_0 the state at the chunk's start:
 *   (I + A) D = diag(beta) V - diag(beta G) K S_0^T,  A[t][i] = beta_t (G_t/G_i) k_t.k_i (i < t)
 * so with T = (I + A)^-1 (the UT transform), W = T diag(beta G) K and U = T diag(beta) V:
 *   D = U - W S_0^T
 *   O = scale diag(G) Q S_0^T + P D,  P[t][i] = scale (G_t/G_i) q_t.k_i (i <= t)
 *   S_C = G_C S_0 + D'^T K,  D'[i] = (G_C/G_i) D[i]
 * Two kernels: gdn_prep, one block per (chunk, head), all in parallel: gates, K K^T and Q K^T
 * on the tensor cores, T by forward substitution, W and U (tensor cores); it stores W, P, U and
 * the log gates. gdn_scan, one block per (sequence, head, slice of VS state rows), walks the
 * sequence's chunks in order with its state slice in float32 registers (the accumulators of
 * S_C's product) and does the four state-dependent products per chunk with mma.sync (m16n8k16,
 * fp16 or bf16 operands, float32 accumulation; the state is an operand only as fp16, q converted
 * from bf16 in the fragment, since bf16 rounding of S in Q S^T dominated the error), the next
 * chunk's operands prefetched with cp.async into a second shared-memory buffer. The slice width
 * is chosen from the number of sequences on the host (few sequences: narrow slices, many
 * blocks). A ratio of gates is always a later over an earlier (<= 1), so nothing overflows.
 *
 * Arguments: q k v state A_log a dt_bias b cu_seqlens scale | output new_state. */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdint.h>

#include "kwb/kernel.h"

#define NQ 4        /* q and k heads */
#define NV 8        /* value heads */
#define D 128       /* head size (K = V = 128) */
#define C 64        /* chunk length */
#define LDH (D + 8) /* padded row of a 128-wide 16-bit tile (halves) */
#define LDC (C + 8) /* padded row of a 64-wide 16-bit tile */
#define FEW_SEQS 4  /* kwb:tune FEW_SEQS {2,4,8} */
#define MID_SEQS 16 /* kwb:tune MID_SEQS {8,16,32} */

typedef unsigned short u16;

/* ---- tensor-core helpers (mma.sync m16n8k16, float32 accumulators) ---- */

static __device__ __forceinline__ void mma_f16(float c[4], const uint32_t a[4], const uint32_t b[2])
{
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%0,%1,%2,%3};"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

static __device__ __forceinline__ void mma_bf16(float c[4], const uint32_t a[4], const uint32_t b[2])
{
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%0,%1,%2,%3};"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

static __device__ __forceinline__ uint32_t pack2(u16 lo, u16 hi)
{
    return (uint32_t)lo | ((uint32_t)hi << 16);
}

static __device__ __forceinline__ uint32_t ld32(const u16 *p)
{
    return *reinterpret_cast<const uint32_t *>(p);
}

/* A fragment (16x16) of a row-major [M][K] tile at (r0, k0). */
static __device__ __forceinline__ void load_a(uint32_t a[4], const u16 *A, int ld, int r0, int k0)
{
    const int g = (threadIdx.x & 31) >> 2, t = threadIdx.x & 3;
    const u16 *p = A + (r0 + g) * ld + k0 + 2 * t;
    a[0] = ld32(p);
    a[1] = ld32(p + 8 * ld);
    a[2] = ld32(p + 8);
    a[3] = ld32(p + 8 * ld + 8);
}

/* A fragment (16x16) of the transpose of a row-major [K][M] tile, at (r0, k0) of the transpose. */
static __device__ __forceinline__ void load_a_trans(uint32_t a[4], const u16 *A, int ld, int r0, int k0)
{
    const int g = (threadIdx.x & 31) >> 2, t = threadIdx.x & 3;
    const u16 *p = A + (k0 + 2 * t) * ld + r0 + g;
    a[0] = pack2(p[0], p[ld]);
    a[1] = pack2(p[8], p[ld + 8]);
    a[2] = pack2(p[8 * ld], p[9 * ld]);
    a[3] = pack2(p[8 * ld + 8], p[9 * ld + 8]);
}

/* B fragment (16x8) from a tile stored [N][K] (K contiguous), at (n0, k0). */
static __device__ __forceinline__ void load_b_nk(uint32_t b[2], const u16 *B, int ld, int n0, int k0)
{
    const int g = (threadIdx.x & 31) >> 2, t = threadIdx.x & 3;
    const u16 *p = B + (n0 + g) * ld + k0 + 2 * t;
    b[0] = ld32(p);
    b[1] = ld32(p + 8);
}

/* B fragment (16x8) from a tile stored [K][N] (N contiguous), at (n0, k0). */
static __device__ __forceinline__ void load_b_kn(uint32_t b[2], const u16 *B, int ld, int n0, int k0)
{
    const int g = (threadIdx.x & 31) >> 2, t = threadIdx.x & 3;
    const u16 *p = B + (k0 + 2 * t) * ld + n0 + g;
    b[0] = pack2(p[0], p[ld]);
    b[1] = pack2(p[8 * ld], p[9 * ld]);
}

static __device__ __forceinline__ u16 f2h(float x)
{
    return __half_as_ushort(__float2half_rn(x));
}

static __device__ __forceinline__ u16 f2bf(float x)
{
    return __bfloat16_as_ushort(__float2bfloat16_rn(x));
}

static __device__ __forceinline__ uint32_t f2h2(float lo, float hi)
{
    return pack2(f2h(lo), f2h(hi));
}

static __device__ __forceinline__ uint32_t f2bf2(float lo, float hi)
{
    return pack2(f2bf(lo), f2bf(hi));
}

static __device__ __forceinline__ float bf2f(u16 x)
{
    return __uint_as_float((uint32_t)x << 16);
}

/* Two bf16 (packed, first in the low half) as two fp16, packed the same way. */
static __device__ __forceinline__ uint32_t bf2_to_h2(uint32_t w)
{
    const __half2 h = __floats2half2_rn(__uint_as_float(w << 16), __uint_as_float(w & 0xffff0000u));
    return *reinterpret_cast<const uint32_t *>(&h);
}

static __device__ __forceinline__ float softplus(float x)
{
    return x > 20.0f ? x : log1pf(expf(x));
}

static __device__ __forceinline__ void cp_async16(void *smem, const void *gmem, bool valid)
{
    const unsigned s = (unsigned)__cvta_generic_to_shared(smem);
    const int n = valid ? 16 : 0;
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(s), "l"(gmem), "r"(n));
}

static __device__ __forceinline__ void cp_async_commit()
{
    asm volatile("cp.async.commit_group;");
}

static __device__ __forceinline__ void cp_async_wait_all()
{
    asm volatile("cp.async.wait_group 0;" ::: "memory");
}

/* The sequence and chunk of global chunk GC: chunks are numbered sequence by sequence, each
 * sequence having ceil(len / C). Returns 0 when GC is past the last chunk. */
static __device__ int find_chunk(const int64_t *cu, int seqs, int64_t total, int gc, int *seq, int64_t *t0, int *len)
{
    int acc = 0;
    for (int n = 0; n < seqs; n++) {
        const int64_t s = max(min(cu[n], total), (int64_t)0), e = max(min(cu[n + 1], total), s);
        const int nch = (int)((e - s + C - 1) / C);
        if (gc < acc + nch) {
            *seq = n;
            *t0 = s + (int64_t)(gc - acc) * C;
            *len = (int)min((int64_t)C, e - *t0);
            return 1;
        }
        acc += nch;
    }
    return 0;
}

/* ---- kernel 1: per (chunk, head) preparation ---- */

#define PREP_THREADS 256

struct prep_smem {
    u16 k[C * LDH], q[C * LDH], v[C * LDH]; /* fp16 */
    float a[C * (C + 1)], t[C * (C + 1)];
    u16 tbg[C * LDC], tb[C * LDC]; /* fp16: T diag(beta G), T diag(beta) */
    float cum[C], beta[C];
};

/* Eight bf16 (16 bytes) to eight fp16. */
static __device__ __forceinline__ uint4 bf8_to_h8(uint4 r)
{
    uint32_t w[4] = {r.x, r.y, r.z, r.w};
    uint4 o;
    uint32_t *ow = &o.x;
#pragma unroll
    for (int i = 0; i < 4; i++)
        ow[i] = f2h2(bf2f((u16)(w[i] & 0xffff)), bf2f((u16)(w[i] >> 16)));
    return o;
}

__global__ void __launch_bounds__(PREP_THREADS)
    gdn_prep(const __nv_bfloat16 *__restrict__ q, const __nv_bfloat16 *__restrict__ k,
             const __nv_bfloat16 *__restrict__ v, const float *__restrict__ a_log, const __nv_bfloat16 *__restrict__ a,
             const float *__restrict__ dt_bias, const __nv_bfloat16 *__restrict__ b, const int64_t *__restrict__ cu,
             int seqs, int64_t total, float scale, u16 *__restrict__ w_out, u16 *__restrict__ p_out,
             float *__restrict__ u_out, float *__restrict__ g_out)
{
    extern __shared__ __align__(16) unsigned char smem_raw[];
    prep_smem &sm = *reinterpret_cast<prep_smem *>(smem_raw);
    const int gc = blockIdx.x, h = blockIdx.y, hq = h / (NV / NQ);
    int seq, len;
    int64_t t0;
    if (!find_chunk(cu, seqs, total, gc, &seq, &t0, &len))
        return;
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int g = lane >> 2, tq = lane & 3;

    /* q, k (head hq), v (head h) rows of the chunk as fp16; rows past the chunk are zero */
    for (int i = tid; i < C * 16; i += PREP_THREADS) {
        const int r = i / 16, c8 = (i % 16) * 8;
        uint4 kk = make_uint4(0, 0, 0, 0), qq = kk, vv = kk;
        if (r < len) {
            const int64_t tok = t0 + r;
            kk = bf8_to_h8(__ldg(reinterpret_cast<const uint4 *>(k + (tok * NQ + hq) * D + c8)));
            qq = bf8_to_h8(__ldg(reinterpret_cast<const uint4 *>(q + (tok * NQ + hq) * D + c8)));
            vv = bf8_to_h8(__ldg(reinterpret_cast<const uint4 *>(v + (tok * NV + h) * D + c8)));
        }
        *reinterpret_cast<uint4 *>(&sm.k[r * LDH + c8]) = kk;
        *reinterpret_cast<uint4 *>(&sm.q[r * LDH + c8]) = qq;
        *reinterpret_cast<uint4 *>(&sm.v[r * LDH + c8]) = vv;
    }
    /* gates: log g and beta per token (0 past the chunk), inclusive prefix sum of log g */
    if (warp == 0) {
        const float decay = expf(a_log[h]), bias = dt_bias[h];
        float lg[2], bt[2];
#pragma unroll
        for (int j = 0; j < 2; j++) {
            const int r = 2 * lane + j;
            lg[j] = 0.0f;
            bt[j] = 0.0f;
            if (r < len) {
                const int64_t th = (t0 + r) * NV + h;
                lg[j] = -decay * softplus(__bfloat162float(a[th]) + bias);
                bt[j] = 1.0f / (1.0f + expf(-__bfloat162float(b[th])));
            }
        }
        float s = lg[0] + lg[1];
#pragma unroll
        for (int o = 1; o < 32; o <<= 1) {
            const float n = __shfl_up_sync(0xffffffffu, s, o);
            if (lane >= o)
                s += n;
        }
        sm.cum[2 * lane] = s - lg[1];
        sm.cum[2 * lane + 1] = s;
        sm.beta[2 * lane] = bt[0];
        sm.beta[2 * lane + 1] = bt[1];
    }
    __syncthreads();

    /* K K^T (warps 0-3) and Q K^T (warps 4-7): m-tile mt = warp % 4, n-tiles up to the diagonal */
    const size_t ch = (size_t)gc * NV + h;
    {
        const int mt = warp & 3;
        const bool isq = warp >= 4;
        const u16 *A = isq ? sm.q : sm.k;
        for (int nt = 0; nt < 8; nt++) {
            float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
            if (nt <= 2 * mt + 1) {
#pragma unroll
                for (int ks = 0; ks < D / 16; ks++) {
                    uint32_t fa[4], fb[2];
                    load_a(fa, A, LDH, 16 * mt, 16 * ks);
                    load_b_nk(fb, sm.k, LDH, 8 * nt, 16 * ks);
                    mma_f16(acc, fa, fb);
                }
            }
#pragma unroll
            for (int e = 0; e < 4; e++) {
                const int r = 16 * mt + g + (e >= 2 ? 8 : 0), c = 8 * nt + 2 * tq + (e & 1);
                const float dec = (c <= r) ? expf(sm.cum[r] - sm.cum[c]) : 0.0f;
                if (isq)
                    acc[e] = (c <= r) ? scale * dec * acc[e] : 0.0f;
                else
                    sm.a[r * (C + 1) + c] = (c < r) ? sm.beta[r] * dec * acc[e] : 0.0f;
            }
            if (isq) {
                const int r = 16 * mt + g, c = 8 * nt + 2 * tq;
                u16 *P = p_out + ch * C * C;
                *reinterpret_cast<uint32_t *>(P + r * C + c) = f2h2(acc[0], acc[1]);
                *reinterpret_cast<uint32_t *>(P + (r + 8) * C + c) = f2h2(acc[2], acc[3]);
            }
        }
    }
    __syncthreads();

    /* T = (I + A)^-1 by forward substitution, row by row; 4 threads per column */
    {
        const int j = tid / 4, part = tid % 4;
        for (int r = 0; r < C; r++) {
            float s = 0.0f;
            for (int i = j + part; i < r; i += 4)
                s += sm.a[r * (C + 1) + i] * sm.t[i * (C + 1) + j];
            s += __shfl_xor_sync(0xffffffffu, s, 1);
            s += __shfl_xor_sync(0xffffffffu, s, 2);
            if (part == 0)
                sm.t[r * (C + 1) + j] = j < r ? -s : (j == r ? 1.0f : 0.0f);
            __syncthreads();
        }
    }
    /* T diag(beta G) and T diag(beta) as fp16 */
    for (int i = tid; i < C * C; i += PREP_THREADS) {
        const int r = i / C, c = i % C;
        const float tv = sm.t[r * (C + 1) + c] * sm.beta[c];
        sm.tbg[r * LDC + c] = f2h(tv * expf(sm.cum[c]));
        sm.tb[r * LDC + c] = f2h(tv);
    }
    if (tid < C)
        g_out[ch * C + tid] = sm.cum[tid];
    __syncthreads();

    /* W = T diag(beta G) K (fp16 out) and U = T diag(beta) V (float32 out): 64 x 128 each.
     * Warp w: m-tile w % 4, the 8 n-tiles of half w / 4 (0-3: W, 4-7: U) ... both halves of N. */
    {
        const int mt = warp & 3, half = warp >> 2;
        u16 *W = w_out + ch * C * D;
        float *U = u_out + ch * C * D;
        for (int nt = 8 * half; nt < 8 * half + 8; nt++) {
            float aw[4] = {0.0f, 0.0f, 0.0f, 0.0f}, au[4] = {0.0f, 0.0f, 0.0f, 0.0f};
            for (int ks = 0; ks <= mt; ks++) {
                uint32_t fa[4], fb[2];
                load_a(fa, sm.tbg, LDC, 16 * mt, 16 * ks);
                load_b_kn(fb, sm.k, LDH, 8 * nt, 16 * ks);
                mma_f16(aw, fa, fb);
                load_a(fa, sm.tb, LDC, 16 * mt, 16 * ks);
                load_b_kn(fb, sm.v, LDH, 8 * nt, 16 * ks);
                mma_f16(au, fa, fb);
            }
            const int r = 16 * mt + g, c = 8 * nt + 2 * tq;
            *reinterpret_cast<uint32_t *>(W + r * D + c) = f2h2(aw[0], aw[1]);
            *reinterpret_cast<uint32_t *>(W + (r + 8) * D + c) = f2h2(aw[2], aw[3]);
            *reinterpret_cast<float2 *>(U + r * D + c) = make_float2(au[0], au[1]);
            *reinterpret_cast<float2 *>(U + (r + 8) * D + c) = make_float2(au[2], au[3]);
        }
    }
}

/* ---- kernel 2: the scan over chunks per (sequence, head, slice of VS state rows) ---- */

template <int VS> struct scan_buf {
    u16 w[C * LDH];  /* fp16 W */
    u16 q[C * LDH];  /* bf16 q (head hq), raw */
    u16 k[C * LDH];  /* bf16 k (head hq), raw */
    u16 p[C * LDC];  /* fp16 P */
    float u[C * VS]; /* U, this slice's columns */
    float cum[C];
};

template <int VS> struct scan_smem {
    scan_buf<VS> buf[2];
    u16 sh[VS * LDH];     /* S as fp16 [v][k] */
    u16 dh[C * (VS + 8)]; /* D as fp16 [t][v] */
    u16 db[C * (VS + 8)]; /* D' as bf16 [t][v] */
};

template <int VS>
static __device__ void scan_prefetch(scan_buf<VS> &bf, const u16 *w, const u16 *p, const float *u, const float *gl,
                                     const __nv_bfloat16 *q, const __nv_bfloat16 *k, int64_t t0, int len, int hq,
                                     int v0, int nthreads)
{
    const int tid = threadIdx.x;
    for (int i = tid; i < C * 16; i += nthreads) {
        const int r = i / 16, c8 = (i % 16) * 8;
        cp_async16(&bf.w[r * LDH + c8], w + r * D + c8, true);
        const bool ok = r < len;
        const int64_t tok = ok ? t0 + r : t0;
        cp_async16(&bf.q[r * LDH + c8], q + (tok * NQ + hq) * D + c8, ok);
        cp_async16(&bf.k[r * LDH + c8], k + (tok * NQ + hq) * D + c8, ok);
    }
    for (int i = tid; i < C * 8; i += nthreads) {
        const int r = i / 8, c8 = (i % 8) * 8;
        cp_async16(&bf.p[r * LDC + c8], p + r * C + c8, true);
    }
    for (int i = tid; i < C * VS / 4; i += nthreads) {
        const int r = i / (VS / 4), c4 = (i % (VS / 4)) * 4;
        cp_async16(&bf.u[r * VS + c4], u + r * D + v0 + c4, true);
    }
    if (tid < C / 4)
        cp_async16(&bf.cum[tid * 4], gl + tid * 4, true);
    cp_async_commit();
}

template <int VS, int NW>
__global__ void __launch_bounds__(NW * 32)
    gdn_scan(const __nv_bfloat16 *__restrict__ q, const __nv_bfloat16 *__restrict__ k, const float *__restrict__ state,
             const int64_t *__restrict__ cu, int seqs, int64_t total, const u16 *__restrict__ w_in,
             const u16 *__restrict__ p_in, const float *__restrict__ u_in, const float *__restrict__ g_in, float scale,
             __nv_bfloat16 *__restrict__ out, float *__restrict__ new_state)
{
    constexpr int SPLIT = D / VS;
    constexpr int TPW = (VS / 16) * 16 / NW; /* state tiles (16 x 8) per warp */
    constexpr int NT1 = (VS / 8) / (NW / 4); /* n-tiles per warp in the chunk products */
    static_assert(TPW >= 1 && TPW <= 16 && 16 % TPW == 0, "state tiling");
    static_assert(NT1 >= 1, "chunk-product tiling");
    extern __shared__ __align__(16) unsigned char smem_raw[];
    scan_smem<VS> &sm = *reinterpret_cast<scan_smem<VS> *>(smem_raw);

    const int n = blockIdx.x / (NV * SPLIT), h = (blockIdx.x / SPLIT) % NV, v0 = (blockIdx.x % SPLIT) * VS;
    const int hq = h / (NV / NQ);
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int g = lane >> 2, tq = lane & 3;
    const int64_t s0 = max(min(cu[n], total), (int64_t)0), e0 = max(min(cu[n + 1], total), s0);
    const int nch = (int)((e0 - s0 + C - 1) / C);
    int gc0 = 0;
    for (int j = 0; j < n; j++) {
        const int64_t s = max(min(cu[j], total), (int64_t)0), e = max(min(cu[j + 1], total), s);
        gc0 += (int)((e - s + C - 1) / C);
    }

    /* the state slice: tiles (mt, nt) = (sm_mt, sm_nt0 + i), rows v0 + 16 mt + g (+8), cols 8 nt + 2 tq (+1) */
    const int st_mt = (warp * TPW) / 16, st_nt0 = (warp * TPW) % 16;
    float st[TPW][4];
    const size_t sbase = ((size_t)n * NV + h) * D * D;
#pragma unroll
    for (int i = 0; i < TPW; i++) {
        const int r = v0 + 16 * st_mt + g, c = 8 * (st_nt0 + i) + 2 * tq;
        float2 x0 = make_float2(0.0f, 0.0f), x1 = x0;
        if (state && nch > 0) {
            x0 = *reinterpret_cast<const float2 *>(state + sbase + (size_t)r * D + c);
            x1 = *reinterpret_cast<const float2 *>(state + sbase + (size_t)(r + 8) * D + c);
        }
        st[i][0] = x0.x;
        st[i][1] = x0.y;
        st[i][2] = x1.x;
        st[i][3] = x1.y;
    }

    const int mt1 = warp & 3, nt1_0 = (warp >> 2) * NT1; /* chunk products: m-tile, first n-tile */
    if (nch > 0) {
        const size_t ch = (size_t)gc0 * NV + h;
        scan_prefetch<VS>(sm.buf[0], w_in + ch * C * D, p_in + ch * C * C, u_in + ch * C * D, g_in + ch * C, q, k, s0,
                          (int)min((int64_t)C, e0 - s0), hq, v0, NW * 32);
    }
    for (int c = 0; c < nch; c++) {
        scan_buf<VS> &bf = sm.buf[c & 1];
        const int64_t t0 = s0 + (int64_t)c * C;
        const int len = (int)min((int64_t)C, e0 - t0);
        /* the state as an fp16 operand */
#pragma unroll
        for (int i = 0; i < TPW; i++) {
            const int r = 16 * st_mt + g, col = 8 * (st_nt0 + i) + 2 * tq;
            *reinterpret_cast<uint32_t *>(&sm.sh[r * LDH + col]) = f2h2(st[i][0], st[i][1]);
            *reinterpret_cast<uint32_t *>(&sm.sh[(r + 8) * LDH + col]) = f2h2(st[i][2], st[i][3]);
        }
        cp_async_wait_all();
        __syncthreads();
        if (c + 1 < nch) {
            const size_t ch = (size_t)(gc0 + c + 1) * NV + h;
            const int64_t t1 = t0 + C;
            scan_prefetch<VS>(sm.buf[(c + 1) & 1], w_in + ch * C * D, p_in + ch * C * C, u_in + ch * C * D,
                              g_in + ch * C, q, k, t1, (int)min((int64_t)C, e0 - t1), hq, v0, NW * 32);
        }
        /* X = W S^T and Y = Q S^T (fp16, q converted): rows 16 mt1.., NT1 n-tiles from nt1_0 */
        float xa[NT1][4], ya[NT1][4];
#pragma unroll
        for (int j = 0; j < NT1; j++)
#pragma unroll
            for (int e = 0; e < 4; e++)
                xa[j][e] = ya[j][e] = 0.0f;
#pragma unroll
        for (int ks = 0; ks < D / 16; ks++) {
            uint32_t fw[4], fq[4];
            load_a(fw, bf.w, LDH, 16 * mt1, 16 * ks);
            load_a(fq, bf.q, LDH, 16 * mt1, 16 * ks);
#pragma unroll
            for (int e = 0; e < 4; e++)
                fq[e] = bf2_to_h2(fq[e]);
#pragma unroll
            for (int j = 0; j < NT1; j++) {
                uint32_t fb[2];
                load_b_nk(fb, sm.sh, LDH, 8 * (nt1_0 + j), 16 * ks);
                mma_f16(xa[j], fw, fb);
                mma_f16(ya[j], fq, fb);
            }
        }
        /* D = U - X; D' = D G_C / G_t; Y scaled by scale G_t (P carries its own scale) */
        const float lgc = bf.cum[C - 1];
#pragma unroll
        for (int hf = 0; hf < 2; hf++) {
            const int r = 16 * mt1 + g + 8 * hf;
            const float gt = scale * expf(bf.cum[r]), gd = expf(lgc - bf.cum[r]);
#pragma unroll
            for (int j = 0; j < NT1; j++) {
                const int col = 8 * (nt1_0 + j) + 2 * tq;
                const float2 uu = *reinterpret_cast<const float2 *>(&bf.u[r * VS + col]);
                const float d0 = uu.x - xa[j][2 * hf], d1 = uu.y - xa[j][2 * hf + 1];
                *reinterpret_cast<uint32_t *>(&sm.dh[r * (VS + 8) + col]) = f2h2(d0, d1);
                *reinterpret_cast<uint32_t *>(&sm.db[r * (VS + 8) + col]) = f2bf2(d0 * gd, d1 * gd);
                ya[j][2 * hf] *= gt;
                ya[j][2 * hf + 1] *= gt;
            }
        }
        __syncthreads();
        /* O = Y + P D (fp16), causal: k-steps up to the diagonal */
        for (int ks = 0; ks <= mt1; ks++) {
            uint32_t fp[4];
            load_a(fp, bf.p, LDC, 16 * mt1, 16 * ks);
#pragma unroll
            for (int j = 0; j < NT1; j++) {
                uint32_t fb[2];
                load_b_kn(fb, sm.dh, VS + 8, 8 * (nt1_0 + j), 16 * ks);
                mma_f16(ya[j], fp, fb);
            }
        }
#pragma unroll
        for (int hf = 0; hf < 2; hf++) {
            const int r = 16 * mt1 + g + 8 * hf;
            if (r < len) {
#pragma unroll
                for (int j = 0; j < NT1; j++) {
                    const int col = v0 + 8 * (nt1_0 + j) + 2 * tq;
                    *reinterpret_cast<__nv_bfloat162 *>(out + ((t0 + r) * NV + h) * D + col) =
                        __floats2bfloat162_rn(ya[j][2 * hf], ya[j][2 * hf + 1]);
                }
            }
        }
        /* S = G_C S + D'^T K (bf16) */
        const float gcd = expf(lgc);
#pragma unroll
        for (int i = 0; i < TPW; i++)
#pragma unroll
            for (int e = 0; e < 4; e++)
                st[i][e] *= gcd;
#pragma unroll
        for (int ks = 0; ks < C / 16; ks++) {
            uint32_t fa[4];
            load_a_trans(fa, sm.db, VS + 8, 16 * st_mt, 16 * ks);
#pragma unroll
            for (int i = 0; i < TPW; i++) {
                uint32_t fb[2];
                load_b_kn(fb, bf.k, LDH, 8 * (st_nt0 + i), 16 * ks);
                mma_bf16(st[i], fa, fb);
            }
        }
    }
#pragma unroll
    for (int i = 0; i < TPW; i++) {
        const int r = v0 + 16 * st_mt + g, c = 8 * (st_nt0 + i) + 2 * tq;
        *reinterpret_cast<float2 *>(new_state + sbase + (size_t)r * D + c) = make_float2(st[i][0], st[i][1]);
        *reinterpret_cast<float2 *>(new_state + sbase + (size_t)(r + 8) * D + c) = make_float2(st[i][2], st[i][3]);
    }
}

/* ---- the short path: recurrent, one state row per warp, one reduction per token ---- */

/* Calls of at most SHORT_TOTAL tokens run the recurrence directly. Each (sequence, head) is split
 * over SR_SPLIT blocks of SR_WARPS warps; a warp holds one state row in registers, 4 K elements
 * per lane (many warps per SM hide each other's latency). Per token S_{t-1} k_t and S_{t-1} q_t
 * are reduced together, and the output needs no second reduction:
 *   o_t = scale (g_t S_{t-1} q_t + d_t (k_t . q_t)),  d_t = beta_t (v_t - g_t S_{t-1} k_t).
 * Tokens are staged SR_TILE at a time in shared memory (bf16 as given) with the gates and
 * k_t . q_t; the next tile is loaded into registers while the current one is walked, and the
 * next token's k and q are read from shared memory before the current one's reduction.
 * Outputs are gathered in shared memory and written per tile (16 bytes per token and block). */
#define SHORT_TOTAL 192 /* kwb:tune SHORT_TOTAL {128,192,256,384,512} */
#define SR_WARPS 8      /* warps per block, one state row each */
#define SR_SPLIT (D / SR_WARPS)
#define SR_TILE 32 /* tokens staged at a time */
#define SR_THREADS (SR_WARPS * 32)

struct short_tile {
    __align__(16) u16 k[SR_TILE * D];
    __align__(16) u16 q[SR_TILE * D];
    float v[SR_TILE * SR_WARPS], g[SR_TILE], beta[SR_TILE], kq[SR_TILE];
};

/* What one thread carries of the next tile between its load and its store to shared memory. */
struct short_regs {
    uint4 k[2], q[2];
    float v, a, b;
};

/* Loads this thread's share of tile T0 (LEN tokens) into registers. */
static __device__ __forceinline__ void
short_load(short_regs &r, const __nv_bfloat16 *__restrict__ q, const __nv_bfloat16 *__restrict__ k,
           const __nv_bfloat16 *__restrict__ v, const __nv_bfloat16 *__restrict__ a,
           const __nv_bfloat16 *__restrict__ b, int64_t t0, int len, int h, int part)
{
    const int tid = threadIdx.x, hq = h / (NV / NQ);
#pragma unroll
    for (int j = 0; j < 2; j++) {
        const int i = tid + j * SR_THREADS, tok = i / 16, c8 = (i % 16) * 8;
        r.k[j] = r.q[j] = make_uint4(0, 0, 0, 0);
        if (tok < len) {
            const size_t off = ((size_t)(t0 + tok) * NQ + hq) * D + c8;
            r.k[j] = __ldg(reinterpret_cast<const uint4 *>(k + off));
            r.q[j] = __ldg(reinterpret_cast<const uint4 *>(q + off));
        }
    }
    const int tok = tid / SR_WARPS, c = tid % SR_WARPS;
    r.v = tok < len ? __bfloat162float(v[((size_t)(t0 + tok) * NV + h) * D + part * SR_WARPS + c]) : 0.0f;
    r.a = r.b = 0.0f;
    if (tid < len) {
        r.a = __bfloat162float(a[(size_t)(t0 + tid) * NV + h]);
        r.b = __bfloat162float(b[(size_t)(t0 + tid) * NV + h]);
    }
}

/* Dot product of two rows of 8 bf16 (packed in 16 bytes). */
static __device__ __forceinline__ float dot_bf16x8(uint4 x, uint4 y)
{
    const uint32_t xs[4] = {x.x, x.y, x.z, x.w}, ys[4] = {y.x, y.y, y.z, y.w};
    float acc = 0.0f;
#pragma unroll
    for (int i = 0; i < 4; i++) {
        acc += bf2f((u16)(xs[i] & 0xffff)) * bf2f((u16)(ys[i] & 0xffff));
        acc += bf2f((u16)(xs[i] >> 16)) * bf2f((u16)(ys[i] >> 16));
    }
    return acc;
}

/* Stores this thread's share into tile T with the gates and k . q of every token. */
static __device__ __forceinline__ void short_store(short_tile &t, const short_regs &r, float decay, float bias)
{
    const int tid = threadIdx.x;
#pragma unroll
    for (int j = 0; j < 2; j++) {
        const int i = tid + j * SR_THREADS, tok = i / 16, c8 = (i % 16) * 8;
        *reinterpret_cast<uint4 *>(&t.k[tok * D + c8]) = r.k[j];
        *reinterpret_cast<uint4 *>(&t.q[tok * D + c8]) = r.q[j];
        float kq = dot_bf16x8(r.k[j], r.q[j]); /* the 16 lanes of a token hold its 128 elements */
#pragma unroll
        for (int o = 8; o > 0; o >>= 1)
            kq += __shfl_xor_sync(0xffffffffu, kq, o);
        if (i % 16 == 0)
            t.kq[tok] = kq;
    }
    t.v[tid] = r.v;
    if (tid < SR_TILE) {
        t.g[tid] = expf(-decay * softplus(r.a + bias));
        t.beta[tid] = 1.0f / (1.0f + expf(-r.b));
    }
}

static __device__ __forceinline__ float4 smem_bf16x4(const u16 *p)
{
    const uint2 raw = *reinterpret_cast<const uint2 *>(p);
    return make_float4(bf2f((u16)(raw.x & 0xffff)), bf2f((u16)(raw.x >> 16)), bf2f((u16)(raw.y & 0xffff)),
                       bf2f((u16)(raw.y >> 16)));
}

__global__ void __launch_bounds__(SR_THREADS)
    gdn_short(const __nv_bfloat16 *__restrict__ q, const __nv_bfloat16 *__restrict__ k,
              const __nv_bfloat16 *__restrict__ v, const float *__restrict__ state, const float *__restrict__ a_log,
              const __nv_bfloat16 *__restrict__ a, const float *__restrict__ dt_bias,
              const __nv_bfloat16 *__restrict__ b, const int64_t *__restrict__ cu, int64_t total, float scale,
              __nv_bfloat16 *__restrict__ out, float *__restrict__ new_state)
{
    __shared__ short_tile tiles[2];
    __shared__ __align__(16) u16 so[SR_TILE * SR_WARPS];
    const int n = blockIdx.x / (NV * SR_SPLIT), h = (blockIdx.x / SR_SPLIT) % NV, part = blockIdx.x % SR_SPLIT;
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int64_t s0 = max(min(cu[n], total), (int64_t)0), e0 = max(min(cu[n + 1], total), s0);
    const size_t base = (((size_t)n * NV + h) * D + part * SR_WARPS + warp) * D + 4 * lane;

    float4 s = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (state && e0 > s0)
        s = __ldg(reinterpret_cast<const float4 *>(state + base));
    const float decay = expf(__ldg(a_log + h)), bias = __ldg(dt_bias + h);
    short_regs next;
    if (e0 > s0) {
        short_load(next, q, k, v, a, b, s0, (int)min((int64_t)SR_TILE, e0 - s0), h, part);
        short_store(tiles[0], next, decay, bias);
    }
    __syncthreads();
    int cur = 0;
    for (int64_t t0 = s0; t0 < e0; t0 += SR_TILE) {
        const int len = (int)min((int64_t)SR_TILE, e0 - t0);
        const bool more = t0 + SR_TILE < e0;
        if (more)
            short_load(next, q, k, v, a, b, t0 + SR_TILE, (int)min((int64_t)SR_TILE, e0 - t0 - SR_TILE), h, part);
        const short_tile &t = tiles[cur];
        float4 kv = smem_bf16x4(&t.k[4 * lane]), qv = smem_bf16x4(&t.q[4 * lane]);
        for (int r = 0; r < len; r++) {
            float4 kn = kv, qn = qv;
            if (r + 1 < len) {
                kn = smem_bf16x4(&t.k[(r + 1) * D + 4 * lane]);
                qn = smem_bf16x4(&t.q[(r + 1) * D + 4 * lane]);
            }
            float pk = s.x * kv.x + s.y * kv.y + (s.z * kv.z + s.w * kv.w);
            float pq = s.x * qv.x + s.y * qv.y + (s.z * qv.z + s.w * qv.w);
#pragma unroll
            for (int o = 16; o > 0; o >>= 1) {
                pk += __shfl_xor_sync(0xffffffffu, pk, o);
                pq += __shfl_xor_sync(0xffffffffu, pq, o);
            }
            const float g = t.g[r];
            const float d = t.beta[r] * (t.v[r * SR_WARPS + warp] - g * pk);
            s.x = g * s.x + d * kv.x;
            s.y = g * s.y + d * kv.y;
            s.z = g * s.z + d * kv.z;
            s.w = g * s.w + d * kv.w;
            if (lane == 0)
                so[r * SR_WARPS + warp] = __bfloat16_as_ushort(__float2bfloat16_rn(scale * (g * pq + d * t.kq[r])));
            kv = kn;
            qv = qn;
        }
        __syncthreads(); /* the tile is consumed and its outputs gathered */
        if (tid < len)
            *reinterpret_cast<uint4 *>(out + ((size_t)(t0 + tid) * NV + h) * D + part * SR_WARPS) =
                *reinterpret_cast<const uint4 *>(&so[tid * SR_WARPS]);
        if (more)
            short_store(tiles[cur ^ 1], next, decay, bias);
        __syncthreads();
        cur ^= 1;
    }
    __stcs(reinterpret_cast<float4 *>(new_state + base), s);
}

/* ---- host ---- */

/* Nonzero when P is not a multiple of N bytes. */
static int misaligned(const void *p, uintptr_t n)
{
    return ((uintptr_t)p % n) != 0;
}

/* Scratch for the per-chunk operands, grown as needed and kept between calls. */
static struct {
    size_t chunks; /* chunk-heads it holds */
    u16 *w, *p;
    float *u, *g;
} scratch;

static int scratch_reserve(size_t chunk_heads)
{
    if (chunk_heads <= scratch.chunks)
        return 0;
    cudaFree(scratch.w);
    cudaFree(scratch.p);
    cudaFree(scratch.u);
    cudaFree(scratch.g);
    scratch.chunks = 0;
    if (cudaMalloc(&scratch.w, chunk_heads * C * D * sizeof(u16)) != cudaSuccess ||
        cudaMalloc(&scratch.p, chunk_heads * C * C * sizeof(u16)) != cudaSuccess ||
        cudaMalloc(&scratch.u, chunk_heads * C * D * sizeof(float)) != cudaSuccess ||
        cudaMalloc(&scratch.g, chunk_heads * C * sizeof(float)) != cudaSuccess)
        return -1;
    scratch.chunks = chunk_heads;
    return 0;
}

template <int VS, int NW>
static int launch_scan(const kwb_arg *args, int seqs, int64_t total, float scale, cudaStream_t stream)
{
    static bool ready = false;
    const int bytes = (int)sizeof(scan_smem<VS>);
    if (!ready) {
        if (cudaFuncSetAttribute(gdn_scan<VS, NW>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes) != cudaSuccess)
            return -1;
        ready = true;
    }
    gdn_scan<VS, NW><<<(unsigned)(seqs * NV * (D / VS)), NW * 32, bytes, stream>>>(
        (const __nv_bfloat16 *)args[0].data, (const __nv_bfloat16 *)args[1].data, (const float *)args[3].data,
        (const int64_t *)args[8].data, seqs, total, scratch.w, scratch.p, scratch.u, scratch.g, scale,
        (__nv_bfloat16 *)args[10].data, (float *)args[11].data);
    return 0;
}

int kwb_entry(const kwb_arg *args, int nargs, kwb_stream stream)
{
    if (nargs != 12 || args[0].rank != 3 || args[3].rank != 4 || args[8].rank != 1)
        return -1;
    const int64_t total = args[0].shape[0];
    const int64_t seqs = args[8].shape[0] - 1;
    if (total < 0 || seqs < 0 || seqs > INT32_MAX / (NV * 16) || total > INT32_MAX / 2 || args[0].shape[1] != NQ ||
        args[0].shape[2] != D || args[2].shape[1] != NV || args[3].shape[0] != seqs || args[3].shape[1] != NV ||
        args[3].shape[2] != D || args[3].shape[3] != D)
        return -1;
    if (misaligned(args[0].data, 16) || misaligned(args[1].data, 16) || misaligned(args[2].data, 16) ||
        misaligned(args[3].data, 16) || misaligned(args[10].data, 16) || misaligned(args[11].data, 16))
        return -1;
    float scale = (float)args[9].f;
    if (scale == 0.0f)
        scale = 0.08838834764831845f; /* 1 / sqrt(128) */
    if (seqs == 0)
        return 0;
    cudaStream_t st = (cudaStream_t)stream;
    if (total <= SHORT_TOTAL) {
        gdn_short<<<(unsigned)(seqs * NV * SR_SPLIT), SR_THREADS, 0, st>>>(
            (const __nv_bfloat16 *)args[0].data, (const __nv_bfloat16 *)args[1].data,
            (const __nv_bfloat16 *)args[2].data, (const float *)args[3].data, (const float *)args[4].data,
            (const __nv_bfloat16 *)args[5].data, (const float *)args[6].data, (const __nv_bfloat16 *)args[7].data,
            (const int64_t *)args[8].data, total, scale, (__nv_bfloat16 *)args[10].data, (float *)args[11].data);
        return cudaGetLastError() == cudaSuccess ? 0 : -1;
    }
    const size_t chunks = (size_t)((total + C - 1) / C + seqs); /* at most ceil(len / C) per sequence */
    if (scratch_reserve(chunks * NV) != 0)
        return -1;
    static bool prep_ready = false;
    if (!prep_ready) {
        if (cudaFuncSetAttribute(gdn_prep, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)sizeof(prep_smem)) !=
            cudaSuccess)
            return -1;
        prep_ready = true;
    }
    if (total > 0)
        gdn_prep<<<dim3((unsigned)chunks, NV), PREP_THREADS, sizeof(prep_smem), st>>>(
            (const __nv_bfloat16 *)args[0].data, (const __nv_bfloat16 *)args[1].data,
            (const __nv_bfloat16 *)args[2].data, (const float *)args[4].data, (const __nv_bfloat16 *)args[5].data,
            (const float *)args[6].data, (const __nv_bfloat16 *)args[7].data, (const int64_t *)args[8].data, (int)seqs,
            total, scale, scratch.w, scratch.p, scratch.u, scratch.g);
    int rc;
    if (seqs <= FEW_SEQS)
        rc = launch_scan<16, 4>(args, (int)seqs, total, scale, st);
    else if (seqs <= MID_SEQS)
        rc = launch_scan<32, 4>(args, (int)seqs, total, scale, st);
    else
        rc = launch_scan<64, 8>(args, (int)seqs, total, scale, st);
    if (rc != 0)
        return -1;
    return cudaGetLastError() == cudaSuccess ? 0 : -1;
}
