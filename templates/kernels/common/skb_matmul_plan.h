// The tile of a static matmul kernel, chosen from its shape when it is compiled: constant
// expressions only, shared by the cuda template (matmul.cu) and the CPU unit tests.
//
// A tile is BM x BN outputs per block, BK of the reduction per step, a grid of warps each
// computing WM x WN, and STAGES shared-memory buffers in flight. The choice weighs, for every
// candidate a shape allows, the time of its busiest multiprocessor: the tiles it runs (waves,
// so a shape of 16 tiles on 132 multiprocessors leaves 116 idle whatever the tile) times what
// one tile costs (its outputs times the reduction, divided by how well a tile of that size feeds
// the arithmetic units). Ties go to the larger tile (fewer global reads).
#pragma once
#include <stdint.h>

#ifndef SKB_HD
#ifdef __CUDACC__
#define SKB_HD __host__ __device__
#else
#define SKB_HD
#endif
#endif

namespace skb_mm {

/// One candidate. `feed` is its throughput relative to the best tile, per mille: a block of
/// fewer than 4 warps leaves tensor units idle, a small tile reads more per output. The feeds
/// are those measured on an H200 (scripts/gpu-check.sh's tile sweep, every candidate of a 4096³
/// product, where every tile runs many waves).
struct Tile {
  int bm, bn, bk, wm, wn, stages, feed;
  SKB_HD constexpr int warps() const { return (bm / wm) * (bn / wn); }
  SKB_HD constexpr int threads() const { return warps() * 32; }
};

/// Tensor-core tiles (16-bit operands, mma.sync m16n8k16): warp tiles are multiples of 16x16.
constexpr Tile kMmaTiles[] = {
    {128, 128, 32, 64, 64, 4, 1000}, {128, 64, 32, 64, 32, 4, 796}, {64, 128, 32, 32, 64, 4, 860},
    {64, 64, 32, 32, 32, 4, 650},    {32, 64, 32, 32, 32, 4, 465},  {64, 32, 32, 32, 32, 4, 388},
};
constexpr int kNumMmaTiles = sizeof kMmaTiles / sizeof kMmaTiles[0];

/// Float tiles (FFMA on 256 threads, each BM/16 x BN/16 outputs): wm/wn are the thread's.
constexpr Tile kFmaTiles[] = {
    {128, 128, 8, 8, 8, 2, 810}, {128, 64, 8, 8, 4, 2, 1000}, {64, 128, 8, 4, 8, 2, 890},
    {64, 64, 8, 4, 4, 2, 930},   {32, 64, 8, 2, 4, 2, 740},   {64, 32, 8, 4, 2, 2, 790},
};
constexpr int kNumFmaTiles = sizeof kFmaTiles / sizeof kFmaTiles[0];

/// Padding of a shared-memory row, in elements: 16 bytes, so that 8 rows read at once
/// (ldmatrix) fall in 8 different bank groups.
SKB_HD constexpr int pad(int elem_bytes) { return 16 / elem_bytes; }

/// Shared memory a tensor-core tile takes: STAGES copies of its A and B tiles, padded.
/// The layout follows the operands' (a transposed operand is stored as it lies).
SKB_HD constexpr int mma_smem_bytes(const Tile& t, int elem_bytes, bool ta, bool tb) {
  const int p = pad(elem_bytes);
  const int a = ta ? t.bk * (t.bm + p) : t.bm * (t.bk + p);
  const int b = tb ? t.bn * (t.bk + p) : t.bk * (t.bn + p);
  return t.stages * (a + b) * elem_bytes;
}

/// Shared memory a float tile takes: both operands stored k-major, double buffered.
SKB_HD constexpr int fma_smem_bytes(const Tile& t) { return t.stages * t.bk * (t.bm + t.bn + 8) * 4; }

/// What the choice knows of a static matmul.
struct Problem {
  int64_t batches, m, n, k;
  int multiprocessors;  // of the GPU the kernel is built for
  int smem_limit;       // bytes of shared memory one block may have
};

SKB_HD constexpr int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// The candidate's cost in arbitrary units: the waves of tiles times one tile's work over its
/// feed. Tiles that overhang the shape count whole: they take as long.
SKB_HD constexpr int64_t cost(const Problem& p, const Tile& t) {
  const int64_t tiles = p.batches * ceil_div(p.m, t.bm) * ceil_div(p.n, t.bn);
  const int64_t waves = ceil_div(tiles, p.multiprocessors);
  const int64_t steps = ceil_div(p.k, t.bk) * t.bk;
  return waves * (int64_t)t.bm * t.bn * steps / t.feed;
}

/// Index of the cheapest candidate of `tiles` (n of them) whose shared memory fits; -1 when
/// none does. smem(i) gives candidate i's bytes.
template <class Smem>
SKB_HD constexpr int cheapest(const Problem& p, const Tile* tiles, int n, Smem smem) {
  int best = -1;
  int64_t best_cost = 0;
  for (int i = 0; i < n; ++i) {
    if (smem(i) > p.smem_limit) continue;
    const int64_t c = cost(p, tiles[i]);
    if (best < 0 || c < best_cost) best = i, best_cost = c;
  }
  return best;
}

struct MmaSmem {
  int elem_bytes;
  bool ta, tb;
  SKB_HD constexpr int operator()(int i) const { return mma_smem_bytes(kMmaTiles[i], elem_bytes, ta, tb); }
};
struct FmaSmem {
  SKB_HD constexpr int operator()(int i) const { return fma_smem_bytes(kFmaTiles[i]); }
};

/// The tensor-core tile of a 16-bit matmul; -1 when none fits.
SKB_HD constexpr int choose_mma(const Problem& p, int elem_bytes, bool ta, bool tb) {
  return cheapest(p, kMmaTiles, kNumMmaTiles, MmaSmem{elem_bytes, ta, tb});
}

/// The float tile of a float matmul; -1 when none fits.
SKB_HD constexpr int choose_fma(const Problem& p) { return cheapest(p, kFmaTiles, kNumFmaTiles, FmaSmem{}); }

/// Whether the tensor-core kernel can read the operands: 16-byte copies need the contiguous
/// axis of each (k for a plain A and a transposed B, m and n otherwise) a multiple of 8.
SKB_HD constexpr bool mma_readable(int64_t m, int64_t n, int64_t k, bool ta, bool tb) {
  return (ta ? m : k) % 8 == 0 && (tb ? k : n) % 8 == 0;
}

/// Multiprocessors of the GPUs of an architecture (compute capability major*10+minor), the
/// largest part of each (H100/H200 SXM, A100, RTX A6000, L40/RTX 4090); 0 when unknown.
SKB_HD constexpr int multiprocessors(int arch) {
  return arch >= 100  ? 148
         : arch >= 90 ? 132
         : arch == 89 ? 142
         : arch == 87 ? 16
         : arch == 86 ? 84
         : arch >= 80 ? 108
         : arch >= 75 ? 72
         : arch >= 70 ? 80
                      : 0;
}

/// Shared memory one block may opt into, by architecture (the CUDA programming guide's table).
SKB_HD constexpr int smem_limit(int arch) {
  return arch >= 90                 ? 227 * 1024
         : arch == 80 || arch == 87 ? 163 * 1024
         : arch >= 86               ? 99 * 1024
         : arch >= 75               ? 64 * 1024
                                    : 48 * 1024;
}

}  // namespace skb_mm
