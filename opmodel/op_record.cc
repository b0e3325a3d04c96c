#include "opmodel/op_record.h"

#include <fmt/format.h>
#include <algorithm>
#include <map>

#include "common/error.h"

namespace skb::opmodel {
namespace {

using common::Field;
using common::FieldError;

constexpr std::size_t kMaxSlots = 64;
constexpr std::size_t kMaxListTensors = 256;
constexpr std::size_t kMaxRank = 8;
constexpr std::int64_t kMaxDim = (std::int64_t{1} << 31) - 1;
constexpr std::int64_t kMaxElements = std::int64_t{1} << 40;
constexpr std::size_t kMaxAttrs = 256;
constexpr std::size_t kMaxListAttr = 4096;

bool is_lower_token(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(),
                                   [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'; });
}

bool is_upper_token(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(),
                                   [](char c) { return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; });
}

// Tensor and attribute names: letters, digits, '_', '.', '-', never "..".
bool is_safe_name(std::string_view s) {
  if (s.empty() || s.find("..") != std::string_view::npos || s.front() == '-') return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
           c == '-';
  });
}

std::vector<std::int64_t> read_dims(const Field& f, bool check_elements) {
  std::size_t n = f.array_size(kMaxRank);
  std::vector<std::int64_t> dims;
  std::int64_t elements = 1;
  for (std::size_t i = 0; i < n; ++i) {
    std::int64_t d = f.at(i).integer(0, kMaxDim);
    dims.push_back(d);
    if (check_elements && d > 0) {
      if (elements > kMaxElements / d)
        throw FieldError(f.pointer(), fmt::format("expected a shape of at most 2^40 elements"));
      elements *= d;
    }
  }
  return dims;
}

std::string read_token(const Field& f, bool upper, const char* what) {
  std::string s = f.string(64);
  if (!(upper ? is_upper_token(s) : is_lower_token(s)))
    throw FieldError(f.pointer(), fmt::format("expected {} ({}), found {}", what, upper ? "[A-Z0-9_]+" : "[a-z0-9_]+",
                                              Json(s).dump()));
  return s;
}

Tensor read_tensor(const Field& f) {
  f.expect_object();
  Tensor t;
  std::string name = f.at("name").string(128);
  if (!is_safe_name(name))
    throw FieldError(f.at("name").pointer(), "expected a tensor name of letters, digits, '_', '.', '-' (no \"..\")");
  f.at("index").integer(0, 1 << 20);
  std::string param_type = f.at("param_type").string(16);
  if (param_type != "required" && param_type != "optional" && param_type != "dynamic")
    throw FieldError(f.at("param_type").pointer(), "expected \"required\", \"optional\" or \"dynamic\"");
  t.dtype = read_token(f.at("dtype"), false, "a dtype such as float16");
  t.format = read_token(f.at("format"), true, "a format such as ND");
  t.shape = read_dims(f.at("shape"), true);
  t.origin_format = read_token(f.at("origin_format"), true, "a format such as ND");
  t.origin_shape = read_dims(f.at("origin_shape"), true);
  if (f.has("sub_format")) t.sub_format = f.at("sub_format").integer(0, 1 << 20);
  if (f.has("c0_format")) t.c0_format = f.at("c0_format").integer(0, 1 << 20);
  t.is_view = f.at("is_view").boolean();
  if (t.is_view) {
    t.stride = read_dims(f.at("stride"), false);
    if (t.stride.size() != t.shape.size())
      throw FieldError(f.at("stride").pointer(),
                       fmt::format("expected {} strides, one per dimension of shape", t.shape.size()));
    t.offset = f.at("offset").integer(0, kMaxElements);
  }
  t.value_depend = f.at("value_depend").boolean();
  if (t.value_depend) {
    Field data = f.at("const_data");
    if (data.json().is_string()) {
      if (data.string() != "NULL") data.fail("an array of numbers or \"NULL\"");
    } else {
      std::size_t n = data.array_size(kMaxListAttr);
      for (std::size_t i = 0; i < n; ++i) data.at(i).number();
    }
    t.const_data = data.json();
  }
  return t;
}

Slot read_slot(const Field& f) {
  Slot s;
  if (f.is_null()) return s;
  if (f.json().is_array()) {
    s.kind = Slot::Kind::kList;
    std::size_t n = f.array_size(kMaxListTensors);
    for (std::size_t i = 0; i < n; ++i) s.tensors.push_back(read_tensor(f.at(i)));
    return s;
  }
  if (!f.json().is_object()) f.fail("a tensor object, an array of tensors, or null");
  s.kind = Slot::Kind::kTensor;
  s.tensors.push_back(read_tensor(f));
  return s;
}

std::vector<Slot> read_slots(const Field& f) {
  std::size_t n = f.array_size(kMaxSlots);
  std::vector<Slot> slots;
  for (std::size_t i = 0; i < n; ++i) slots.push_back(read_slot(f.at(i)));
  return slots;
}

const std::map<std::string, std::string, std::less<>>& attr_kinds() {
  static const std::map<std::string, std::string, std::less<>> kinds = {{"str", "str"},
                                                                        {"string", "str"},
                                                                        {"bool", "bool"},
                                                                        {"int", "int"},
                                                                        {"int32", "int"},
                                                                        {"int64", "int"},
                                                                        {"float", "float"},
                                                                        {"float32", "float"},
                                                                        {"list_int", "list_int"},
                                                                        {"listInt", "list_int"},
                                                                        {"list_int64", "list_int"},
                                                                        {"list_float", "list_float"},
                                                                        {"listFloat", "list_float"},
                                                                        {"list_bool", "list_bool"},
                                                                        {"listBool", "list_bool"}};
  return kinds;
}

Json read_attr_value(const Field& f, const std::string& kind) {
  constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  if (kind == "str") {
    std::string s = f.string(1024);
    if (std::any_of(s.begin(), s.end(), [](unsigned char c) { return c < 0x20 || c == 0x7f; }))
      throw FieldError(f.pointer(), "expected a string without control characters");
    // Never on a command line unquoted (see kernel_defines), but refused all the same: no real
    // attr holds them, and a record that does was made to attack a build.
    if (s.find_first_of("$`\\\"';|&<") != std::string::npos)
      throw FieldError(f.pointer(), "expected a string without shell or Ninja metacharacters ($ ` \\ \" ' ; | & <)");
    return s;
  }
  if (kind == "bool") return f.boolean();
  if (kind == "int") return f.integer(kMin, kMax);
  if (kind == "float") return f.number();
  Json list = Json::array();
  std::size_t n = f.array_size(kMaxListAttr);
  for (std::size_t i = 0; i < n; ++i) {
    Field e = f.at(i);
    if (kind == "list_int")
      list.push_back(e.integer(kMin, kMax));
    else if (kind == "list_float")
      list.push_back(e.number());
    else
      list.push_back(e.boolean());
  }
  return list;
}

std::vector<Attr> read_attrs(const Field& f) {
  std::size_t n = f.array_size(kMaxAttrs);
  std::vector<Attr> attrs;
  for (std::size_t i = 0; i < n; ++i) {
    Field a = f.at(i);
    a.expect_object();
    Attr attr;
    attr.name = a.at("name").string(128);
    if (!is_identifier(attr.name))
      throw FieldError(a.at("name").pointer(), "expected an attribute name of [A-Za-z0-9_] not starting with a digit");
    std::string dtype = a.at("dtype").string(32);
    auto kind = attr_kinds().find(dtype);
    if (kind == attr_kinds().end())
      throw FieldError(a.at("dtype").pointer(),
                       fmt::format("expected an attr dtype (str, bool, int, float, list_int, list_float, "
                                   "list_bool or an alias), found \"{}\"",
                                   dtype));
    attr.kind = kind->second;
    attr.index = a.at("index").integer(0, 1 << 20);
    attr.position = i;
    attr.value = read_attr_value(a.at("value"), attr.kind);
    for (const Attr& other : attrs)
      if (other.name == attr.name)
        throw FieldError(a.at("name").pointer(), fmt::format("expected unique attr names, \"{}\" repeats", attr.name));
    attrs.push_back(std::move(attr));
  }
  std::stable_sort(attrs.begin(), attrs.end(), [](const Attr& x, const Attr& y) { return x.index < y.index; });
  return attrs;
}

Json tensor_signature(const Tensor& t) {
  Json j = {{"dtype", t.dtype}, {"format", t.format}, {"shape", t.shape}};
  if (t.sub_format) j["sub_format"] = *t.sub_format;
  if (t.c0_format) j["c0_format"] = *t.c0_format;
  if (t.is_view) {
    j["stride"] = t.stride;
    j["offset"] = t.offset;
  }
  if (t.value_depend) j["const_data"] = t.const_data;
  return j;
}

Json slots_signature(const std::vector<Slot>& slots) {
  Json out = Json::array();
  for (const Slot& s : slots) {
    if (s.kind == Slot::Kind::kAbsent) {
      out.push_back(nullptr);
    } else if (s.kind == Slot::Kind::kTensor) {
      out.push_back(tensor_signature(s.tensors[0]));
    } else {
      Json list = Json::array();
      for (const Tensor& t : s.tensors) list.push_back(tensor_signature(t));
      out.push_back(std::move(list));
    }
  }
  return out;
}

}  // namespace

bool is_identifier(std::string_view s) {
  if (s.empty() || s.size() > 128 || (s.front() >= '0' && s.front() <= '9')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
}

std::int64_t Tensor::numel() const {
  std::int64_t n = 1;
  for (std::int64_t d : shape) n *= d;
  return n;
}

bool Tensor::is_contiguous() const {
  if (!is_view) return true;
  if (offset != 0) return false;
  std::int64_t expected = 1;
  for (std::size_t i = shape.size(); i-- > 0;) {
    if (shape[i] != 1 && stride[i] != expected) return false;
    expected *= shape[i];
  }
  return true;
}

const Attr* OpRecord::find_attr(std::string_view name) const {
  for (const Attr& a : attrs)
    if (a.name == name) return &a;
  return nullptr;
}

OpRecord parse_op_record(const Json& doc) {
  Field root(doc, "");
  root.expect_object();
  OpRecord r;
  r.op_type = root.at("op_type").string(128);
  if (!is_identifier(r.op_type))
    throw FieldError("/op_type", fmt::format("expected an op type of [A-Za-z0-9_] not starting with a digit, "
                                             "found {}",
                                             Json(r.op_type).dump()));
  r.inputs = read_slots(root.at("inputs"));
  r.outputs = read_slots(root.at("outputs"));
  r.attrs = root.has("attrs") ? read_attrs(root.at("attrs")) : std::vector<Attr>{};
  if (root.has("tune_mode")) {
    std::string mode = root.at("tune_mode").string(32);
    if (mode != "tune" && mode != "static_kernel" && mode != "all")
      throw FieldError("/tune_mode", "expected \"tune\", \"static_kernel\" or \"all\"");
  }
  if (root.has("impl_mode")) {
    r.impl_mode = root.at("impl_mode").string(64);
    if (!r.impl_mode.empty() && !std::all_of(r.impl_mode.begin(), r.impl_mode.end(), [](char c) {
          return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == ',';
        }))
      throw FieldError("/impl_mode", "expected an impl mode of [A-Za-z0-9_,]");
  }
  if (root.has("deterministic")) {
    r.deterministic = root.at("deterministic").string(8);
    if (r.deterministic != "true" && r.deterministic != "false")
      throw FieldError("/deterministic", "expected the string \"true\" or \"false\"");
  }
  if (root.has("deterministic_level")) r.deterministic_level = root.at("deterministic_level").integer(0, 1 << 20);
  if (root.has("platform_info")) {
    Field p = root.at("platform_info");
    r.platform_info = Json::object();
    for (const char* key : {"cube_core_cnt", "vector_core_cnt"}) r.platform_info[key] = p.at(key).integer(0, 1 << 20);
  }
  if (root.has("extra_params")) {
    root.at("extra_params").expect_object();
    r.extra_params = root.at("extra_params").json();
  }
  if (root.has("bin_type")) root.at("bin_type").integer(0, 1);
  return r;
}

std::string canonical_signature(const OpRecord& r) {
  Json attrs = Json::array();
  for (const Attr& a : r.attrs) attrs.push_back({{"name", a.name}, {"kind", a.kind}, {"value", a.value}});
  Json sig = {{"op_type", r.op_type},
              {"inputs", slots_signature(r.inputs)},
              {"outputs", slots_signature(r.outputs)},
              {"attrs", std::move(attrs)},
              {"impl_mode", r.impl_mode},
              {"deterministic", r.deterministic},
              {"deterministic_level", r.deterministic_level},
              {"platform_info", r.platform_info},
              {"extra_params", r.extra_params}};
  // nlohmann's objects keep keys sorted and dump() is compact and locale-free: a canonical text.
  return sig.dump();
}

namespace {

Tensor tensor_from_signature(const Field& f) {
  Tensor t;
  t.dtype = f.at("dtype").string(64);
  t.format = f.at("format").string(64);
  t.shape = read_dims(f.at("shape"), false);
  t.origin_format = t.format;
  t.origin_shape = t.shape;
  if (f.has("sub_format")) t.sub_format = f.at("sub_format").integer(0, 1 << 20);
  if (f.has("c0_format")) t.c0_format = f.at("c0_format").integer(0, 1 << 20);
  t.is_view = f.has("stride");
  if (t.is_view) {
    t.stride = read_dims(f.at("stride"), false);
    t.offset = f.at("offset").integer(0, kMaxElements);
  }
  t.value_depend = f.has("const_data");
  if (t.value_depend) t.const_data = f.at("const_data").json();
  return t;
}

std::vector<Slot> slots_from_signature(const Field& f) {
  std::vector<Slot> slots(f.array_size(kMaxSlots));
  for (std::size_t i = 0; i < slots.size(); ++i) {
    Field s = f.at(i);
    if (s.is_null()) continue;
    if (s.json().is_array()) {
      slots[i].kind = Slot::Kind::kList;
      for (std::size_t j = 0, n = s.array_size(kMaxListTensors); j < n; ++j)
        slots[i].tensors.push_back(tensor_from_signature(s.at(j)));
    } else {
      slots[i].kind = Slot::Kind::kTensor;
      slots[i].tensors.push_back(tensor_from_signature(s));
    }
  }
  return slots;
}

}  // namespace

OpRecord record_from_signature(const Json& signature) {
  Field root(signature, "");
  root.expect_object();
  OpRecord r;
  r.op_type = root.at("op_type").string(128);
  if (!is_identifier(r.op_type)) throw FieldError("/op_type", "expected an op type of [A-Za-z0-9_]");
  r.inputs = slots_from_signature(root.at("inputs"));
  r.outputs = slots_from_signature(root.at("outputs"));
  Field attrs = root.at("attrs");
  for (std::size_t i = 0, n = attrs.array_size(kMaxAttrs); i < n; ++i) {
    Attr a;
    a.name = attrs.at(i).at("name").string(128);
    if (!is_identifier(a.name)) throw FieldError(attrs.at(i).at("name").pointer(), "expected an attr name");
    a.kind = attrs.at(i).at("kind").string(16);
    a.value = attrs.at(i).at("value").json();
    a.index = static_cast<std::int64_t>(i);
    a.position = i;
    r.attrs.push_back(std::move(a));
  }
  r.impl_mode = root.at("impl_mode").string(64);
  r.deterministic = root.at("deterministic").string(8);
  r.deterministic_level = root.at("deterministic_level").integer(0, 1 << 20);
  r.platform_info = root.at("platform_info").json();
  r.extra_params = root.at("extra_params").json();
  return r;
}

}  // namespace skb::opmodel
