// MatMulV2 (transpose_x1/transpose_x2) and BatchMatMulV2 (adj_x1/adj_x2, broadcast batches),
// optional bias of N elements. Accumulates in float.
//
// A static kernel picks its tile from its shape (skb_matmul_plan.h) and launches itself with
// it (SKB_LAUNCH): float16 and bfloat16 operands on tensor cores (matmul_mma.h, sm_80 and later,
// the operands' contiguous axes multiples of 8), float ones in float32 fused multiply-adds
// (matmul_fma.h). SKB_MATMUL_TILE=i forces candidate i (for timing candidates on a GPU).
//
// Otherwise, and for the dynamic twin: with 256 threads a block, each block computes 16x16 tiles
// of the output from 16x16 tiles of both operands staged in shared memory (each operand element
// read once per tile instead of once per output); with another block size, one thread per output
// element.
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

#include "matmul_fma.h"

#ifdef __CUDA_ARCH__
#define SKB_ARCH (__CUDA_ARCH__ / 10)
#else
#define SKB_ARCH 0
#endif
// Hopper's own instructions (wgmma, setmaxnreg) exist where the kernel is built for sm_90a: its
// kernels read operands through tensor maps and take them as a second parameter.
#ifdef __CUDA_ARCH_FEAT_SM90_ALL
#define SKB_WGMMA 1
#include "matmul_wgmma.h"
#else
#define SKB_WGMMA 0
#endif
namespace plan {
using skb_geom::Same;
constexpr Params kP = make_static();
constexpr skb_mm::Problem kProblem{
    kP.batches, kP.m, kP.n, kP.k, skb_mm::multiprocessors(SKB_ARCH), skb_mm::smem_limit(SKB_ARCH)};
constexpr bool kMma =
    SKB_ARCH >= 80 && Same<TA, TB>::value && sizeof(TA) == 2 && skb_mm::mma_readable(kP.m, kP.n, kP.k, kP.ta, kP.tb);
constexpr bool kFma = Same<TA, float>::value && Same<TB, float>::value;
// The matrices each operand holds: the wgmma kernel reads one per output batch or one for all.
constexpr int64_t kACount = skb_geom::batch_dims(SKB_IN_DIMS(0)).numel();
constexpr int64_t kBCount = skb_geom::batch_dims(SKB_IN_DIMS(1)).numel();
constexpr bool kWgmma = SKB_WGMMA && kMma && skb_mm::wgmma_readable(kACount, kP.batches, kP.m, kP.k) &&
                        skb_mm::wgmma_readable(kBCount, kP.batches, kP.k, kP.n);
#ifdef SKB_MATMUL_TILE
// A forced tile the kernel cannot use (a wgmma tile where wgmma is not, a float matmul's tile
// past the float candidates, a split one outside sm_90a) leaves it the element path: slow, not wrong.
constexpr int kTile = (kMma && skb_mm::is_wgmma(SKB_MATMUL_TILE) && !kWgmma) ||
                              (!kMma && (SKB_MATMUL_TILE >= skb_mm::kNumFmaTiles ||
                                         (skb_mm::kFmaTiles[SKB_MATMUL_TILE].split > 1 && !SKB_WGMMA)))
                          ? -1
                          : SKB_MATMUL_TILE;
#else
constexpr int kTile = kMma   ? skb_mm::choose_mma(kProblem, 2, kP.ta, kP.tb, kWgmma)
                      : kFma ? skb_mm::choose_fma(kProblem, SKB_WGMMA)
                             : -1;
#endif
enum Path { kElements, kTensorCores, kWarpgroups, kFusedMultiplyAdds };
constexpr Path kPath = kTile < 0 ? kElements
                       : kMma    ? (skb_mm::is_wgmma(kTile) ? kWarpgroups : kTensorCores)
                       : kFma    ? kFusedMultiplyAdds
                                 : kElements;
constexpr skb_mm::Tile kT = kPath == kWarpgroups    ? skb_mm::kWgmmaTiles[kTile - skb_mm::kNumMmaTiles]
                            : kPath == kTensorCores ? skb_mm::kMmaTiles[kTile < 0 ? 0 : kTile]
                                                    : skb_mm::kFmaTiles[kTile < 0 ? 0 : kTile];
// A block a tile (a cluster a split tile), or a persistent wgmma tile's one a multiprocessor.
constexpr int64_t kBlocks = skb_mm::blocks(kProblem, kT);
constexpr int64_t kGridCap = 0x7fffffff;
constexpr unsigned kThreads = kPath == kTensorCores  ? kT.threads()
                              : kPath == kWarpgroups ? skb_mm::wgmma_threads(kT)
                                                     : 256;
constexpr unsigned kGrid = kPath == kElements ? (unsigned)(skb_mm::ceil_div(kP.batches * kP.m * kP.n, 256) < 4096
                                                               ? skb_mm::ceil_div(kP.batches * kP.m * kP.n, 256)
                                                               : 4096)
                                              : (unsigned)(kBlocks < kGridCap ? kBlocks : kGridCap);
constexpr unsigned kShared = kPath == kTensorCores  ? skb_mm::mma_smem_bytes(kT, 2, kP.ta, kP.tb)
                             : kPath == kWarpgroups ? skb_mm::wgmma_smem_bytes(kT)
                                                    : 0;
static_assert((kPath != kTensorCores && kPath != kWarpgroups) || kShared <= (unsigned)skb_mm::smem_limit(SKB_ARCH),
              "skb: the forced tile needs more shared memory than this architecture gives a block");
#if SKB_WGMMA
// A split or multicast tile is a cluster of blocks (matmul_cluster.h, matmul_wgmma.h); every
// other kernel a cluster of one.
constexpr unsigned kCluster = kPath == kWarpgroups          ? kT.split * kT.multicast
                              : kPath == kFusedMultiplyAdds ? kT.split
                                                            : 1;
// The tensor maps of the wgmma kernel: each operand 3-D (its contiguous axis, the other, its
// matrices), a box of 64 along the contiguous axis (one swizzled line) by the tile's rows of a
// K-major operand (a multicast tile's block loads its share of B's), or by 64 of the reduction
// for an MN-major one, which is loaded a line at a time (skb_mm::wgmma_mn_line_bytes: 64
// columns, or a tile 32 wide's 32 with the 64-byte swizzle).
constexpr uint32_t kMapType = Same<TA, __half>::value ? 6 : 9;  // CU_TENSOR_MAP_DATA_TYPE_FLOAT16, _BFLOAT16
constexpr uint32_t kSwizzle128 = 3, kSwizzle64 = 2;             // CU_TENSOR_MAP_SWIZZLE_128B, _64B
constexpr skb_cuda_tma map(int slot, int64_t contiguous, int64_t other, int64_t count, uint32_t rows, int line = 128) {
  return skb_cuda_tma{slot,
                      kMapType,
                      line == 64 ? kSwizzle64 : kSwizzle128,
                      3,
                      {(uint64_t)contiguous, (uint64_t)other, (uint64_t)count},
                      {(uint64_t)contiguous * 2, (uint64_t)(contiguous * other) * 2},
                      {(uint32_t)line / 2, rows, 1},
                      0};
}
constexpr skb_cuda_tma_plan kMaps =
    kPath != kWarpgroups
        ? skb_cuda_tma_plan{0, 0, {}}
        : skb_cuda_tma_plan{2,
                            0,
                            {kP.ta ? map(0, kP.m, kP.k, kACount, 64) : map(0, kP.k, kP.m, kACount, kT.bm),
                             kP.tb ? map(1, kP.k, kP.n, kBCount, kT.bn / kT.multicast)
                                   : map(1, kP.n, kP.k, kBCount, 64, skb_mm::wgmma_mn_line_bytes(kT))}};
#endif
}  // namespace plan

// Where a tile's outputs go: y, each with its column's bias.
struct Output {
  TY* y;
  const TBias* bias;
  int64_t m, n;
  bool whole;  // a row's 8 outputs from a multiple of 8 take one 16-byte store (y aligned, n a multiple of 8)
  /// The place of output (bt, row, col).
  __device__ TY* at(int64_t bt, int64_t row, int64_t col) const { return y + (bt * m + row) * n + col; }
  /// The output of column col (under n) whose sum is v.
  __device__ TY value(int64_t col, float v) const {
    if (SKB_HAS_BIAS) v += skb_cu::to_float(bias[col]);
    return skb_cu::from_float<TY>(v);
  }
  __device__ void operator()(int64_t bt, int64_t row, int64_t col, float v) const { *at(bt, row, col) = value(col, v); }
};

__device__ inline void run_static(const Params& p, skb_args args, const skb_cuda_tensor_maps* maps) {
  const TA* x1 = static_cast<const TA*>(args.in[0]);
  const TB* x2 = static_cast<const TB*>(args.in[1]);
  const TBias* bias = SKB_HAS_BIAS ? static_cast<const TBias*>(args.in[2]) : nullptr;
  TY* y = static_cast<TY*>(args.out[0]);
  auto offsets = [&](int64_t bt, int64_t& oa, int64_t& ob) { batch_offsets(p, bt, oa, ob); };
  const Output store{y, bias, p.m, p.n, plan::kP.n % 8 == 0 && reinterpret_cast<uintptr_t>(y) % 16 == 0};
  constexpr int kIndex = plan::kTile < 0 ? 0 : plan::kTile;
  // The tiles need the launch the kernel asked for (SKB_LAUNCH): a runtime that launched it
  // otherwise gets the slow path, not a wrong result.
  unsigned shared = 0;
  asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(shared));
  const bool launched = blockDim.x == plan::kThreads && shared + 1 > plan::kShared;
  if constexpr (plan::kPath == plan::kWarpgroups) {
#if SKB_WGMMA
    if (launched && maps && maps->encoded == plan::kMaps.count) {
      skb_cu::wgmma::run<plan::kTile - skb_mm::kNumMmaTiles, plan::kP.ta, plan::kP.tb, TA>(
          p, &maps->words[0], &maps->words[16], plan::kACount > 1, plan::kBCount > 1, store);
      return;
    }
#endif
  } else if constexpr (plan::kPath == plan::kTensorCores) {
    if (launched && (reinterpret_cast<uintptr_t>(x1) | reinterpret_cast<uintptr_t>(x2)) % 16 == 0) {
      skb_cu::mma::run<kIndex, plan::kP.ta, plan::kP.tb>(p, x1, reinterpret_cast<const TA*>(x2), offsets, store);
      return;
    }
  } else if constexpr (plan::kPath == plan::kFusedMultiplyAdds) {
    if (launched) {
      skb_cu::fma::run<kIndex, plan::kP.ta, plan::kP.tb>(p, reinterpret_cast<const float*>(x1),
                                                         reinterpret_cast<const float*>(x2), offsets, store);
      return;
    }
  }
  // The slow paths: a wgmma kernel's entry (SKB_ENTRY_MAPS) has not awaited the prior grids yet.
  skb_cu::await_prior_grids();
  if (blockDim.x == kTile * kTile)  // not aligned for 16-byte copies, or no tile for these dtypes
    run_tiles(p, args);
  else
    run_elements(p, args);
}

SKB_LAUNCH(plan::kGrid, plan::kThreads, plan::kShared)
#undef SKB_KERNEL_BOUNDS
#define SKB_KERNEL_BOUNDS __launch_bounds__(plan::kThreads)
#if SKB_WGMMA
#undef SKB_KERNEL_BOUNDS
#define SKB_KERNEL_BOUNDS __launch_bounds__(plan::kThreads) __cluster_dims__(plan::kCluster, 1, 1)
SKB_TMA(plan::kMaps)
__device__ inline void run_with_maps(const Params& p, skb_args args, const skb_cuda_tensor_maps& maps) {
  run_static(p, args, &maps);
}
SKB_ENTRY_MAPS(make_static, run_with_maps)
#else
__device__ inline void run_without_maps(const Params& p, skb_args args) { run_static(p, args, nullptr); }
SKB_ENTRY(make_static, make_dynamic, run_without_maps)
#endif
#else
static __device__ Params make_dynamic(const skb_cuda_call& c, const skb_args&) {
  const bool mm = SKB_OP == MatMulV2;
  return make(skb_cu::dims(c.inputs[0]), skb_cu::dims(c.inputs[1]), skb_cu::dims(c.outputs[0]),
              skb_cu::attr(c, mm ? "transpose_x1" : "adj_x1", 0, 0) != 0,
              skb_cu::attr(c, mm ? "transpose_x2" : "adj_x2", 0, 0) != 0,
              SKB_HAS_BIAS ? skb_cu::dims(c.inputs[2]) : skb_cu::dims());
}
SKB_ENTRY(make_static, make_dynamic, run)
#endif
