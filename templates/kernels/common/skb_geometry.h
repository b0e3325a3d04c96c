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

/// LayerNorm (over x's axes from begin_axis on) and RmsNorm (over as many trailing axes as gamma
/// has): `outer` rows of `len` elements, gamma (and beta) of gamma_len, eps. ok: y has x's shape,
/// gamma holds x's trailing axes, and beta and the statistics (where present) hold what is read
/// and written.
struct Norm {
  int64_t outer, len, gamma_len;
  float eps;
  bool ok;
};

SKB_HD constexpr Norm norm(bool layer, Dims x, Dims gamma, bool has_beta, Dims beta, Dims y, bool has_s1, Dims s1,
                           bool has_s2, Dims s2, int64_t begin_axis, double eps) {
  Norm p{1, 1, gamma.numel(), (float)eps, false};
  if (!valid(x) || x.rank < 1 || !valid(gamma) || !same(x, y)) return p;
  if (layer ? (begin_axis < -x.rank || begin_axis >= x.rank) : (gamma.rank < 1 || gamma.rank > x.rank)) return p;
  const int axis = layer ? x.axis(begin_axis) : x.rank - gamma.rank;
  for (int i = 0; i < x.rank; ++i) (i < axis ? p.outer : p.len) *= x.d[i];
  // gamma (and beta) hold the trailing axes of x: from begin_params_axis, or the normalized ones.
  if (gamma.rank < 1 || gamma.rank > x.rank) return p;
  for (int i = 0; i < gamma.rank; ++i)
    if (gamma.d[i] != x.d[x.rank - gamma.rank + i]) return p;
  if (p.gamma_len <= 0) return p;
  if (has_beta && (!valid(beta) || beta.numel() != p.gamma_len)) return p;
  if (has_s1 && (!valid(s1) || s1.numel() != p.outer)) return p;
  if (has_s2 && (!valid(s2) || s2.numel() != p.outer)) return p;
  p.ok = true;
  return p;
}

/// Transpose: per axis of y its extent and x's stride along it (x's axes permuted by perm, of
/// perm_len values). ok: perm is a permutation of x's axes and y is x permuted.
struct Permute {
  int rank;
  int64_t out[SKB_MAX_RANK], stride[SKB_MAX_RANK];
  int64_t n;
  bool ok;
};

SKB_HD constexpr Permute permute(Dims x, const int64_t* perm, int perm_len, Dims y) {
  Permute p{};
  if (!valid(x) || !valid(y) || perm_len != x.rank || y.rank != x.rank) return p;
  bool seen[SKB_MAX_RANK] = {};
  for (int i = 0; i < x.rank; ++i) {
    if (perm[i] < -x.rank || perm[i] >= x.rank || seen[x.axis(perm[i])]) return p;
    seen[x.axis(perm[i])] = true;
    if (y.d[i] != x.d[x.axis(perm[i])]) return p;
  }
  p.ok = true;
  p.rank = x.rank;
  int64_t xs[SKB_MAX_RANK] = {0};
  int64_t s = 1;
  for (int i = x.rank - 1; i >= 0; --i) {
    xs[i] = s;
    s *= x.d[i];
  }
  p.n = x.numel();
  for (int i = 0; i < x.rank; ++i) {
    const int a = x.axis(perm[i]);
    p.out[i] = x.d[a];
    p.stride[i] = xs[a];
  }
  return p;
}

/// Tile: x repeated multiples[i] times along each axis i of y (len values; x's shape padded with
/// leading ones, as numpy.tile does): per axis of y its extent, x's extent and x's stride. ok:
/// one multiple of at least 0 per axis of y, and y is x tiled.
struct Tiling {
  int rank;
  int64_t out[SKB_MAX_RANK], in[SKB_MAX_RANK], stride[SKB_MAX_RANK];
  int64_t n;
  bool ok;
};

SKB_HD constexpr Tiling tiling(Dims x, const int64_t* multiples, int len, Dims y) {
  Tiling p{};
  if (!valid(x) || !valid(y) || len < x.rank || len > SKB_MAX_RANK || y.rank != len) return p;
  const int pad = len - x.rank;
  int64_t s = 1;
  for (int i = len - 1; i >= 0; --i) {
    const int64_t xd = i < pad ? 1 : x.d[i - pad];
    if (multiples[i] < 0 || y.d[i] != xd * multiples[i]) return p;
    p.out[i] = y.d[i];
    p.in[i] = xd;
    p.stride[i] = s;
    s *= xd;
  }
  p.ok = true;
  p.rank = len;
  p.n = y.numel();
  return p;
}

/// ConcatD of N tensors xs along concat_dim (negative counted from the end) into y: `outer` rows
/// (the product of y's axes before concat_dim), each `row` elements of y made of part[j] of each
/// x in turn. ok: N > 0, every x has y's rank and y's extents but on concat_dim, where theirs add
/// up to y's.
template <int N>
struct Concat {
  int64_t outer, row, part[N + 1];
  bool ok;
};

template <int N>
SKB_HD constexpr Concat<N> concat(const Dims* xs, int64_t concat_dim, Dims y) {
  Concat<N> p{};
  if (!valid(y) || y.rank < 1 || concat_dim < -y.rank || concat_dim >= y.rank) return p;
  const int axis = y.axis(concat_dim);
  int64_t inner = 1, along = 0;
  p.outer = 1;
  for (int i = 0; i < y.rank; ++i)
    if (i < axis)
      p.outer *= y.d[i];
    else if (i > axis)
      inner *= y.d[i];
  for (int j = 0; j < N; ++j) {
    const Dims& x = xs[j];
    if (!valid(x) || x.rank != y.rank) return p;
    for (int i = 0; i < y.rank; ++i)
      if (i != axis && x.d[i] != y.d[i]) return p;
    along += x.d[axis];
    p.part[j] = x.d[axis] * inner;
  }
  p.ok = N > 0 && along == y.d[axis];
  p.row = along * inner;
  return p;
}

/// The shapes of a static tensor list (its SKB_INi_SHAPES: each tensor's rank, then its dims)
/// into xs[0] to xs[n - 1]; false when a rank is out of range.
SKB_HD constexpr bool list_shapes(const int64_t* flat, int n, Dims* xs) {
  int pos = 0;
  for (int j = 0; j < n; ++j) {
    const int64_t rank = flat[pos++];
    if (rank < 0 || rank > SKB_MAX_RANK) return false;
    xs[j].rank = (int)rank;
    for (int d = 0; d < xs[j].rank; ++d) xs[j].d[d] = flat[pos++];
  }
  return true;
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
