#include "runtime/reference/reference_ops.h"

#include <cmath>
#include <stdexcept>

namespace skb::reference {

std::int64_t numel(const Shape& s) {
  std::int64_t n = 1;
  for (auto d : s) n *= d;
  return n;
}

std::vector<std::int64_t> unravel(std::int64_t i, const Shape& s) {
  std::vector<std::int64_t> idx(s.size());
  for (std::size_t d = s.size(); d-- > 0;) {
    idx[d] = i % s[d];
    i /= s[d];
  }
  return idx;
}

static std::int64_t ravel(const std::vector<std::int64_t>& idx, const Shape& s) {
  std::int64_t off = 0;
  for (std::size_t d = 0; d < s.size(); ++d) off = off * s[d] + idx[d];
  return off;
}

// Index into an operand broadcast to out's rank: size-1 dims stay at 0.
static std::int64_t broadcast_offset(const std::vector<std::int64_t>& out_idx, const Shape& s) {
  std::vector<std::int64_t> idx(s.size());
  std::size_t shift = out_idx.size() - s.size();
  for (std::size_t d = 0; d < s.size(); ++d) idx[d] = s[d] == 1 ? 0 : out_idx[d + shift];
  return ravel(idx, s);
}

float ref_unary(const std::string& op, float x) {
  double v = x;
  if (op == "Square") return static_cast<float>(v * v);
  if (op == "Relu") return static_cast<float>(v > 0 ? v : 0);
  if (op == "Gelu")
    return static_cast<float>(0.5 * v * (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v))));
  if (op == "FastGelu") return static_cast<float>(v / (1 + std::exp(-1.702 * v)));
  if (op == "Cast") return x;
  throw std::invalid_argument(op);
}

float ref_binary(const std::string& op, float a, float b) {
  if (op == "Add") return a + b;
  if (op == "Sub") return a - b;
  if (op == "Mul") return a * b;
  if (op == "RealDiv") return a / b;
  throw std::invalid_argument(op);
}

std::vector<float> ref_broadcast(const std::string& op, const Ref& a, const Ref& b, const Shape& out) {
  std::vector<float> y(static_cast<std::size_t>(numel(out)));
  for (std::int64_t i = 0; i < numel(out); ++i) {
    auto idx = unravel(i, out);
    y[i] = ref_binary(op, a.data[broadcast_offset(idx, a.shape)], b.data[broadcast_offset(idx, b.shape)]);
  }
  return y;
}

std::vector<float> ref_matmul(const Ref& a, const Ref& b, const Ref* bias, bool ta, bool tb, const Shape& out) {
  std::size_t r = out.size();
  std::int64_t k = ta ? a.shape[a.shape.size() - 2] : a.shape.back();
  std::vector<float> y(static_cast<std::size_t>(numel(out)));
  Shape a_batch(a.shape.begin(), a.shape.end() - 2), b_batch(b.shape.begin(), b.shape.end() - 2);
  std::int64_t am = a.shape[a.shape.size() - 2] * a.shape.back(), bm = b.shape[b.shape.size() - 2] * b.shape.back();
  for (std::int64_t i = 0; i < numel(out); ++i) {
    auto idx = unravel(i, out);
    std::int64_t row = idx[r - 2], col = idx[r - 1];
    std::vector<std::int64_t> batch(idx.begin(), idx.end() - 2);
    std::int64_t ab = a_batch.empty() ? 0 : broadcast_offset(batch, a_batch);
    std::int64_t bb = b_batch.empty() ? 0 : broadcast_offset(batch, b_batch);
    std::int64_t a_cols = a.shape.back(), b_cols = b.shape.back();
    double acc = bias ? bias->data[col] : 0.0;
    for (std::int64_t kk = 0; kk < k; ++kk) {
      float av = a.data[ab * am + (ta ? kk * a_cols + row : row * a_cols + kk)];
      float bv = b.data[bb * bm + (tb ? col * b_cols + kk : kk * b_cols + col)];
      acc += double(av) * bv;
    }
    y[i] = static_cast<float>(acc);
  }
  return y;
}

std::vector<float> ref_softmax(const Ref& x, const std::vector<std::int64_t>& axes) {
  const std::int64_t rank = static_cast<std::int64_t>(x.shape.size());
  std::vector<bool> reduced(x.shape.size(), false);
  for (std::int64_t a : axes) reduced.at(static_cast<std::size_t>(a < 0 ? a + rank : a)) = true;
  // The slice of an element: its coordinates on the axes that are not reduced.
  Shape kept;
  for (std::size_t d = 0; d < x.shape.size(); ++d)
    if (!reduced[d]) kept.push_back(x.shape[d]);
  const std::int64_t n = numel(x.shape);
  std::vector<std::int64_t> slice(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    auto idx = unravel(i, x.shape);
    std::vector<std::int64_t> k;
    for (std::size_t d = 0; d < idx.size(); ++d)
      if (!reduced[d]) k.push_back(idx[d]);
    slice[i] = ravel(k, kept);
  }
  std::vector<double> mx(static_cast<std::size_t>(numel(kept)), -INFINITY), sum(mx.size(), 0.0);
  for (std::int64_t i = 0; i < n; ++i) mx[slice[i]] = std::max<double>(mx[slice[i]], x.data[i]);
  for (std::int64_t i = 0; i < n; ++i) sum[slice[i]] += std::exp(double(x.data[i]) - mx[slice[i]]);
  std::vector<float> y(x.data.size());
  for (std::int64_t i = 0; i < n; ++i)
    y[i] = static_cast<float>(std::exp(double(x.data[i]) - mx[slice[i]]) / sum[slice[i]]);
  return y;
}

static void rows(const Shape& s, int axis, std::int64_t& outer, std::int64_t& len) {
  outer = 1;
  len = 1;
  for (int i = 0; i < static_cast<int>(s.size()); ++i) (i < axis ? outer : len) *= s[i];
}

void ref_layernorm(const Ref& x, const Ref& gamma, const Ref* beta, int axis, float eps, std::vector<float>& y,
                   std::vector<float>& mean, std::vector<float>& var) {
  if (axis < 0) axis += static_cast<int>(x.shape.size());
  std::int64_t outer, len;
  rows(x.shape, axis, outer, len);
  y.resize(x.data.size());
  mean.resize(outer);
  var.resize(outer);
  for (std::int64_t o = 0; o < outer; ++o) {
    double m = 0, v = 0;
    for (std::int64_t j = 0; j < len; ++j) m += x.data[o * len + j];
    m /= len;
    for (std::int64_t j = 0; j < len; ++j) v += (x.data[o * len + j] - m) * (x.data[o * len + j] - m);
    v /= len;
    mean[o] = static_cast<float>(m);
    var[o] = static_cast<float>(v);
    // gamma and beta hold x's trailing axes (from begin_params_axis): element i takes their
    // element i mod their size, wherever the normalized axes begin.
    const std::int64_t g = numel(gamma.shape);
    for (std::int64_t j = 0; j < len; ++j) {
      const std::int64_t i = o * len + j;
      y[i] = static_cast<float>((x.data[i] - m) / std::sqrt(v + eps) * gamma.data[i % g] +
                                (beta ? beta->data[i % g] : 0.0));
    }
  }
}

void ref_rmsnorm(const Ref& x, const Ref& gamma, float eps, std::vector<float>& y, std::vector<float>& rstd) {
  std::int64_t len = numel(gamma.shape), outer = numel(x.shape) / len;
  y.resize(x.data.size());
  rstd.resize(outer);
  for (std::int64_t o = 0; o < outer; ++o) {
    double ms = 0;
    for (std::int64_t j = 0; j < len; ++j) ms += double(x.data[o * len + j]) * x.data[o * len + j];
    double r = 1 / std::sqrt(ms / len + eps);
    rstd[o] = static_cast<float>(r);
    for (std::int64_t j = 0; j < len; ++j) y[o * len + j] = static_cast<float>(x.data[o * len + j] * r * gamma.data[j]);
  }
}

std::vector<float> ref_transpose(const Ref& x, const std::vector<std::int64_t>& perm) {
  Shape out(perm.size());
  for (std::size_t i = 0; i < perm.size(); ++i) out[i] = x.shape[perm[i]];
  std::vector<float> y(x.data.size());
  for (std::int64_t i = 0; i < numel(out); ++i) {
    auto idx = unravel(i, out);
    std::vector<std::int64_t> src(perm.size());
    for (std::size_t d = 0; d < perm.size(); ++d) src[perm[d]] = idx[d];
    y[i] = x.data[ravel(src, x.shape)];
  }
  return y;
}

std::vector<float> ref_tile(const Ref& x, const Shape& out) {
  std::vector<float> y(static_cast<std::size_t>(numel(out)));
  const std::size_t pad = out.size() - x.shape.size();
  for (std::int64_t i = 0; i < numel(out); ++i) {
    auto idx = unravel(i, out);
    std::vector<std::int64_t> src(x.shape.size());
    for (std::size_t d = 0; d < src.size(); ++d) src[d] = idx[d + pad] % x.shape[d];
    y[i] = x.data[ravel(src, x.shape)];
  }
  return y;
}

std::vector<float> ref_concat(const std::vector<Ref>& xs, std::int64_t axis, const Shape& out) {
  const auto a = static_cast<std::size_t>(axis < 0 ? axis + static_cast<std::int64_t>(out.size()) : axis);
  std::vector<float> y(static_cast<std::size_t>(numel(out)));
  for (std::int64_t i = 0; i < numel(out); ++i) {
    auto idx = unravel(i, out);
    std::size_t j = 0;
    while (idx[a] >= xs[j].shape[a]) idx[a] -= xs[j++].shape[a];
    y[i] = xs[j].data[ravel(idx, xs[j].shape)];
  }
  return y;
}

}  // namespace skb::reference
