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

struct Params {
  int64_t m, n, k;
  bool ta, tb;
  int batch_rank;
  int64_t batch[SKB_MAX_RANK], sa[SKB_MAX_RANK], sb[SKB_MAX_RANK];  // in matrices; 0 when broadcast
  int64_t batches;
};

static constexpr Params make(skb_k::Dims a, skb_k::Dims b, skb_k::Dims o, bool ta, bool tb) {
  Params p{};
  p.ta = ta;
  p.tb = tb;
  p.m = ta ? a.d[a.rank - 1] : a.d[a.rank - 2];
  p.k = ta ? a.d[a.rank - 2] : a.d[a.rank - 1];
  p.n = tb ? b.d[b.rank - 2] : b.d[b.rank - 1];
  p.batch_rank = o.rank - 2;
  p.batches = 1;
  int64_t stride_a = 1, stride_b = 1;
  for (int i = p.batch_rank - 1; i >= 0; --i) {
    int ia = i - (o.rank - a.rank), ib = i - (o.rank - b.rank);
    int64_t da = ia >= 0 ? a.d[ia] : 1, db = ib >= 0 ? b.d[ib] : 1;
    p.batch[i] = o.d[i];
    p.sa[i] = (da == 1 && o.d[i] != 1) ? 0 : stride_a;
    p.sb[i] = (db == 1 && o.d[i] != 1) ? 0 : stride_b;
    stride_a *= da;
    stride_b *= db;
    p.batches *= o.d[i];
  }
  return p;
}

static inline int run(const Params& p, const void* const* in, void* const* out) {
  const TA* x1 = static_cast<const TA*>(in[0]);
  const TB* x2 = static_cast<const TB*>(in[1]);
  const TBias* bias = SKB_HAS_BIAS ? static_cast<const TBias*>(in[2]) : nullptr;
  TY* y = static_cast<TY*>(out[0]);
  const int64_t m = p.m, n = p.n, k = p.k;
  float* A = static_cast<float*>(skb_k::alloc_floats(m * k));
  float* B = static_cast<float*>(skb_k::alloc_floats(k * n));
  float* C = static_cast<float*>(skb_k::alloc_floats(n));
  if (!A || !B || !C) {
    free(A), free(B), free(C);
    return 1;
  }
  int64_t idx[SKB_MAX_RANK] = {0};
  int64_t oa = 0, ob = 0;
  for (int64_t bt = 0; bt < p.batches; ++bt) {
    const TA* a = x1 + oa * m * k;
    const TB* b = x2 + ob * k * n;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t kk = 0; kk < k; ++kk) A[i * k + kk] = skb_k::to_float(p.ta ? a[kk * m + i] : a[i * k + kk]);
    for (int64_t kk = 0; kk < k; ++kk)
      for (int64_t j = 0; j < n; ++j) B[kk * n + j] = skb_k::to_float(p.tb ? b[j * k + kk] : b[kk * n + j]);
    TY* yb = y + bt * m * n;
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) C[j] = SKB_HAS_BIAS ? skb_k::to_float(bias[j]) : 0.f;
      const float* arow = A + i * k;
      for (int64_t kk = 0; kk < k; ++kk) {
        const float av = arow[kk];
        const float* brow = B + kk * n;
        for (int64_t j = 0; j < n; ++j) C[j] += av * brow[j];
      }
      for (int64_t j = 0; j < n; ++j) yb[i * n + j] = skb_k::from_float<TY>(C[j]);
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
static constexpr Params make_static() {
  return make(SKB_IN_DIMS(0), SKB_IN_DIMS(1), SKB_OUT_DIMS(0),
              SKB_OP == MatMulV2 ? SKB_ATTR_transpose_x1 : SKB_ATTR_adj_x1,
              SKB_OP == MatMulV2 ? SKB_ATTR_transpose_x2 : SKB_ATTR_adj_x2);
}
#else
static Params make_dynamic(const skb_call* c) {
  const bool mm = SKB_OP == MatMulV2;
  return make(skb_k::dims(c->inputs[0]), skb_k::dims(c->inputs[1]), skb_k::dims(c->outputs[0]),
              skb_k::attr(c, mm ? "transpose_x1" : "adj_x1", 0, 0) != 0,
              skb_k::attr(c, mm ? "transpose_x2" : "adj_x2", 0, 0) != 0);
}
#endif
SKB_ENTRY(make_static, make_dynamic, run)
