#include "packager/left_out.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "common/error.h"
#include "common/fs.h"

namespace skb::packager {

Payoff read_payoff_file(const std::filesystem::path& file) {
  std::string text = common::read_file(file, std::size_t{256} << 20);
  try {
    return parse_payoff(common::parse_json(text));
  } catch (const common::FieldError& e) {
    throw common::Error(fmt::format("{}: {}", file.string(), e.describe()));
  }
}

std::size_t leave_out_slower(Collected& c, const Payoff& evidence) {
  std::map<std::string, std::string> file_sha;  // the package's bytes, by path
  for (const auto& f : c.manifest.files) file_sha.emplace(f.path, f.sha256);
  std::vector<std::string> prefixes;                  // <soc>/<op>/<name>. of each kernel left out
  std::map<std::string, const KernelPayoff*> by_key;  // every verdict
  for (const auto& k : evidence.kernels) by_key.emplace(k.key, &k);
  c.manifest.measured_on = fmt::format("{} ({}), skb {}, {}", evidence.machine, evidence.machine_class,
                                       evidence.skb_version, evidence.measured);
  std::vector<PackageKernel> kept;
  for (auto& k : c.manifest.kernels) {
    auto it = k.variant == "static" ? by_key.find(k.key) : by_key.end();
    if (it == by_key.end() || file_sha[k.bin] != it->second->sha256) {  // not measured, or rebuilt since
      kept.push_back(std::move(k));
      continue;
    }
    if (it->second->verdict != kSlower) {
      const KernelPayoff& p = *it->second;
      c.manifest.measured.push_back({k.name, p.verdict, p.ratio, p.low, p.high});
      kept.push_back(std::move(k));
      continue;
    }
    const KernelPayoff& p = *it->second;
    c.manifest.left_out.push_back(
        {k.name, fmt::format("measured {:.2f}x the time of its dynamic twin {} on {} (95% interval {:.2f}-{:.2f}, "
                             "{} paired samples, skb {}, {})",
                             p.ratio, p.dynamic_kernel, evidence.machine, p.low, p.high, p.pairs, evidence.skb_version,
                             evidence.measured)});
    prefixes.push_back(k.bin.substr(0, k.bin.rfind('/') + 1) + k.name + ".");
  }
  c.manifest.kernels = std::move(kept);
  auto gone = [&](const std::string& path) {
    return std::any_of(prefixes.begin(), prefixes.end(), [&](const std::string& p) { return path.rfind(p, 0) == 0; });
  };
  // manifest.files and c.files are the same paths in the same order.
  std::vector<PackageFile> files;
  std::vector<SourceFile> sources;
  for (std::size_t i = 0; i < c.manifest.files.size(); ++i)
    if (!gone(c.manifest.files[i].path)) {
      files.push_back(std::move(c.manifest.files[i]));
      sources.push_back(std::move(c.files[i]));
    }
  c.manifest.files = std::move(files);
  c.files = std::move(sources);
  c.manifest.installed_size = 0;
  for (const auto& f : c.manifest.files) c.manifest.installed_size += f.size;
  std::sort(c.manifest.measured.begin(), c.manifest.measured.end(),
            [](const MeasuredKernel& a, const MeasuredKernel& b) { return a.name < b.name; });
  std::sort(c.manifest.left_out.begin(), c.manifest.left_out.end(),
            [](const LeftOutKernel& a, const LeftOutKernel& b) { return a.name < b.name; });
  return prefixes.size();
}

}  // namespace skb::packager
