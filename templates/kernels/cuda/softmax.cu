// SoftmaxV2 over a set of axes (attr axes, default [-1]; negative, unsorted, one or several): each
// slice of x along the kept axes is normalized over all of its positions along the reduced ones.
// One warp per slice: its lanes stride over the slice's positions (consecutive ones for the
// last axis, so reads coalesce) and reduce max and sum with shuffles; computes in float. A block
// that is not whole warps (the runtime never launches one) takes one thread per slice.
#include "skb_cuda.h"

typedef SKB_DT(SKB_IN0_DTYPE) TX;
typedef SKB_DT(SKB_OUT0_DTYPE) TY;

typedef skb_geom::Reduction Params;
// ok also says that y has x's shape.
static SKB_HD constexpr Params make(skb_cu::Dims x, skb_cu::Dims y, const int64_t* axes, int n) {
  Params p = skb_geom::reduction(x, axes, n);
  p.ok = p.ok && skb_geom::same(x, y);
  return p;
}

// Offset of index i over dims d (row-major), strides s.
__device__ inline int64_t offset(int64_t i, int n, const int64_t* d, const int64_t* s) {
  int64_t off = 0;
  for (int k = n; k-- > 0;) {
    off += (i % d[k]) * s[k];
    i /= d[k];
  }
  return off;
}

// Slices r = first, first + step, ... each by `width` lanes (32: a warp, 1: a thread).
template <int width>
__device__ inline void slices(const Params& p, skb_args args, int64_t first, int64_t step, int lane) {
  const TX* x = static_cast<const TX*>(args.in[0]);
  TY* y = static_cast<TY*>(args.out[0]);
  for (int64_t r = first; r < p.rows; r += step) {
    const int64_t base = offset(r, p.nk, p.kd, p.ks);
    auto at = [&](int64_t t) { return base + (p.nr == 1 ? t * p.rs[0] : offset(t, p.nr, p.rd, p.rs)); };
    float mx = -INFINITY, sum = 0.f;
    for (int64_t t = lane; t < p.len; t += width) mx = fmaxf(mx, skb_cu::to_float(x[at(t)]));
    if (width == 32) mx = skb_cu::warp_max(mx);
    for (int64_t t = lane; t < p.len; t += width) sum += __expf(skb_cu::to_float(x[at(t)]) - mx);
    if (width == 32) sum = skb_cu::warp_sum(sum);
    for (int64_t t = lane; t < p.len; t += width)
      y[at(t)] = skb_cu::from_float<TY>(__expf(skb_cu::to_float(x[at(t)]) - mx) / sum);
  }
}

__device__ inline void run(const Params& p, skb_args args) {
  // Every lane of a warp takes the same slices, so each shuffle has all 32.
  if (blockDim.x % 32 == 0)
    slices<32>(p, args, skb_cu::first_index() / 32, skb_cu::grid_stride() / 32, threadIdx.x & 31);
  else
    slices<1>(p, args, skb_cu::first_index(), skb_cu::grid_stride(), 0);
}

#ifdef SKB_STATIC
#ifndef SKB_ATTR_axes
#define SKB_ATTR_axes -1
#endif
static constexpr int64_t kAxes[] = {SKB_ATTR_axes};
static SKB_HD constexpr Params make_static() {
  return make(SKB_IN_DIMS(0), SKB_OUT_DIMS(0), kAxes, (int)(sizeof kAxes / sizeof kAxes[0]));
}
#else
static __device__ Params make_dynamic(const skb_cuda_call& c, const skb_args&) {
  int64_t axes[SKB_MAX_RANK] = {-1};
  int n = skb_cu::attr_count(c, "axes");
  if (n == 0) n = 1;  // absent: the last axis
  if (n > SKB_MAX_RANK) return Params{};
  for (int i = 0; i < n; ++i) axes[i] = (int64_t)skb_cu::attr(c, "axes", i, -1);
  return make(skb_cu::dims(c.inputs[0]), skb_cu::dims(c.outputs[0]), axes, n);
}
#endif
SKB_ENTRY(make_static, make_dynamic, run)
