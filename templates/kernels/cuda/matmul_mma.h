// A 16-bit matmul on tensor cores (sm_80 and later): mma.sync m16n8k16 with float accumulation,
// operands staged through shared memory by cp.async in a pipeline of STAGES tiles, fragments
// read with ldmatrix. Each operand is kept in shared memory as it lies in global memory (a
// transposed one too), padded 16 bytes a row; ldmatrix's .trans gives the fragment the other
// way round. One block computes BM x BN outputs (skb_matmul_plan.h's Tile), looping over the
// tiles grid-stride in groups of 8 tile rows, so that neighbouring blocks share operand tiles
// in the L2 cache. Needs the contiguous axis of each operand a multiple of 8 and both
// operands 16-byte aligned (skb_mm::mma_readable; the caller checks the pointers).
#pragma once
#include "skb_cuda.h"
#include "skb_matmul_plan.h"

namespace skb_cu::mma {

__device__ inline uint32_t smem_addr(const void* p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }

/// 16 bytes from global to shared memory, asynchronously; zeros when !valid (src unread).
__device__ inline void copy16(void* dst, const void* src, bool valid) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_addr(dst)), "l"(src), "r"(valid ? 16 : 0));
}
__device__ inline void commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N>
__device__ inline void wait_pending() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

template <bool Trans>
__device__ inline void ldmatrix_x4(uint32_t (&r)[4], const void* p) {
  if constexpr (Trans)
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(smem_addr(p)));
  else
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(smem_addr(p)));
}

/// c += a (16x16, row) * b (16x8, col), float accumulators; T is __half or __nv_bfloat16.
template <class T>
__device__ inline void mma16816(float (&c)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  if constexpr (skb_geom::Same<T, __half>::value)
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  else
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

/// Rows x Cols of an operand (Cols its contiguous axis) into shared memory of row stride
/// Cols + pad, from rows r0.. (of rlim) and columns c0.. (of clim), leading dimension ld.
template <int Rows, int Cols, int Threads, class T>
__device__ inline void load_tile(T* dst, const T* src, int64_t r0, int64_t rlim, int64_t c0, int64_t clim, int64_t ld) {
  constexpr int kPer = 8, kChunks = Rows * Cols / kPer, kStride = Cols + kPer;
  static_assert(kChunks % Threads == 0, "a tile's 16-byte chunks divide among the block's threads");
#pragma unroll
  for (int i = 0; i < kChunks / Threads; ++i) {
    const int c = threadIdx.x + i * Threads, row = c / (Cols / kPer), col = c % (Cols / kPer) * kPer;
    const int64_t gr = r0 + row, gc = c0 + col;
    const bool valid = gr < rlim && gc < clim;
    copy16(dst + row * kStride + col, valid ? src + gr * ld + gc : src, valid);
  }
}

/// The tile at index t of the grouped order: (batch, first row, first column).
template <int BM, int BN>
__device__ inline void tile_origin(const skb_geom::MatMul& p, int64_t t, int64_t& bt, int64_t& m0, int64_t& n0) {
  constexpr int64_t kGroup = 8;
  const int64_t tm = skb_mm::ceil_div(p.m, BM), tn = skb_mm::ceil_div(p.n, BN);
  bt = t / (tm * tn);
  const int64_t r = t % (tm * tn), first = r / (kGroup * tn) * kGroup;
  const int64_t rows = tm - first < kGroup ? tm - first : kGroup, w = r % (kGroup * tn);
  m0 = (first + w % rows) * BM;
  n0 = w / rows * BN;
}

/// The matmul of p on tensor cores with tile kMmaTiles[TI]; TA/TB: the operands are transposed.
/// offsets(bt, oa, ob) gives the matrices of output batch bt; epilogue(bt, row, col, acc) stores.
template <int TI, bool TA, bool TB, class T, class Offsets, class Store>
__device__ inline void run(const skb_geom::MatMul& p, const T* x1, const T* x2, Offsets offsets, Store store) {
  constexpr skb_mm::Tile kT = skb_mm::kMmaTiles[TI];
  constexpr int BM = kT.bm, BN = kT.bn, BK = kT.bk, WM = kT.wm, WN = kT.wn, S = kT.stages;
  constexpr int kThreads = kT.threads(), kPad = 8, MI = WM / 16, NI = WN / 8;
  constexpr int ARows = TA ? BK : BM, ACols = TA ? BM : BK, BRows = TB ? BN : BK, BCols = TB ? BK : BN;
  constexpr int AStride = ACols + kPad, BStride = BCols + kPad;
  constexpr int AStage = ARows * AStride, BStage = BRows * BStride;
  static_assert(WM % 16 == 0 && WN % 16 == 0 && BK % 16 == 0, "warp tiles of whole mma fragments");
  extern __shared__ __align__(16) unsigned char skb_smem[];
  T* as = reinterpret_cast<T*>(skb_smem);
  T* bs = as + S * AStage;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int wm0 = warp / (BN / WN) * WM, wn0 = warp % (BN / WN) * WN;
  const int64_t tiles = p.batches * skb_mm::ceil_div(p.m, BM) * skb_mm::ceil_div(p.n, BN);
  const int64_t steps = skb_mm::ceil_div(p.k, BK);
  for (int64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
    int64_t bt, m0, n0, oa, ob;
    tile_origin<BM, BN>(p, t, bt, m0, n0);
    offsets(bt, oa, ob);
    const T* a = x1 + oa * p.m * p.k;
    const T* b = x2 + ob * p.k * p.n;
    auto load = [&](int stage, int64_t step) {
      const int64_t k0 = step * BK;
      if constexpr (TA)
        load_tile<ARows, ACols, kThreads>(as + stage * AStage, a, k0, p.k, m0, p.m, p.m);
      else
        load_tile<ARows, ACols, kThreads>(as + stage * AStage, a, m0, p.m, k0, p.k, p.k);
      if constexpr (TB)
        load_tile<BRows, BCols, kThreads>(bs + stage * BStage, b, n0, p.n, k0, p.k, p.k);
      else
        load_tile<BRows, BCols, kThreads>(bs + stage * BStage, b, k0, p.k, n0, p.n, p.n);
    };
    float acc[MI][NI][4];
#pragma unroll
    for (int i = 0; i < MI; ++i)
#pragma unroll
      for (int j = 0; j < NI; ++j)
#pragma unroll
        for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.f;
#pragma unroll
    for (int s = 0; s < S - 1; ++s) {
      if (s < steps) load(s, s);
      commit();  // one group a step, empty or not: wait_pending counts them
    }
    for (int64_t step = 0; step < steps; ++step) {
      wait_pending<S - 2>();
      __syncthreads();  // step's tile is in, and every warp is done with the buffer reloaded next
      if (step + S - 1 < steps) load((step + S - 1) % S, step + S - 1);
      commit();
      const T* sa = as + step % S * AStage;
      const T* sb = bs + step % S * BStage;
#pragma unroll
      for (int kb = 0; kb < BK; kb += 16) {
        uint32_t af[MI][4], bf[NI][2];
#pragma unroll
        for (int i = 0; i < MI; ++i) {
          const int m = wm0 + i * 16;
          if constexpr (TA)
            ldmatrix_x4<true>(af[i], sa + (kb + lane % 8 + lane / 16 * 8) * AStride + m + lane / 8 % 2 * 8);
          else
            ldmatrix_x4<false>(af[i], sa + (m + lane % 16) * AStride + kb + lane / 16 * 8);
        }
#pragma unroll
        for (int j = 0; j < NI / 2; ++j) {
          const int n = wn0 + j * 16;
          uint32_t r[4];
          if constexpr (TB)
            ldmatrix_x4<false>(r, sb + (n + lane % 8 + lane / 16 * 8) * BStride + kb + lane / 8 % 2 * 8);
          else
            ldmatrix_x4<true>(r, sb + (kb + lane % 8 + lane / 8 % 2 * 8) * BStride + n + lane / 16 * 8);
          bf[2 * j][0] = r[0], bf[2 * j][1] = r[1], bf[2 * j + 1][0] = r[2], bf[2 * j + 1][1] = r[3];
        }
#pragma unroll
        for (int i = 0; i < MI; ++i)
#pragma unroll
          for (int j = 0; j < NI; ++j) mma16816<T>(acc[i][j], af[i], bf[j][0], bf[j][1]);
      }
    }
    wait_pending<0>();
    __syncthreads();  // the next tile's first loads must not overwrite buffers still read
#pragma unroll
    for (int i = 0; i < MI; ++i)
#pragma unroll
      for (int j = 0; j < NI; ++j)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int64_t row = m0 + wm0 + i * 16 + lane / 4 + h * 8;
          const int64_t col = n0 + wn0 + j * 8 + lane % 4 * 2;
          if (row < p.m) {
            if (col < p.n) store(bt, row, col, acc[i][j][2 * h]);
            if (col + 1 < p.n) store(bt, row, col + 1, acc[i][j][2 * h + 1]);
          }
        }
  }
}

}  // namespace skb_cu::mma
