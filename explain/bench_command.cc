#include "explain/bench_command.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <map>
#include <memory>
#include <random>

#include "common/diag.h"
#include "common/error.h"
#include "common/fs.h"
#include "common/json_input.h"
#include "common/sha256.h"
#include "common/version.h"
#include "explain/device_call.h"
#include "explain/paired_timing.h"
#include "opmodel/defines.h"
#include "opmodel/discovery.h"
#include "opmodel/op_record.h"
#include "packager/format/manifest.h"
#include "packager/install/lock.h"
#include "runtime/cublas_gemm.h"
#include "runtime/index_reader.h"
#include "runtime/kernel_module.h"
#include "runtime/payoff.h"
#include "runtime/reference/tensors.h"
#include "skb/runtime.h"

namespace skb::explain {
namespace fs = std::filesystem;
using common::Error;

const char* const kBenchHelp = R"(
Does each static kernel pay off on this machine? For every static kernel of the installed
library whose call is among RECORDS (the op-statistics folders it was built from, as for
skb-generate -p), the same call is run through the runtime twice over: by the static kernel,
and by the dynamic kernel of its op and dtypes, which serves the call without it. Both run on
the same random inputs: a warm-up, then samples of at least --min-sample-ms of repeated calls
each (the calling thread's CPU time: a moment it waits counts for neither side), taken in pairs
whose order alternates, until the 95% confidence interval of the median ratio static time /
dynamic time (the sign test's order statistics, so that a few disturbed pairs change nothing)
is decided, after at least 12 pairs, or the kernel's share of --budget is spent (then "same").
Verdicts, with margin m (--margin):
  slower   the whole interval above 1 + m: the runtime does not serve it here
  faster   the whole interval below 1 / (1 + m)
  same     neither: no measurable difference
A kernel it cannot measure is named with the reason (no record of its call, no dynamic
kernel, a kernel that fails, a cuda kernel on a machine without a GPU).

Cuda kernels run on the GPU: on device copies of the inputs, each sample launches one side
repeatedly between two CUDA events (the GPU's time, launch gaps included for both sides). A
MatMulV2 or BatchMatMulV2 call's dynamic path there is cuBLASLt when it opens (SKB_CUBLASLT),
so a static matmul is judged against what the call runs without skb.

The verdicts, their ratios and intervals, this machine's class (its CPU model, or for cuda
kernels its GPU's name, "gpu-...", with the driver's version) and skb's version are written
into the library, under its lock, as ai_core/payoff/<class>.json (and to --output FILE, the
GPU's when it measured cuda kernels): a later measurement on the same class replaces them,
another class's stay, and a measurement of no kernel of a class (records of another dump)
replaces nothing.
The runtime reads its own class's file when it opens the library and runs the dynamic kernel
for a call whose static kernel was found slower (skb_op_why and skb_runtime_explain say why);
SKB_PAYOFF=off serves every kernel. The bench itself measures every static kernel, whatever
earlier evidence says.

Exit status: 0 measured (whatever the verdicts), 1 error (no kernel measured included: the
evidence kept is then the last measurement's), 2 bad command line.

Example:
  skb bench --install-path /opt/opp-root dump/ --budget 60
)";

namespace {

using Clock = std::chrono::steady_clock;

struct Call {
  std::string file, text;
  opmodel::OpRecord record;
};

struct OpDeleter {
  void operator()(skb_op* op) const { skb_op_free(op); }
};
using OpPtr = std::unique_ptr<skb_op, OpDeleter>;

std::string utc_now() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// The calls of RECORDS by the key of their static kernel; files that are not records are counted.
std::map<std::string, Call> calls_by_key(const std::vector<std::string>& dirs, std::size_t& not_records) {
  std::vector<fs::path> paths(dirs.begin(), dirs.end());
  std::map<std::string, Call> calls;
  for (const auto& file : opmodel::discover(paths).files) {
    std::string text = common::read_file(file, opmodel::kMaxRecordSize);
    try {
      opmodel::OpRecord rec = opmodel::parse_op_record(common::parse_json(text));
      std::string key = common::sha256_hex(opmodel::canonical_signature(rec));
      calls.emplace(key, Call{file, std::move(text), std::move(rec)});
    } catch (const common::FieldError&) {
      ++not_records;
    }
  }
  return calls;
}

// One static kernel against its dynamic twin; the reason it cannot be measured, else nothing.
std::string measure(skb_runtime* rt, const runtime::Index& index, const runtime::IndexEntry& entry, const Call& call,
                    const TimingOptions& o, std::mt19937& rng, runtime::KernelPayoff& out) {
  skb_op* raw = nullptr;
  if (skb_runtime_find(rt, call.text.c_str(), &raw) != SKB_OK)
    return fmt::format("its call ({}) finds no kernel: {}", call.file, skb_last_error());
  OpPtr fast(raw);
  if (skb_op_kind(raw) != SKB_KERNEL_STATIC || entry.kernel_name != skb_op_kernel_name(raw))
    return fmt::format("its call ({}) is served by {}", call.file, skb_op_kernel_name(raw));
  if (skb_runtime_find_dynamic(rt, call.text.c_str(), &raw) != SKB_OK)
    return fmt::format("no dynamic path: {}", skb_last_error());
  OpPtr slow(raw);
  const std::string dynamic_path = skb_op_kernel_name(slow.get());
  auto twin = index.by_key.find(common::sha256_hex(opmodel::dynamic_signature(call.record)));
  if (twin == index.by_key.end() || (twin->second.kernel_name != dynamic_path && dynamic_path != runtime::kCublasLt))
    return "its dynamic kernel is not the one the index lists (was the library changed meanwhile?)";
  auto in = reference::make_inputs(call.record, rng);
  auto out_static = reference::make_outputs(call.record), out_dynamic = reference::make_outputs(call.record);
  Timing t;
  if (entry.launch.on_device()) {
    // On device copies of the inputs, launch after launch, timed by the GPU's events.
    DeviceCall d(in, out_static);
    if (d.run(fast.get()) != SKB_OK) return fmt::format("the static kernel fails: {}", skb_last_error());
    if (d.run(slow.get()) != SKB_OK)
      return fmt::format("the dynamic path {} fails: {}", dynamic_path, skb_last_error());
    t = time_paired_samples([&](long n) { return d.sample(fast.get(), n); },
                            [&](long n) { return d.sample(slow.get(), n); }, o);
  } else {
    auto in_ptr = reference::input_pointers(in);
    auto static_ptr = reference::output_pointers(out_static), dynamic_ptr = reference::output_pointers(out_dynamic);
    if (skb_op_run(fast.get(), in_ptr.data(), static_ptr.data()) != SKB_OK)
      return fmt::format("the static kernel fails: {}", skb_last_error());
    if (skb_op_run(slow.get(), in_ptr.data(), dynamic_ptr.data()) != SKB_OK)
      return fmt::format("the dynamic kernel {} fails: {}", dynamic_path, skb_last_error());
    t = time_paired([&] { skb_op_run(fast.get(), in_ptr.data(), static_ptr.data()); },
                    [&] { skb_op_run(slow.get(), in_ptr.data(), dynamic_ptr.data()); }, o);
  }
  out.kernel = entry.kernel_name;
  out.key = entry.key;
  out.sha256 = entry.sha256;
  out.dynamic_kernel = dynamic_path;  // cublasLt when cuBLASLt is a matmul's dynamic path
  out.dynamic_sha256 = twin->second.sha256;
  out.verdict = t.verdict;
  out.ratio = t.ratio;
  out.low = t.low;
  out.high = t.high;
  out.static_ns = t.a_ns;
  out.dynamic_ns = t.b_ns;
  out.pairs = t.pairs;
  return "";
}

std::string ns_text(double ns) {
  return ns < 1e4 ? fmt::format("{:.2f} us", ns / 1e3) : fmt::format("{:.0f} us", ns / 1e3);
}

void print_report(const runtime::Payoff& p, const fs::path& file, double seconds) {
  std::map<std::string, int> shares;
  for (const auto& k : p.kernels) {
    ++shares[k.verdict];
    fmt::print("{:<44} {:>11} {:>11}  {:.3f}x [{:.3f}, {:.3f}]  {}\n", k.kernel, ns_text(k.static_ns),
               ns_text(k.dynamic_ns), k.ratio, k.low, k.high, k.verdict);
  }
  for (const auto& u : p.unmeasured) fmt::print("{:<44} not measured: {}\n", u.kernel, u.reason);
  const std::size_t n = p.kernels.size();
  auto share = [&](const char* v) {
    int c = shares[v];
    return fmt::format("{} {} ({:.0f}%)", c, v, n ? 100.0 * c / static_cast<double>(n) : 0.0);
  };
  fmt::print(
      "{} static kernels measured in {:.1f} s on {} (ratio = static time / dynamic time, 95% interval, margin "
      "{:.0f}%): {}, {}, {}; {} not measured; evidence in {}\n",
      n, seconds, p.machine, 100 * p.margin, share(runtime::kFaster), share(runtime::kNoDifference),
      share(runtime::kSlower), p.unmeasured.size(), file.string());
}

}  // namespace

int run_bench_command(const BenchCommand& b) {
  common::Diag diag("skb bench", b.quiet);
  const auto start = Clock::now();
  std::string path = b.install_path.empty() ? common::env_or_empty("SKB_INSTALL_PATH") : b.install_path;
  if (path.empty()) throw Error("no --install-path given and SKB_INSTALL_PATH is not set");
  const fs::path root = packager::library_root(path);
  // Every static kernel is measured, whatever the evidence of an earlier measurement says.
  ::setenv("SKB_PAYOFF", "off", 1);
  skb_runtime* opened = nullptr;
  if (skb_runtime_open(path.c_str(), b.soc.empty() ? nullptr : b.soc.c_str(), &opened) != SKB_OK)
    throw Error(skb_last_error());
  std::unique_ptr<skb_runtime, void (*)(skb_runtime*)> rt(opened, skb_runtime_close);
  runtime::Index index = runtime::read_index(root, b.soc);

  std::size_t not_records = 0;
  std::map<std::string, Call> calls = calls_by_key(b.records, not_records);
  if (not_records) diag.warning(fmt::format("{} files of RECORDS are not op records: left out", not_records));

  std::vector<const runtime::IndexEntry*> statics;
  for (const auto& [key, entry] : index.by_key)
    if (entry.variant == "static") statics.push_back(&entry);
  std::sort(statics.begin(), statics.end(), [](auto* x, auto* y) { return x->kernel_name < y->kernel_name; });

  // Host kernels are measured on this machine's CPU, cuda kernels on its GPU: one class each.
  bool host = false, device = false;
  for (const auto* e : statics) (e->launch.on_device() ? device : host) = true;
  std::string no_gpu;
  runtime::MachineClass gpu_class;
  if (device) try {
      gpu_class = runtime::gpu_machine_class();
    } catch (const runtime::RuntimeError& e) {
      no_gpu = e.what();
    }
  auto evidence = [&](const runtime::MachineClass& mc) {
    runtime::Payoff p;
    p.machine_class = mc.id;
    p.machine = mc.description;
    p.skb_version = common::kVersion;
    p.margin = b.margin;
    return p;
  };
  runtime::Payoff hp = evidence(runtime::host_machine_class());
  runtime::Payoff gp = no_gpu.empty() && device ? evidence(gpu_class) : runtime::Payoff{};
  auto payoff_of = [&](const runtime::IndexEntry& e) -> runtime::Payoff& {
    return e.launch.on_device() && no_gpu.empty() ? gp : hp;
  };
  std::size_t to_measure = 0;
  for (const auto* e : statics) to_measure += calls.count(e->key) && (!e->launch.on_device() || no_gpu.empty());
  std::mt19937 rng(1);
  std::size_t done = 0;
  for (const auto* e : statics) {
    auto call = calls.find(e->key);
    runtime::Payoff& p = payoff_of(*e);
    if (e->launch.on_device() && !no_gpu.empty()) {
      p.unmeasured.push_back({e->kernel_name, "a cuda kernel, and no GPU here: " + no_gpu});
      continue;
    }
    if (call == calls.end()) {
      p.unmeasured.push_back({e->kernel_name, "no record of its call among RECORDS"});
      continue;
    }
    const double spent = std::chrono::duration<double>(Clock::now() - start).count();
    TimingOptions o;
    o.min_sample_seconds = b.min_sample_ms / 1e3;
    o.margin = b.margin;
    o.budget_seconds = std::max(0.0, b.budget_seconds - spent) / static_cast<double>(to_measure - done);
    ++done;
    diag.progress(
        fmt::format("[{}/{}] {} ({:.0f} s of {:.0f})", done, to_measure, e->kernel_name, spent, b.budget_seconds));
    runtime::KernelPayoff k;
    std::string why;
    try {
      why = measure(rt.get(), index, *e, call->second, o, rng, k);
    } catch (const runtime::RuntimeError& err) {  // device memory, events: the GPU's errors
      why = err.what();
    }
    if (why.empty())
      p.kernels.push_back(std::move(k));
    else
      p.unmeasured.push_back({e->kernel_name, why});
  }
  diag.end_progress();
  // Each class measured gets its file (a library of cuda kernels on a GPU: the GPU's alone). A
  // class of which no kernel was measured (records of another dump, kernels it cannot run) keeps
  // the evidence it had: a measurement of nothing is no verdict.
  std::vector<runtime::Payoff*> classes, written;
  if (host || !no_gpu.empty()) classes.push_back(&hp);
  if (device && no_gpu.empty()) classes.push_back(&gp);
  for (runtime::Payoff* p : classes) {
    if (!p->kernels.empty()) {
      written.push_back(p);
      continue;
    }
    for (const auto& u : p->unmeasured) fmt::print("{:<44} not measured: {}\n", u.kernel, u.reason);
    diag.warning(
        fmt::format("no static kernel measured on {}: its evidence in the library, if any, is kept", p->machine_class));
  }
  if (written.empty())
    throw Error("no static kernel measured (each is listed above, with the reason): nothing written");
  std::vector<std::pair<fs::path, std::string>> files;
  for (runtime::Payoff* p : written) {
    p->measured = utc_now();
    std::string text = runtime::payoff_json(*p);
    runtime::parse_payoff(common::parse_json(text));  // what the runtime will read back
    files.emplace_back(runtime::payoff_file(root, p->machine_class), std::move(text));
  }
  // --output: the GPU's evidence when it measured any, else the CPU's; written first, so that an
  // --output that cannot be written leaves the library as it was.
  if (!b.output.empty()) common::write_output(b.output, files.back().second);
  {
    installer::LibraryLock lock(root.parent_path() / ("." + root.filename().string() + ".lock"), b.lock_timeout, diag);
    common::ensure_real_dir(root / "payoff");
    for (const auto& [file, text] : files) common::write_atomic(file, text);
  }
  for (std::size_t i = 0; i < written.size(); ++i)
    print_report(*written[i], files[i].first, std::chrono::duration<double>(Clock::now() - start).count());
  return 0;
}

}  // namespace skb::explain
