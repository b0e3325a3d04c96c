#include "generator/ninja_writer.h"

#include "common/sha256.h"

#include <fmt/format.h>
#include <map>

#include "common/version.h"
#include "generator/compile_step.h"
#include "generator/ninja_syntax.h"
#include "store/kernel_cache.h"

namespace skb::generator {
using opmodel::Variant;

namespace {

// {out} and {obj} as compile-step's placeholders.
std::string with_placeholders(std::string s) {
  for (std::size_t p; (p = s.find("{out}")) != std::string::npos;) s.replace(p, 5, kOutPlaceholder);
  for (std::size_t p; (p = s.find("{obj}")) != std::string::npos;) s.replace(p, 5, kObjPlaceholder);
  for (std::size_t p; (p = s.find("{sidecar}")) != std::string::npos;) s.replace(p, 9, kSidecarPlaceholder);
  return s;
}

// The toolchain's command (the launcher before the compile, not the link) with per-kernel words turned into Ninja
// variables.
std::vector<std::string> compile_words(const Toolchain& tc) {
  std::vector<std::string> words;
  for (const auto& w : tc.launcher) words.push_back(w);
  for (const auto& w : tc.command) {
    if (w == "{defines}") {
      words.push_back("$defines");
    } else if (w == "{src}") {
      words.push_back("$in");
    } else if (w == "{info}") {
      words.push_back("$k/$n.info");
    } else {
      words.push_back(with_placeholders(w));
    }
  }
  if (!tc.link.empty()) {
    words.push_back(kLinkSeparator);
    for (const auto& w : tc.link) words.push_back(with_placeholders(w));
  }
  return words;
}

}  // namespace

std::string write_manifest(const Plan& plan, const Toolchain& tc, const ManifestInputs& in) {
  std::string out;
  auto line = [&out](auto&&... args) {
    out += fmt::format(std::forward<decltype(args)>(args)...);
    out += '\n';
  };
  line("# Written by skb-generate {}; edits are lost at the next regeneration.", common::kVersion);
  line("ninja_required_version = 1.10");
  line("");
  line("skb = {}", ninja_command({in.skb_generate.string()}));
  line("k = {}", kKernelDir);
  // One variable per template: each kernel's edge names its template by it.
  std::map<std::string, std::string> templates;
  for (const Kernel& k : plan.kernels) templates.emplace(k.source->source.string(), "");
  std::size_t next_template = 0;
  for (auto& [path, var] : templates) {
    var = fmt::format("t{}", next_template++);
    line("{} = {}", var, ninja_path(path));
  }
  line("");
  line("rule regen");
  std::vector<std::string> regen = {in.skb_generate.string()};
  regen.insert(regen.end(), in.regenerate_args.begin(), in.regenerate_args.end());
  line("  command = {}", ninja_command(regen));
  line("  description = Regenerating build.ninja");
  line("  generator = 1");
  line("  restat = 1");
  line("  pool = console");
  line("");
  // Per kernel only its name ($n): the op type is the name's prefix, the info file is named after
  // it, and a static kernel's -D macros (@DEFINES@) are made from that file by the compile step.
  std::vector<std::string> step = {
      "$skb",     "compile-step", "--dir",   "$k",     "--name",         "$n",        "--variant",   "$variant",
      "--suffix", tc.suffix,      "--entry", "$entry", "--toolchain-id", tc.identity, "--cache-dir", store::kCacheDir};
  if (tc.list_separator != ",") step.insert(step.end(), {"--list-separator", tc.list_separator});
  if (tc.sidecar) step.push_back("--sidecar");
  step.push_back("--");
  std::vector<std::string> words = compile_words(tc);
  step.insert(step.end(), words.begin(), words.end());
  line("rule compile");
  line("  command = {}", ninja_command(step));
  line("  description = Compiling {} kernel $n", tc.name);
  line("");
  line("variant = static");
  line("entry = {}", tc.entry);
  line("defines = {}", kDefinesPlaceholder);
  line("");
  std::string infos = " plan.json";
  for (const Kernel& k : plan.kernels) infos += fmt::format(" $k/{}.info", k.name);
  std::string regen_inputs;
  for (const auto& p : in.regen_inputs) regen_inputs += " " + ninja_path(p.string());
  line("build build.ninja |{}: regen |{}", infos, regen_inputs);
  for (const auto& p : in.regen_inputs) line("build {}: phony", ninja_path(p.string()));
  line("");
  // With a kernel store, one step looks every kernel up before any compiles (order-only: it
  // changes no compile command, and a build with nothing new runs neither).
  std::string lookup;
  if (in.cache && !in.prebuilt) {
    line("rule cache_lookup");
    line("  command = $skb cache-prefetch --dir .");
    line("  description = Looking {} kernels up in the kernel store", plan.kernels.size());
    line("");
    line("build {}/{}: cache_lookup plan.json | {}/config.json", store::kCacheDir, store::kLookupStamp,
         store::kCacheDir);
    line("");
    lookup = fmt::format(" || {}/{}", store::kCacheDir, store::kLookupStamp);
  }
  std::string all;
  for (const Kernel& k : plan.kernels) all += fmt::format(" $k/{}.json", k.name);
  const std::string kernels = all;
  std::size_t first = 0;  // the builder's place in the plan
  if (!in.builder.empty() && !plan.kernels.empty())
    first = std::stoull(common::sha256_hex(in.builder).substr(0, 12), nullptr, 16) % plan.kernels.size();
  for (std::size_t i = 0; i < plan.kernels.size(); ++i) {
    const Kernel& k = plan.kernels[(first + i) % plan.kernels.size()];
    if (in.prebuilt && in.prebuilt->count(k.name)) continue;
    line("build $k/$n{} $k/$n.json: compile ${} | $k/$n.info{}", tc.suffix, templates.at(k.source->source.string()),
         lookup);
    line("  n = {}", k.name);
    if (k.variant == Variant::kDynamic) {
      line("  variant = dynamic");
      line("  entry = {}", tc.dynamic_entry.empty() ? tc.entry : tc.dynamic_entry);
      line("  defines = {}", ninja_command(k.defines));
    }
  }
  line("");
  if (!in.skb_package.empty()) {
    std::vector<std::string> pkg = {
        in.skb_package.string(), ".", "--records-from", "$out.rsp", "--stamp", "$out", "--quiet"};
    pkg.insert(pkg.end(), in.package_args.begin(), in.package_args.end());
    line("pool package");
    line("  depth = 1");
    line("");
    line("rule package");
    line("  command = {}", ninja_command(pkg));
    line("  description = Packaging {} kernels into static_kernel_<datetime>.run", plan.kernels.size());
    line("  rspfile = $out.rsp");
    line("  rspfile_content = $in_newline");
    line("  pool = package");
    line("  restat = 1");
    line("");
    std::string read;  // a changed base, payoff evidence or signing key makes another package
    for (const auto& f : in.package_inputs) read += " " + ninja_path(f.string());
    line("build package.json | static_kernel.run: package{} | plan.json {}{}", all, ninja_path(in.skb_package.string()),
         read);
    line("");
    all = " package.json";  // which needs every kernel
  }
  if (in.cache) {  // after everything else, so that its line is the build's last
    // Every kernel too: a rebuild whose package comes out the same (restat) still counts its steps.
    std::string records = in.skb_package.empty() ? kernels : kernels + all;
    line("rule cache_report");
    line("  command = $skb cache-report --dir .{}", in.quiet ? " --quiet" : "");
    line("  description = Kernel store report");
    line("");
    line("build {}/stats.json: cache_report{}", store::kCacheDir, records);
    line("");
    all = fmt::format(" {}/stats.json", store::kCacheDir);
  }
  line("build all: phony{}", all);
  line("default all");
  return out;
}

}  // namespace skb::generator
