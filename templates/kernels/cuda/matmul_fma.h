// A float matmul in exact float32 arithmetic (fused multiply-adds, no TF32): 256 threads a
// block as 16 x 16, each computing TM x TN outputs of the block's BM x BN from registers, in
// runs of 4 rows and 4 columns spread over the tile (thread x's columns 4x.. and BN/2 + 4x..
// for TN = 8), so that a quarter warp's 16-byte reads of a shared row are 128 contiguous bytes.
// Both operands are staged k-major in shared memory (A as [k][m], B as [k][n], whichever way
// they lie in global memory), double buffered: the next step's elements are read into
// registers while this step's are multiplied, then stored. Each thread reads a run of its
// operand's contiguous axis, 16 bytes at once where the shape and the pointers allow. Tiles are
// skb_matmul_plan.h's kFmaTiles, looped over grid-stride in the same grouped order as the
// tensor-core kernel. A split tile (sm_90a builds) is a cluster of blocks a tile, each over its
// part of the reduction, whose sums meet in distributed shared memory (matmul_cluster.h).
#pragma once
#include "matmul_cluster.h"
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

/// A thread's TW outputs along one axis of a tile of width W: runs of RW = 4 (or all TW when
/// it is not a multiple of 4) consecutive ones, run c at c * W / runs.
template <int W, int TW>
struct Runs {
  static constexpr int kRuns = TW % 4 == 0 ? TW / 4 : 1, kWidth = TW / kRuns, kStride = W / kRuns;
  static __device__ constexpr int at(int thread, int i) { return i / kWidth * kStride + thread * kWidth + i % kWidth; }
};

/// N consecutive floats of global memory at p, 16 bytes at once where `whole` (all in bounds and
/// p 16-byte aligned); else each one that in(i) says is in bounds, zero otherwise.
template <int N, class In>
__device__ inline void fetch_run(float (&r)[N], const float* p, bool whole, In in) {
  if constexpr (N % 4 == 0) {
    if (whole) {
#pragma unroll
      for (int i = 0; i < N; i += 4) {
        const float4 v = *reinterpret_cast<const float4*>(p + i);
        r[i] = v.x, r[i + 1] = v.y, r[i + 2] = v.z, r[i + 3] = v.w;
      }
      return;
    }
  }
#pragma unroll
  for (int i = 0; i < N; ++i) r[i] = in(i) ? p[i] : 0.f;
}

template <int TI, bool TA, bool TB, class Offsets, class Store>
__device__ inline void run(const skb_geom::MatMul& p, const float* x1, const float* x2, Offsets offsets, Store store) {
  constexpr skb_mm::Tile kT = skb_mm::kFmaTiles[TI];
  constexpr int BM = kT.bm, BN = kT.bn, BK = kT.bk, TM = kT.wm, TN = kT.wn, KS = kT.split, kThreads = 256;
  constexpr int kA = BM * BK / kThreads, kB = BN * BK / kThreads;  // elements each thread stages
  static_assert(BM == 16 * TM && BN == 16 * TN && kA * kThreads == BM * BK && kB * kThreads == BN * BK,
                "a float tile is 16 x 16 threads' outputs");
  using RowRuns = Runs<BM, TM>;
  using ColRuns = Runs<BN, TN>;
  __shared__ __align__(16) float as[2][BK][BM + 4];
  __shared__ __align__(16) float bs[2][BK][BN + 4];
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  const int64_t tiles = p.batches * skb_mm::ceil_div(p.m, BM) * skb_mm::ceil_div(p.n, BN);
  // This block's part of the reduction, steps [first, first + steps); a split tile's cluster takes one tile.
  const unsigned q = KS > 1 ? cluster::rank() : 0;
  const cluster::Part part = cluster::part(skb_mm::ceil_div(p.k, BK), KS, q);
  const int64_t first = part.first, steps = part.count;
  const int64_t t0 = KS == 1 ? blockIdx.x : blockIdx.x / KS, t_step = KS == 1 ? gridDim.x : tiles;
  for (int64_t t = t0; t < tiles; t += t_step) {
    int64_t bt, m0, n0, oa, ob;
    mma::tile_origin<BM, BN>(p, t, bt, m0, n0);
    offsets(bt, oa, ob);
    const float* a = x1 + oa * p.m * p.k;
    const float* b = x2 + ob * p.k * p.n;
    float ra[kA], rb[kB];
    // A thread stages elements e = kA * thread.. of a step's A (B) tile, a run along the
    // operand's contiguous axis: their (m, k) ((k, n)) within the tile.
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
    // 16-byte reads need the run's start aligned: the operand, and its leading dimension.
    const bool a_vec = reinterpret_cast<uintptr_t>(a) % 16 == 0 && (TA ? p.m : p.k) % 4 == 0;
    const bool b_vec = reinterpret_cast<uintptr_t>(b) % 16 == 0 && (TB ? p.k : p.n) % 4 == 0;
    auto fetch = [&](int64_t step) {
      const int64_t k0 = (first + step) * BK;
      {
        int m, k;
        a_at(threadIdx.x * kA, m, k);
        const int64_t gm = m0 + m, gk = k0 + k;
        const int64_t lim = TA ? p.m - gm : p.k - gk;  // in-bounds elements of the run
        const bool row = TA ? gk < p.k : gm < p.m;
        const float* src = row && lim > 0 ? (TA ? a + gk * p.m + gm : a + gm * p.k + gk) : a;
        fetch_run<kA>(ra, src, a_vec && row && lim >= kA, [&](int i) { return row && i < lim; });
      }
      {
        int k, n;
        b_at(threadIdx.x * kB, k, n);
        const int64_t gk = k0 + k, gn = n0 + n;
        const int64_t lim = TB ? p.k - gk : p.n - gn;
        const bool row = TB ? gn < p.n : gk < p.k;
        const float* src = row && lim > 0 ? (TB ? b + gn * p.k + gk : b + gk * p.n + gn) : b;
        fetch_run<kB>(rb, src, b_vec && row && lim >= kB, [&](int i) { return row && i < lim; });
      }
    };
    auto stash = [&](int s) {
#pragma unroll
      for (int i = 0; i < kA; ++i) {
        int m, k;
        a_at(threadIdx.x * kA + i, m, k);
        as[s][k][m] = ra[i];
      }
#pragma unroll
      for (int i = 0; i < kB; ++i) {
        int k, n;
        b_at(threadIdx.x * kB + i, k, n);
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
#pragma unroll
        for (int c = 0; c < RowRuns::kRuns; ++c)
          read<RowRuns::kWidth>(*reinterpret_cast<float(*)[RowRuns::kWidth]>(&fa[c * RowRuns::kWidth]),
                                &as[s][k][RowRuns::at(ty, c * RowRuns::kWidth)]);
#pragma unroll
        for (int c = 0; c < ColRuns::kRuns; ++c)
          read<ColRuns::kWidth>(*reinterpret_cast<float(*)[ColRuns::kWidth]>(&fb[c * ColRuns::kWidth]),
                                &bs[s][k][ColRuns::at(tx, c * ColRuns::kWidth)]);
#pragma unroll
        for (int i = 0; i < TM; ++i)
#pragma unroll
          for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(fa[i], fb[j], acc[i][j]);
      }
      if (step + 1 < steps) stash(1 - s);
      __syncthreads();
    }
    if constexpr (KS > 1) {
      // The sums to this block's shared memory; then this block's rows of the cluster's, stored.
      __shared__ __align__(16) float sums[BM * BN];
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) sums[RowRuns::at(ty, i) * BN + ColRuns::at(tx, j)] = acc[i][j];
      cluster::add_up<BM, BN, KS, kThreads>(sums, q, [&](int r, int c, const float(&vals)[4]) {
        const int64_t row = m0 + r, c0 = n0 + c;
        if (row >= p.m) return;
#pragma unroll
        for (int i = 0; i < 4; ++i)
          if (c0 + i < p.n) store(bt, row, c0 + i, vals[i]);
      });
    } else {
#pragma unroll
      for (int i = 0; i < TM; ++i) {
        const int64_t row = m0 + RowRuns::at(ty, i);
#pragma unroll
        for (int j = 0; j < TN; ++j) {
          const int64_t col = n0 + ColRuns::at(tx, j);
          if (row < p.m && col < p.n) store(bt, row, col, acc[i][j]);
        }
      }
    }
  }
}

}  // namespace skb_cu::fma
