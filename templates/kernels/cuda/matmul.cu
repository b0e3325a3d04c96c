// MatMulV2 (transpose_x1/transpose_x2) and BatchMatMulV2 (adj_x1/adj_x2, broadcast batches),
// optional bias of N elements. Computes in float. With 256 threads a block, each block computes
// 16x16 tiles of the output from 16x16 tiles of both operands staged in shared memory (each
// operand element read once per tile instead of once per output); with another block size, one
// thread per output element.
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

typedef skb_geom::MatMul Params;
// ok also says that a bias holds n elements.
static SKB_HD constexpr Params make(skb_cu::Dims a, skb_cu::Dims b, skb_cu::Dims o, bool ta, bool tb,
                                    skb_cu::Dims bias) {
  Params p = skb_geom::matmul(a, b, o, ta, tb);
  if (SKB_HAS_BIAS) p.ok = p.ok && skb_geom::valid(bias) && bias.rank >= 1 && bias.numel() == p.n;
  return p;
}

// The batch offsets of both operands for output batch bt (broadcast batches).
__device__ inline void batch_offsets(const Params& p, int64_t bt, int64_t& oa, int64_t& ob) {
  oa = 0, ob = 0;
#pragma unroll
  for (int d = p.batch_rank - 1; d >= 0; --d) {
    int64_t c = bt % p.batch[d];
    bt /= p.batch[d];
    oa += c * p.sa[d];
    ob += c * p.sb[d];
  }
}

__device__ inline void run_elements(const Params& p, skb_args args) {
  const TA* x1 = static_cast<const TA*>(args.in[0]);
  const TB* x2 = static_cast<const TB*>(args.in[1]);
  const TBias* bias = SKB_HAS_BIAS ? static_cast<const TBias*>(args.in[2]) : nullptr;
  TY* y = static_cast<TY*>(args.out[0]);
  const int64_t total = p.batches * p.m * p.n;
  for (int64_t e = skb_cu::first_index(); e < total; e += skb_cu::grid_stride()) {
    const int64_t j = e % p.n, i = (e / p.n) % p.m;
    int64_t oa, ob;
    batch_offsets(p, e / (p.m * p.n), oa, ob);
    const TA* a = x1 + oa * p.m * p.k;
    const TB* b = x2 + ob * p.k * p.n;
    float acc = SKB_HAS_BIAS ? skb_cu::to_float(bias[j]) : 0.f;
#pragma unroll 8
    for (int64_t kk = 0; kk < p.k; ++kk)
      acc += skb_cu::to_float(p.ta ? a[kk * p.m + i] : a[i * p.k + kk]) *
             skb_cu::to_float(p.tb ? b[j * p.k + kk] : b[kk * p.n + j]);
    y[e] = skb_cu::from_float<TY>(acc);
  }
}

constexpr int kTile = 16;

// Every thread of a block takes the same tiles, so each __syncthreads has them all.
__device__ inline void run_tiles(const Params& p, skb_args args) {
  __shared__ float ta[kTile][kTile + 1], tb[kTile][kTile + 1];
  const TA* x1 = static_cast<const TA*>(args.in[0]);
  const TB* x2 = static_cast<const TB*>(args.in[1]);
  const TBias* bias = SKB_HAS_BIAS ? static_cast<const TBias*>(args.in[2]) : nullptr;
  TY* y = static_cast<TY*>(args.out[0]);
  const int ty = threadIdx.x / kTile, tx = threadIdx.x % kTile;
  const int64_t tm = (p.m + kTile - 1) / kTile, tn = (p.n + kTile - 1) / kTile, tiles = p.batches * tm * tn;
  for (int64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
    const int64_t bt = t / (tm * tn), i = (t / tn) % tm * kTile + ty, j = t % tn * kTile + tx;
    int64_t oa, ob;
    batch_offsets(p, bt, oa, ob);
    const TA* a = x1 + oa * p.m * p.k;
    const TB* b = x2 + ob * p.k * p.n;
    float acc = SKB_HAS_BIAS && j < p.n ? skb_cu::to_float(bias[j]) : 0.f;
    for (int64_t k0 = 0; k0 < p.k; k0 += kTile) {
      const int64_t ka = k0 + tx, kb = k0 + ty;
      ta[ty][tx] = i < p.m && ka < p.k ? skb_cu::to_float(p.ta ? a[ka * p.m + i] : a[i * p.k + ka]) : 0.f;
      tb[ty][tx] = kb < p.k && j < p.n ? skb_cu::to_float(p.tb ? b[j * p.k + kb] : b[kb * p.n + j]) : 0.f;
      __syncthreads();
#pragma unroll
      for (int kk = 0; kk < kTile; ++kk) acc += ta[ty][kk] * tb[kk][tx];
      __syncthreads();
    }
    if (i < p.m && j < p.n) y[(bt * p.m + i) * p.n + j] = skb_cu::from_float<TY>(acc);
  }
}

__device__ inline void run(const Params& p, skb_args args) {
  if (blockDim.x == kTile * kTile)
    run_tiles(p, args);
  else
    run_elements(p, args);
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
#define SKB_BIAS_DIMS skb_cu::dims()
#endif
static SKB_HD constexpr Params make_static() {
  return make(SKB_IN_DIMS(0), SKB_IN_DIMS(1), SKB_OUT_DIMS(0),
              SKB_OP == MatMulV2 ? SKB_ATTR_transpose_x1 : SKB_ATTR_adj_x1,
              SKB_OP == MatMulV2 ? SKB_ATTR_transpose_x2 : SKB_ATTR_adj_x2, SKB_BIAS_DIMS);
}
#else
static __device__ Params make_dynamic(const skb_cuda_call& c) {
  const bool mm = SKB_OP == MatMulV2;
  return make(skb_cu::dims(c.inputs[0]), skb_cu::dims(c.inputs[1]), skb_cu::dims(c.outputs[0]),
              skb_cu::attr(c, mm ? "transpose_x1" : "adj_x1", 0, 0) != 0,
              skb_cu::attr(c, mm ? "transpose_x2" : "adj_x2", 0, 0) != 0,
              SKB_HAS_BIAS ? skb_cu::dims(c.inputs[2]) : skb_cu::dims());
}
#endif
SKB_ENTRY(make_static, make_dynamic, run)
