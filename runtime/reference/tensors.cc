#include "runtime/reference/tensors.h"

#include <fmt/format.h>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "skb_dtypes.h"

namespace skb::reference {
using opmodel::OpRecord;
using opmodel::Tensor;

std::size_t dtype_size(const std::string& dt) { return dt == "float" || dt == "int32" ? 4 : dt == "int64" ? 8 : 2; }

void store(const std::string& dt, unsigned char* p, float v) {
  if (dt == "float") {
    std::memcpy(p, &v, 4);
  } else if (dt == "float16") {
    auto h = skb_k::from_float<skb_k::f16>(v);
    std::memcpy(p, &h, 2);
  } else if (dt == "bfloat16") {
    auto h = skb_k::from_float<skb_k::bf16>(v);
    std::memcpy(p, &h, 2);
  } else if (dt == "int32") {
    auto i = static_cast<std::int32_t>(v);
    std::memcpy(p, &i, 4);
  } else {
    auto i = static_cast<std::int64_t>(v);
    std::memcpy(p, &i, 8);
  }
}

float load(const std::string& dt, const unsigned char* p) {
  if (dt == "float") {
    float v;
    std::memcpy(&v, p, 4);
    return v;
  }
  if (dt == "float16") {
    skb_k::f16 h;
    std::memcpy(&h, p, 2);
    return skb_k::to_float(h);
  }
  if (dt == "bfloat16") {
    skb_k::bf16 h;
    std::memcpy(&h, p, 2);
    return skb_k::to_float(h);
  }
  if (dt == "int32") {
    std::int32_t i;
    std::memcpy(&i, p, 4);
    return static_cast<float>(i);
  }
  std::int64_t i;
  std::memcpy(&i, p, 8);
  return static_cast<float>(i);
}

Buffer make_buffer(const Tensor& t, std::mt19937& rng, float lo, float hi) {
  Buffer b;
  b.ref.shape = t.shape;
  std::int64_t n = numel(t.shape);
  std::size_t es = dtype_size(t.dtype);
  b.bytes.resize(static_cast<std::size_t>(n) * es);
  bool constant = t.value_depend && t.const_data.is_array();
  std::uniform_real_distribution<float> dist(lo, hi);
  for (std::int64_t i = 0; i < n; ++i) {
    float v = constant ? t.const_data[static_cast<std::size_t>(i)].get<float>() : (hi > lo ? dist(rng) : lo);
    store(t.dtype, &b.bytes[static_cast<std::size_t>(i) * es], v);
    b.ref.data.push_back(load(t.dtype, &b.bytes[static_cast<std::size_t>(i) * es]));
  }
  return b;
}

const Tensor* slot_tensor(const std::vector<opmodel::Slot>& slots, std::size_t i) {
  if (i >= slots.size() || slots[i].kind != opmodel::Slot::Kind::kTensor) return nullptr;
  return &slots[i].tensors[0];
}

namespace {

// A slot's Buffer: its tensor's, or for a list each tensor's in items; empty when absent.
Buffer slot_buffer(const opmodel::Slot& slot, std::mt19937& rng, float lo, float hi) {
  if (slot.kind == opmodel::Slot::Kind::kTensor) return make_buffer(slot.tensors[0], rng, lo, hi);
  Buffer b;
  b.list = slot.kind == opmodel::Slot::Kind::kList;
  for (const Tensor& t : slot.tensors) b.items.push_back(make_buffer(t, rng, lo, hi));
  return b;
}

void* pointer(Buffer& b) {
  if (!b.list) return b.bytes.empty() ? nullptr : b.bytes.data();
  b.item_pointers.clear();
  for (Buffer& item : b.items) b.item_pointers.push_back(item.bytes.empty() ? nullptr : item.bytes.data());
  return b.item_pointers.data();
}

}  // namespace

std::vector<Buffer> make_inputs(const OpRecord& rec, std::mt19937& rng) {
  std::vector<Buffer> in;
  for (std::size_t i = 0; i < rec.inputs.size(); ++i) {
    bool divisor = rec.op_type == "RealDiv" && i == 1;
    in.push_back(slot_buffer(rec.inputs[i], rng, divisor ? 0.5f : -2.f, 2.f));
  }
  return in;
}

std::vector<Buffer> make_outputs(const OpRecord& rec) {
  std::vector<Buffer> out;
  std::mt19937 unused;
  for (const auto& slot : rec.outputs) out.push_back(slot_buffer(slot, unused, 0, 0));
  return out;
}

std::vector<const void*> input_pointers(std::vector<Buffer>& in) {
  std::vector<const void*> p;
  for (auto& b : in) p.push_back(pointer(b));
  return p;
}

std::vector<void*> output_pointers(std::vector<Buffer>& out) {
  std::vector<void*> p;
  for (auto& b : out) p.push_back(pointer(b));
  return p;
}

namespace {

double attr_num(const OpRecord& rec, const char* name, double def) {
  const opmodel::Attr* a = rec.find_attr(name);
  if (!a) return def;
  const auto& v = a->value.is_array() ? (a->value.empty() ? common::Json(def) : a->value[0]) : a->value;
  return v.is_boolean() ? (v.get<bool>() ? 1.0 : 0.0) : v.get<double>();
}

// Every value of an integer list attribute (a scalar as a list of one), or def when absent.
std::vector<std::int64_t> attr_ints(const OpRecord& rec, const char* name, std::vector<std::int64_t> def) {
  const opmodel::Attr* a = rec.find_attr(name);
  if (!a) return def;
  std::vector<std::int64_t> out;
  if (a->value.is_array())
    for (const auto& v : a->value) out.push_back(v.get<std::int64_t>());
  else
    out.push_back(a->value.get<std::int64_t>());
  return out;
}

}  // namespace

std::vector<std::vector<float>> expected_outputs(const OpRecord& rec, const std::vector<Buffer>& in) {
  const std::string& op = rec.op_type;
  const Tensor* out0 = slot_tensor(rec.outputs, 0);
  if (!out0) throw std::invalid_argument(op + ": no output tensor");
  if (op == "Square" || op == "Relu" || op == "Gelu" || op == "FastGelu" || op == "Cast") {
    std::vector<float> y;
    for (float v : in[0].ref.data) y.push_back(ref_unary(op, v));
    return {y};
  }
  if (op == "Add" || op == "Sub" || op == "Mul" || op == "RealDiv")
    return {ref_broadcast(op, in[0].ref, in[1].ref, out0->shape)};
  if (op == "MatMulV2" || op == "BatchMatMulV2") {
    bool mm = op == "MatMulV2";
    const Ref* bias = slot_tensor(rec.inputs, 2) ? &in[2].ref : nullptr;
    return {ref_matmul(in[0].ref, in[1].ref, bias, attr_num(rec, mm ? "transpose_x1" : "adj_x1", 0) != 0,
                       attr_num(rec, mm ? "transpose_x2" : "adj_x2", 0) != 0, out0->shape)};
  }
  if (op == "SoftmaxV2") return {ref_softmax(in[0].ref, attr_ints(rec, "axes", {-1}))};
  if (op == "LayerNorm") {
    std::vector<float> y, m, v;
    const Ref* beta = slot_tensor(rec.inputs, 2) ? &in[2].ref : nullptr;
    ref_layernorm(in[0].ref, in[1].ref, beta, static_cast<int>(attr_num(rec, "begin_norm_axis", 0)),
                  static_cast<float>(attr_num(rec, "epsilon", 1e-7)), y, m, v);
    return {y, m, v};
  }
  if (op == "RmsNorm") {
    std::vector<float> y, r;
    ref_rmsnorm(in[0].ref, in[1].ref, static_cast<float>(attr_num(rec, "epsilon", 1e-6)), y, r);
    return {y, r};
  }
  if (op == "Transpose") {
    std::vector<std::int64_t> perm;
    for (float v : in[1].ref.data) perm.push_back(static_cast<std::int64_t>(v));
    return {ref_transpose(in[0].ref, perm)};
  }
  if (op == "Tile") return {ref_tile(in[0].ref, out0->shape)};
  if (op == "ConcatD") {
    std::vector<Ref> xs;
    for (const Buffer& b : in[0].items) xs.push_back(b.ref);
    return {ref_concat(xs, attr_ints(rec, "concat_dim", {0})[0], out0->shape)};
  }
  throw std::invalid_argument(op + ": no reference implementation");
}

double tolerance(const std::string& dt) { return dt == "float" ? 2e-5 : dt == "float16" ? 4e-3 : 2e-2; }

std::string compare_outputs(const OpRecord& rec, const std::vector<Buffer>& out,
                            const std::vector<std::vector<float>>& want) {
  const Tensor* in0 = slot_tensor(rec.inputs, 0);
  for (std::size_t o = 0; o < want.size() && o < out.size(); ++o) {
    const Tensor* t = slot_tensor(rec.outputs, o);
    if (!t) continue;
    double tol = std::max(tolerance(t->dtype), in0 ? tolerance(in0->dtype) : 0.0);
    if (want[o].size() != static_cast<std::size_t>(numel(t->shape)))
      return fmt::format("output {}: reference has {} elements, tensor {}", o, want[o].size(), numel(t->shape));
    std::size_t es = dtype_size(t->dtype);
    for (std::size_t i = 0; i < want[o].size(); ++i) {
      float got = load(t->dtype, &out[o].bytes[i * es]);
      if (!(std::fabs(got - want[o][i]) <= tol * (1 + std::fabs(want[o][i]))))
        return fmt::format("output {} element {}: got {}, want {}", o, i, got, want[o][i]);
    }
  }
  return "";
}

}  // namespace skb::reference
