#include "generator/generate.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <algorithm>

#include <atomic>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <optional>
#include <regex>
#include <set>
#include <string_view>
#include <thread>

#include "common/error.h"
#include "common/fs.h"
#include "generator/compile_step.h"
#include "generator/ninja_writer.h"
#include "generator/output_folder.h"
#include "generator/plan.h"
#include "generator/scan.h"
#include "generator/summary.h"
#include "opmodel/discovery.h"
#include "packager/format/launch.h"
#include "packager/format/manifest.h"
#include "store/kernel_cache.h"
#include "store/module.h"

namespace skb::generator {
using opmodel::discover;
using opmodel::Discovery;
using opmodel::Variant;

namespace fs = std::filesystem;
using common::Error;

namespace {

constexpr std::size_t kMaxErrorsShown = 20;

const common::Diag* g_progress_diag = nullptr;
void show_progress(std::size_t done, std::size_t total) {
  if (g_progress_diag && (done % 4096 < 32 || done == total))
    g_progress_diag->progress(fmt::format("scanned {}/{} files", done, total));
}

// Removes kernel files of kernel_meta/ that belong to no planned kernel, temp files of killed
// compiles, and records whose binary does not match them.
void tidy_kernel_dir(const fs::path& dir, const Plan& plan, const std::string& suffix) {
  std::set<std::string> names;
  for (const Kernel& k : plan.kernels) names.insert(k.name);
  static const std::regex kKernelFile(R"(([A-Za-z0-9_]+_[0-9a-f]{32})(\..*)?)");
  std::error_code ec;
  std::vector<fs::path> stale;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::smatch m;
    std::string file = it->path().filename().string();
    if (!std::regex_match(file, m, kKernelFile)) continue;
    if (common::is_live_temp(it->path())) continue;                // a compile running now, in a build beside this one
    bool leftover_temp = file.find(".tmp.") != std::string::npos;  // of a killed compile
    if (leftover_temp || !names.count(m[1].str())) stale.push_back(it->path());
  }
  for (const auto& p : stale) fs::remove(p, ec);
  for (const Kernel& k : plan.kernels) keep_if_complete(dir, k.name, suffix);
}

// This builder, for the order of its compile edges (ManifestInputs::builder): SKB_BUILDER, else
// the host and the user's local store (builders on one machine that share a local store set
// SKB_BUILDER to tell themselves apart).
std::string builder_name(const fs::path& local_dir) {
  if (const char* b = std::getenv("SKB_BUILDER"); b && *b) return b;
  return store::host_name() + ":" + local_dir.string();
}

// OUT/cache/config.json for the compile steps, when the build has a kernel store, and the last
// build's counts of the store for summary.json (null before the first build with it); nullopt
// when the build has none.
struct CacheConfig {
  std::optional<std::string> config;  // the text of config.json
  common::Json stats;
};

// The kernel store settings of this generation, checked (a bad URL, key or trust file fails
// here, once, not in every compile step); written by the caller, with the generation's files.
CacheConfig cache_config(const fs::path& out, const Options& o, const store::LocalConfig& local,
                         const common::Diag& diag) {
  store::Settings settings;
  if (!local.dir.empty()) {
    if (std::string why = store::claim_private_dir(local.dir); why.empty()) {
      settings.local_dir = local.dir.string();
      settings.local_max_size = local.max_size;
    } else {
      diag.warning(fmt::format("local kernel store {} is not used: {} (from {}); compiling as if there were none",
                               local.dir.string(), why, local.dir_from));
    }
  }
  if (o.cache.empty() && settings.local_dir.empty()) return {};
  if (!o.cache.empty()) settings.where = store::curl_module().parse_location(o.cache);  // a bad URL fails here
  settings.max_size = o.cache_max_size;
  if (o.cache_read_only) settings.where.read_only = true;
  if (!o.sign_key.empty()) settings.signing_key = fs::absolute(o.sign_key).lexically_normal().string();
  if (!o.trusted_keys.empty()) settings.trusted_keys = fs::absolute(o.trusted_keys).lexically_normal().string();
  // The user's own key is made now when it is the one in use.
  store::trusted_keys_of(settings);
  if (!settings.where.read_only) store::signer_of(settings);
  CacheConfig c;
  c.config = store::settings_json(settings);
  auto stats = common::read_file_if_exists(out / store::kCacheDir / "stats.json", 1 << 16);
  common::Json j = stats ? common::Json::parse(*stats, nullptr, false) : common::Json();
  c.stats = j.is_object() ? j : common::Json();
  return c;
}

// Each kernel's signature as kernel_meta/<name>.info, on `threads` threads. Everything the
// generator writes can be made again from the dump, as ninja treats its own outputs: atomic (no
// reader or killed run ever sees a part), not fsynced.
void write_infos(const fs::path& kdir, const std::vector<Kernel>& kernels, unsigned threads) {
  std::atomic<std::size_t> next{0};
  std::mutex mu;
  std::exception_ptr failure;
  auto work = [&] {
    try {
      for (std::size_t i; (i = next.fetch_add(1)) < kernels.size();)
        common::write_if_changed(kdir / (kernels[i].name + ".info"), kernels[i].signature + "\n",
                                 common::Sync::kAtomic);
    } catch (...) {
      std::lock_guard<std::mutex> lock(mu);
      if (!failure) failure = std::current_exception();
      next = kernels.size();
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < std::min<std::size_t>(threads, kernels.size() / 256 + 1); ++t) pool.emplace_back(work);
  work();
  for (auto& th : pool) th.join();
  if (failure) std::rethrow_exception(failure);
}

// The .json entries of record folders that are no file, never read, as rejected files.
void reject_not_files(const std::vector<std::string>& not_files, ScanResult& scan) {
  for (const std::string& f : not_files) {
    struct stat st;
    scan.rejected.push_back({f, ::stat(f.c_str(), &st) != 0
                                    ? "expected a file, found a symlink to nothing (or in a loop): not read"
                                    : "expected a file, found a FIFO, socket or device: not read"});
  }
  scan.files_scanned += not_files.size();
  std::sort(scan.rejected.begin(), scan.rejected.end(),
            [](const Rejected& a, const Rejected& b) { return a.file < b.file; });
}

std::string plan_json(const Plan& plan, const Toolchain& tc) {
  common::Json kernels = common::Json::array();
  for (const Kernel& k : plan.kernels) {
    kernels.push_back(
        {{"name", k.name}, {"op_type", k.op_type}, {"variant", k.variant == Variant::kStatic ? "static" : "dynamic"}});
    if (tc.launch_device != "host") {
      packager::Launch l{tc.launch_device, 0, tc.launch_block, tc.launch_max_grid};
      if (k.variant == Variant::kStatic) l.grid = packager::launch_grid(k.work, l.block, l.max_grid);
      kernels.back()["launch"] = packager::launch_json(l);
    }
  }
  common::Json j = {{"soc", tc.soc},
                    {"soc_version", tc.soc_version},
                    {"core_type", tc.core_type},
                    {"block_dim", tc.block_dim},
                    {"suffix", tc.suffix},
                    {"toolchain", tc.name},
                    {"toolchain_identity", tc.identity},
                    {"entry", tc.entry},
                    {"dynamic_entry", tc.dynamic_entry.empty() ? tc.entry : tc.dynamic_entry},
                    {"sidecar", tc.sidecar},
                    {"kernels", std::move(kernels)}};
  return j.dump(1) + "\n";
}

}  // namespace

std::vector<std::string> regenerate_args(const Options& o, const store::LocalConfig& local) {
  std::vector<std::string> args;
  for (const auto& d : o.op_params_dirs) {
    args.push_back("-p");
    args.push_back(fs::absolute(d).lexically_normal().string());
  }
  args.push_back("-o");
  args.push_back(fs::absolute(o.output).lexically_normal().string());
  bool is_path = is_profile_path(o.toolchain);
  args.push_back("--toolchain");
  args.push_back(is_path ? fs::absolute(o.toolchain).lexically_normal().string() : o.toolchain);
  if (!o.soc.empty()) args.insert(args.end(), {"--soc", o.soc});
  for (const auto& l : o.launcher) args.insert(args.end(), {"--launcher", l});
  if (o.strict) args.push_back("--strict");
  if (o.require_kernels) args.push_back("--require-kernels");
  if (o.with_dynamic) args.push_back("--dynamic");
  if (!o.package) args.push_back("--no-package");
  if (o.compression != "gzip") args.insert(args.end(), {"--compression", o.compression});
  if (!o.package_dir.empty())
    args.insert(args.end(), {"--package-dir", fs::absolute(o.package_dir).lexically_normal().string()});
  if (!o.package_name.empty()) args.insert(args.end(), {"--package-name", o.package_name});
  if (!o.package_base.empty())
    args.insert(args.end(), {"--package-base", fs::absolute(o.package_base).lexically_normal().string()});
  if (o.package_self_contained) args.push_back("--package-self-contained");
  if (!o.package_payoff.empty())
    args.insert(args.end(), {"--package-payoff", fs::absolute(o.package_payoff).lexically_normal().string()});
  if (!o.depfile.empty()) args.insert(args.end(), {"--depfile", fs::absolute(o.depfile).lexically_normal().string()});
  // Always one or the other: SKB_CACHE, SKB_CACHE_DIR and skb.conf are read once, at the first
  // generation, not at each rerun.
  if (o.cache.empty())
    args.push_back("--no-shared-cache");
  else
    args.insert(args.end(), {"--cache", o.cache});
  args.insert(args.end(), {"--cache-dir", local.dir.empty() ? "off" : local.dir.string()});
  if (!local.dir.empty()) args.insert(args.end(), {"--cache-dir-max-size", std::to_string(local.max_size)});
  if (o.cache_read_only) args.push_back("--cache-read-only");
  if (o.cache_max_size) args.insert(args.end(), {"--cache-max-size", std::to_string(o.cache_max_size)});
  if (!o.sign_key.empty())
    args.insert(args.end(), {"--sign-key", fs::absolute(o.sign_key).lexically_normal().string()});
  if (!o.trusted_keys.empty())
    args.insert(args.end(), {"--trusted-keys", fs::absolute(o.trusted_keys).lexically_normal().string()});
  args.push_back("--quiet");
  if (o.report_quiet) args.push_back("--report-quiet");
  args.push_back("--regenerating");
  return args;
}

namespace {
// The -p folders, as a message names them.
std::string folders_text(const Options& o) {
  std::string where;
  for (const auto& d : o.op_params_dirs) where += (where.empty() ? "" : ", ") + d.string();
  return where;
}

// The graph's regeneration runs in its build folder, and names that folder by its absolute path:
// a folder moved or copied since would regenerate the original (or a new one where it was) and
// stay stale itself, silently.
void refuse_moved_build_folder(const Options& o) {
  if (!o.regenerating) return;
  std::error_code ec;
  fs::path here = fs::current_path(ec);
  if (ec || common::same_file(here, o.output)) return;
  throw Error(
      fmt::format("{}: this build folder was made as {} and has been moved or copied since; a build folder "
                  "is not relocatable: run skb-generate again with -o {}",
                  here.string(), o.output.string(), here.string()));
}
}  // namespace

// The output folder is no -p folder: its scan would take skb's own files (plan.json,
// summary.json) for records, rejected on every run. (A folder inside one is never scanned.)
void refuse_output_among_records(const Options& o) {
  auto real = [](const fs::path& p) {
    std::error_code ec;
    fs::path r = fs::weakly_canonical(fs::absolute(p, ec), ec);
    return ec ? fs::absolute(p, ec).lexically_normal() : r;
  };
  fs::path out = real(o.output);
  for (const fs::path& dir : o.op_params_dirs)
    if (real(dir) == out)
      throw Error(fmt::format("-o {}: is the op-statistics folder -p {}; expected an output folder of its own",
                              o.output.string(), dir.string()));
}

Outcome generate(const Options& o, const common::Diag& diag) {
  if (o.op_params_dirs.empty()) throw Error("no op-statistics folder given (-p DIR)");
  refuse_moved_build_folder(o);
  refuse_output_among_records(o);
  Toolchain tc = load_toolchain(o.toolchain, default_templates_dir(), o.soc, o.launcher);
  if (!tc.soc_known)
    diag.warning(fmt::format("SoC {} is not in the SoC table ({}); its index folder is config/{}/", tc.soc_version,
                             (default_templates_dir() / "socs.json").string(), tc.soc));
  Discovery found = discover(o.op_params_dirs);
  if (found.files.empty() && found.not_files.empty())
    diag.warning(fmt::format("no op records in {}: the build has no kernels", folders_text(o)));
  store::LocalConfig local = store::resolve_local(o.local);  // a bad skb.conf fails here

  unsigned threads = o.threads ? o.threads : std::max(1u, std::thread::hardware_concurrency());
  g_progress_diag = &diag;
  ScanResult scan = scan_files(found.files, threads, &show_progress);
  diag.end_progress();
  g_progress_diag = nullptr;
  reject_not_files(found.not_files, scan);
  if (!found.left_out.empty())
    diag.note(fmt::format("{} record{} left out, named in a _opcompile_blacklist folder ({}{})", found.left_out.size(),
                          found.left_out.size() > 1 ? "s" : "", found.left_out.front(),
                          found.left_out.size() > 1 ? ", ..." : ""));

  for (std::size_t i = 0; i < scan.rejected.size() && i < kMaxErrorsShown; ++i)
    diag.error(fmt::format("{}: {}", scan.rejected[i].file, scan.rejected[i].error));
  if (scan.rejected.size() > kMaxErrorsShown)
    diag.error(fmt::format("... and {} more rejected files (all are listed in summary.json)",
                           scan.rejected.size() - kMaxErrorsShown));

  Plan plan = make_plan(scan, tc, o.with_dynamic);
  if (o.strict && !scan.rejected.empty())
    throw Error(
        fmt::format("--strict: {} of {} files rejected; nothing written", scan.rejected.size(), scan.files_scanned));
  if (o.strict && !plan.unsupported.empty()) {
    for (const auto& [op, n] : plan.unsupported)
      diag.error(fmt::format("{}: {} distinct records unsupported: {}{}", op, n, plan.unsupported_reason.at(op),
                             plan.unsupported_file.count(op) ? " (one is " + plan.unsupported_file.at(op) + ")" : ""));
    throw Error("--strict: unsupported ops; nothing written");
  }
  if (o.require_kernels && plan.kernels.empty())
    throw NoKernels(fmt::format("--require-kernels: no op records in {}{}; nothing written", folders_text(o),
                                scan.files_scanned ? " that a kernel can be built for" : ""));

  fs::path out = fs::absolute(o.output).lexically_normal();
  fs::path kdir = out / kKernelDir;
  std::error_code ec;
  fs::create_directories(kdir, ec);
  if (ec) throw Error(fmt::format("{}: cannot create: {}", kdir.string(), ec.message()));
  common::FileLock lock = lock_output_folder(out, diag);

  write_infos(kdir, plan.kernels, threads);

  ManifestInputs in;
  in.skb_generate = common::self_exe();
  in.regenerate_args = regenerate_args(o, local);
  in.regen_inputs = found.folders;
  // A rejected record is one a user fixes in place, which changes no folder: its own change
  // reruns the generation too. (Every record would cost every build a stat of each, a million in
  // a large dump; valid ones come as new files.)
  for (const Rejected& r : scan.rejected)
    if (!std::binary_search(found.not_files.begin(), found.not_files.end(), r.file)) in.regen_inputs.push_back(r.file);
  in.regen_inputs.insert(in.regen_inputs.end(), tc.inputs.begin(), tc.inputs.end());
  in.regen_inputs.push_back(in.skb_generate);
  fs::path skb_package = in.skb_generate.parent_path() / "skb-package";
  if (o.package && !plan.kernels.empty()) {
    if (!fs::exists(skb_package))
      throw Error(fmt::format("{} is missing: reinstall skb, or pass --no-package", skb_package.string()));
    in.skb_package = skb_package;
    if (o.compression != "gzip") in.package_args = {"--compression", o.compression};
    if (!o.package_dir.empty())
      in.package_args.insert(in.package_args.end(),
                             {"--output", fs::absolute(o.package_dir).lexically_normal().string()});
    if (!o.package_name.empty()) in.package_args.insert(in.package_args.end(), {"--name", o.package_name});
    // Files the packaging step reads: their paths (never a key itself), as its inputs, so that
    // a changed one packages again.
    auto package_input = [&](const char* option, const char* flag, const fs::path& file) {
      if (file.empty()) return;
      fs::path abs = fs::absolute(file).lexically_normal();
      if (!common::path_exists(abs)) throw Error(fmt::format("{} {}: no such file", option, file.string()));
      in.package_args.insert(in.package_args.end(), {flag, abs.string()});
      in.package_inputs.push_back(abs);
    };
    if (!o.package_base.empty()) packager::refuse_moving_base(o.package_base);
    package_input("--package-base", "--base", o.package_base);
    if (o.package_self_contained) in.package_args.push_back("--self-contained");
    package_input("--package-payoff", "--payoff", o.package_payoff);
    package_input("--sign-key", "--sign-key", o.sign_key);
  }
  std::sort(in.regen_inputs.begin(), in.regen_inputs.end());
  in.regen_inputs.erase(std::unique(in.regen_inputs.begin(), in.regen_inputs.end()), in.regen_inputs.end());

  const std::string plan_text = plan_json(plan, tc);
  CacheConfig cache = cache_config(out, o, local, diag);
  const fs::path cache_dir = out / store::kCacheDir;
  if (cache.config) common::ensure_real_dir(cache_dir);
  in.cache = cache.config.has_value();
  in.quiet = o.report_quiet;
  if (in.cache) in.builder = builder_name(local.dir);
  if (o.lookup_now && in.cache) {
    // A one-shot build (the op_compiler entry's): the store is looked in now, in this process,
    // and only what it lacks gets a compile step (its build folder is its own: nothing to keep).
    common::write_if_changed(cache_dir / "config.json", *cache.config, common::Sync::kAtomic);
    in.prebuilt = prefetch_kernels(planned_steps(out, plan_text), cache_dir, cache_dir / store::kLookupStamp, diag);
  }
  // The generation's files are all written beside their places before any replaces the last
  // one's, build.ninja last: a failure before then leaves the folder as it was, never a plan of
  // one generation beside the graph of another.
  Staged staged;
  staged.add(out / "plan.json", plan_text);
  staged.add(out / kKeyFile, key_factors_json(tc.factors).dump(1) + "\n");
  staged.add(out / kCompilerStampFile,
             tc.compiler + "\n" + compiler_stamp(tc.compiler) + "\n" + environment_lines(tc.environment));
  staged.add(out / "summary.json", summary_json(scan, plan, tc, cache.config ? &cache.stats : nullptr));
  if (cache.config) staged.add(cache_dir / "config.json", *cache.config);
  if (!o.depfile.empty()) {
    // For a build that runs this generation as one step (CMake's DEPFILE): its output is the
    // package note, or build.ninja when there is no packaging step.
    auto escape = [](const std::string& p) {
      std::string e;
      for (char c : p) {
        if (c == ' ' || c == '\\' || c == '#') e += '\\';
        if (c == '$') e += '$';
        e += c;
      }
      return e;
    };
    std::string text = escape((out / (in.skb_package.empty() ? "build.ninja" : "package.json")).string()) + ":";
    for (const auto& p : in.regen_inputs) text += " \\\n  " + escape(p.string());
    for (const auto& p : in.package_inputs) text += " \\\n  " + escape(p.string());
    staged.add(fs::absolute(o.depfile), text + "\n");
  }
  Outcome outcome;
  outcome.manifest_written = staged.add(out / "build.ninja", write_manifest(plan, tc, in));
  staged.commit();
  if (!cache.config) {  // a build without a store now: its compile steps find no settings
    common::remove_file(cache_dir / "config.json");
    common::remove_file(cache_dir / "stats.json");
  }
  tidy_kernel_dir(kdir, plan, tc.suffix);
  outcome.files_rejected = scan.rejected.size();
  outcome.kernels = plan.kernels.size();
  diag.note(summary_text(scan, plan));
  return outcome;
}

}  // namespace skb::generator
