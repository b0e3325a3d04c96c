// A 16-bit matmul on Hopper's warpgroup tensor cores (sm_90a: wgmma.mma_async and TMA), float
// accumulation. One block computes BM x BN outputs (skb_matmul_plan.h's kWgmmaTiles) with
// BM / 64 consumer warpgroups, each a 64-row slice of the tile, and one producer warpgroup
// whose first thread streams the operands' 64-deep slices into STAGES shared-memory buffers by
// TMA (cp.async.bulk.tensor, through the tensor maps the runtime encodes at launch: skb_tma).
// Each buffer has two barriers: `full` completes when its bytes have landed, `empty` when every
// consumer has finished reading it. Shared memory holds each operand as TMA writes it, with the
// 128-byte swizzle: a row of 64 elements of the contiguous axis a 128-byte line, so that
// wgmma reads an operand whichever of its axes is contiguous (K-major as it is, MN-major
// transposed by the instruction); a tile 32 wide holds an MN-major B in 64-byte lines, with the
// 64-byte swizzle. Blocks loop over the tiles grid-stride in groups of 8 tile rows
// (mma::tile_origin), as the mma.sync kernel does: a persistent tile's grid is one block a
// multiprocessor, whose producer loads its next tile while its consumers store the last.
#pragma once
#include "matmul_cluster.h"
#include "matmul_mma.h"
#include "skb_cuda.h"
#include "skb_matmul_plan.h"

namespace skb_cu::wgmma {

using mma::smem_addr;

constexpr int kDepth = skb_mm::kWgmmaDepth;  // elements of the reduction per stage: one 128-byte line
constexpr int kLine = 128;                   // bytes of a swizzled line
constexpr int kChunk = kDepth * kLine;       // bytes of a 64 x 64 block of an operand

__device__ inline void bar_init(uint64_t* b, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smem_addr(b)), "r"(count));
}
__device__ inline void bar_expect(uint64_t* b, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(smem_addr(b)), "r"(bytes) : "memory");
}
__device__ inline void bar_arrive(uint64_t* b) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(smem_addr(b)) : "memory");
}
/// Waits until the barrier's phase of the given parity has completed.
__device__ inline void bar_wait(uint64_t* b, unsigned parity) {
  asm volatile(
      "{\n.reg .pred done;\n"
      "SKB_WAIT:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra SKB_WAIT;\n}\n" ::"r"(smem_addr(b)),
      "r"(parity)
      : "memory");
}

/// One box of a 3-D tensor map into shared memory; the barrier counts its bytes.
__device__ inline void tma_load(void* dst, const void* map, uint64_t* bar, int c0, int c1, int c2) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4, %5}], "
      "[%2];\n" ::"r"(smem_addr(dst)),
      "l"(map), "r"(smem_addr(bar)), "r"(c0), "r"(c1), "r"(c2)
      : "memory");
}

/// The same box into the shared memory of every block of the cluster that `mask` names (bit r:
/// rank r), at this block's offsets, each block's barrier at `bar`'s offset counting its bytes.
__device__ inline void tma_load_multicast(void* dst, const void* map, uint64_t* bar, int c0, int c1, int c2,
                                          uint16_t mask) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1, "
      "{%3, %4, %5}], [%2], %6;\n" ::"r"(smem_addr(dst)),
      "l"(map), "r"(smem_addr(bar)), "r"(c0), "r"(c1), "r"(c2), "h"(mask)
      : "memory");
}

/// Arrives on the barrier at b's offset in block `rank` of the cluster.
__device__ inline void bar_arrive_at(uint64_t* b, unsigned rank) {
  asm volatile(
      "{\n.reg .b32 remote;\nmapa.shared::cluster.u32 remote, %0, %1;\nmbarrier.arrive.shared::cluster.b64 _, "
      "[remote];\n}\n" ::"r"(smem_addr(b)),
      "r"(rank)
      : "memory");
}

/// A shared-memory matrix descriptor, 128-byte swizzle (or 64-byte: Line 64): lbo is the byte
/// distance between line-wide blocks of the contiguous axis (MN-major only), sbo between groups
/// of 8 lines.
template <int Line = kLine>
__device__ inline uint64_t desc(const void* p, unsigned lbo, unsigned sbo) {
  static_assert(Line == 128 || Line == 64, "a 128- or 64-byte swizzle");
  return (uint64_t)((smem_addr(p) & 0x3FFFF) >> 4) | (uint64_t)((lbo & 0x3FFFF) >> 4) << 16 |
         (uint64_t)((sbo & 0x3FFFF) >> 4) << 32 | (Line == 128 ? 1ull : 2ull) << 62;
}

__device__ inline void fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ inline void commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int N>
__device__ inline void wait_pending() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}

/// Moves registers from the producer's warpgroup to the consumers' where a consumer's
/// accumulators need them (a 64 x 256 slice: 128 a thread); ptxas ignores it elsewhere.
template <int Regs, int N>
__device__ inline void set_registers() {
  if constexpr (N < 256)
    return;
  else if constexpr (Regs < 0)
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(-Regs));
  else
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(Regs));
}

/// One wgmma.mma_async m64nNk16 with float accumulators d[0 .. N/2), TY the operands' PTX type
/// ("f16" or "bf16"), written out: one asm operand per accumulator register, 32 at a time.
#define SKB_ACC8(o)                                                                                       \
  "+f"(d[(o)]), "+f"(d[(o) + 1]), "+f"(d[(o) + 2]), "+f"(d[(o) + 3]), "+f"(d[(o) + 4]), "+f"(d[(o) + 5]), \
      "+f"(d[(o) + 6]), "+f"(d[(o) + 7])
#define SKB_ACC32(o) SKB_ACC8(o), SKB_ACC8((o) + 8), SKB_ACC8((o) + 16), SKB_ACC8((o) + 24)
#define SKB_REGS0                                                                                                  \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, " \
  "%24, %25, %26, %27, %28, %29, %30, %31"
#define SKB_REGS1                                                                                                    \
  ", %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, " \
  "%54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
#define SKB_REGS2                                                                                                    \
  ", %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, " \
  "%86, %87, %88, %89, %90, %91, %92, %93, %94, %95"
#define SKB_REGS3                                                                                                    \
  ", %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, " \
  "%115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127"
#define SKB_WGMMA_32(TY)                                                                                           \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\nwgmma.mma_async.sync.aligned.m64n32k16.f32." TY "." TY     \
               " {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, %16, %17, p, 1, 1, %18, " \
               "%19;\n}\n"                                                                                         \
               : SKB_ACC8(0), SKB_ACC8(8)                                                                          \
               : "l"(a), "l"(b), "n"(MnA), "n"(MnB))
#define SKB_WGMMA_64(TY)                                                                                       \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\nwgmma.mma_async.sync.aligned.m64n64k16.f32." TY "." TY \
               " {" SKB_REGS0 "}, %32, %33, p, 1, 1, %34, %35;\n}\n"                                           \
               : SKB_ACC32(0)                                                                                  \
               : "l"(a), "l"(b), "n"(MnA), "n"(MnB))
#define SKB_WGMMA_128(TY)                                                                                       \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\nwgmma.mma_async.sync.aligned.m64n128k16.f32." TY "." TY \
               " {" SKB_REGS0 SKB_REGS1 "}, %64, %65, p, 1, 1, %66, %67;\n}\n"                                  \
               : SKB_ACC32(0), SKB_ACC32(32)                                                                    \
               : "l"(a), "l"(b), "n"(MnA), "n"(MnB))
#define SKB_WGMMA_256(TY)                                                                                       \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\nwgmma.mma_async.sync.aligned.m64n256k16.f32." TY "." TY \
               " {" SKB_REGS0 SKB_REGS1 SKB_REGS2 SKB_REGS3 "}, %128, %129, p, 1, 1, %130, %131;\n}\n"          \
               : SKB_ACC32(0), SKB_ACC32(32), SKB_ACC32(64), SKB_ACC32(96)                                      \
               : "l"(a), "l"(b), "n"(MnA), "n"(MnB))

/// d (64 x N, this warpgroup's fragment) += a (64 x 16) * b (16 x N); MnA/MnB: the operand is
/// MN-major in shared memory.
template <class T, int N, int MnA, int MnB>
__device__ inline void mma(float (&d)[N / 2], uint64_t a, uint64_t b) {
  static_assert(N == 32 || N == 64 || N == 128 || N == 256, "wgmma tiles are 32, 64, 128 or 256 columns wide");
  constexpr bool kHalf = skb_geom::Same<T, __half>::value;
  if constexpr (N == 32 && kHalf)
    SKB_WGMMA_32("f16");
  else if constexpr (N == 32)
    SKB_WGMMA_32("bf16");
  else if constexpr (N == 64 && kHalf)
    SKB_WGMMA_64("f16");
  else if constexpr (N == 64)
    SKB_WGMMA_64("bf16");
  else if constexpr (N == 128 && kHalf)
    SKB_WGMMA_128("f16");
  else if constexpr (N == 128)
    SKB_WGMMA_128("bf16");
  else if constexpr (kHalf)
    SKB_WGMMA_256("f16");
  else
    SKB_WGMMA_256("bf16");
}
#undef SKB_WGMMA_32
#undef SKB_WGMMA_64
#undef SKB_WGMMA_128
#undef SKB_WGMMA_256
#undef SKB_REGS0
#undef SKB_REGS1
#undef SKB_REGS2
#undef SKB_REGS3
#undef SKB_ACC32
#undef SKB_ACC8

/// Two neighbouring 16-bit outputs as one 4-byte word.
template <class Y>
struct alignas(4) Pair {
  Y v[2];
};

/// A staged tile's stores for one consumer warp: its fragment of the tile's 16 rows from row0,
/// columns from col0, goes 64 columns at a time into the warp's own 16 padded rows of shared
/// memory (smem), and 8 threads store each row's 64 from there, 16 bytes each where the output
/// allows it (out.whole), else an element at a time.
template <int BN, class Out>
__device__ __forceinline__ void store_staged(const float (&d)[BN / 2], const Out& out, int64_t bt, int64_t row0,
                                             int64_t col0, int64_t m, int64_t n, unsigned char* smem) {
  using Y = decltype(out.value(0, 0.f));
  constexpr int kCols = skb_mm::kStagedCols;
  Y* rows = reinterpret_cast<Y*>(smem);
  const int lane = threadIdx.x % 32;
#pragma unroll
  for (int chunk = 0; chunk < BN / kCols; ++chunk) {
#pragma unroll
    for (int jj = 0; jj < kCols / 8; ++jj) {
      const int j = chunk * (kCols / 8) + jj, col = jj * 8 + lane % 4 * 2;
      const int64_t c0 = col0 + chunk * kCols + col;
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        Pair<Y> pair;
        pair.v[0] = c0 < n ? out.value(c0, d[4 * j + 2 * h]) : Y();
        pair.v[1] = c0 + 1 < n ? out.value(c0 + 1, d[4 * j + 2 * h + 1]) : Y();
        *reinterpret_cast<Pair<Y>*>(&rows[skb_mm::staged_pair(lane, jj, h)]) = pair;
      }
    }
    __syncwarp();
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const int r = skb_mm::staged_row(lane, i), col = skb_mm::staged_col(lane);
      const int64_t row = row0 + r, c0 = col0 + chunk * kCols + col;
      if (row >= m) continue;
      const Y* from = &rows[r * skb_mm::kStagedPitch + col];
      if (out.whole && c0 + 8 <= n)
        *reinterpret_cast<uint4*>(out.at(bt, row, c0)) = *reinterpret_cast<const uint4*>(from);
      else
        for (int e = 0; e < 8 && c0 + e < n; ++e) *out.at(bt, row, c0 + e) = from[e];
    }
    __syncwarp();  // every row read before the next chunk's are written
  }
}

/// A split tile's run of Run sums of row `row`, columns from c0, into the output: a staged
/// tile's 8 16-bit outputs in one 16-byte store where the output allows it (out.whole), else an
/// element at a time.
template <int Run, class Out>
__device__ __forceinline__ void store_run(const Out& out, int64_t bt, int64_t row, int64_t c0,
                                          const float (&vals)[Run]) {
  using Y = decltype(out.value(0, 0.f));
  if (row >= out.m) return;
  if constexpr (Run == 8 && sizeof(Y) == 2) {
    if (out.whole && c0 + 8 <= out.n) {
      uint32_t words[4];
#pragma unroll
      for (int w = 0; w < 4; ++w) {
        const Pair<Y> pair{{out.value(c0 + 2 * w, vals[2 * w]), out.value(c0 + 2 * w + 1, vals[2 * w + 1])}};
        words[w] = *reinterpret_cast<const uint32_t*>(&pair);
      }
      // Written out: built from its halves, a uint4's store is split into 4-byte ones.
      asm volatile("st.global.v4.b32 [%0], {%1, %2, %3, %4};\n" ::"l"(__cvta_generic_to_global(out.at(bt, row, c0))),
                   "r"(words[0]), "r"(words[1]), "r"(words[2]), "r"(words[3])
                   : "memory");
      return;
    }
  }
#pragma unroll
  for (int i = 0; i < Run; ++i)
    if (c0 + i < out.n) out(bt, row, c0 + i, vals[i]);
}

/// The matmul of p with tile kWgmmaTiles[TI] (TA/TB: the operands are transposed) through the
/// tensor maps of A (ma) and B (mb), 3-D: the contiguous axis, the other, the matrices.
/// a_batched/b_batched: the operand has one matrix per output batch (else one for all).
/// store(bt, row, col, acc) writes an output; for a staged tile (kT.staged) store.value(col,
/// acc) is the output of a sum, store.at(bt, row, col) its place, store.m x store.n the
/// outputs (p.m x p.n), and store.whole says that 8 outputs of a row from a column a multiple
/// of 8 take one 16-byte store.
///
/// A tile of split KS > 1 (few tiles, a long reduction) is computed by a cluster of KS blocks,
/// block q of it over the q-th part of the reduction; each then leaves its sums in its shared
/// memory, and block q adds up rows q BM / KS onwards of all of them (distributed shared
/// memory) and stores them, 4 a thread, or a staged tile's 8. Such a kernel is launched with one
/// cluster a tile (__cluster_dims__).
///
/// A multicast tile (MC > 1) is a cluster of MC blocks on MC tiles one above the other, which
/// share their B: each block loads its 1 / MC of every stage's B into all of theirs, and a stage
/// is free again when the consumers of all of them are done with it (a persistent one's cluster
/// loops over such groups of tiles).
template <int TI, bool TA, bool TB, class T, class Store>
__device__ inline void run(const skb_geom::MatMul& p, const void* ma, const void* mb, bool a_batched, bool b_batched,
                           Store store) {
  constexpr skb_mm::Tile kT = skb_mm::kWgmmaTiles[TI];
  constexpr int BM = kT.bm, BN = kT.bn, S = kT.stages, KS = kT.split, MC = kT.multicast, kConsumers = BM / 64;
  constexpr unsigned AStage = BM * kLine, BStage = BN * kLine;
  static_assert(BM % 64 == 0 && (BN % 64 == 0 || BN == 32) && kT.bk == kDepth,
                "wgmma tiles of whole 64 x 64 blocks, or 32 wide");
  static_assert(BN % 64 == 0 || (KS == 1 && MC == 1 && !kT.staged), "a 32-wide tile is a plain one");
  // B's lines, one a step of the reduction: an MN-major B 32 wide in 64-byte ones (its tensor
  // map's 64-byte swizzle).
  constexpr int kBLine = TB ? kLine : skb_mm::wgmma_mn_line_bytes(kT);
  static_assert(KS == 1 || BM * BN * 4 <= S * (AStage + BStage), "a split tile's sums fit its buffers");
  static_assert(KS == 1 || !kT.persistent, "a split tile is a cluster a tile, not a persistent grid");
  static_assert(MC == 1 || (KS == 1 && BN / 64 % MC == 0), "a multicast tile shares whole B chunks");
  __shared__ uint64_t full[S], empty[S];
  extern __shared__ __align__(16) unsigned char skb_smem[];
  // The swizzle repeats every 1024 bytes: buffers start on such a boundary (SKB_LAUNCH asks for 1 KiB more).
  unsigned char* base = skb_smem + ((1024 - smem_addr(skb_smem) % 1024) % 1024);
  unsigned char* as = base;
  unsigned char* bs = base + S * AStage;
  unsigned char* staging = base + S * (AStage + BStage);  // a staged tile's outputs, each consumer warp's
  if (threadIdx.x == 0) {
    for (int s = 0; s < S; ++s) bar_init(&full[s], 1), bar_init(&empty[s], kConsumers * MC);
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  __syncthreads();
  if constexpr (MC > 1) cluster::sync();  // the other blocks' barriers are ready for this one's loads
  skb_cu::await_prior_grids();            // nothing above touched global memory
  // Tiles, or for a multicast tile groups of MC tiles one above the other.
  const int64_t tiles = p.batches * skb_mm::ceil_div(p.m, MC * BM) * skb_mm::ceil_div(p.n, BN);
  const unsigned mc_rank = MC > 1 ? cluster::rank() : 0;
  // This block's part of the reduction: steps [first, first + steps) of 64.
  const unsigned q = KS > 1 ? cluster::rank() : 0;
  const cluster::Part part = cluster::part(skb_mm::ceil_div(p.k, kDepth), KS, q);
  const int64_t first = part.first, steps = part.count;
  const int64_t t0 = KS == 1 ? blockIdx.x / MC : blockIdx.x / KS, t_step = KS == 1 ? gridDim.x / MC : tiles;
  const int group = threadIdx.x / 128;
  int64_t bt = 0, m0 = 0, n0 = 0;
  if (KS > 1) mma::tile_origin<BM, BN>(p, t0, bt, m0, n0);  // every thread's, for the sums
  if (group == 0) {                                         // the producer
    set_registers<-40, BN>();
    if (threadIdx.x == 0) {
      if constexpr (kT.persistent || MC > 1) {  // the maps in cache before the first load
        asm volatile("prefetch.tensormap [%0];\n" ::"l"(ma) : "memory");
        asm volatile("prefetch.tensormap [%0];\n" ::"l"(mb) : "memory");
      }
      unsigned it = 0;
      for (int64_t t = t0; t < tiles; t += t_step) {
        mma::tile_origin<MC * BM, BN>(p, t, bt, m0, n0);
        m0 += mc_rank * BM;
        const int ab = a_batched ? (int)bt : 0, bb = b_batched ? (int)bt : 0;
        for (int64_t step = 0; step < steps; ++step, ++it) {
          const unsigned s = it % S;
          bar_wait(&empty[s], (it / S & 1) ^ 1);
          bar_expect(&full[s], AStage + BStage);
          const int k0 = (int)((first + step) * kDepth);
          unsigned char* a = as + s * AStage;
          unsigned char* b = bs + s * BStage;
          if constexpr (TA)
            for (int j = 0; j < BM / 64; ++j) tma_load(a + j * kChunk, ma, &full[s], (int)m0 + 64 * j, k0, ab);
          else
            tma_load(a, ma, &full[s], k0, (int)m0, ab);
          if constexpr (MC > 1) {  // this block's share of B, into every block of the cluster
            constexpr uint16_t kAll = (1u << MC) - 1;
            if constexpr (TB)
              tma_load_multicast(b + mc_rank * (BN / MC) * kLine, mb, &full[s], k0, (int)n0 + mc_rank * (BN / MC), bb,
                                 kAll);
            else
              for (int j = mc_rank; j < BN / 64; j += MC)
                tma_load_multicast(b + j * kChunk, mb, &full[s], (int)n0 + 64 * j, k0, bb, kAll);
          } else if constexpr (TB) {
            tma_load(b, mb, &full[s], k0, (int)n0, bb);
          } else {
            for (int j = 0; j < (BN + 63) / 64; ++j) tma_load(b + j * kChunk, mb, &full[s], (int)n0 + 64 * j, k0, bb);
          }
        }
      }
    }
    if constexpr (KS == 1 && MC == 1) return;
  } else {
    set_registers<232, BN>();
    const int c = group - 1, lane = threadIdx.x % 32, warp = threadIdx.x / 32 % 4;
    unsigned it = 0;
    // A stage is free once this block's consumers are done with it, and a multicast tile's in
    // every block of its cluster.
    auto release = [&](unsigned s) {
      if constexpr (MC > 1)
        for (unsigned r = 0; r < MC; ++r) bar_arrive_at(&empty[s], r);
      else
        bar_arrive(&empty[s]);
    };
    for (int64_t t = t0; t < tiles; t += t_step) {
      mma::tile_origin<MC * BM, BN>(p, t, bt, m0, n0);
      m0 += mc_rank * BM;
      float d[BN / 2];
#pragma unroll
      for (int i = 0; i < BN / 2; ++i) d[i] = 0.f;
      for (int64_t step = 0; step < steps; ++step, ++it) {
        const unsigned s = it % S;
        bar_wait(&full[s], it / S & 1);
        const unsigned char* a = as + s * AStage;
        const unsigned char* b = bs + s * BStage;
        fence();
#pragma unroll
        for (int kk = 0; kk < kDepth / 16; ++kk) {
          // A: this consumer's 64 rows; a K-major operand steps 32 bytes along its lines, an
          // MN-major one 16 lines (its 64-row slice is one 64 x 64 block).
          const uint64_t da = TA ? desc(a + c * kChunk + kk * 16 * kLine, kChunk, 8 * kLine)
                                 : desc(a + c * 64 * kLine + kk * 32, 16, 8 * kLine);
          const uint64_t db =
              TB ? desc(b + kk * 32, 16, 8 * kLine) : desc<kBLine>(b + kk * 16 * kBLine, kDepth * kBLine, 8 * kBLine);
          mma<T, BN, TA, !TB>(d, da, db);  // B is MN-major unless transposed
        }
        commit();
        if constexpr (KS == 1) {
          // One group stays in flight: the step before this one is done, and its buffer is free.
          wait_pending<1>();
          if (step > 0 && threadIdx.x % 128 == 0) release((it + S - 1) % S);
        } else {
          // A split tile's sums leave the registers afterwards: with a group in flight here,
          // ptxas would serialize every wgmma.
          wait_pending<0>();
          if (threadIdx.x % 128 == 0) release(s);
        }
      }
      if constexpr (KS == 1) {
        wait_pending<0>();
        if (steps > 0 && threadIdx.x % 128 == 0) release((it + S - 1) % S);
      }
      // The fragment: per 8 columns j, rows r and r + 8 of this warp's 16, columns 2 (lane % 4) and +1.
      const int r = c * 64 + warp * 16 + lane / 4;
      if constexpr (KS > 1) {
        // Every load of this block has landed and been read once every consumer is here: its
        // buffers hold its sums then.
        asm volatile("bar.sync 1, %0;\n" ::"n"(kConsumers * 128) : "memory");
        float* sums = reinterpret_cast<float*>(base);
#pragma unroll
        for (int j = 0; j < BN / 8; ++j)
#pragma unroll
          for (int h = 0; h < 2; ++h) {
            const int col = j * 8 + lane % 4 * 2;
            *reinterpret_cast<float2*>(&sums[(r + 8 * h) * BN + col]) =
                make_float2(d[4 * j + 2 * h], d[4 * j + 2 * h + 1]);
          }
      } else if constexpr (kT.staged && sizeof(decltype(store.value(0, 0.f))) == 2) {
        store_staged<BN>(d, store, bt, m0 + c * 64 + warp * 16, n0, p.m, p.n,
                         staging + (c * 4 + warp) * skb_mm::kStagedWarpBytes);
      } else {
#pragma unroll
        for (int j = 0; j < BN / 8; ++j) {
          const int64_t col = n0 + j * 8 + lane % 4 * 2;
#pragma unroll
          for (int h = 0; h < 2; ++h) {
            const int64_t row = m0 + r + 8 * h;
            if (row >= p.m) continue;
            if (col < p.n) store(bt, row, col, d[4 * j + 2 * h]);
            if (col + 1 < p.n) store(bt, row, col + 1, d[4 * j + 2 * h + 1]);
          }
        }
      }
    }
  }
  if constexpr (KS > 1) {
    // Every block of the cluster has its sums in place; this one adds up its rows of all.
    __syncwarp();  // the producer's first thread rejoins its warp
    constexpr int kRun = kT.staged ? 8 : 4;
    cluster::add_up<BM, BN, KS, skb_mm::wgmma_threads(kT), kRun>(
        reinterpret_cast<const float*>(base), q,
        [&](int rr, int col, const float(&vals)[kRun]) { store_run<kRun>(store, bt, m0 + rr, n0 + col, vals); });
  }
  if constexpr (MC > 1) {
    // No block leaves while another may still load into it or arrive on its barriers.
    __syncwarp();
    cluster::sync();
  }
}

}  // namespace skb_cu::wgmma
