// skb_kernel_bench: static against dynamic kernels of every host template, on the distinct op
// calls of a dump (default: the example), with Google Benchmark; MatMulV2 in float also against
// OpenBLAS sgemm (one thread, as our kernels). Prints a table of speedups and, with --json FILE,
// the same figures as JSON.
//   skb_kernel_bench [--dump DIR] [--calls REGEX] [--json FILE] [--benchmark_min_time=0.1] ...
// --calls keeps the calls whose label (the table's first column) matches REGEX.
#include <benchmark/benchmark.h>
#include <cblas.h>
#include <dlfcn.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <map>
#include <random>
#include <regex>
#include <set>

#include "common/fs.h"
#include "common/process.h"
#include "generator/plan.h"
#include "generator/toolchain.h"
#include "opmodel/defines.h"
#include "opmodel/discovery.h"
#include "runtime/call_args.h"
#include "runtime/reference/tensors.h"

extern "C" void openblas_set_num_threads(int);

namespace {
namespace fs = std::filesystem;
using skb::common::Json;
using skb::opmodel::OpRecord;
using skb::reference::Buffer;

// One distinct op call, its buffers, and both kernels.
struct Subject {
  std::string label;
  Json json;
  OpRecord rec;
  std::vector<Buffer> in, out;
  std::vector<const void*> in_ptr;
  std::vector<void*> out_ptr;
  skb_kernel_fn static_fn = nullptr;
  skb_kernel_dynamic_fn dynamic_fn = nullptr;
  std::unique_ptr<skb::runtime::CallArgs> args;
  std::string check;  // first difference from the reference, per variant
};

std::string label_of(const OpRecord& r) {
  std::string s = r.op_type;
  const auto* t0 = skb::reference::slot_tensor(r.inputs, 0);
  if (t0) s += "_" + t0->dtype;
  for (std::size_t i = 0; i < r.inputs.size(); ++i)
    if (const auto* t = skb::reference::slot_tensor(r.inputs, i); t && !t->value_depend)
      s += "_" + fmt::format("{}", fmt::join(t->shape, "x"));
  for (const auto& a : r.attrs) {
    if (a.kind == "bool" && a.value.get<bool>()) s += "_" + a.name;
    if (a.name == "axes" || a.name == "begin_norm_axis" || a.name == "begin_params_axis") {
      std::vector<std::int64_t> v;
      if (a.value.is_array())
        for (const auto& e : a.value) v.push_back(e.get<std::int64_t>());
      else
        v.push_back(a.value.get<std::int64_t>());
      s += fmt::format("_{}{}",
                       a.name == "axes"              ? "axes"
                       : a.name == "begin_norm_axis" ? "norm"
                                                     : "params",
                       fmt::join(v, ","));
    }
  }
  return s;
}

// The distinct supported calls of the dump, plus a float twin of each half-precision MatMulV2.
std::vector<Json> distinct_calls(const fs::path& dump, const skb::generator::Toolchain& tc) {
  std::map<std::string, Json> by_sig;
  auto add = [&](const Json& j) {
    OpRecord r = skb::opmodel::parse_op_record(j);
    if (skb::generator::unsupported_reason(r, tc).empty()) by_sig.emplace(skb::opmodel::canonical_signature(r), j);
  };
  for (const auto& f : skb::opmodel::discover({dump}).files) {
    Json j;
    try {
      j = skb::common::parse_json(skb::common::read_file(f));
      add(j);
    } catch (const std::exception&) {
      continue;
    }
    if (j["op_type"] == "MatMulV2") {
      for (auto* side : {&j["inputs"], &j["outputs"]})
        for (auto& t : *side)
          if (t.is_object()) t["dtype"] = "float";
      add(j);
    }
    // Softmax over several axes (the last two; the first and the last) and layer norms whose
    // gamma starts before or after the normalized axes.
    auto set_attr = [](Json& rec, const char* name, Json value) {
      for (auto& a : rec["attrs"])
        if (a["name"] == name) a["value"] = std::move(value);
    };
    if (j["op_type"] == "SoftmaxV2" && j["inputs"][0]["shape"].size() >= 2) {
      std::int64_t rank = static_cast<std::int64_t>(j["inputs"][0]["shape"].size());
      for (Json axes : {Json({-2, -1}), Json({0, rank - 1})}) {
        Json v = j;
        set_attr(v, "axes", axes);
        add(v);
      }
    }
    if (j["op_type"] == "LayerNorm" && j["inputs"][0]["shape"].size() == 2) {
      Json whole = j;  // normalized over both axes, gamma of the last
      set_attr(whole, "begin_norm_axis", 0);
      for (auto& t : whole["outputs"])
        if (t.is_object() && t["name"] != "y") t["shape"] = t["origin_shape"] = Json({1, 1});
      add(whole);
      Json rows = j;  // gamma of both axes
      set_attr(rows, "begin_params_axis", 0);
      for (std::size_t i = 1; i <= 2; ++i)
        rows["inputs"][i]["shape"] = rows["inputs"][i]["origin_shape"] = j["inputs"][0]["shape"];
      add(rows);
    }
  }
  std::vector<Json> out;
  for (auto& [sig, j] : by_sig) out.push_back(j);
  return out;
}

void* open_kernel(const fs::path& so, const char* symbol) {
  void* h = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) throw std::runtime_error(dlerror());
  void* fn = dlsym(h, symbol);
  if (!fn) throw std::runtime_error(so.string() + ": no " + symbol);
  return fn;
}

std::vector<std::unique_ptr<Subject>> build_subjects(const fs::path& dump, const fs::path& work,
                                                     const std::string& only) {
  auto tc = skb::generator::load_toolchain("host", SKB_BENCH_TEMPLATES, "", {});
  fs::remove_all(work);
  fs::create_directories(work / "dump");
  std::vector<Json> calls = distinct_calls(dump, tc);
  if (!only.empty()) {
    const std::regex re(only);
    calls.erase(std::remove_if(
                    calls.begin(), calls.end(),
                    [&](const Json& j) { return !std::regex_search(label_of(skb::opmodel::parse_op_record(j)), re); }),
                calls.end());
    if (calls.empty()) throw std::runtime_error("no call matches --calls " + only);
  }
  for (std::size_t i = 0; i < calls.size(); ++i)
    skb::common::write_atomic(work / "dump" / fmt::format("c{}.json", i), calls[i].dump(1));
  for (std::vector<std::string> cmd :
       {std::vector<std::string>{SKB_GENERATE_EXE, "-p", (work / "dump").string(), "-o", (work / "out").string(),
                                 "--dynamic", "--no-package", "--quiet"},
        std::vector<std::string>{"ninja", "-C", (work / "out").string(), "--quiet"}})
    if (auto r = skb::common::run_process(cmd, true); r.exit_code != 0) throw std::runtime_error(r.output);
  std::vector<std::unique_ptr<Subject>> subjects;
  std::mt19937 rng(3);
  for (const Json& j : calls) {
    auto s = std::make_unique<Subject>();
    s->json = j;
    s->rec = skb::opmodel::parse_op_record(j);
    s->label = label_of(s->rec);
    const auto& source = *tc.find(s->rec.op_type);
    auto so = [&](const std::string& sig) {
      return work / "out" / "kernel_meta" / (skb::generator::kernel_name(s->rec.op_type, sig, tc, source) + ".so");
    };
    s->static_fn =
        reinterpret_cast<skb_kernel_fn>(open_kernel(so(skb::opmodel::canonical_signature(s->rec)), "skb_kernel"));
    s->dynamic_fn = reinterpret_cast<skb_kernel_dynamic_fn>(
        open_kernel(so(skb::opmodel::dynamic_signature(s->rec)), "skb_kernel_dynamic"));
    s->args = std::make_unique<skb::runtime::CallArgs>(s->rec);
    s->in = skb::reference::make_inputs(s->rec, rng);
    s->out = skb::reference::make_outputs(s->rec);
    s->in_ptr = skb::reference::input_pointers(s->in);
    s->out_ptr = skb::reference::output_pointers(s->out);
    auto want = skb::reference::expected_outputs(s->rec, s->in);
    s->static_fn(s->in_ptr.data(), s->out_ptr.data());
    std::string d1 = skb::reference::compare_outputs(s->rec, s->out, want);
    s->dynamic_fn(s->args->get(), s->in_ptr.data(), s->out_ptr.data());
    std::string d2 = skb::reference::compare_outputs(s->rec, s->out, want);
    if (!d1.empty()) s->check = "static: " + d1;
    if (!d2.empty()) s->check += " dynamic: " + d2;
    subjects.push_back(std::move(s));
  }
  return subjects;
}

// sgemm on the same shapes and transposes as a float MatMulV2 call (no bias).
void register_openblas(const Subject& s) {
  const auto* a = skb::reference::slot_tensor(s.rec.inputs, 0);
  const auto* b = skb::reference::slot_tensor(s.rec.inputs, 1);
  const auto* y = skb::reference::slot_tensor(s.rec.outputs, 0);
  auto flag = [&](const char* n) {
    const auto* at = s.rec.find_attr(n);
    return at && at->value.is_boolean() && at->value.get<bool>();
  };
  bool ta = flag("transpose_x1"), tb = flag("transpose_x2");
  int m = static_cast<int>(y->shape[0]), n = static_cast<int>(y->shape[1]);
  int k = static_cast<int>(ta ? a->shape[0] : a->shape[1]);
  int lda = static_cast<int>(a->shape[1]), ldb = static_cast<int>(b->shape[1]);
  const Subject* p = &s;
  benchmark::RegisterBenchmark(("openblas/" + s.label).c_str(), [=](benchmark::State& st) {
    auto* A = reinterpret_cast<const float*>(p->in_ptr[0]);
    auto* B = reinterpret_cast<const float*>(p->in_ptr[1]);
    auto* C = reinterpret_cast<float*>(p->out_ptr[0]);
    for (auto _ : st)
      cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, m, n, k, 1.0f, A, lda,
                  B, ldb, 0.0f, C, n);
  });
}

// Static against dynamic, paired: each iteration times a batch of static calls and a batch of
// dynamic calls back to back (which goes first alternates), so that both see the same machine:
// a slower moment, a neighbour's load or a frequency change costs both alike. A batch lasts about
// 20 us (calibrated once), so the clock's own cost is negligible even for the shortest kernels.
void register_paired(Subject& s) {
  Subject* p = &s;
  auto call_static = [p] { p->static_fn(p->in_ptr.data(), p->out_ptr.data()); };
  auto call_dynamic = [p] { p->dynamic_fn(p->args->get(), p->in_ptr.data(), p->out_ptr.data()); };
  using clock = std::chrono::steady_clock;
  auto t0 = clock::now();
  for (int i = 0; i < 100; ++i) call_static();
  const double once = std::chrono::duration<double, std::nano>(clock::now() - t0).count() / 100;
  const int batch = std::max(1, static_cast<int>(20000 / std::max(once, 1.0)));
  benchmark::RegisterBenchmark(("paired/" + s.label).c_str(), [=](benchmark::State& st) {
    double ns_static = 0, ns_dynamic = 0;
    bool static_first = true;
    auto time = [&](auto call) {
      auto t = clock::now();
      for (int b = 0; b < batch; ++b) call();
      return std::chrono::duration<double, std::nano>(clock::now() - t).count();
    };
    for (auto _ : st) {
      if (static_first) {
        ns_static += time(call_static);
        ns_dynamic += time(call_dynamic);
      } else {
        ns_dynamic += time(call_dynamic);
        ns_static += time(call_static);
      }
      static_first = !static_first;
    }
    const double calls = static_cast<double>(st.iterations()) * batch;
    st.counters["static_ns"] = ns_static / calls;
    st.counters["dynamic_ns"] = ns_dynamic / calls;
    st.counters["speedup"] = ns_dynamic / ns_static;
  });
}

// Collects each benchmark's figures (the median over repetitions) while printing as usual: time
// per iteration (ns), and the paired benchmarks' counters.
class Collector : public benchmark::ConsoleReporter {
 public:
  std::map<std::string, double> ns;
  std::map<std::string, std::map<std::string, double>> counters;
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const auto& r : runs) {
      const std::string& name = r.run_name.function_name;
      if (r.run_type == Run::RT_Iteration ? ns.count(name) != 0 : r.aggregate_name != "median") continue;
      ns[name] = r.GetAdjustedRealTime();
      for (const auto& [k, v] : r.counters) counters[name][k] = v.value;
    }
    ConsoleReporter::ReportRuns(runs);
  }
};

int report(const std::vector<std::unique_ptr<Subject>>& subjects, const Collector& c, const std::string& json_path) {
  Json rows = Json::array();
  double log_sum = 0, worst = 1e300;
  std::string worst_label;
  fmt::print("\n{:<58} {:>11} {:>11} {:>8} {:>12}\n", "call (op_dtype_shapes)", "static ns", "dynamic ns", "speedup",
             "of OpenBLAS");
  int errors = 0;
  for (const auto& s : subjects) {
    const auto& paired = c.counters.at("paired/" + s->label);
    double st = paired.at("static_ns"), dy = paired.at("dynamic_ns"), sp = paired.at("speedup");
    log_sum += std::log(sp);
    if (sp < worst) worst = sp, worst_label = s->label;
    Json row = {{"call", s->label}, {"static_ns", st}, {"dynamic_ns", dy}, {"speedup", sp}};
    std::string blas;
    if (auto it = c.ns.find("openblas/" + s->label); it != c.ns.end()) {
      row["openblas_ns"] = it->second;
      row["fraction_of_openblas"] = it->second / st;
      blas = fmt::format("{:.2f}", it->second / st);
    }
    if (!s->check.empty()) {
      row["wrong_result"] = s->check;
      ++errors;
    }
    fmt::print("{:<58} {:>11.0f} {:>11.0f} {:>7.2f}x {:>12}{}\n", s->label, st, dy, sp, blas,
               s->check.empty() ? "" : "  WRONG: " + s->check);
    rows.push_back(row);
  }
  double geo = std::exp(log_sum / static_cast<double>(subjects.size()));
  fmt::print("{} calls: geometric-mean speedup {:.2f}x (target >= 1.3), slowest {:.2f}x ({}; target >= 1.0)\n",
             subjects.size(), geo, worst, worst_label);
  if (!json_path.empty())
    skb::common::write_atomic(json_path,
                              Json{{"calls", rows}, {"geomean_speedup", geo}, {"min_speedup", worst}}.dump(1));
  return errors ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  fs::path dump = SKB_BENCH_EXAMPLE, work = fs::temp_directory_path() / "skb_kernel_bench";
  std::string json_path, only;
  std::vector<char*> rest = {argv[0]};
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--dump" && i + 1 < argc)
      dump = argv[++i];
    else if (a == "--work" && i + 1 < argc)
      work = argv[++i];
    else if (a == "--calls" && i + 1 < argc)
      only = argv[++i];
    else if (a == "--json" && i + 1 < argc)
      json_path = argv[++i];
    else
      rest.push_back(argv[i]);
  }
  int rest_argc = static_cast<int>(rest.size());
  benchmark::Initialize(&rest_argc, rest.data());
  openblas_set_num_threads(1);
  try {
    auto subjects = build_subjects(dump, work, only);
    for (const auto& s : subjects) {
      Subject* p = s.get();
      register_paired(*p);
      if (p->rec.op_type == "MatMulV2" && skb::reference::slot_tensor(p->rec.inputs, 0)->dtype == "float" &&
          !skb::reference::slot_tensor(p->rec.inputs, 2))
        register_openblas(*p);
    }
    Collector c;
    benchmark::RunSpecifiedBenchmarks(&c);
    return report(subjects, c, json_path);
  } catch (const std::exception& e) {
    fmt::print(stderr, "skb_kernel_bench: error: {}\n", e.what());
    return 1;
  }
}
