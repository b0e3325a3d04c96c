// MatMulV2 (transpose_x1/transpose_x2) and BatchMatMulV2 (adj_x1/adj_x2, broadcast batches),
// optional bias of N elements. One thread per output element; computes in float.
#include "skb_cuda.h"

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

typedef skb_geom::MatMul Params;
#define SKB_MATMUL                                                               \
  skb_geom::matmul(SKB_IN_DIMS(0), SKB_IN_DIMS(1), SKB_OUT_DIMS(0),               \
                   SKB_OP == MatMulV2 ? SKB_ATTR_transpose_x1 : SKB_ATTR_adj_x1, \
                   SKB_OP == MatMulV2 ? SKB_ATTR_transpose_x2 : SKB_ATTR_adj_x2)
static __device__ constexpr Params kP = SKB_MATMUL;
SKB_REQUIRE(SKB_MATMUL.ok);
#if SKB_HAS_BIAS
SKB_REQUIRE(skb_geom::valid(SKB_IN_DIMS(2)) && SKB_IN_DIMS(2).rank >= 1 && SKB_IN_DIMS(2).numel() == SKB_MATMUL.n);
#endif

SKB_ENTRY {
  const TA* x1 = static_cast<const TA*>(args.in[0]);
  const TB* x2 = static_cast<const TB*>(args.in[1]);
  const TBias* bias = SKB_HAS_BIAS ? static_cast<const TBias*>(args.in[2]) : nullptr;
  TY* y = static_cast<TY*>(args.out[0]);
  const int64_t total = kP.batches * kP.m * kP.n;
  for (int64_t e = skb_cu::first_index(); e < total; e += skb_cu::grid_stride()) {
    const int64_t j = e % kP.n, i = (e / kP.n) % kP.m;
    int64_t bt = e / (kP.m * kP.n), oa = 0, ob = 0;
#pragma unroll
    for (int d = kP.batch_rank - 1; d >= 0; --d) {
      int64_t c = bt % kP.batch[d];
      bt /= kP.batch[d];
      oa += c * kP.sa[d];
      ob += c * kP.sb[d];
    }
    const TA* a = x1 + oa * kP.m * kP.k;
    const TB* b = x2 + ob * kP.k * kP.n;
    float acc = SKB_HAS_BIAS ? skb_cu::to_float(bias[j]) : 0.f;
#pragma unroll 8
    for (int64_t kk = 0; kk < kP.k; ++kk)
      acc += skb_cu::to_float(kP.ta ? a[kk * kP.m + i] : a[i * kP.k + kk]) *
             skb_cu::to_float(kP.tb ? b[j * kP.k + kk] : b[kk * kP.n + j]);
    y[e] = skb_cu::from_float<TY>(acc);
  }
}
