// MatMulV2 (transpose_x1/transpose_x2) and BatchMatMulV2 (adj_x1/adj_x2, broadcast batches),
// optional bias of N elements. Computes in float.
#include "skb_kernel.h"

enum { MatMulV2, BatchMatMulV2 };
typedef SKB_DT(SKB_IN0_DTYPE) TA;
typedef SKB_DT(SKB_IN1_DTYPE) TB;
typedef SKB_DT(SKB_OUT0_DTYPE) TY;
#if SKB_NUM_INPUTS > 2 && !defined(SKB_IN2_NULL)
#define SKB_HAS_BIAS 1
typedef SKB_DT(SKB_IN2_DTYPE) TBias;
#else
#define SKB_HAS_BIAS 0
typedef float TBias;
#endif

typedef skb_geom::MatMul Params;
// ok also says that a bias holds n elements.
static constexpr Params make(skb_k::Dims a, skb_k::Dims b, skb_k::Dims o, bool ta, bool tb, skb_k::Dims bias) {
  Params p = skb_geom::matmul(a, b, o, ta, tb);
  if (SKB_HAS_BIAS) p.ok = p.ok && skb_geom::valid(bias) && bias.rank >= 1 && bias.numel() == p.n;
  return p;
}

// Register-blocked: C is computed in MR x NR tiles; a tile reads A by rows (a broadcast per row
// and k) and B by rows of NR columns. An operand is read in place when it is float, is not
// transposed and has no partial tile; otherwise it is first converted, row by row (loops that
// vectorize), into a float matrix zero-padded to whole tiles. C likewise: in place, or a padded
// float matrix converted out, bias added, at the end. A static kernel decides all this at compile
// time.
enum { MR = 4, NR = 16 };
typedef float v8 __attribute__((vector_size(32), aligned(4)));

// A tile: A[r][kk] at a[r * lda + kk], B[kk][c] at b[kk * ldb + c], C[r][c] at c[r * ldc + c].
static inline void tile(int64_t k, const float* a, int64_t lda, const float* b, int64_t ldb, float* c, int64_t ldc) {
  // Eight named accumulators, so that they live in registers (MR == 4, NR == 16).
  v8 c00 = {}, c01 = {}, c10 = {}, c11 = {}, c20 = {}, c21 = {}, c30 = {}, c31 = {};
  for (int64_t kk = 0; kk < k; ++kk) {
    const float* bp = b + kk * ldb;
    const v8 b0 = *(const v8*)bp, b1 = *(const v8*)(bp + 8);
    const float a0 = a[kk], a1 = a[lda + kk], a2 = a[2 * lda + kk], a3 = a[3 * lda + kk];
    c00 += a0 * b0, c01 += a0 * b1;
    c10 += a1 * b0, c11 += a1 * b1;
    c20 += a2 * b0, c21 += a2 * b1;
    c30 += a3 * b0, c31 += a3 * b1;
  }
  *(v8*)c = c00, *(v8*)(c + 8) = c01;
  *(v8*)(c + ldc) = c10, *(v8*)(c + ldc + 8) = c11;
  *(v8*)(c + 2 * ldc) = c20, *(v8*)(c + 2 * ldc + 8) = c21;
  *(v8*)(c + 3 * ldc) = c30, *(v8*)(c + 3 * ldc + 8) = c31;
}

template <class T>
struct is_f32 {
  enum { value = 0 };
};
template <>
struct is_f32<float> {
  enum { value = 1 };
};

static inline int run(const Params& p, const void* const* in, void* const* out) {
  const TA* x1 = static_cast<const TA*>(in[0]);
  const TB* x2 = static_cast<const TB*>(in[1]);
  const TBias* bias = SKB_HAS_BIAS ? static_cast<const TBias*>(in[2]) : nullptr;
  TY* y = static_cast<TY*>(out[0]);
  const int64_t m = p.m, n = p.n, k = p.k;
  const int64_t mp = (m + MR - 1) / MR * MR, np = (n + NR - 1) / NR * NR;
  const bool direct_a = is_f32<TA>::value && !p.ta && m % MR == 0;
  const bool direct_b = is_f32<TB>::value && !p.tb && n % NR == 0;
  const bool direct_c = is_f32<TY>::value && m % MR == 0 && n % NR == 0;
  const bool bias_f = SKB_HAS_BIAS && !is_f32<TBias>::value;
  float* A = direct_a ? nullptr : static_cast<float*>(skb_k::alloc_floats(mp * k));
  float* B = direct_b ? nullptr : static_cast<float*>(skb_k::alloc_floats(k * np));
  float* C = direct_c ? nullptr : static_cast<float*>(skb_k::alloc_floats(mp * np));
  float* F = bias_f ? static_cast<float*>(skb_k::alloc_floats(n)) : nullptr;
  const bool convert_bt = p.tb && !is_f32<TB>::value;
  float* T = convert_bt ? static_cast<float*>(skb_k::alloc_floats(n * k)) : nullptr;
  if ((!direct_a && !A) || (!direct_b && !B) || (!direct_c && !C) || (bias_f && !F) || (convert_bt && !T)) {
    free(A), free(B), free(C), free(F), free(T);
    return 1;
  }
  if (bias_f)
    for (int64_t j = 0; j < n; ++j) F[j] = skb_k::to_float(bias[j]);
  const float* bias32 = bias_f ? F : (const float*)bias;
  int64_t idx[SKB_MAX_RANK] = {0};
  int64_t oa = 0, ob = 0;
  for (int64_t bt = 0; bt < p.batches; ++bt) {
    const TA* a = x1 + oa * m * k;
    const TB* b = x2 + ob * k * n;
    TY* yb = y + bt * m * n;
    if (!direct_a) {  // A as m x k floats, rows m .. mp zero
      if (p.ta)
        for (int64_t kk = 0; kk < k; ++kk)
          for (int64_t i = 0; i < m; ++i) A[i * k + kk] = skb_k::to_float(a[kk * m + i]);
      else
        for (int64_t t = 0; t < m * k; ++t) A[t] = skb_k::to_float(a[t]);
      for (int64_t t = m * k; t < mp * k; ++t) A[t] = 0.f;
    }
    if (!direct_b) {  // B as k x np floats, columns n .. np zero
      if (p.tb) {     // a row of B is a column of x2: converted in order (into T), then transposed
        const float* bt = (const float*)b;
        if (T) {
          for (int64_t u = 0; u < n * k; ++u) T[u] = skb_k::to_float(b[u]);
          bt = T;
        }
        for (int64_t kk = 0; kk < k; ++kk)
          for (int64_t j = 0; j < n; ++j) B[kk * np + j] = bt[j * k + kk];
      } else
        for (int64_t kk = 0; kk < k; ++kk)
          for (int64_t j = 0; j < n; ++j) B[kk * np + j] = skb_k::to_float(b[kk * n + j]);
      for (int64_t kk = 0; kk < k; ++kk)
        for (int64_t j = n; j < np; ++j) B[kk * np + j] = 0.f;
    }
    const float* ar = direct_a ? (const float*)a : A;
    const float* br = direct_b ? (const float*)b : B;
    const int64_t ldb = direct_b ? n : np;
    float* cr = direct_c ? (float*)yb : C;
    const int64_t ldc = direct_c ? n : np;
    for (int64_t i0 = 0; i0 < mp; i0 += MR)
      for (int64_t j0 = 0; j0 < np; j0 += NR) tile(k, ar + i0 * k, k, br + j0, ldb, cr + i0 * ldc + j0, ldc);
    if (SKB_HAS_BIAS)
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) cr[i * ldc + j] += bias32[j];
    if (!direct_c)
      for (int64_t i = 0; i < m; ++i) {
        const float* ci = C + i * np;
        TY* yi = yb + i * n;
        for (int64_t j = 0; j < n; ++j) yi[j] = skb_k::from_float<TY>(ci[j]);
      }
    for (int d = p.batch_rank - 1; d >= 0; --d) {
      if (++idx[d] < p.batch[d]) {
        oa += p.sa[d];
        ob += p.sb[d];
        break;
      }
      oa -= p.sa[d] * (p.batch[d] - 1);
      ob -= p.sb[d] * (p.batch[d] - 1);
      idx[d] = 0;
    }
  }
  free(A), free(B), free(C), free(F), free(T);
  return 0;
}

#ifdef SKB_STATIC
#ifndef SKB_ATTR_transpose_x1
#define SKB_ATTR_transpose_x1 0
#endif
#ifndef SKB_ATTR_transpose_x2
#define SKB_ATTR_transpose_x2 0
#endif
#ifndef SKB_ATTR_adj_x1
#define SKB_ATTR_adj_x1 0
#endif
#ifndef SKB_ATTR_adj_x2
#define SKB_ATTR_adj_x2 0
#endif
#if SKB_HAS_BIAS
#define SKB_BIAS_DIMS SKB_IN_DIMS(2)
#else
#define SKB_BIAS_DIMS skb_k::dims()
#endif
static constexpr Params make_static() {
  return make(SKB_IN_DIMS(0), SKB_IN_DIMS(1), SKB_OUT_DIMS(0),
              SKB_OP == MatMulV2 ? SKB_ATTR_transpose_x1 : SKB_ATTR_adj_x1,
              SKB_OP == MatMulV2 ? SKB_ATTR_transpose_x2 : SKB_ATTR_adj_x2, SKB_BIAS_DIMS);
}
#else
static Params make_dynamic(const skb_call* c) {
  const bool mm = SKB_OP == MatMulV2;
  return make(skb_k::dims(c->inputs[0]), skb_k::dims(c->inputs[1]), skb_k::dims(c->outputs[0]),
              skb_k::attr(c, mm ? "transpose_x1" : "adj_x1", 0, 0) != 0,
              skb_k::attr(c, mm ? "transpose_x2" : "adj_x2", 0, 0) != 0,
              SKB_HAS_BIAS ? skb_k::dims(c->inputs[2]) : skb_k::dims());
}
#endif
SKB_ENTRY(make_static, make_dynamic, run)
