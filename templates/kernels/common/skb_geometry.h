// Shapes and the index arithmetic that the host and the CUDA templates share: constant
// expressions only, so static kernels fold them into constants, and (SKB_HD) device functions
// too under nvcc, so that dynamic CUDA kernels compute the same parameters at run time.
#pragma once
#include <stdint.h>

#ifdef __CUDACC__
#define SKB_HD __host__ __device__
#else
#define SKB_HD
#endif

#ifndef SKB_MAX_RANK
#define SKB_MAX_RANK 8
#endif

namespace skb_geom {

/// A shape; in static kernels every one is a constant expression.
struct Dims {
  int rank;
  int64_t d[SKB_MAX_RANK];
  SKB_HD constexpr int64_t numel() const {
    int64_t n = 1;
    for (int i = 0; i < rank; ++i) n *= d[i];
    return n;
  }
  /// Index i counted from the end when negative.
  SKB_HD constexpr int axis(int64_t i) const { return (int)(i < 0 ? i + rank : i); }
};

template <class... A>
SKB_HD constexpr Dims dims(A... a) {
  return Dims{(int)sizeof...(A), {(int64_t)a...}};
}

/// A shape a kernel can index: rank in [0, SKB_MAX_RANK], no negative extent (a dynamic call's
/// shape of rank -1 is absent or was refused).
SKB_HD constexpr bool valid(Dims a) {
  if (a.rank < 0 || a.rank > SKB_MAX_RANK) return false;
  for (int i = 0; i < a.rank; ++i)
    if (a.d[i] < 0) return false;
  return true;
}

SKB_HD constexpr bool same(Dims a, Dims b) {
  if (a.rank != b.rank) return false;
  for (int i = 0; i < a.rank; ++i)
    if (a.d[i] != b.d[i]) return false;
  return true;
}

/// NumPy broadcasting of two operands a, b to the output o: per output axis its extent and each
/// operand's stride (0 where the operand is broadcast). ok: o is a and b broadcast.
struct Broadcast {
  int rank;
  int64_t out[SKB_MAX_RANK], sa[SKB_MAX_RANK], sb[SKB_MAX_RANK];
  int64_t n;
  bool ok;
};

SKB_HD constexpr Broadcast broadcast(Dims a, Dims b, Dims o) {
  Broadcast p{};
  if (!valid(a) || !valid(b) || !valid(o)) return p;
  p.ok = a.rank <= o.rank && b.rank <= o.rank;
  p.rank = o.rank;
  p.n = o.numel();
  int64_t stride_a = 1, stride_b = 1;
  for (int i = o.rank - 1; i >= 0; --i) {
    int ia = i - (o.rank - a.rank), ib = i - (o.rank - b.rank);
    int64_t da = ia >= 0 ? a.d[ia] : 1, db = ib >= 0 ? b.d[ib] : 1;
    p.ok = p.ok && (da == o.d[i] || da == 1) && (db == o.d[i] || db == 1) && (da == o.d[i] || db == o.d[i]);
    p.out[i] = o.d[i];
    p.sa[i] = (da == 1 && o.d[i] != 1) ? 0 : stride_a;
    p.sb[i] = (db == 1 && o.d[i] != 1) ? 0 : stride_b;
    stride_a *= da;
    stride_b *= db;
  }
  return p;
}

/// A (batched) matrix product y = op(a) x op(b): sizes, transposes, and the batch axes with each
/// operand's batch stride in matrices (0 where broadcast). ok: a and b agree on k, their batch
/// axes broadcast, and o is batch x m x n.
struct MatMul {
  int64_t m, n, k;
  bool ta, tb;
  int batch_rank;
  int64_t batch[SKB_MAX_RANK], sa[SKB_MAX_RANK], sb[SKB_MAX_RANK];
  int64_t batches;
  bool ok;
};

/// The shape without its last two axes (the batch axes of a matrix operand).
SKB_HD constexpr Dims batch_dims(Dims d) {
  Dims r{d.rank > 2 ? d.rank - 2 : 0, {}};
  for (int i = 0; i < r.rank; ++i) r.d[i] = d.d[i];
  return r;
}

SKB_HD constexpr MatMul matmul(Dims a, Dims b, Dims o, bool ta, bool tb) {
  MatMul p{};
  if (!valid(a) || !valid(b) || !valid(o) || a.rank < 2 || b.rank < 2 || o.rank < 2) return p;
  p.ta = ta;
  p.tb = tb;
  p.m = ta ? a.d[a.rank - 1] : a.d[a.rank - 2];
  p.k = ta ? a.d[a.rank - 2] : a.d[a.rank - 1];
  p.n = tb ? b.d[b.rank - 2] : b.d[b.rank - 1];
  const int64_t k2 = tb ? b.d[b.rank - 1] : b.d[b.rank - 2];
  // The batch axes broadcast like any elementwise operands, strides counted in matrices.
  const Broadcast bb = broadcast(batch_dims(a), batch_dims(b), batch_dims(o));
  p.ok = bb.ok && k2 == p.k && o.d[o.rank - 2] == p.m && o.d[o.rank - 1] == p.n;
  p.batch_rank = bb.rank;
  p.batches = bb.n;
  for (int i = 0; i < bb.rank; ++i) {
    p.batch[i] = bb.out[i];
    p.sa[i] = bb.sa[i];
    p.sb[i] = bb.sb[i];
  }
  return p;
}

/// A reduction over a set of axes (SoftmaxV2's axes): x's axes in two groups, kept and reduced,
/// neighbours of one group merged, so that a slice is one index over the kept dims and an element
/// of it one index over the reduced dims (strides in elements). ok: at least one axis, each one
/// of x's (negative counted from the end), none twice.
struct Reduction {
  int nk, nr;
  int64_t kd[SKB_MAX_RANK], ks[SKB_MAX_RANK];
  int64_t rd[SKB_MAX_RANK], rs[SKB_MAX_RANK];
  int64_t rows, len;
  bool ok;
};

SKB_HD constexpr Reduction reduction(Dims x, const int64_t* axes, int n) {
  Reduction p{0, 0, {}, {}, {}, {}, 1, 1, false};
  if (!valid(x) || x.rank < 1 || n < 1 || n > x.rank) return p;
  bool reduced[SKB_MAX_RANK] = {};
  for (int i = 0; i < n; ++i) {
    if (axes[i] < -x.rank || axes[i] >= x.rank || reduced[x.axis(axes[i])]) return p;
    reduced[x.axis(axes[i])] = true;
  }
  int64_t stride[SKB_MAX_RANK] = {};
  int64_t s = 1;
  for (int i = x.rank; i-- > 0;) {
    stride[i] = s;
    s *= x.d[i];
  }
  for (int i = 0; i < x.rank; ++i) {
    int64_t* d = reduced[i] ? p.rd : p.kd;
    int64_t* st = reduced[i] ? p.rs : p.ks;
    int& count = reduced[i] ? p.nr : p.nk;
    if (i > 0 && reduced[i] == reduced[i - 1])
      d[count - 1] *= x.d[i];
    else
      d[count++] = x.d[i];
    st[count - 1] = stride[i];
    (reduced[i] ? p.len : p.rows) *= x.d[i];
  }
  p.ok = true;
  return p;
}

/// A dynamic call's shape (any struct of rank and dims[]); rank -1 (not valid()) when it is
/// absent or out of range: a rank above SKB_MAX_RANK, an extent outside [0, 2^31), more than
/// 2^40 elements.
template <class Shape>
SKB_HD constexpr Dims checked(const Shape& s) {
  Dims r{-1, {}};
  if (s.rank < 0 || s.rank > SKB_MAX_RANK) return r;
  int64_t n = 1;
  for (int i = 0; i < s.rank; ++i) {
    if (s.dims[i] < 0 || s.dims[i] > INT32_MAX) return r;
    r.d[i] = s.dims[i];
    if (r.d[i] > 0 && n > (INT64_C(1) << 40) / r.d[i]) return r;
    n *= r.d[i] > 0 ? r.d[i] : 1;
  }
  r.rank = s.rank;
  return r;
}

}  // namespace skb_geom
