// A matmul tile whose reduction is split over a cluster of blocks (sm_90 and later: a kernel
// declared with __cluster_dims__): each block multiplies its part of the reduction and leaves its
// sums in its shared memory, then each adds up its share of the tile's rows from every block's
// (distributed shared memory) and stores them. The wgmma and float kernels' split tiles.
#pragma once
#include "matmul_mma.h"

namespace skb_cu::cluster {

/// The whole cluster (every thread of every block of it) meets here; memory written before is
/// seen after by every block of it.
__device__ inline void sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;\n" ::: "memory");
}
__device__ inline unsigned rank() {
  unsigned r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
  return r;
}
/// Four floats of block `rank`'s shared memory at the address p has in this block's.
__device__ inline float4 load_remote4(const float* p, unsigned rank) {
  unsigned a;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(a) : "r"(mma::smem_addr(p)), "r"(rank));
  float4 v;
  asm volatile("ld.shared::cluster.v4.f32 {%0, %1, %2, %3}, [%4];\n"
               : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
               : "r"(a)
               : "memory");
  return v;
}

/// Block q of a cluster of KS, every block of which holds its BM x BN sums (row-major floats) at
/// `sums` in its shared memory: adds up rows q BM / KS onwards of all of them, Run (4 or 8)
/// columns at a time over Threads threads, and hands each run to put(row, col, float[Run]) (rows
/// and columns within the tile). Returns once no block of the cluster reads this one's sums any
/// more.
template <int BM, int BN, int KS, int Threads, int Run = 4, class Put>
__device__ inline void add_up(const float* sums, unsigned q, Put put) {
  static_assert(Run == 4 || Run == 8, "runs of one or two 16-byte loads");
  static_assert(BM % KS == 0 && BN % Run == 0, "a split tile's rows share out among its blocks, in whole runs");
  constexpr int kRows = BM / KS;
  sync();  // every block's sums are in place
  for (int e = threadIdx.x * Run; e < kRows * BN; e += Threads * Run) {
    const int row = (int)q * kRows + e / BN, col = e % BN;
    float vals[Run] = {};
#pragma unroll
    for (int from = 0; from < KS; ++from)
#pragma unroll
      for (int h = 0; h < Run; h += 4) {
        const float4 v = load_remote4(&sums[row * BN + col + h], from);
        vals[h] += v.x, vals[h + 1] += v.y, vals[h + 2] += v.z, vals[h + 3] += v.w;
      }
    put(row, col, vals);
  }
  sync();  // no block leaves while another still reads its sums
}

/// Steps [first, first + count) of a reduction of `all` steps: block q's part of KS.
struct Part {
  int64_t first, count;
};
__device__ inline Part part(int64_t all, int ks, unsigned q) {
  const int64_t per = skb_mm::ceil_div(all, ks), first = q * per;
  return {first, first >= all ? 0 : all - first < per ? all - first : per};
}

}  // namespace skb_cu::cluster
