#pragma once
// Plain, obviously-correct float implementations of the host templates' ops, written
// per output element (no shared code with the kernels), for checking kernels against.
#include <cstdint>
#include <string>
#include <vector>

namespace skb::reference {

using Shape = std::vector<std::int64_t>;

struct Ref {
  Shape shape;
  std::vector<float> data;
};

std::int64_t numel(const Shape& s);
/// Row-major multi-index of flat index i.
std::vector<std::int64_t> unravel(std::int64_t i, const Shape& s);

float ref_unary(const std::string& op, float x);
float ref_binary(const std::string& op, float a, float b);
/// NumPy broadcasting of two operands.
std::vector<float> ref_broadcast(const std::string& op, const Ref& a, const Ref& b, const Shape& out);
std::vector<float> ref_matmul(const Ref& a, const Ref& b, const Ref* bias, bool ta, bool tb, const Shape& out);
/// Softmax over a set of axes (negative counted from the end): each element against the slice of
/// every element that agrees with it on the other axes, in double precision.
std::vector<float> ref_softmax(const Ref& x, const std::vector<std::int64_t>& axes);
/// LayerNorm over axes [axis, rank): y, mean and variance per row.
void ref_layernorm(const Ref& x, const Ref& gamma, const Ref* beta, int axis, float eps, std::vector<float>& y,
                   std::vector<float>& mean, std::vector<float>& var);
void ref_rmsnorm(const Ref& x, const Ref& gamma, float eps, std::vector<float>& y, std::vector<float>& rstd);
std::vector<float> ref_transpose(const Ref& x, const std::vector<std::int64_t>& perm);
/// numpy.tile: out's element at idx is x's at idx modulo x's shape (x's axes the trailing ones).
std::vector<float> ref_tile(const Ref& x, const Shape& out);
/// The tensors xs joined along axis (negative counted from the end).
std::vector<float> ref_concat(const std::vector<Ref>& xs, std::int64_t axis, const Shape& out);

}  // namespace skb::reference
