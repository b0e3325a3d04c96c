#include "runtime/payoff.h"

#include <fmt/format.h>
#include <sys/utsname.h>

#include <cctype>
#include <cstdio>

#include "common/error.h"
#include "common/fs.h"
#include "runtime/cublas_gemm.h"
#include "runtime/cuda_driver.h"
#include "runtime/kernel_module.h"

namespace skb::runtime {
namespace fs = std::filesystem;
using common::FieldError;

namespace {

constexpr std::size_t kMaxEvidenceSize = std::size_t{256} << 20;

std::string cpu_model() {
  auto text = common::read_file_if_exists("/proc/cpuinfo", 16 << 20);
  if (text) {
    for (const char* wanted : {"model name", "Hardware", "CPU part"}) {
      std::size_t at = 0;
      while ((at = text->find(wanted, at)) != std::string::npos) {
        bool line_start = at == 0 || (*text)[at - 1] == '\n';
        std::size_t colon = text->find(':', at), end = text->find('\n', at);
        at += 1;
        if (!line_start || colon == std::string::npos || (end != std::string::npos && colon > end)) continue;
        std::string v = text->substr(colon + 1, end == std::string::npos ? std::string::npos : end - colon - 1);
        while (!v.empty() && std::isspace(static_cast<unsigned char>(v.front()))) v.erase(v.begin());
        while (!v.empty() && std::isspace(static_cast<unsigned char>(v.back()))) v.pop_back();
        if (!v.empty()) return v;
      }
    }
  }
  struct utsname u {};
  return ::uname(&u) == 0 ? u.machine : "unknown";
}

}  // namespace

MachineClass cpu_machine_class(std::string_view model) {
  std::string id = "cpu-";
  for (char c : model) {
    auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) && u < 128)
      id += static_cast<char>(std::tolower(u));
    else if (id.back() != '-')
      id += '-';
  }
  while (id.size() > 4 && id.back() == '-') id.pop_back();
  if (id.size() > 96) id.resize(96);
  while (id.size() > 4 && id.back() == '-') id.pop_back();
  if (id.size() == 4) id += "unknown";
  return {id, std::string(model)};
}

MachineClass gpu_machine_class(std::string_view gpu_name, int driver_version) {
  MachineClass c = cpu_machine_class(gpu_name);
  c.id = "gpu-" + c.id.substr(4);
  c.description = fmt::format("{}, CUDA driver {}.{}", gpu_name, driver_version / 1000, driver_version % 1000 / 10);
  return c;
}

MachineClass gpu_machine_class() {
  const CudaDriver& cuda = CudaDriver::get();
  return gpu_machine_class(cuda.device_name(), cuda.driver_version());
}

MachineClass host_machine_class() {
  static const MachineClass mine = cpu_machine_class(cpu_model());  // /proc/cpuinfo once per process
  return mine;
}

fs::path payoff_file(const fs::path& root, const std::string& class_id) {
  return root / "payoff" / (class_id + ".json");
}

std::unordered_map<std::string, std::string> withheld_kernels(const Payoff& p,
                                                              const std::unordered_map<std::string, IndexEntry>& by_key,
                                                              bool device) {
  std::unordered_map<std::string, std::string> out;
  std::unordered_map<std::string, const IndexEntry*> by_name;  // only when something was slower
  for (const auto& k : p.kernels) {
    if (k.verdict != kSlower) continue;
    if (by_name.empty())
      for (const auto& [key, entry] : by_key) by_name.emplace(entry.kernel_name, &entry);
    // Measured against the dynamic path the call takes now: a verdict against other bytes is
    // stale, one against cuBLASLt holds where cuBLASLt opens.
    if (k.dynamic_kernel == kCublasLt) {
      std::string why;
      if (!cublas_opens(why)) continue;
    } else {
      auto twin = by_name.find(k.dynamic_kernel);
      if (twin == by_name.end() || twin->second->sha256 != k.dynamic_sha256) continue;
    }
    auto it = by_key.find(k.key);
    // A host kernel's class is its CPU's; a cuda kernel's its GPU's.
    if (it == by_key.end() || it->second.variant != "static" || it->second.sha256 != k.sha256 ||
        it->second.launch.on_device() != device)
      continue;
    const std::string path = k.dynamic_kernel == kCublasLt ? std::string("cuBLASLt, its dynamic path,")
                                                           : "the dynamic kernel " + k.dynamic_kernel;
    out.emplace(k.key,
                fmt::format("static kernel {} measured {:.2f}x the time of {} on {} "
                            "(95% interval {:.2f}-{:.2f}, {} paired samples, skb {}, {}; SKB_PAYOFF=off "
                            "serves it)",
                            k.kernel, k.ratio, path, p.machine, k.low, k.high, k.pairs, p.skb_version, p.measured));
  }
  return out;
}

namespace {

// One class's evidence, applied to the kernels of that class (host or cuda ones).
void apply_class(const fs::path& root, const MachineClass& mc, bool device,
                 const std::unordered_map<std::string, IndexEntry>& by_key, AppliedPayoff& applied) {
  fs::path file = payoff_file(root, mc.id);
  std::string problem;
  try {
    auto text = common::read_file_if_exists(file, kMaxEvidenceSize, common::Accept::kRegularFile);
    if (!text) return;
    Payoff p = parse_payoff(common::parse_json(*text));
    if (p.machine_class != mc.id)
      throw FieldError("/machine_class", fmt::format("expected {}, this machine's class", mc.id));
    applied.withheld.merge(withheld_kernels(p, by_key, device));
  } catch (const FieldError& e) {
    problem = fmt::format("{}: {}: payoff evidence refused, every kernel is served", file.string(), e.describe());
  } catch (const common::Error& e) {
    problem = fmt::format("{}: payoff evidence refused, every kernel is served", e.what());
  }
  if (!problem.empty()) applied.problem += (applied.problem.empty() ? "" : "; ") + problem;
}

}  // namespace

AppliedPayoff apply_payoff(const fs::path& root, const std::unordered_map<std::string, IndexEntry>& by_key) {
  AppliedPayoff applied;
  if (common::env_or_empty("SKB_PAYOFF") == "off") return applied;
  std::error_code ec;
  if (!fs::exists(root / "payoff", ec) && !ec) return applied;  // never measured: nothing to read
  bool host = false, device = false;
  for (const auto& [key, entry] : by_key) (entry.launch.on_device() ? device : host) = true;
  if (host) apply_class(root, host_machine_class(), false, by_key, applied);
  if (device) apply_class(root, gpu_machine_class(), true, by_key, applied);
  return applied;
}

Index with_payoff(Index index, const fs::path& root) {
  AppliedPayoff applied = apply_payoff(root, index.by_key);
  if (!applied.problem.empty()) std::fprintf(stderr, "skb runtime: warning: %s\n", applied.problem.c_str());
  index.withheld = std::move(applied.withheld);
  index.payoff_problem = std::move(applied.problem);
  return index;
}

}  // namespace skb::runtime
