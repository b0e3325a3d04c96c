#include "generator/cli.h"

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "common/cli_parse.h"
#include "common/version.h"
#include "generator/compile_step.h"
#include "generator/generate.h"
#include "opmodel/discovery.h"
#include "packager/format/manifest.h"
#include "store/kernel_cache.h"

namespace skb::generator {
using opmodel::kDiscoveryHelp;

namespace {

constexpr const char* kFooter = R"(
Outputs in OUT:
  build.ninja             one compile per distinct kernel; `ninja -C OUT` builds them and
                          reruns this generator by itself when a dump folder, the toolchain
                          or a template changes
  kernel_meta/<name>.info the canonical signature of each kernel (name: <OpType>_<hash>)
  kernel_meta/<name>.so   after the build: the kernel, and <name>.json, its build result
                          (size, sha256, entry), written last: the proof the kernel is complete
  static_kernel_<YYYYMMDDHHMMSS>_<digest>.run
                          after the build: the package of every kernel (skb-package), in
                          --package-dir when given, its path recorded in package.json and a
                          link to it at OUT/static_kernel.run; a new one only when a kernel
                          changed, and then it replaces the one it follows
  summary.json            files scanned and rejected, records, planned and unsupported ops;
                          what the kernel stores did in the last build
  cache/                  the stores' settings and the last build's counts

Local kernel store (on by default): before compiling a kernel, the build looks it up by
name in the user's private store, and keeps what it compiles there, so that a rerun in any
folder, a restart, or another project compiles only what is new:
  --cache-dir DIR, else SKB_CACHE_DIR, else cache_dir in ~/.config/skb/skb.conf, else
  $XDG_CACHE_HOME/skb, else ~/.cache/skb; "off" (or --no-cache) turns it off. It is made 0700
  and used only when it is this user's folder and nobody else may write it.
  Cap: --cache-dir-max-size, else SKB_CACHE_MAX_SIZE, else max_size in DIR/skb.conf, else in
  ~/.config/skb/skb.conf, else 5G; least recently used kernels go first. See skb cache --help.

Shared kernel store (--cache URL, or SKB_CACHE): looked up after the local one (a hit is kept
locally); what the build compiles goes to both. A store shared by machines and people:
  file:///folder                     a local or mounted (NFS) folder; --cache-max-size caps it
  redis://[user@]host[:port][/db]   (password: SKB_REDIS_PASSWORD)
  http(s)://host[:port]/prefix       GET and PUT, as nginx WebDAV or bazel-remote serve them
                                     (credentials: ~/.netrc, or the netrc file SKB_NETRC names)
  ...?mode=ro                        take from the store, never write (as --cache-read-only)
  ...?timeout=<seconds>              bound of one store operation (default 5; connecting: 2)
An entry is used only when a trusted key signed it (--trusted-keys FILE or SKB_TRUSTED_KEYS;
without one, the user's own key, ~/.config/skb/signing-key, made on first use, and the keys of
~/.config/skb/trusted-keys), and its build record proves it is this kernel: the binary's sha256,
the toolchain identity, the entry symbol and any compiler sidecar. What the build stores is
signed by --sign-key FILE (SKB_SIGNING_KEY), else by the user's own key. An unsigned or
untrusted entry is counted (untrusted), named, and compiled locally. A damaged, truncated or foreign
entry, or a store that is down, slow or full, costs a warning and a local compile, never the
build. The build's last line says the store's hits, misses, uploads, corrupt entries and errors.

Exit status: 0 done (rejected files, if any, are listed on stderr and in summary.json),
1 error (nothing half-written is left), 2 bad command line, 3 (--require-kernels) the records
give no kernel to build (nothing written).

Example:
  skb-generate -p aclnn_static_shape_kernel_outputs -o build/kernels && ninja -C build/kernels
)";

}  // namespace

int generate_main(int argc, char** argv, common::Diag& diag) {
  CLI::App app(
      "skb-generate: scans op-statistics dumps and writes a Ninja graph with one static-shape\n"
      "compile per distinct kernel.\n\n" +
      std::string(kDiscoveryHelp));
  app.set_version_flag("--version", std::string("skb-generate ") + common::kVersion);
  app.footer(kFooter);

  Options o;
  std::vector<std::string> dirs;
  std::string output;
  bool quiet = false;
  app.add_option("-p,--op-params-dir", dirs,
                 "Op-statistics folder (repeatable): dump root, process folder or folder of JSON files");
  app.add_option("-o,--output", output, "Output folder (created when missing)");
  app.add_option("--toolchain", o.toolchain, "Toolchain profile: a name (host) or a path to a .json profile")
      ->capture_default_str();
  app.add_option("-v,--soc", o.soc, "Target SoC / architecture name (default: the profile's default_soc)")
      ->check(common::checked_by(packager::check_soc_version));
  app.add_option("--launcher", o.launcher, "Prefix every compile with this command word (repeatable), e.g. ccache")
      ->envname("SKB_LAUNCHER");
  app.add_flag("--strict", o.strict, "Any rejected file or unsupported op is an error; nothing is written");
  app.add_flag("--require-kernels", o.require_kernels,
               "Records that give no kernel to build (none, or each rejected or unsupported) are an error, "
               "exit 3; nothing is written (for a build step that must make a package)");
  app.add_flag("--dynamic", o.with_dynamic, "Also build the dynamic-shape twin of each (op, dtypes)");
  bool no_package = false;  // (a negated flag of o.package would show as --no-package{false} in --help)
  app.add_flag("--no-package", no_package, "Do not end the graph with the packaging step (skb-package)");
  app.add_option("--compression", o.compression, "Package payload compression: gzip, zstd or xz")
      ->check(CLI::IsMember({"gzip", "zstd", "xz"}))
      ->capture_default_str();
  app.add_option("--package-dir", o.package_dir, "Where the packaging step puts the .run (default: OUT)");
  CLI::Option* base = app.add_option("--package-base", o.package_base,
                                     "Make the package a delta on this .run: it carries only the kernels that one "
                                     "lacks, and no installer when that one's is the same (it runs the library's)")
                          ->check(CLI::ExistingFile);
  app.add_flag("--package-self-contained", o.package_self_contained,
               "With --package-base: the delta carries its installer even when the base's is the same one")
      ->needs(base);
  app.add_option("--package-payoff", o.package_payoff,
                 "Leave out of the package the static kernels that this skb bench evidence (of the target's "
                 "machine class) found slower than their dynamic twins (skb-package --payoff)");
  app.add_option("--package-name", o.package_name,
                 "The package's name, static_kernel_[A-Za-z0-9_]+ (default: static_kernel_<datetime>_<digest>)")
      ->check([](const std::string& name) {
        return packager::is_package_name(name) ? "" : "expected a package name static_kernel_[A-Za-z0-9_]+";
      });
  app.add_option("--depfile", o.depfile,
                 "Also write a Make-style depfile of every folder and file read (for CMake's DEPFILE)");
  app.add_option("--threads", o.threads, "Threads for scanning (default: one per core)");
  app.add_option("--cache", o.cache, "Kernel store URL: file:///folder, redis://host:port[/db] or http://host/prefix")
      ->envname("SKB_CACHE");
  bool no_shared_cache = false;
  app.add_flag("--no-cache", o.local.off, "No kernel store at all: neither the local one nor SKB_CACHE's");
  app.add_flag("--no-shared-cache", no_shared_cache, "No shared store, even when SKB_CACHE is set")->group("");
  app.add_option("--cache-dir", o.local.dir,
                 "The private local kernel store (default: $SKB_CACHE_DIR, else ~/.cache/skb; off: none)");
  // AsSizeValue takes -1 as 2^64 - 1: no cap at all.
  const CLI::Validator not_negative(
      [](std::string& v) { return v.find('-') == std::string::npos ? "" : v + ": expected a size, e.g. 500M or 20G"; },
      "");
  app.add_option("--cache-dir-max-size", o.local.max_size,
                 "Cap of the local store, e.g. 5G (default: skb.conf's max_size, else 5G)")
      ->check(not_negative)
      ->transform(CLI::AsSizeValue(false));
  app.add_flag("--cache-read-only", o.cache_read_only, "Take kernels from the store, never write to it");
  app.add_option("--cache-max-size", o.cache_max_size,
                 "Cap of a file:// store, e.g. 500M or 20G; least recently used entries go first")
      ->check(not_negative)
      ->transform(CLI::AsSizeValue(false));
  app.add_option("--sign-key", o.sign_key,
                 "Private key that signs what the build stores and the package it makes (skb key new)")
      ->envname("SKB_SIGNING_KEY");
  app.add_option("--trusted-keys", o.trusted_keys,
                 "Trust file: a store entry is used only when one of its keys signed it")
      ->envname("SKB_TRUSTED_KEYS");
  app.add_flag("-q,--quiet", quiet, "Print warnings and errors only");
  bool report_quiet = false;
  app.add_flag("--report-quiet", report_quiet, "Internal (op_compiler -l error): the store report prints errors only")
      ->group("");
  app.add_flag("--lookup-now", o.lookup_now, "Internal (op_compiler's one-shot build): look kernels up now")->group("");
  app.add_flag("--regenerating", o.regenerating, "Internal (the graph's regeneration rule): run in the build folder")
      ->group("");

  CompileStep step;
  CLI::App* cs = app.add_subcommand("compile-step", "Internal: one edge of build.ninja (compile, then record)");
  cs->group("");  // hidden from --help
  cs->add_option("--dir", step.dir)->required();
  cs->add_option("--name", step.name)->required();
  cs->add_option("--op", step.op_type);  // default: from the name
  cs->add_option("--list-separator", step.list_separator);
  cs->add_flag("--sidecar", step.sidecar);
  cs->add_option("--variant", step.variant)->required();
  cs->add_option("--suffix", step.suffix)->required();
  cs->add_option("--entry", step.entry)->required();
  cs->add_option("--toolchain-id", step.toolchain_id)->required();
  cs->add_option("--cache-dir", step.cache_dir);
  cs->add_option("command", step.command, "Compile command")->required();

  std::filesystem::path prefetch_dir;
  CLI::App* prefetch = app.add_subcommand("cache-prefetch", "Internal: look every planned kernel up in the store");
  prefetch->group("");
  prefetch->add_option("--dir", prefetch_dir)->required();

  std::filesystem::path report_dir;
  CLI::App* report = app.add_subcommand("cache-report", "Internal: the kernel store's counts of the last build");
  report->group("");
  report->add_option("--dir", report_dir)->required();
  bool report_step_quiet = false;
  report->add_flag("--quiet", report_step_quiet);

  if (std::optional<int> done = common::parse_command_line(app, argc, argv, diag)) return *done;
  o.package = !no_package;
  if (cs->parsed()) return run_compile_step(step, diag);
  if (report->parsed()) return store::report_cache(report_dir, common::Diag(diag.program(), report_step_quiet));
  if (prefetch->parsed()) {
    prefetch_kernels(planned_steps(prefetch_dir), prefetch_dir / store::kCacheDir,
                     prefetch_dir / store::kCacheDir / store::kLookupStamp, diag);
    return kExitOk;
  }

  if (dirs.empty() || output.empty()) {
    diag.error("expected -p DIR and -o OUT (see --help)");
    return kExitUsage;
  }
  for (const auto& d : dirs) o.op_params_dirs.emplace_back(d);
  if (o.local.off || no_shared_cache) o.cache.clear();
  o.report_quiet = report_quiet;
  o.output = output;
  common::Diag gen_diag(diag.program(), quiet);
  Outcome out;
  try {
    out = generate(o, gen_diag);
  } catch (const NoKernels& e) {
    diag.error(e.what());
    return kExitNoKernels;
  }
  // A one-shot build (op_compiler's, in a work folder gone when it ends) is built by its caller.
  gen_diag.note(fmt::format("{} {}: {} kernels{}", out.manifest_written ? "wrote" : "unchanged",
                            (o.output / "build.ninja").string(), out.kernels,
                            o.lookup_now ? "" : "; build them with: ninja -C " + o.output.string()));
  return kExitOk;
}

}  // namespace skb::generator
