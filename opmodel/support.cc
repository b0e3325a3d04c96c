#include "opmodel/support.h"

#include <fmt/format.h>
#include <map>
#include <set>

#include "opmodel/shape_rules.h"

namespace skb::opmodel {

namespace {

// The attributes each op's template reads; any other is refused rather than ignored.
const std::map<std::string, std::set<std::string>, std::less<>>& known_attrs() {
  static const std::map<std::string, std::set<std::string>, std::less<>> known = {
      {"Square", {}},
      {"Relu", {}},
      {"Gelu", {}},
      {"FastGelu", {}},
      {"Cast", {"dst_type"}},
      {"Add", {}},
      {"Sub", {}},
      {"Mul", {}},
      {"RealDiv", {}},
      {"MatMulV2", {"transpose_x1", "transpose_x2", "offset_x"}},
      {"BatchMatMulV2", {"adj_x1", "adj_x2", "offset_x"}},
      {"SoftmaxV2", {"axes", "half_to_float"}},
      {"LayerNorm", {"begin_norm_axis", "begin_params_axis", "epsilon"}},
      {"RmsNorm", {"epsilon"}},
      {"Transpose", {}},
      {"Tile", {}},
      {"ConcatD", {"concat_dim", "N"}}};
  return known;
}

bool is_zero(const Json& v) { return v.is_number() && v.get<double>() == 0; }

}  // namespace

std::string unsupported_attrs(const OpRecord& r) {
  auto op = known_attrs().find(r.op_type);
  if (op == known_attrs().end()) return "";  // no template: the toolchain says so
  for (const Attr& a : r.attrs)
    if (!op->second.count(a.name)) return fmt::format("attr {}: not one the {} template reads", a.name, r.op_type);
  if (const Attr* offset = r.find_attr("offset_x"); offset && !is_zero(offset->value))
    return fmt::format("attr offset_x {}: a quantization offset; the templates compute float matmuls",
                       offset->value.dump());
  if ((r.op_type == "MatMulV2" || r.op_type == "BatchMatMulV2") && r.inputs.size() > 3 &&
      r.inputs[3].kind != Slot::Kind::kAbsent)
    return "input offset_w: a quantization offset; the templates compute float matmuls";
  return "";
}

std::string unsupported_by_dynamic(const OpRecord& r) {
  for (const auto* slots : {&r.inputs, &r.outputs})
    for (const Slot& s : *slots)
      for (const Tensor& t : s.tensors)
        if (!t.value_depend && !is_plain_format(t.format))
          return fmt::format("format {}: a dynamic kernel computes row-major layouts only", t.format);
  return "";
}

}  // namespace skb::opmodel
