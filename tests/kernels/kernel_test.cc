// Every host template, compiled by the real generator and ninja, static and dynamic, loaded
// with dlopen and checked against reference_ops on random data, for float, float16, bfloat16.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <cmath>
#include <filesystem>
#include <random>

#include "common/fs.h"
#include "common/process.h"
#include "generator/defines.h"
#include "generator/plan.h"
#include "generator/toolchain.h"
#include "reference_ops.h"
#include "skb_dtypes.h"
#include "skb_kernel_abi.h"

namespace skb::test {
namespace {
namespace fs = std::filesystem;
using common::Json;

struct Spec {
  std::string dtype;
  Shape shape;
  bool null = false;
  std::vector<std::int64_t> const_data;
};

struct Case {
  std::string label, op;
  std::vector<Spec> inputs, outputs;
  Json attrs = Json::array();
};
void PrintTo(const Case& c, std::ostream* os) { *os << c.label; }

Spec T(std::string dtype, Shape shape) { return Spec{std::move(dtype), std::move(shape)}; }
Spec Null() { return Spec{"", {}, true}; }
Spec Perm(std::vector<std::int64_t> p) { return Spec{"int64", {static_cast<std::int64_t>(p.size())}, false, p}; }
Json A(const char* name, int index, const char* dtype, Json value) {
  return {{"name", name}, {"index", index}, {"dtype", dtype}, {"value", std::move(value)}};
}

std::vector<Case> cases() {
  std::vector<Case> c;
  c.push_back({"square_f32", "Square", {T("float", {3, 5})}, {T("float", {3, 5})}});
  c.push_back({"relu_f16", "Relu", {T("float16", {17})}, {T("float16", {17})}});
  c.push_back({"gelu_bf16", "Gelu", {T("bfloat16", {4, 8})}, {T("bfloat16", {4, 8})}});
  c.push_back({"fastgelu_f32", "FastGelu", {T("float", {2, 3, 4})}, {T("float", {2, 3, 4})}});
  c.push_back(
      {"cast_f16_f32", "Cast", {T("float16", {10})}, {T("float", {10})}, Json::array({A("dst_type", 0, "int", 0)})});
  c.push_back({"cast_f32_bf16",
               "Cast",
               {T("float", {6, 2})},
               {T("bfloat16", {6, 2})},
               Json::array({A("dst_type", 0, "int", 27)})});
  c.push_back({"add_f32", "Add", {T("float", {4, 5}), T("float", {4, 5})}, {T("float", {4, 5})}});
  c.push_back({"sub_f16_bcast", "Sub", {T("float16", {2, 3, 4}), T("float16", {4})}, {T("float16", {2, 3, 4})}});
  c.push_back(
      {"mul_bf16_bcast2", "Mul", {T("bfloat16", {2, 1, 4}), T("bfloat16", {3, 1})}, {T("bfloat16", {2, 3, 4})}});
  c.push_back({"realdiv_f32_col", "RealDiv", {T("float", {3, 4}), T("float", {3, 1})}, {T("float", {3, 4})}});
  c.push_back({"add_scalar", "Add", {T("float", {}), T("float", {})}, {T("float", {})}});
  Json mm = Json::array({A("transpose_x1", 0, "bool", false), A("transpose_x2", 1, "bool", false)});
  c.push_back(
      {"matmul_f32", "MatMulV2", {T("float", {5, 7}), T("float", {7, 3}), Null(), Null()}, {T("float", {5, 3})}, mm});
  c.push_back({"matmul_f32_ta",
               "MatMulV2",
               {T("float", {7, 5}), T("float", {7, 3}), Null(), Null()},
               {T("float", {5, 3})},
               Json::array({A("transpose_x1", 0, "bool", true), A("transpose_x2", 1, "bool", false)})});
  c.push_back({"matmul_f16_tb_bias",
               "MatMulV2",
               {T("float16", {4, 16}), T("float16", {6, 16}), T("float16", {6}), Null()},
               {T("float16", {4, 6})},
               Json::array({A("transpose_x1", 0, "bool", false), A("transpose_x2", 1, "bool", true)})});
  c.push_back({"bmm_f32",
               "BatchMatMulV2",
               {T("float", {2, 3, 4, 5}), T("float", {2, 3, 5, 6}), Null(), Null()},
               {T("float", {2, 3, 4, 6})},
               Json::array({A("adj_x1", 0, "bool", false), A("adj_x2", 1, "bool", false)})});
  c.push_back({"bmm_bf16_bcast_adj",
               "BatchMatMulV2",
               {T("bfloat16", {2, 1, 4, 5}), T("bfloat16", {3, 6, 5}), Null(), Null()},
               {T("bfloat16", {2, 3, 4, 6})},
               Json::array({A("adj_x1", 0, "bool", false), A("adj_x2", 1, "bool", true)})});
  c.push_back({"softmax_f32_last",
               "SoftmaxV2",
               {T("float", {3, 7})},
               {T("float", {3, 7})},
               Json::array({A("axes", 0, "list_int", {-1})})});
  c.push_back({"softmax_f16_mid",
               "SoftmaxV2",
               {T("float16", {2, 5, 3})},
               {T("float16", {2, 5, 3})},
               Json::array({A("axes", 0, "list_int", {1})})});
  c.push_back({"layernorm_f32",
               "LayerNorm",
               {T("float", {4, 16}), T("float", {16}), T("float", {16})},
               {T("float", {4, 16}), T("float", {4, 1}), T("float", {4, 1})},
               Json::array({A("begin_norm_axis", 0, "int", -1), A("begin_params_axis", 1, "int", -1),
                            A("epsilon", 2, "float", 1e-5)})});
  c.push_back({"layernorm_f16",
               "LayerNorm",
               {T("float16", {3, 2, 8}), T("float16", {8}), T("float16", {8})},
               {T("float16", {3, 2, 8}), T("float", {3, 2, 1}), T("float", {3, 2, 1})},
               Json::array({A("begin_norm_axis", 0, "int", 2), A("begin_params_axis", 1, "int", 2),
                            A("epsilon", 2, "float", 1e-5)})});
  c.push_back({"rmsnorm_bf16",
               "RmsNorm",
               {T("bfloat16", {3, 32}), T("bfloat16", {32})},
               {T("bfloat16", {3, 32}), T("float", {3, 1})},
               Json::array({A("epsilon", 0, "float", 1e-6)})});
  c.push_back({"transpose_f32", "Transpose", {T("float", {2, 3, 4}), Perm({2, 0, 1})}, {T("float", {4, 2, 3})}});
  c.push_back({"transpose_f16_4d",
               "Transpose",
               {T("float16", {2, 3, 4, 5}), Perm({0, 2, 1, 3})},
               {T("float16", {2, 4, 3, 5})}});
  return c;
}

Json tensor_json(const Spec& s, int index) {
  if (s.null) return nullptr;
  Json t = {{"name", fmt::format("t{}", index)},
            {"index", index},
            {"param_type", "required"},
            {"dtype", s.dtype},
            {"format", "ND"},
            {"shape", s.shape},
            {"origin_format", "ND"},
            {"origin_shape", s.shape},
            {"is_view", false},
            {"value_depend", !s.const_data.empty()}};
  if (!s.const_data.empty()) t["const_data"] = s.const_data;
  return t;
}

Json record_json(const Case& c) {
  Json in = Json::array(), out = Json::array();
  for (std::size_t i = 0; i < c.inputs.size(); ++i) in.push_back(tensor_json(c.inputs[i], static_cast<int>(i)));
  for (std::size_t i = 0; i < c.outputs.size(); ++i) out.push_back(tensor_json(c.outputs[i], static_cast<int>(i)));
  return {{"op_type", c.op},
          {"inputs", in},
          {"outputs", out},
          {"attrs", c.attrs},
          {"deterministic", "false"},
          {"deterministic_level", 0},
          {"impl_mode", "high_performance"},
          {"tune_mode", "all"},
          {"platform_info", {{"cube_core_cnt", 24}, {"vector_core_cnt", 48}}}};
}

// A tensor's bytes in its dtype, and its values as the kernel sees them (rounded to dtype).
struct Buffer {
  std::vector<unsigned char> bytes;
  Ref ref;
};

std::size_t dtype_size(const std::string& dt) { return dt == "float" || dt == "int32" ? 4 : dt == "int64" ? 8 : 2; }

void store(const std::string& dt, unsigned char* p, float v) {
  if (dt == "float")
    std::memcpy(p, &v, 4);
  else if (dt == "float16") {
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

Buffer make_buffer(const Spec& s, std::mt19937& rng, float lo, float hi) {
  Buffer b;
  b.ref.shape = s.shape;
  std::int64_t n = numel(s.shape);
  std::size_t es = dtype_size(s.dtype);
  b.bytes.resize(static_cast<std::size_t>(n) * es);
  std::uniform_real_distribution<float> dist(lo, hi);
  for (std::int64_t i = 0; i < n; ++i) {
    float v = s.const_data.empty() ? dist(rng) : static_cast<float>(s.const_data[i]);
    store(s.dtype, &b.bytes[i * es], v);
    b.ref.data.push_back(load(s.dtype, &b.bytes[i * es]));
  }
  return b;
}

double as_double(const Json& v) { return v.is_boolean() ? (v.get<bool>() ? 1.0 : 0.0) : v.get<double>(); }

double attr_num(const Case& c, const char* name, double def) {
  for (const auto& a : c.attrs)
    if (a["name"] == name) return as_double(a["value"].is_array() ? a["value"][0] : a["value"]);
  return def;
}

std::vector<std::vector<float>> expected(const Case& c, const std::vector<Buffer>& in) {
  const std::string& op = c.op;
  if (op == "Square" || op == "Relu" || op == "Gelu" || op == "FastGelu" || op == "Cast") {
    std::vector<float> y;
    for (float v : in[0].ref.data) y.push_back(ref_unary(op, v));
    return {y};
  }
  if (op == "Add" || op == "Sub" || op == "Mul" || op == "RealDiv")
    return {ref_broadcast(op, in[0].ref, in[1].ref, c.outputs[0].shape)};
  if (op == "MatMulV2" || op == "BatchMatMulV2") {
    bool mm = op == "MatMulV2";
    const Ref* bias = c.inputs.size() > 2 && !c.inputs[2].null ? &in[2].ref : nullptr;
    return {ref_matmul(in[0].ref, in[1].ref, bias, attr_num(c, mm ? "transpose_x1" : "adj_x1", 0) != 0,
                       attr_num(c, mm ? "transpose_x2" : "adj_x2", 0) != 0, c.outputs[0].shape)};
  }
  if (op == "SoftmaxV2") return {ref_softmax(in[0].ref, static_cast<int>(attr_num(c, "axes", -1)))};
  if (op == "LayerNorm") {
    std::vector<float> y, m, v;
    ref_layernorm(in[0].ref, in[1].ref, in[2].ref, static_cast<int>(attr_num(c, "begin_norm_axis", 0)),
                  static_cast<float>(attr_num(c, "epsilon", 1e-7)), y, m, v);
    return {y, m, v};
  }
  if (op == "RmsNorm") {
    std::vector<float> y, r;
    ref_rmsnorm(in[0].ref, in[1].ref, static_cast<float>(attr_num(c, "epsilon", 1e-6)), y, r);
    return {y, r};
  }
  if (op == "Transpose") return {ref_transpose(in[0].ref, c.inputs[1].const_data)};
  throw std::invalid_argument(op);
}

double tolerance(const std::string& dt) { return dt == "float" ? 2e-5 : dt == "float16" ? 4e-3 : 2e-2; }

class Built {
 public:
  static Built& get() {
    static Built b;
    return b;
  }
  fs::path out;
  generator::Toolchain tc;
  std::string error;

 private:
  Built() {
    fs::path root = fs::path(SKB_TEST_SCRATCH) / "kernels";
    fs::remove_all(root);
    fs::create_directories(root / "dump");
    for (const Case& c : cases()) common::write_atomic(root / "dump" / (c.label + ".json"), record_json(c).dump(2));
    out = root / "out";
    auto gen = common::run_process(
        {SKB_GENERATE_EXE, "-p", (root / "dump").string(), "-o", out.string(), "--dynamic", "--quiet", "--strict"},
        true);
    if (gen.exit_code != 0) error = "skb-generate failed: " + gen.output;
    auto nin = common::run_process({"ninja", "-C", out.string()}, true);
    if (error.empty() && nin.exit_code != 0) error = "ninja failed: " + nin.output;
    tc = generator::load_toolchain("host", SKB_TEST_TEMPLATES, "", {});
  }
};

struct Loaded {
  void* handle = nullptr;
  ~Loaded() {
    if (handle) dlclose(handle);
  }
};

class KernelTest : public ::testing::TestWithParam<Case> {};

void run_and_check(const Case& c, bool dynamic) {
  Built& b = Built::get();
  ASSERT_EQ(b.error, "");
  generator::OpRecord rec = generator::parse_op_record(record_json(c));
  std::string sig = dynamic ? generator::dynamic_signature(rec) : generator::canonical_signature(rec);
  std::string name = generator::kernel_name(rec.op_type, sig, b.tc, *b.tc.find(rec.op_type));
  fs::path so = b.out / "kernel_meta" / (name + ".so");
  ASSERT_TRUE(fs::exists(so)) << so;
  Loaded lib;
  lib.handle = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(lib.handle, nullptr) << dlerror();

  std::mt19937 rng(42);
  std::vector<Buffer> in;
  for (std::size_t i = 0; i < c.inputs.size(); ++i) {
    bool divisor = c.op == "RealDiv" && i == 1;
    in.push_back(c.inputs[i].null ? Buffer{} : make_buffer(c.inputs[i], rng, divisor ? 0.5f : -2.f, 2.f));
  }
  std::vector<Buffer> out;
  for (const Spec& s : c.outputs) out.push_back(make_buffer(s, rng, 0, 0));
  std::vector<const void*> in_ptr;
  for (std::size_t i = 0; i < in.size(); ++i) in_ptr.push_back(c.inputs[i].null ? nullptr : in[i].bytes.data());
  std::vector<void*> out_ptr;
  for (auto& o : out) out_ptr.push_back(o.bytes.data());

  int rc;
  if (!dynamic) {
    auto fn = reinterpret_cast<skb_kernel_fn>(dlsym(lib.handle, "skb_kernel"));
    ASSERT_NE(fn, nullptr);
    EXPECT_EQ(dlsym(lib.handle, "skb_kernel_dynamic"), nullptr);
    rc = fn(in_ptr.data(), out_ptr.data());
  } else {
    auto fn = reinterpret_cast<skb_kernel_dynamic_fn>(dlsym(lib.handle, "skb_kernel_dynamic"));
    ASSERT_NE(fn, nullptr);
    std::vector<skb_shape> ishapes, oshapes;
    for (const Spec& s : c.inputs) {
      skb_shape sh{s.null ? -1 : static_cast<int32_t>(s.shape.size()), {}};
      for (std::size_t d = 0; d < s.shape.size(); ++d) sh.dims[d] = s.shape[d];
      ishapes.push_back(sh);
    }
    for (const Spec& s : c.outputs) {
      skb_shape sh{static_cast<int32_t>(s.shape.size()), {}};
      for (std::size_t d = 0; d < s.shape.size(); ++d) sh.dims[d] = s.shape[d];
      oshapes.push_back(sh);
    }
    std::vector<std::vector<double>> values;
    std::vector<std::string> names;
    for (const auto& a : c.attrs) {
      std::vector<double> v;
      if (a["value"].is_array())
        for (const auto& e : a["value"]) v.push_back(as_double(e));
      else
        v.push_back(as_double(a["value"]));
      values.push_back(v);
      names.push_back(a["name"]);
    }
    std::vector<skb_attr> attrs;
    for (std::size_t i = 0; i < values.size(); ++i)
      attrs.push_back({names[i].c_str(), static_cast<int32_t>(values[i].size()), values[i].data()});
    skb_call call{static_cast<int32_t>(ishapes.size()),
                  static_cast<int32_t>(oshapes.size()),
                  ishapes.data(),
                  oshapes.data(),
                  static_cast<int32_t>(attrs.size()),
                  attrs.data()};
    rc = fn(&call, in_ptr.data(), out_ptr.data());
  }
  ASSERT_EQ(rc, 0);

  auto want = expected(c, in);
  ASSERT_EQ(want.size(), c.outputs.size());
  for (std::size_t o = 0; o < c.outputs.size(); ++o) {
    const std::string& dt = c.outputs[o].dtype;
    double tol = std::max(tolerance(dt), tolerance(c.inputs[0].dtype));
    ASSERT_EQ(want[o].size(), static_cast<std::size_t>(numel(c.outputs[o].shape)));
    for (std::size_t i = 0; i < want[o].size(); ++i) {
      float got = load(dt, &out[o].bytes[i * dtype_size(dt)]);
      ASSERT_NEAR(got, want[o][i], tol * (1 + std::fabs(want[o][i]))) << "output " << o << " element " << i;
    }
  }
}

TEST_P(KernelTest, StaticKernelMatchesReference) { run_and_check(GetParam(), false); }
TEST_P(KernelTest, DynamicKernelMatchesReference) { run_and_check(GetParam(), true); }

INSTANTIATE_TEST_SUITE_P(HostTemplates, KernelTest, ::testing::ValuesIn(cases()),
                         [](const auto& info) { return info.param.label; });

}  // namespace
}  // namespace skb::test
