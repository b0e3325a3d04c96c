#include "opmodel/shape_rules.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>

#include "common/error.h"
#include "opmodel/ge_types.h"

namespace skb::opmodel {
namespace {

using common::FieldError;
using Dims = std::vector<std::int64_t>;

std::string show(const Dims& d) { return fmt::format("[{}]", fmt::join(d, ",")); }

// NumPy broadcasting; nothing when two extents differ and neither is 1.
std::optional<Dims> broadcast(const Dims& a, const Dims& b) {
  Dims out(std::max(a.size(), b.size()));
  for (std::size_t i = 0; i < out.size(); ++i) {
    std::int64_t da = i < a.size() ? a[a.size() - 1 - i] : 1;
    std::int64_t db = i < b.size() ? b[b.size() - 1 - i] : 1;
    if (da != db && da != 1 && db != 1) return std::nullopt;
    out[out.size() - 1 - i] = da == 1 ? db : da;
  }
  return out;
}

// One record under check: its parameters, its attrs as the rules read them, and the
// `for <Op> with <attr>=<value>` every message ends with.
class Check {
 public:
  explicit Check(const OpRecord& r) : r_(r) {}

  const OpRecord& record() const { return r_; }

  void arity(std::size_t min_in, std::size_t max_in, std::size_t min_out, std::size_t max_out) const {
    count("/inputs", r_.inputs.size(), min_in, max_in, "inputs");
    count("/outputs", r_.outputs.size(), min_out, max_out, "outputs");
  }

  const Tensor& input(std::size_t i) const { return *slot(r_.inputs, "inputs", i, true); }
  const Tensor* optional_input(std::size_t i) const { return slot(r_.inputs, "inputs", i, false); }
  const Tensor& output(std::size_t i) const { return *slot(r_.outputs, "outputs", i, true); }
  /// The tensors of input slot i, which must be a list.
  const std::vector<Tensor>& list_input(std::size_t i) const {
    if (i >= r_.inputs.size() || r_.inputs[i].kind != Slot::Kind::kList)
      throw FieldError(fmt::format("/inputs/{}", i),
                       fmt::format("expected a list of tensors for inputs {} of {}", i, r_.op_type));
    return r_.inputs[i].tensors;
  }
  const Tensor* optional_output(std::size_t i) const { return slot(r_.outputs, "outputs", i, false); }

  /// The shape the op's semantics apply to: the storage shape, or the origin shape of a tensor in
  /// a private format.
  static const Dims& dims(const Tensor& t) { return is_plain_format(t.format) ? t.shape : t.origin_shape; }
  static std::string shape_pointer(const char* side, std::size_t i, const Tensor& t) {
    return fmt::format("/{}/{}/{}", side, i, is_plain_format(t.format) ? "shape" : "origin_shape");
  }

  void shape(const char* side, std::size_t i, const Tensor& t, const Dims& want) const {
    if (dims(t) != want) fail(shape_pointer(side, i, t), show(want), show(dims(t)));
  }
  void rank(const char* side, std::size_t i, const Tensor& t, std::size_t min, std::size_t max) const {
    std::size_t n = dims(t).size();
    if (n >= min && n <= max) return;
    fail(shape_pointer(side, i, t),
         min == max ? fmt::format("a shape of rank {}", min) : fmt::format("a shape of rank {} to {}", min, max),
         show(dims(t)));
  }
  void dtype(const char* side, std::size_t i, const Tensor& t, std::vector<std::string> allowed) const {
    allowed.erase(std::unique(allowed.begin(), allowed.end()), allowed.end());
    if (std::find(allowed.begin(), allowed.end(), t.dtype) != allowed.end()) return;
    fail(fmt::format("/{}/{}/dtype", side, i), fmt::format("{}", fmt::join(allowed, " or ")), t.dtype);
  }

  /// A bool attr (or an int one, nonzero is true), def when absent; named in messages.
  bool flag(const char* name, bool def) {
    const Attr* a = r_.find_attr(name);
    bool v = def;
    if (a) {
      if (a->value.is_boolean())
        v = a->value.get<bool>();
      else if (a->value.is_number_integer())
        v = a->value.get<std::int64_t>() != 0;
      else
        throw FieldError(value_pointer(*a), fmt::format("expected a bool for {} of {}", name, r_.op_type));
    }
    mention(name, v ? "true" : "false");
    return v;
  }

  std::int64_t integer(const char* name, std::int64_t def) {
    const Attr* a = r_.find_attr(name);
    std::int64_t v = def;
    if (a) {
      if (!a->value.is_number_integer())
        throw FieldError(value_pointer(*a), fmt::format("expected an integer for {} of {}", name, r_.op_type));
      v = a->value.get<std::int64_t>();
    }
    mention(name, std::to_string(v));
    return v;
  }

  /// A list_int attr (a single int counts as a list of one), def when absent.
  Dims integers(const char* name, const Dims& def) {
    const Attr* a = r_.find_attr(name);
    Dims v = def;
    if (a) {
      v.clear();
      if (a->value.is_number_integer()) {
        v.push_back(a->value.get<std::int64_t>());
      } else if (a->value.is_array() &&
                 std::all_of(a->value.begin(), a->value.end(), [](const Json& e) { return e.is_number_integer(); })) {
        for (const Json& e : a->value) v.push_back(e.get<std::int64_t>());
      } else {
        throw FieldError(value_pointer(*a), fmt::format("expected a list of integers for {} of {}", name, r_.op_type));
      }
    }
    mention(name, show(v));
    return v;
  }

  /// An axis of a tensor of `rank` dimensions, counted from the end when negative.
  std::int64_t axis(const char* name, std::int64_t value, std::size_t rank, const std::string& pointer) const {
    const auto r = static_cast<std::int64_t>(rank);
    if (value < -r || value >= r)
      throw FieldError(pointer, fmt::format("expected {} in [{}, {}) for {} of rank {}{}, found {}", name, -r, r,
                                            r_.op_type, rank, context_tail(), value));
    return value < 0 ? value + r : value;
  }

  std::string attr_pointer(const char* name) const {
    const Attr* a = r_.find_attr(name);
    return a ? value_pointer(*a) : "/attrs";
  }

  [[noreturn]] void fail(const std::string& pointer, const std::string& expected, const std::string& found) const {
    throw FieldError(pointer,
                     fmt::format("expected {} for {}{}, found {}", expected, r_.op_type, context_tail(), found));
  }

 private:
  void mention(const char* name, std::string value) { with_.push_back(fmt::format("{}={}", name, value)); }
  std::string context_tail() const { return with_.empty() ? "" : fmt::format(" with {}", fmt::join(with_, ", ")); }
  static std::string value_pointer(const Attr& a) { return fmt::format("/attrs/{}/value", a.position); }

  void count(const char* pointer, std::size_t n, std::size_t min, std::size_t max, const char* what) const {
    if (n >= min && n <= max) return;
    std::string want = min == max ? fmt::format("{} {}", min, what) : fmt::format("{} to {} {}", min, max, what);
    throw FieldError(pointer, fmt::format("expected {} for {}, found {}", want, r_.op_type, n));
  }

  const Tensor* slot(const std::vector<Slot>& slots, const char* side, std::size_t i, bool required) const {
    if (i >= slots.size() || slots[i].kind == Slot::Kind::kAbsent) {
      if (!required) return nullptr;
      throw FieldError(fmt::format("/{}/{}", side, i),
                       fmt::format("expected a tensor for {} {} of {}, found none", side, i, r_.op_type));
    }
    if (slots[i].kind == Slot::Kind::kList)
      throw FieldError(fmt::format("/{}/{}", side, i),
                       fmt::format("expected one tensor for {} {} of {}, found a list", side, i, r_.op_type));
    return &slots[i].tensors[0];
  }

  const OpRecord& r_;
  std::vector<std::string> with_;
};

// Square, Relu, Gelu, FastGelu: y is x.
void elementwise_unary(Check& c) {
  c.arity(1, 1, 1, 1);
  const Tensor &x = c.input(0), &y = c.output(0);
  c.shape("outputs", 0, y, Check::dims(x));
  c.dtype("outputs", 0, y, {x.dtype});
}

// Cast: y is x in the dtype of dst_type (GE's DataType number).
void cast(Check& c) {
  c.arity(1, 1, 1, 1);
  const Tensor &x = c.input(0), &y = c.output(0);
  c.shape("outputs", 0, y, Check::dims(x));
  if (c.record().find_attr("dst_type")) {
    const std::int64_t number = c.integer("dst_type", 0);
    auto name = ge_dtype_name(number);
    if (!name) c.fail(c.attr_pointer("dst_type"), "a GE DataType number that names y's dtype", std::to_string(number));
    c.dtype("outputs", 0, y, {std::string(*name)});
  }
}

// Add, Sub, Mul, RealDiv: y is x1 and x2 broadcast.
void elementwise_binary(Check& c) {
  c.arity(2, 2, 1, 1);
  const Tensor &x1 = c.input(0), &x2 = c.input(1), &y = c.output(0);
  auto out = broadcast(Check::dims(x1), Check::dims(x2));
  if (!out)
    c.fail(Check::shape_pointer("inputs", 1, x2), "a shape that broadcasts with " + show(Check::dims(x1)),
           show(Check::dims(x2)));
  c.shape("outputs", 0, y, *out);
  c.dtype("outputs", 0, y, {x1.dtype, x2.dtype});
}

Dims batch_of(const Dims& d) { return Dims(d.begin(), d.end() - 2); }

// MatMulV2 (transpose_x1/x2, 2-D) and BatchMatMulV2 (adj_x1/x2, batch axes broadcast): y = op(x1) op(x2)
// (+ bias of n).
void matmul(Check& c, bool batched) {
  c.arity(2, 4, 1, 1);
  const bool ta = c.flag(batched ? "adj_x1" : "transpose_x1", false);
  const bool tb = c.flag(batched ? "adj_x2" : "transpose_x2", false);
  const Tensor &x1 = c.input(0), &x2 = c.input(1), &y = c.output(0);
  const std::size_t max_rank = batched ? 8 : 2;
  c.rank("inputs", 0, x1, 2, max_rank);
  c.rank("inputs", 1, x2, 2, max_rank);
  const Dims &a = Check::dims(x1), &b = Check::dims(x2), &o = Check::dims(y);
  const std::int64_t m = ta ? a.back() : a[a.size() - 2];
  const std::int64_t k = ta ? a[a.size() - 2] : a.back();
  const std::int64_t k2 = tb ? b.back() : b[b.size() - 2];
  std::int64_t n = tb ? b[b.size() - 2] : b.back();
  if (k2 != k) {
    // x2 as it would be with x1's k, and y's n when y has one.
    const std::int64_t want_n = o.size() >= 2 ? o.back() : n;
    Dims want = batch_of(b);
    want.push_back(tb ? want_n : k);
    want.push_back(tb ? k : want_n);
    c.fail(Check::shape_pointer("inputs", 1, x2), show(want), show(b));
  }
  auto batch = broadcast(batch_of(a), batch_of(b));
  if (!batch)
    c.fail(Check::shape_pointer("inputs", 1, x2), "batch axes that broadcast with " + show(batch_of(a)),
           show(batch_of(b)));
  Dims want = *batch;
  want.push_back(m);
  want.push_back(n);
  c.shape("outputs", 0, y, want);
  if (const Tensor* bias = c.optional_input(2)) {
    const Dims& d = Check::dims(*bias);
    std::int64_t elements = 1;
    for (auto e : d) elements *= e;
    if (d.empty() || d.back() != n || elements != n)
      c.fail(Check::shape_pointer("inputs", 2, *bias), show({n}), show(d));
  }
}

// SoftmaxV2 along axes (default the last): y is x.
void softmax(Check& c) {
  c.arity(1, 1, 1, 1);
  const Tensor &x = c.input(0), &y = c.output(0);
  c.rank("inputs", 0, x, 1, 8);
  const Dims axes = c.integers("axes", {-1});
  if (axes.empty()) c.fail(c.attr_pointer("axes"), "at least one axis", "[]");
  std::vector<bool> seen(Check::dims(x).size());
  for (std::size_t i = 0; i < axes.size(); ++i) {
    std::string pointer = c.record().find_attr("axes") && c.record().find_attr("axes")->value.is_array()
                              ? fmt::format("{}/{}", c.attr_pointer("axes"), i)
                              : c.attr_pointer("axes");
    auto a = c.axis("an axis", axes[i], Check::dims(x).size(), pointer);
    if (seen[a]) c.fail(pointer, "axes that differ", show(axes));
    seen[a] = true;
  }
  c.shape("outputs", 0, y, Check::dims(x));
  // half_to_float: a float16 x gives a float y.
  if (c.flag("half_to_float", false) && x.dtype == "float16")
    c.dtype("outputs", 0, y, {"float"});
  else
    c.dtype("outputs", 0, y, {x.dtype});
}

// Dims [0, axis) of x, then ones: the shape of per-row statistics.
Dims stats_shape(const Dims& x, std::size_t axis) {
  Dims d(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(axis));
  d.resize(x.size(), 1);
  return d;
}

// LayerNorm: x normalized over [begin_norm_axis, rank); gamma and beta of x's dims from
// begin_params_axis; y is x; mean and variance per row.
void layer_norm(Check& c) {
  c.arity(2, 3, 1, 3);
  const Tensor &x = c.input(0), &gamma = c.input(1), &y = c.output(0);
  c.rank("inputs", 0, x, 1, 8);
  const Dims& xd = Check::dims(x);
  const auto norm = static_cast<std::size_t>(
      c.axis("begin_norm_axis", c.integer("begin_norm_axis", 0), xd.size(), c.attr_pointer("begin_norm_axis")));
  const auto params = static_cast<std::size_t>(
      c.axis("begin_params_axis", c.integer("begin_params_axis", 0), xd.size(), c.attr_pointer("begin_params_axis")));
  const Dims param_shape(xd.begin() + static_cast<std::ptrdiff_t>(params), xd.end());
  c.shape("inputs", 1, gamma, param_shape);
  if (const Tensor* beta = c.optional_input(2)) c.shape("inputs", 2, *beta, param_shape);
  c.shape("outputs", 0, y, xd);
  c.dtype("outputs", 0, y, {x.dtype});
  for (std::size_t i = 1; i <= 2; ++i)
    if (const Tensor* s = c.optional_output(i)) {
      c.shape("outputs", i, *s, stats_shape(xd, norm));
      c.dtype("outputs", i, *s, {x.dtype, "float"});
    }
}

// RmsNorm: x normalized over its trailing gamma.rank axes; gamma of those dims; y is x; rstd per row.
void rms_norm(Check& c) {
  c.arity(2, 2, 1, 2);
  const Tensor &x = c.input(0), &gamma = c.input(1), &y = c.output(0);
  c.rank("inputs", 0, x, 1, 8);
  const Dims& xd = Check::dims(x);
  c.rank("inputs", 1, gamma, 1, xd.size());
  const std::size_t axis = xd.size() - Check::dims(gamma).size();
  c.shape("inputs", 1, gamma, Dims(xd.begin() + static_cast<std::ptrdiff_t>(axis), xd.end()));
  c.shape("outputs", 0, y, xd);
  c.dtype("outputs", 0, y, {x.dtype});
  if (const Tensor* rstd = c.optional_output(1)) {
    c.shape("outputs", 1, *rstd, stats_shape(xd, axis));
    c.dtype("outputs", 1, *rstd, {x.dtype, "float"});
  }
}

// The integer values of a value-dependent input (a permutation, multiples), or nothing when they
// were not recorded.
std::optional<Dims> recorded_values(const Tensor& t, std::size_t slot, const char* what) {
  if (!t.value_depend || !t.const_data.is_array()) return std::nullopt;
  Dims values;
  for (std::size_t i = 0; i < t.const_data.size(); ++i) {
    const Json& v = t.const_data[i];
    // (one above 2^63 - 1 would wrap, and the error quote a value the file does not hold)
    if (!v.is_number_integer() || (v.is_number_unsigned() && v.get<std::uint64_t>() > INT64_MAX))
      throw FieldError(fmt::format("/inputs/{}/const_data/{}", slot, i),
                       fmt::format("expected an integer {} (a signed 64-bit one)", what));
    values.push_back(v.get<std::int64_t>());
  }
  return values;
}

// Transpose: perm (input 1) a permutation of x's axes; y's axis i is x's axis perm[i].
void transpose(Check& c) {
  c.arity(2, 2, 1, 1);
  const Tensor &x = c.input(0), &perm = c.input(1), &y = c.output(0);
  const Dims& xd = Check::dims(x);
  c.shape("inputs", 1, perm, {static_cast<std::int64_t>(xd.size())});
  c.dtype("inputs", 1, perm, {"int32", "int64"});
  if (!perm.value_depend || !perm.const_data.is_array()) {
    // The permutation is known only at run time: y must still hold x's extents.
    Dims sorted_x = xd, sorted_y = Check::dims(y);
    std::sort(sorted_x.begin(), sorted_x.end());
    std::sort(sorted_y.begin(), sorted_y.end());
    if (sorted_x != sorted_y)
      c.fail(Check::shape_pointer("outputs", 0, y), "a permutation of " + show(xd), show(Check::dims(y)));
    c.dtype("outputs", 0, y, {x.dtype});
    return;
  }
  const Dims values = *recorded_values(perm, 1, "axis for the perm of Transpose");
  std::string shown = show(values);
  if (values.size() != xd.size())
    throw FieldError(
        "/inputs/1/const_data",
        fmt::format("expected a permutation of {} axes for Transpose of {}, found {}", xd.size(), show(xd), shown));
  std::vector<bool> seen(xd.size());
  Dims want;
  for (std::size_t i = 0; i < values.size(); ++i) {
    const auto r = static_cast<std::int64_t>(xd.size());
    if (values[i] < -r || values[i] >= r || seen[values[i] < 0 ? values[i] + r : values[i]])
      throw FieldError(
          fmt::format("/inputs/1/const_data/{}", i),
          fmt::format("expected a permutation of {} axes for Transpose of {}, found {}", xd.size(), show(xd), shown));
    const std::int64_t a = values[i] < 0 ? values[i] + r : values[i];
    seen[a] = true;
    want.push_back(xd[a]);
  }
  c.shape("outputs", 0, y, want);
  c.dtype("outputs", 0, y, {x.dtype});
}

// Tile: y's axis i is x's (x's shape padded with leading ones to the length of multiples, input 1)
// times multiples[i].
void tile(Check& c) {
  c.arity(2, 2, 1, 1);
  const Tensor &x = c.input(0), &multiples = c.input(1), &y = c.output(0);
  const Dims& xd = Check::dims(x);
  c.rank("inputs", 1, multiples, 1, 1);
  c.dtype("inputs", 1, multiples, {"int32", "int64"});
  const std::int64_t len = Check::dims(multiples)[0];
  if (len < static_cast<std::int64_t>(xd.size()) || len > 8)
    c.fail(Check::shape_pointer("inputs", 1, multiples),
           fmt::format("a shape [k] with k from {} (the rank of x) to 8", xd.size()), show(Check::dims(multiples)));
  c.dtype("outputs", 0, y, {x.dtype});
  Dims padded(static_cast<std::size_t>(len) - xd.size(), 1);
  padded.insert(padded.end(), xd.begin(), xd.end());
  auto values = recorded_values(multiples, 1, "multiple for Tile");
  if (!values) {
    // The multiples are known only at run time: y must still be a multiple of x on every axis.
    c.rank("outputs", 0, y, padded.size(), padded.size());
    const Dims& yd = Check::dims(y);
    for (std::size_t i = 0; i < padded.size(); ++i)
      if (padded[i] == 0 ? yd[i] != 0 : yd[i] % padded[i] != 0)
        c.fail(Check::shape_pointer("outputs", 0, y), "a multiple of " + show(padded) + " on every axis", show(yd));
    return;
  }
  if (values->size() != padded.size())
    throw FieldError("/inputs/1/const_data",
                     fmt::format("expected {} multiples for Tile, found {}", padded.size(), show(*values)));
  Dims want;
  for (std::size_t i = 0; i < padded.size(); ++i) {
    if ((*values)[i] < 0 || (*values)[i] > INT32_MAX)
      throw FieldError(fmt::format("/inputs/1/const_data/{}", i),
                       fmt::format("expected multiples from 0 to 2^31-1 for Tile, found {}", show(*values)));
    want.push_back(padded[i] * (*values)[i]);
  }
  c.shape("outputs", 0, y, want);
}

std::string list_shape_pointer(const std::vector<Tensor>& xs, std::size_t j) {
  return fmt::format("/inputs/0/{}/{}", j, is_plain_format(xs[j].format) ? "shape" : "origin_shape");
}

// ConcatD: the N tensors of the list x (input 0) joined along concat_dim; they agree on every
// other axis and on their dtype, which is y's.
void concat(Check& c) {
  c.arity(1, 1, 1, 1);
  const std::vector<Tensor>& xs = c.list_input(0);
  const Tensor& y = c.output(0);
  const std::int64_t dim = c.integer("concat_dim", 0);
  if (c.record().find_attr("N")) {
    const std::int64_t n = c.integer("N", 0);
    if (n != static_cast<std::int64_t>(xs.size()))
      c.fail(c.attr_pointer("N"), fmt::format("{} (the tensors of x)", xs.size()), std::to_string(n));
  }
  if (xs.empty()) c.fail("/inputs/0", "at least one tensor in x", "none");
  const Dims& first = Check::dims(xs[0]);
  if (first.empty() || first.size() > 8) c.fail(list_shape_pointer(xs, 0), "a shape of rank 1 to 8", show(first));
  const auto axis = static_cast<std::size_t>(c.axis("concat_dim", dim, first.size(), c.attr_pointer("concat_dim")));
  Dims want = first;
  for (std::size_t j = 1; j < xs.size(); ++j) {
    const Dims& d = Check::dims(xs[j]);
    Dims like = first;
    if (d.size() == first.size()) like[axis] = d[axis];
    if (d != like) c.fail(list_shape_pointer(xs, j), show(like), show(d));
    if (xs[j].dtype != xs[0].dtype) c.fail(fmt::format("/inputs/0/{}/dtype", j), xs[0].dtype, xs[j].dtype);
    want[axis] += d[axis];
  }
  c.shape("outputs", 0, y, want);
  c.dtype("outputs", 0, y, {xs[0].dtype});
}

using Rule = void (*)(Check&);

const std::map<std::string, Rule, std::less<>>& rules() {
  static const std::map<std::string, Rule, std::less<>> table = {
      {"Square", elementwise_unary},
      {"Relu", elementwise_unary},
      {"Gelu", elementwise_unary},
      {"FastGelu", elementwise_unary},
      {"Cast", cast},
      {"Add", elementwise_binary},
      {"Sub", elementwise_binary},
      {"Mul", elementwise_binary},
      {"RealDiv", elementwise_binary},
      {"MatMulV2", [](Check& c) { matmul(c, false); }},
      {"BatchMatMulV2", [](Check& c) { matmul(c, true); }},
      {"SoftmaxV2", softmax},
      {"LayerNorm", layer_norm},
      {"RmsNorm", rms_norm},
      {"Transpose", transpose},
      {"Tile", tile},
      {"ConcatD", concat},
  };
  return table;
}

}  // namespace

bool is_plain_format(std::string_view format) {
  static constexpr std::string_view kPlain[] = {"ND", "NCHW", "NHWC", "NCDHW", "NDHWC", "HWCN", "DHWCN", "NCL"};
  return std::find(std::begin(kPlain), std::end(kPlain), format) != std::end(kPlain);
}

bool has_shape_rules(std::string_view op_type) { return rules().count(op_type) != 0; }

bool check_shapes(const OpRecord& record) {
  auto rule = rules().find(record.op_type);
  if (rule == rules().end()) return false;
  Check check(record);
  rule->second(check);
  return true;
}

}  // namespace skb::opmodel
