#include "opmodel/opbase_key.h"

#include <fmt/format.h>
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

#include "opmodel/ge_types.h"
#include "skb_dtypes.h"  // the templates' float16 and bfloat16 conversions (round to nearest even)

namespace skb::opmodel {
namespace {

// opbase's string form parses only the digits 0-2 between the first two slashes.
constexpr int kMaxImplIndex = 2;

std::uint32_t float_bits(double v) { return skb_k::float_bits(static_cast<float>(v)); }

// The bytes one element takes in memory, as opbase copies it: the element's own width,
// zero-extended to one 8-byte little-endian word (every element here is at most 8 bytes).
std::optional<std::uint64_t> element_word(const Json& v, std::string_view dtype) {
  std::size_t width = ge_dtype_size(dtype);
  if (width == 0 || width > 8 || !v.is_number()) return std::nullopt;
  std::uint64_t word = 0;
  if (dtype == "float") {
    word = float_bits(v.get<double>());
  } else if (dtype == "double") {
    double d = v.get<double>();
    std::memcpy(&word, &d, sizeof d);
  } else if (dtype == "float16") {
    word = skb_k::from_float<skb_k::f16>(v.get<float>()).bits;
  } else if (dtype == "bfloat16") {
    word = skb_k::from_float<skb_k::bf16>(v.get<float>()).bits;
  } else if (dtype == "bool") {
    word = v.get<double>() != 0 ? 1 : 0;
  } else if (v.is_number_integer() || v.is_number_unsigned()) {
    word = v.is_number_unsigned() ? v.get<std::uint64_t>() : static_cast<std::uint64_t>(v.get<std::int64_t>());
    if (width < 8) word &= (std::uint64_t{1} << (8 * width)) - 1;
  } else {
    return std::nullopt;  // a fraction for an integer dtype
  }
  return word;
}

// Bytes of any length as opbase's string form writes them: 8-byte little-endian words, the
// last (most significant) first without leading zeros, each earlier one in 16 digits.
std::string bytes_hex(std::string_view bytes) {
  std::vector<std::uint64_t> words((bytes.size() + 7) / 8, 0);
  for (std::size_t i = 0; i < bytes.size(); ++i)
    words[i / 8] |= std::uint64_t{static_cast<unsigned char>(bytes[i])} << (8 * (i % 8));
  std::string out;
  for (std::size_t i = words.size(); i-- > 0;)
    out += i + 1 == words.size() ? fmt::format("{:x}", words[i]) : fmt::format("{:016x}", words[i]);
  return out;
}

// An attr's group, or "" when the engine skips it (an empty string).
std::optional<std::string> attr_text(const Attr& a, OpbaseEngine engine) {
  auto scalar = [&](const Json& v, std::string_view kind) -> std::optional<std::string> {
    if (kind == "bool") return fmt::format("{:x}", v.get<bool>() ? 1 : 0);
    if (kind == "int") return fmt::format("{:x}", static_cast<std::uint64_t>(v.get<std::int64_t>()));
    if (kind == "float") return fmt::format("{:x}", float_bits(v.get<double>()));
    return std::nullopt;
  };
  if (a.kind == "str") {
    std::string s = a.value.get<std::string>();
    if (s.empty()) return "";
    // The individual engine copies the string with its terminating NUL (addr.size is strlen + 1).
    if (engine == OpbaseEngine::kIndividual) s.push_back('\0');
    return bytes_hex(s);
  }
  if (a.kind.rfind("list_", 0) != 0) return scalar(a.value, a.kind);
  std::string_view element = std::string_view(a.kind).substr(5);
  std::string out = "[";
  for (std::size_t i = 0; i < a.value.size(); ++i) {
    auto t = scalar(a.value[i], element);
    if (!t) return std::nullopt;
    out += (i ? "," : "") + *t;
  }
  return out + "]";
}

bool any_view(const OpRecord& r) {
  for (const auto* slots : {&r.inputs, &r.outputs})
    for (const auto& s : *slots)
      for (const auto& t : s.tensors)
        if (t.is_view && !t.is_contiguous()) return true;
  return false;
}

std::vector<std::int64_t> dense_strides(const std::vector<std::int64_t>& shape) {
  std::vector<std::int64_t> s(shape.size(), 1);
  for (std::size_t i = shape.size(); i-- > 1;) s[i - 1] = s[i] * shape[i];
  return s;
}

std::string hex_list(const std::vector<std::int64_t>& v) {
  std::string out;
  for (std::size_t i = 0; i < v.size(); ++i)
    out += fmt::format("{}{:x}", i ? "," : "", static_cast<std::uint64_t>(v[i]));
  return out;
}

// A tensor's group; without dtype and format for a list tensor after the first (the individual
// engine's form).
std::optional<std::string> tensor_text(const Tensor& t, bool with_strides, bool with_dtype_format) {
  auto dtype = ge_dtype_number(t.dtype);
  auto format = ge_format_number(t.format);
  if (!dtype || !format) return std::nullopt;
  // GE packs a sub-format into bits 8-23 and a C0 format into bits 24-27 of the storage format.
  std::uint64_t f = static_cast<std::uint64_t>(*format);
  if (t.sub_format) f |= (static_cast<std::uint64_t>(*t.sub_format) & 0xffff) << 8;
  if (t.c0_format) f |= (static_cast<std::uint64_t>(*t.c0_format) & 0xf) << 24;
  std::string out = with_dtype_format ? fmt::format("{:x},{:x},({})", *dtype, f, hex_list(t.shape))
                                      : fmt::format("({})", hex_list(t.shape));
  if (with_strides)
    out += fmt::format(",({}),{:x}", hex_list(t.is_view ? t.stride : dense_strides(t.shape)),
                       static_cast<std::uint64_t>(t.is_view ? t.offset : 0));
  if (t.value_depend) {
    if (!t.const_data.is_array()) return std::nullopt;
    out += ",[";
    for (std::size_t i = 0; i < t.const_data.size(); ++i) {
      auto w = element_word(t.const_data[i], t.dtype);
      if (!w) return std::nullopt;
      out += fmt::format("{}{:x}", i ? "," : "", *w);
    }
    out += "]";
  }
  return out;
}

}  // namespace

std::optional<int> opbase_impl_mode_index(const std::string& impl_mode) {
  static constexpr std::string_view kModes[] = {"default",
                                                "high_performance",
                                                "high_precision",
                                                "super_performance",
                                                "support_out_of_bound_index",
                                                "enable_float_32_execution",
                                                "enable_hi_float_32_execution",
                                                "keep_fp16"};
  if (impl_mode.empty()) return 0;
  for (int i = 0; i < static_cast<int>(std::size(kModes)); ++i)
    if (kModes[i] == impl_mode) return i;
  return std::nullopt;
}

std::optional<std::string> opbase_engine_key(const OpRecord& r, OpbaseEngine engine, int impl_index) {
  if (impl_index < 0 || impl_index > kMaxImplIndex) return std::nullopt;
  const bool composite = engine == OpbaseEngine::kComposite;
  std::string key = fmt::format("{}/d={},p={}/", r.op_type, r.deterministic == "true" ? 1 : 0, impl_index);
  const bool strides = any_view(r);
  auto slots_text = [&](const std::vector<Slot>& slots) -> bool {
    std::size_t groups = 0;
    for (const auto& s : slots) {
      if (s.kind == Slot::Kind::kAbsent) {
        key += "_/";
        ++groups;
        continue;
      }
      for (std::size_t i = 0; i < s.tensors.size(); ++i) {
        auto text = tensor_text(s.tensors[i], strides, composite || s.kind != Slot::Kind::kList || i == 0);
        if (!text) return false;
        key += *text + "/";
        ++groups;
      }
    }
    // GenerateStaticParam pads the inputs with nullptr up to the op's input count.
    if (composite && &slots == &r.inputs)
      for (; groups < slots.size(); ++groups) key += "_/";
    return true;
  };
  if (!slots_text(r.inputs) || !slots_text(r.outputs)) return std::nullopt;
  for (const auto& a : r.attrs) {
    auto text = attr_text(a, engine);
    if (!text) return std::nullopt;
    if (!text->empty()) key += *text + "/";
  }
  key.pop_back();  // the last slash
  return key;
}

std::vector<int> opbase_impl_indexes(const OpRecord& r, OpbaseEngine engine) {
  auto p = opbase_impl_mode_index(r.impl_mode);
  if (!p) return {};
  if (engine == OpbaseEngine::kComposite && *p == 0) return {2, 1};
  return {*p};
}

std::vector<std::string> opbase_simplified_keys(const OpRecord& r) {
  std::vector<std::string> keys;
  for (OpbaseEngine engine : {OpbaseEngine::kIndividual, OpbaseEngine::kComposite})
    for (int p : opbase_impl_indexes(r, engine)) {
      auto key = opbase_engine_key(r, engine, p);
      if (!key) return {};  // what one engine cannot say, the other cannot either
      if (std::find(keys.begin(), keys.end(), *key) == keys.end()) keys.push_back(std::move(*key));
    }
  return keys;
}

}  // namespace skb::opmodel
