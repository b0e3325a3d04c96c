// A float matmul in exact float32 arithmetic (fused multiply-adds, no TF32): 256 threads a
// block as 16 x 16, each computing TM x TN outputs of the block's BM x BN from registers. Both
// operands are staged k-major in shared memory (A as [k][m], B as [k][n], whichever way they lie
// in global memory), double buffered: the next step's elements are read into registers while
// this step's are multiplied, then stored. Tiles are skb_matmul_plan.h's kFmaTiles, looped over
// grid-stride in the same grouped order as the tensor-core kernel.
#pragma once
#include "matmul_mma.h"

namespace skb_cu::fma {

/// n floats of shared memory from p into r, 16 bytes at a time when n allows.
template <int N>
__device__ inline void read(float (&r)[N], const float* p) {
  if constexpr (N % 4 == 0) {
#pragma unroll
    for (int i = 0; i < N; i += 4) {
      const float4 v = *reinterpret_cast<const float4*>(p + i);
      r[i] = v.x, r[i + 1] = v.y, r[i + 2] = v.z, r[i + 3] = v.w;
    }
  } else {
#pragma unroll
    for (int i = 0; i < N; ++i) r[i] = p[i];
  }
}

template <int TI, bool TA, bool TB, class Offsets, class Store>
__device__ inline void run(const skb_geom::MatMul& p, const float* x1, const float* x2, Offsets offsets, Store store) {
  constexpr skb_mm::Tile kT = skb_mm::kFmaTiles[TI];
  constexpr int BM = kT.bm, BN = kT.bn, BK = kT.bk, TM = kT.wm, TN = kT.wn, kThreads = 256;
  constexpr int kA = BM * BK / kThreads, kB = BN * BK / kThreads;  // elements each thread stages
  static_assert(BM == 16 * TM && BN == 16 * TN && kA * kThreads == BM * BK && kB * kThreads == BN * BK,
                "a float tile is 16 x 16 threads' outputs");
  __shared__ __align__(16) float as[2][BK][BM + 4];
  __shared__ __align__(16) float bs[2][BK][BN + 4];
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  const int64_t tiles = p.batches * skb_mm::ceil_div(p.m, BM) * skb_mm::ceil_div(p.n, BN);
  const int64_t steps = skb_mm::ceil_div(p.k, BK);
  for (int64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
    int64_t bt, m0, n0, oa, ob;
    mma::tile_origin<BM, BN>(p, t, bt, m0, n0);
    offsets(bt, oa, ob);
    const float* a = x1 + oa * p.m * p.k;
    const float* b = x2 + ob * p.k * p.n;
    float ra[kA], rb[kB];
    // Element e of a step's A (B) tile, in the order that reads global memory along its
    // contiguous axis: its (m, k) ((k, n)) within the tile.
    auto a_at = [&](int e, int& m, int& k) {
      if constexpr (TA)
        k = e / BM, m = e % BM;
      else
        m = e / BK, k = e % BK;
    };
    auto b_at = [&](int e, int& k, int& n) {
      if constexpr (TB)
        n = e / BK, k = e % BK;
      else
        k = e / BN, n = e % BN;
    };
    auto fetch = [&](int64_t step) {
      const int64_t k0 = step * BK;
#pragma unroll
      for (int i = 0; i < kA; ++i) {
        int m, k;
        a_at(threadIdx.x + i * kThreads, m, k);
        const int64_t gm = m0 + m, gk = k0 + k;
        ra[i] = gm < p.m && gk < p.k ? (TA ? a[gk * p.m + gm] : a[gm * p.k + gk]) : 0.f;
      }
#pragma unroll
      for (int i = 0; i < kB; ++i) {
        int k, n;
        b_at(threadIdx.x + i * kThreads, k, n);
        const int64_t gk = k0 + k, gn = n0 + n;
        rb[i] = gk < p.k && gn < p.n ? (TB ? b[gn * p.k + gk] : b[gk * p.n + gn]) : 0.f;
      }
    };
    auto stash = [&](int s) {
#pragma unroll
      for (int i = 0; i < kA; ++i) {
        int m, k;
        a_at(threadIdx.x + i * kThreads, m, k);
        as[s][k][m] = ra[i];
      }
#pragma unroll
      for (int i = 0; i < kB; ++i) {
        int k, n;
        b_at(threadIdx.x + i * kThreads, k, n);
        bs[s][k][n] = rb[i];
      }
    };
    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
      for (int j = 0; j < TN; ++j) acc[i][j] = 0.f;
    fetch(0);
    stash(0);
    __syncthreads();
    for (int64_t step = 0; step < steps; ++step) {
      const int s = step % 2;
      if (step + 1 < steps) fetch(step + 1);
#pragma unroll
      for (int k = 0; k < BK; ++k) {
        float fa[TM], fb[TN];
        read<TM>(fa, &as[s][k][ty * TM]);
        read<TN>(fb, &bs[s][k][tx * TN]);
#pragma unroll
        for (int i = 0; i < TM; ++i)
#pragma unroll
          for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(fa[i], fb[j], acc[i][j]);
      }
      if (step + 1 < steps) stash(1 - s);
      __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < TM; ++i) {
      const int64_t row = m0 + ty * TM + i;
#pragma unroll
      for (int j = 0; j < TN; ++j) {
        const int64_t col = n0 + tx * TN + j;
        if (row < p.m && col < p.n) store(bt, row, col, acc[i][j]);
      }
    }
  }
}

}  // namespace skb_cu::fma
