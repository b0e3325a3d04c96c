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

// Register-blocked: C is computed in MR x NR tiles from A packed in MR-row panels (k x MR) and
// B packed in NR-column panels (k x NR), both zero-padded, so the inner loop has no edges.
enum { MR = 4, NR = 16 };
typedef float v8 __attribute__((vector_size(32), aligned(4)));

static inline void tile(int64_t k, const float* ap, const float* bp, float* c, int64_t ldc) {
  // Eight named accumulators, so that they live in registers (MR == 4, NR == 16).
  v8 c00 = {}, c01 = {}, c10 = {}, c11 = {}, c20 = {}, c21 = {}, c30 = {}, c31 = {};
  for (int64_t kk = 0; kk < k; ++kk, ap += MR, bp += NR) {
    const v8 b0 = *(const v8*)bp, b1 = *(const v8*)(bp + 8);
    c00 += ap[0] * b0, c01 += ap[0] * b1;
    c10 += ap[1] * b0, c11 += ap[1] * b1;
    c20 += ap[2] * b0, c21 += ap[2] * b1;
    c30 += ap[3] * b0, c31 += ap[3] * b1;
  }
  *(v8*)c = c00, *(v8*)(c + 8) = c01;
  *(v8*)(c + ldc) = c10, *(v8*)(c + ldc + 8) = c11;
  *(v8*)(c + 2 * ldc) = c20, *(v8*)(c + 2 * ldc + 8) = c21;
  *(v8*)(c + 3 * ldc) = c30, *(v8*)(c + 3 * ldc + 8) = c31;
}

static inline int run(const Params& p, const void* const* in, void* const* out) {
  const TA* x1 = static_cast<const TA*>(in[0]);
  const TB* x2 = static_cast<const TB*>(in[1]);
  const TBias* bias = SKB_HAS_BIAS ? static_cast<const TBias*>(in[2]) : nullptr;
  TY* y = static_cast<TY*>(out[0]);
  const int64_t m = p.m, n = p.n, k = p.k;
  const int64_t mp = (m + MR - 1) / MR * MR, np = (n + NR - 1) / NR * NR;
  float* A = static_cast<float*>(skb_k::alloc_floats(mp * k));
  float* B = static_cast<float*>(skb_k::alloc_floats(k * np));
  float* C = static_cast<float*>(skb_k::alloc_floats(mp * np));
  if (!A || !B || !C) {
    free(A), free(B), free(C);
    return 1;
  }
  int64_t idx[SKB_MAX_RANK] = {0};
  int64_t oa = 0, ob = 0;
  for (int64_t bt = 0; bt < p.batches; ++bt) {
    const TA* a = x1 + oa * m * k;
    const TB* b = x2 + ob * k * n;
    for (int64_t i0 = 0; i0 < mp; i0 += MR)
      for (int64_t kk = 0; kk < k; ++kk)
        for (int64_t r = 0; r < MR; ++r) {
          const int64_t i = i0 + r;
          A[i0 * k + kk * MR + r] = i < m ? skb_k::to_float(p.ta ? a[kk * m + i] : a[i * k + kk]) : 0.f;
        }
    for (int64_t j0 = 0; j0 < np; j0 += NR)
      for (int64_t kk = 0; kk < k; ++kk)
        for (int64_t c = 0; c < NR; ++c) {
          const int64_t j = j0 + c;
          B[j0 * k + kk * NR + c] = j < n ? skb_k::to_float(p.tb ? b[j * k + kk] : b[kk * n + j]) : 0.f;
        }
    for (int64_t i0 = 0; i0 < mp; i0 += MR)
      for (int64_t j0 = 0; j0 < np; j0 += NR) tile(k, A + i0 * k, B + j0 * k, C + i0 * np + j0, np);
    TY* yb = y + bt * m * n;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j)
        yb[i * n + j] = skb_k::from_float<TY>(C[i * np + j] + (SKB_HAS_BIAS ? skb_k::to_float(bias[j]) : 0.f));
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
  free(A), free(B), free(C);
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
