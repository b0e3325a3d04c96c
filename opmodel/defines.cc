#include "opmodel/defines.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <algorithm>

namespace skb::opmodel {
namespace {

std::string number(const Json& v) {
  if (v.is_boolean()) return v.get<bool>() ? "1" : "0";
  if (v.is_number_integer() || v.is_number_unsigned()) return v.dump();
  std::string s = fmt::format("{}", v.get<double>());
  if (s.find_first_of(".e") == std::string::npos) s += ".0";  // stays a floating literal
  return s;
}

std::string number_list(const Json& list) {
  std::vector<std::string> parts;
  for (const auto& v : list) parts.push_back(number(v));
  return fmt::format("{}", fmt::join(parts, ","));
}

bool is_token(const std::string& s) { return is_identifier(s); }

void tensor_defines(const std::string& prefix, const Tensor& t, Variant variant, std::vector<std::string>& out) {
  out.push_back(fmt::format("-D{}_DTYPE={}", prefix, t.dtype));
  out.push_back(fmt::format("-D{}_FORMAT={}", prefix, t.format));
  if (variant == Variant::kDynamic) return;
  out.push_back(fmt::format("-D{}_SHAPE={}", prefix, fmt::join(t.shape, ",")));
  if (t.is_view) {
    out.push_back(fmt::format("-D{}_STRIDE={}", prefix, fmt::join(t.stride, ",")));
    out.push_back(fmt::format("-D{}_OFFSET={}", prefix, t.offset));
  }
  if (t.value_depend && t.const_data.is_array()) {
    out.push_back(fmt::format("-D{}_CONST={}", prefix, number_list(t.const_data)));
    out.push_back(fmt::format("-D{}_CONST_LEN={}", prefix, t.const_data.size()));
  }
}

void slot_defines(const char* side, const std::vector<Slot>& slots, Variant variant, std::vector<std::string>& out) {
  for (std::size_t i = 0; i < slots.size(); ++i) {
    std::string prefix = fmt::format("SKB_{}{}", side, i);
    const Slot& s = slots[i];
    if (s.kind == Slot::Kind::kAbsent) {
      out.push_back(fmt::format("-D{}_NULL=1", prefix));
    } else if (s.kind == Slot::Kind::kTensor) {
      tensor_defines(prefix, s.tensors[0], variant, out);
    } else {
      out.push_back(fmt::format("-D{}_COUNT={}", prefix, s.tensors.size()));
      // Every shape of the list in one constant: each tensor's rank, then its dims.
      if (variant == Variant::kStatic && !s.tensors.empty()) {
        std::vector<std::int64_t> shapes;
        for (const Tensor& t : s.tensors) {
          shapes.push_back(static_cast<std::int64_t>(t.shape.size()));
          shapes.insert(shapes.end(), t.shape.begin(), t.shape.end());
        }
        out.push_back(fmt::format("-D{}_SHAPES={}", prefix, fmt::join(shapes, ",")));
      }
      for (std::size_t j = 0; j < s.tensors.size(); ++j)
        tensor_defines(fmt::format("{}_{}", prefix, j), s.tensors[j], variant, out);
    }
  }
}

}  // namespace

std::vector<std::string> kernel_defines(const OpRecord& r, Variant variant) {
  std::vector<std::string> out;
  out.push_back(variant == Variant::kStatic ? "-DSKB_STATIC=1" : "-DSKB_DYNAMIC=1");
  out.push_back(fmt::format("-DSKB_OP={}", r.op_type));
  out.push_back(fmt::format("-DSKB_NUM_INPUTS={}", r.inputs.size()));
  out.push_back(fmt::format("-DSKB_NUM_OUTPUTS={}", r.outputs.size()));
  slot_defines("IN", r.inputs, variant, out);
  slot_defines("OUT", r.outputs, variant, out);
  if (variant == Variant::kStatic) {
    for (const Attr& a : r.attrs) {
      if (a.kind == "str") {
        // A string reaches the compiler only as a flag SKB_ATTR_<name>_IS_<value>, and only when
        // the value is a plain token; it is always part of the kernel's identity.
        if (is_token(a.value.get<std::string>()))
          out.push_back(fmt::format("-DSKB_ATTR_{}_IS_{}=1", a.name, a.value.get<std::string>()));
      } else if (a.value.is_array()) {
        out.push_back(fmt::format("-DSKB_ATTR_{}={}", a.name, number_list(a.value)));
        out.push_back(fmt::format("-DSKB_ATTR_{}_LEN={}", a.name, a.value.size()));
      } else {
        out.push_back(fmt::format("-DSKB_ATTR_{}={}", a.name, number(a.value)));
      }
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> separate_lists(std::vector<std::string> defines, const std::string& separator) {
  if (separator == ",") return defines;
  for (auto& d : defines)
    for (std::size_t pos = d.find(','); pos != std::string::npos; pos = d.find(',', pos + separator.size()))
      d.replace(pos, 1, separator);
  return defines;
}

std::string dynamic_signature(const OpRecord& r) {
  Json sig = {{"op_type", r.op_type}, {"variant", "dynamic"}};
  for (const char* side : {"inputs", "outputs"}) {
    Json slots = Json::array();
    for (const Slot& s : (side[0] == 'i' ? r.inputs : r.outputs)) {
      Json dtypes = Json::array();
      for (const Tensor& t : s.tensors) dtypes.push_back(t.dtype);
      slots.push_back(s.kind == Slot::Kind::kAbsent ? Json(nullptr) : dtypes);
    }
    sig[side] = std::move(slots);
  }
  return sig.dump();
}

}  // namespace skb::opmodel
