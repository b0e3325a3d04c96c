// The tile of a static matmul kernel, chosen from its shape when it is compiled: constant
// expressions only, shared by the cuda template (matmul.cu) and the CPU unit tests.
//
// A tile is BM x BN outputs per block, BK of the reduction per step, a grid of warps each
// computing WM x WN, and STAGES shared-memory buffers in flight. The choice weighs, for every
// candidate a shape allows, the time of its busiest multiprocessor: the waves of blocks it runs
// (so a shape of 16 tiles on 132 multiprocessors leaves 116 idle whatever the tile) times what
// one block takes, its outputs times its part of the reduction at the rate the tile sustains,
// plus what a wave costs whatever its work (filling the pipeline, the epilogue, a split tile's
// sums). Both are measured on an H200: scripts/gpu-check.sh's tile sweep times every candidate
// on every shape of tests/tools/sweep_calls.py, and tests/bench/cuda_tile_fit.py fits each
// tile's two figures to its times (tiles that differ only in their block's aspect share one wave
// cost). The figures below are the fit of the sweeps tests/bench/data/tile-sweep-h200-*.json in
// the order they ran, a tile's from the first that timed it; a test holds them to it.
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

/// One candidate: `feed`, multiply-adds of a block per nanosecond (its outputs times its part of
/// the reduction); `wave_ns`, the nanoseconds a wave takes besides. A feed of 0 is a candidate
/// no GPU has timed yet: the sweep builds it (SKB_MATMUL_TILE), the choice never takes it, and
/// tests/bench/cuda_tile_fit.py gives it its figures from the sweep's times.
struct Tile {
  int bm, bn, bk, wm, wn, stages, feed, wave_ns;
  int split = 1;       // blocks (a cluster) that share a tile's reduction: sm_90a builds only
  int persistent = 0;  // 1: one block a multiprocessor, each looping over its tiles: wgmma tiles only
  int multicast = 1;   // blocks (a cluster) on tiles one above the other that share B's loads: wgmma only
  int staged = 0;      // 1: outputs leave through shared memory, 16 bytes a thread a store (a split
                       // tile's sums, 8 a thread; the others' fragments, 64 columns a warp): wgmma only
  SKB_HD constexpr int warps() const { return (bm / wm) * (bn / wn); }
  SKB_HD constexpr int threads() const { return warps() * 32; }
};

/// Tensor-core tiles (16-bit operands, mma.sync m16n8k16): warp tiles are multiples of 16x16.
constexpr Tile kMmaTiles[] = {
    {128, 128, 32, 64, 64, 4, 970, 8321},
    {128, 64, 32, 64, 32, 4, 873, 5801},
    {64, 128, 32, 32, 64, 4, 896, 5801},
    {64, 64, 32, 32, 32, 4, 734, 4003},
    {32, 64, 32, 32, 32, 4, 502, 2566},
    {64, 32, 32, 32, 32, 4, 452, 2566},
    // A reduction of up to 128 in one step (no barrier between steps), for products of a few
    // blocks, whose time is the latency of their steps: 16 x 32 on 2 warps, and 32 x 64.
    {16, 32, 128, 16, 16, 2, 238, 774},
    {32, 64, 128, 32, 32, 2, 496, 2657},
};
constexpr int kNumMmaTiles = sizeof kMmaTiles / sizeof kMmaTiles[0];

/// Warpgroup tensor-core tiles (sm_90a: wgmma and TMA): BM / 64 consumer warpgroups of 64 rows
/// each and a producer warpgroup; bk is the reduction a stage holds, one 128-byte swizzled line
/// of 16-bit elements (wm, wn: a consumer's slice).
constexpr int kWgmmaDepth = 64;
/// A split tile (split > 1) is computed by a cluster of that many blocks, each over a part of the
/// reduction, for shapes of few tiles and a long reduction.
constexpr Tile kWgmmaTiles[] = {
    {128, 256, 64, 64, 256, 4, 2966, 9221},
    {128, 128, 64, 64, 128, 6, 2736, 7712},
    {64, 256, 64, 64, 256, 5, 2884, 7021},
    {64, 128, 64, 64, 128, 8, 2397, 5703},
    {128, 64, 64, 64, 64, 8, 2141, 5703},
    {64, 64, 64, 64, 64, 8, 1700, 4418},
    {128, 128, 64, 64, 128, 6, 3171, 6386, 2},
    {64, 128, 64, 64, 128, 8, 2467, 5732, 4},
    {64, 64, 64, 64, 64, 8, 1274, 3919, 2},
    // Persistent twins of the first two, whose producer loads a block's next tile while its
    // consumers store the last.
    {128, 256, 64, 64, 256, 4, 2959, 9071, 1, 1},
    {128, 128, 64, 64, 128, 6, 2709, 7751, 1, 1},
    // The same two in clusters of 2 that load each B once for both.
    {128, 256, 64, 64, 256, 4, 2916, 9709, 1, 0, 2},
    {128, 128, 64, 64, 128, 6, 2543, 8408, 1, 0, 2},
    // The first one alone, persistent and in clusters of 2, each warp's outputs staged in shared
    // memory 16 rows x 64 columns at a time and stored a 128-byte row per 8 threads, where the
    // fragment's own stores write 2 bytes each, 4 bytes apart.
    {128, 256, 64, 64, 256, 4, 3322, 3955, 1, 0, 1, 1},
    {128, 256, 64, 64, 256, 4, 3322, 3935, 1, 1, 1, 1},
    {128, 256, 64, 64, 256, 4, 3347, 4680, 1, 0, 2, 1},
    // Persistent clusters of 2 sharing B, with fragment and with staged stores.
    {128, 256, 64, 64, 256, 4, 2942, 9748, 1, 1, 2},
    {128, 256, 64, 64, 256, 4, 3385, 4743, 1, 1, 2, 1},
    // The three split tiles, staged: each thread adds up 8 outputs of a row and stores them at
    // once (16 bytes), where the others store 4 sums 2 bytes at a time.
    {128, 128, 64, 64, 128, 6, 2976, 7022, 2, 0, 1, 1},
    {64, 128, 64, 64, 128, 8, 2067, 6454, 4, 0, 1, 1},
    {64, 64, 64, 64, 64, 8, 1225, 4023, 2, 0, 1, 1},
    // 128 x 128 split over clusters of 4 and 8, staged, with the stages their part of a 1024-deep
    // reduction needs: on a 256 x 1024 output, half and as many blocks as 64 x 64 split in 2
    // gives, loading half its operand bytes in all (a block reads its tile's rows of A and
    // columns of B once per part, so the operands' traffic from L2 goes as 1 / BM + 1 / BN).
    {128, 128, 64, 64, 128, 4, 3249, 8640, 4, 0, 1, 1},
    {128, 128, 64, 64, 128, 2, 4460, 12275, 8, 0, 1, 1},
    // 64 x 32, whole reductions: on a 256 x 1024 output as many blocks as 64 x 64 split in 2,
    // without the sums meeting in a cluster (an MN-major B in 64-byte lines).
    {64, 32, 64, 64, 32, 8, 972, 2540},
};
constexpr int kNumWgmmaTiles = sizeof kWgmmaTiles / sizeof kWgmmaTiles[0];

/// Float tiles (FFMA on 256 threads, each BM/16 x BN/16 outputs): wm/wn are the thread's.
constexpr Tile kFmaTiles[] = {
    {128, 128, 8, 8, 8, 2, 138, 8343},
    {128, 64, 8, 8, 4, 2, 140, 18974},
    {64, 128, 8, 4, 8, 2, 135, 18974},
    {64, 64, 8, 4, 4, 2, 115, 22489},
    {32, 64, 8, 2, 4, 2, 82, 18550},
    {64, 32, 8, 4, 2, 2, 90, 18550},
    // 32 deep (a quarter of the barriers a reduction crosses); 32 x 32 (a small product's blocks,
    // several resident on a multiprocessor at once); split over a cluster of 2 or 4 (a thread's
    // 16 outputs, on as many blocks as 64 x 32 gives).
    {64, 64, 32, 4, 4, 2, 112, 12281},
    {32, 64, 32, 2, 4, 2, 76, 9706},
    {64, 32, 32, 4, 2, 2, 89, 9706},
    {32, 32, 8, 2, 2, 2, 67, 6028},
    {32, 32, 32, 2, 2, 2, 61, 2146},
    {64, 64, 8, 4, 4, 2, 119, 14387, 2},
    {64, 64, 8, 4, 4, 2, 105, 5854, 4},
    // The split of 4 16 deep, half the barriers of a block's short reduction.
    {64, 64, 16, 4, 4, 2, 122, 5159, 4},
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

/// Columns of a staged wgmma tile's outputs a consumer warp holds in shared memory at once, and
/// the padding of each of its 16 rows there (elements): 16 bytes, so that the fragment's 4-byte
/// writes and the 16-byte reads of a row fall in different banks.
constexpr int kStagedCols = 64;
constexpr int kStagedPad = 8;
constexpr int kStagedPitch = kStagedCols + kStagedPad;  // elements from one staged row to the next
/// Bytes of one consumer warp's staged outputs: 16 rows of 16-bit elements.
constexpr int kStagedWarpBytes = 16 * kStagedPitch * 2;

/// Where a staged warp's lane puts its two outputs of 8-column group jj and half h of the
/// fragment (row lane / 4 + 8 h, columns jj * 8 + 2 (lane % 4) and the next): an element offset
/// into the warp's rows.
SKB_HD constexpr int staged_pair(int lane, int jj, int h) {
  return (lane / 4 + 8 * h) * kStagedPitch + jj * 8 + lane % 4 * 2;
}
/// The row (of 16) whose 8 outputs from column staged_col(lane) a lane stores in read i (of 4).
SKB_HD constexpr int staged_row(int lane, int i) { return i * 4 + lane / 8; }
SKB_HD constexpr int staged_col(int lane) { return lane % 8 * 8; }

/// Shared memory a staged wgmma tile's consumer warps (bm / 16) hold their outputs in; none for
/// the others, nor for a split one (its sums are in its stages' buffers).
SKB_HD constexpr int wgmma_staging_bytes(const Tile& t) {
  return t.staged && t.split == 1 ? t.bm / 16 * kStagedWarpBytes : 0;
}

/// Shared memory a wgmma tile asks for: STAGES of both operands' 128-byte lines, 1 KiB to start
/// the buffers on the swizzle's 1024-byte boundary, and a staged tile's outputs.
SKB_HD constexpr int wgmma_smem_bytes(const Tile& t) {
  return t.stages * (t.bm + t.bn) * 128 + 1024 + wgmma_staging_bytes(t);
}

/// Bytes of a shared-memory line of a wgmma tile's MN-major B, which its tensor map's box and
/// swizzle span: 64 columns of 16-bit elements, or a tile 32 wide's 32 (the 64-byte swizzle).
SKB_HD constexpr int wgmma_mn_line_bytes(const Tile& t) { return t.bn == 32 ? 64 : 128; }

/// Threads of a wgmma tile's block: its consumer warpgroups and the producer's.
SKB_HD constexpr int wgmma_threads(const Tile& t) { return (t.bm / 64 + 1) * 128; }

/// Shared memory a float tile takes: both operands stored k-major, double buffered, and a split
/// tile's sums.
SKB_HD constexpr int fma_smem_bytes(const Tile& t) {
  return (t.stages * t.bk * (t.bm + t.bn + 8) + (t.split > 1 ? t.bm * t.bn : 0)) * 4;
}

/// What the choice knows of a static matmul.
struct Problem {
  int64_t batches, m, n, k;
  int multiprocessors;  // of the GPU the kernel is built for
  int smem_limit;       // bytes of shared memory one block may have
};

SKB_HD constexpr int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// Output tiles of a problem in a tile (a multicast tile's clusters cover whole groups of tiles
/// one above the other).
SKB_HD constexpr int64_t tiles(const Problem& p, const Tile& t) {
  return p.batches * ceil_div(p.m, t.bm * t.multicast) * t.multicast * ceil_div(p.n, t.bn);
}

/// Blocks a kernel of tile t launches: one a tile (a cluster of `split` a split tile), or for a
/// persistent tile one a multiprocessor where the tiles are more, each looping over its share
/// (whole clusters of a multicast tile: each cluster over its groups of tiles).
SKB_HD constexpr int64_t blocks(const Problem& p, const Tile& t) {
  return t.persistent && p.multiprocessors >= t.multicast && tiles(p, t) > p.multiprocessors
             ? p.multiprocessors / t.multicast * t.multicast
             : tiles(p, t) * t.split;
}

/// The candidate's time in nanoseconds: the waves of blocks times what one takes. Tiles that
/// overhang the shape count whole: they take as long.
SKB_HD constexpr int64_t cost(const Problem& p, const Tile& t) {
  if (t.feed <= 0) return INT64_MAX;  // not timed: never the cheapest
  const int64_t waves = ceil_div(tiles(p, t) * t.split, p.multiprocessors);
  const int64_t steps = ceil_div(ceil_div(p.k, t.bk), t.split) * t.bk;
  return waves * ((int64_t)t.bm * t.bn * steps / t.feed + t.wave_ns);
}

/// Index of the cheapest candidate of `tiles` (n of them) whose shared memory fits; -1 when
/// none does. smem(i) gives candidate i's bytes, or -1 where the kernel cannot launch it.
template <class Smem>
SKB_HD constexpr int cheapest(const Problem& p, const Tile* tiles, int n, Smem smem) {
  int best = -1;
  int64_t best_cost = 0;
  for (int i = 0; i < n; ++i) {
    if (tiles[i].feed <= 0 || smem(i) < 0 || smem(i) > p.smem_limit) continue;
    // A cluster's blocks (a split or multicast tile's) are one grid, each cluster computing its tiles once.
    if (tiles[i].split * tiles[i].multicast > 1 && blocks(p, tiles[i]) > 0x7fffffff) continue;
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
/// clusters: the kernel is declared with a cluster's dimensions (sm_90a builds), as a split tile needs.
struct FmaSmem {
  bool clusters;
  SKB_HD constexpr int operator()(int i) const {
    return kFmaTiles[i].split > 1 && !clusters ? -1 : fma_smem_bytes(kFmaTiles[i]);
  }
};

struct WgmmaSmem {
  SKB_HD constexpr int operator()(int i) const { return wgmma_smem_bytes(kWgmmaTiles[i]); }
};

/// The tensor-core tile of a 16-bit matmul, an index into kMmaTiles and then kWgmmaTiles (i
/// from kNumMmaTiles on is wgmma tile i - kNumMmaTiles); wgmma: the kernel may use those. -1
/// when none fits.
SKB_HD constexpr int choose_mma(const Problem& p, int elem_bytes, bool ta, bool tb, bool wgmma = false) {
  const int sync = cheapest(p, kMmaTiles, kNumMmaTiles, MmaSmem{elem_bytes, ta, tb});
  const int wg = wgmma ? cheapest(p, kWgmmaTiles, kNumWgmmaTiles, WgmmaSmem{}) : -1;
  if (wg < 0) return sync;
  if (sync < 0 || cost(p, kWgmmaTiles[wg]) <= cost(p, kMmaTiles[sync])) return kNumMmaTiles + wg;
  return sync;
}

/// Whether tile index i (choose_mma's) is a wgmma tile.
SKB_HD constexpr bool is_wgmma(int i) { return i >= kNumMmaTiles; }

/// The float tile of a float matmul; -1 when none fits. clusters: split tiles may be chosen.
SKB_HD constexpr int choose_fma(const Problem& p, bool clusters = false) {
  return cheapest(p, kFmaTiles, kNumFmaTiles, FmaSmem{clusters});
}

/// Whether the tensor-core kernel can read the operands: 16-byte copies need the contiguous
/// axis of each (k for a plain A and a transposed B, m and n otherwise) a multiple of 8.
SKB_HD constexpr bool mma_readable(int64_t m, int64_t n, int64_t k, bool ta, bool tb) {
  return (ta ? m : k) % 8 == 0 && (tb ? k : n) % 8 == 0;
}

/// Whether the wgmma kernel can read an operand through a tensor map: one matrix for every
/// output batch (count == batches) or one for all (count == 1), each axis under 2^31 elements.
SKB_HD constexpr bool wgmma_readable(int64_t count, int64_t batches, int64_t rows, int64_t cols) {
  return (count == 1 || count == batches) && count < (int64_t{1} << 31) && rows < (int64_t{1} << 31) &&
         cols < (int64_t{1} << 31);
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
