// skb's whole command line, every subcommand's options included: the one unit of skb that
// compiles CLI11.
#include "explain/cli.h"

#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstring>

#include "common/cli_parse.h"
#include "common/error.h"
#include "common/version.h"
#include "explain/bench_command.h"
#include "explain/build_explain.h"
#include "explain/cache_command.h"
#include "explain/coverage_command.h"
#include "explain/key_command.h"
#include "explain/record_explain.h"
#include "explain/verify_command.h"
#include "store/local_config.h"
#include "trust/key.h"

namespace skb::explain {
namespace fs = std::filesystem;

namespace {

constexpr const char* kExplainHelp = R"(
Why is this a different kernel? Three questions, three forms:

  skb explain RECORD_A.json RECORD_B.json
      Two op-statistics records: the same kernel or not, and every field of their canonical
      signature that differs, by JSON pointer, with both values:
        /inputs/0/shape/1: 2048 vs 2047
        /attrs/0/value (transpose_x1): false vs true

  skb explain BUILD_A BUILD_B
      Two build folders of skb-generate (or -o of skb-package: its .skb/ is read), or a build
      folder and one entry of a file:// kernel store: for each kernel in one and not the
      other, which factor of its name changed: the compiler's identity line, a flag (added,
      removed), a header or a template (by name), or the records (the other side has no call
      with its signature). Each build folder keeps these factors in key.json.

  skb-replay --explain (and skb_runtime_explain in the runtime's C API) answers the third:
      for an op call that found no static kernel, the installed kernel of its op nearest to
      it and the first field that differs.

A kernel's name depends only on what decides its bytes: the record's signature, the
compiler's identity, the flags, each header's and template's content; never the install
prefix, the build folder, the dump's path, the user, the host or the time.

Exit status: 0 the same kernel(s), 3 they differ, 1 error (a file that is not a record, a
build or an entry: named with the JSON pointer of the bad field), 2 bad command line.

Examples:
  skb explain dump/rank0/MatMulV2_1.json dump/rank1/MatMulV2_7.json
  skb explain --json build/ci-kernels build/my-kernels
  skb explain build/kernels /srv/skb-store/a/MatMulV2_0f3c9e...
)";

// skb-package's -o holds its build folder in .skb/.
fs::path build_folder(const fs::path& p) {
  std::error_code ec;
  if (fs::is_directory(p, ec) && !fs::exists(p / "plan.json", ec) && fs::exists(p / ".skb" / "plan.json", ec))
    return p / ".skb";
  return p;
}

bool is_record_file(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec) && p.extension() == ".json";
}

void print(const std::string& text) { std::fwrite(text.data(), 1, text.size(), stdout); }

}  // namespace

void add_key_command(CLI::App& skb, KeyCommand& k) {
  k.app = skb.add_subcommand("key", "Make and show the keys that sign store entries and packages");
  k.app->footer(kKeyHelp);
  k.app->require_subcommand(1);
  CLI::App* make =
      k.app->add_subcommand("new", "Make a key pair: the private key into FILE (0600), the public line on stdout");
  make->add_option("NAME", k.name, "The key's name, e.g. ci-2026 ([A-Za-z0-9._@-], at most 64)")
      ->required()
      ->check([](const std::string& name) {
        return trust::valid_key_name(name) ? "" : "expected 1 to 64 characters of [A-Za-z0-9._@-]";
      });
  make->add_option("FILE", k.file, "The private key file to create (never over an existing file)")->required();
  CLI::App* show = k.app->add_subcommand("public", "Print the public key line of a private key file");
  show->add_option("FILE", k.file, "A private key file")->required();
  k.app->add_subcommand("own", "Print the public key line of your own key (made on first use)");
}

void add_verify_command(CLI::App& skb, VerifyCommand& v) {
  v.app = skb.add_subcommand("verify", "Check a .run package (signature included) without running any of it");
  v.app->footer(kVerifyHelp);
  v.app->add_option("PACKAGE", v.run_file, "A static_kernel_*.run")->required();
  v.app->add_option("--trusted-keys", v.trusted_keys, "Trust policy: the keys one of which must have signed it")
      ->envname("SKB_TRUSTED_KEYS");
}

void add_bench_command(CLI::App& skb, BenchCommand& b) {
  b.app = skb.add_subcommand("bench",
                             "Time each installed static kernel against its dynamic twin, here; keep the verdicts");
  b.app->footer(kBenchHelp);
  b.app->add_option("RECORDS", b.records, "Op-statistics folders of the kernels' calls, as for skb-generate -p")
      ->required();
  b.app->add_option("--install-path", b.install_path, "Operator library (default: $SKB_INSTALL_PATH)");
  b.app->add_option("-v,--soc", b.soc, "SoC whose kernels to time (default: the only one installed)");
  auto positive = [](const std::string& t) {
    double v = 0;
    return CLI::detail::lexical_cast(t, v) && v > 0 ? "" : t + ": expected a number above 0";
  };
  b.app->add_option("--budget", b.budget_seconds, "Seconds for the whole measurement")
      ->capture_default_str()
      ->check(positive);
  b.app->add_option("--min-sample-ms", b.min_sample_ms, "Each sample repeats calls for at least this long")
      ->capture_default_str()
      ->check(positive);
  b.app->add_option("--margin", b.margin, "Slower: the whole 95% interval above 1 + MARGIN")
      ->capture_default_str()
      ->check(common::number_in(0.01, 1.0));
  b.app->add_option("--output", b.output, "Also write the evidence to FILE");
  b.app->add_option("--lock-timeout", b.lock_timeout, "Seconds to wait for the library's lock")
      ->capture_default_str()
      ->check(common::number_in(0, 1e9));
  b.app->add_flag("-q,--quiet", b.quiet, "No progress line");
}

void add_coverage_command(CLI::App& skb, CoverageCommand& c) {
  c.app =
      skb.add_subcommand("coverage", "The share of a dump's records an installed library serves with a static kernel");
  c.app->footer(kCoverageHelp);
  c.app->add_option("RECORDS", c.records, "Op-statistics folders, as for skb-generate -p, or record files")->required();
  c.app->add_option("--install-path", c.install_path, "Operator library (default: $SKB_INSTALL_PATH)");
  c.app->add_option("-v,--soc", c.soc, "SoC whose kernels count (default: the only one installed)");
  c.app
      ->add_option("--min-coverage", c.min_coverage,
                   "Exit 3 when fewer than PERCENT of the records have a static kernel")
      ->check(common::number_in(0.0, 100.0));
}

void add_cache_command(CLI::App& skb, CacheCommand& c) {
  c.app = skb.add_subcommand("cache", "See and manage the private local kernel store");
  c.app->footer(kCacheHelp);
  c.app->require_subcommand(1);
  c.app->add_option("--cache-dir", c.dir, "The store (default: as builds find it; see below)");
  c.app->fallthrough();  // its commands (made after this) take --cache-dir too: skb cache stats --cache-dir DIR
  CLI::App* stats = c.app->add_subcommand("stats", "Entries, size, cap, and the counts since the last zero, per tier");
  stats->add_flag("--json", c.json, "One JSON document (for CI)");
  c.app->add_subcommand("zero", "Start the counts again");
  c.app->add_subcommand("clean", "Remove every entry");
  CLI::App* evict = c.app->add_subcommand("evict", "Remove old or least recently used entries");
  evict->add_option("--older-than", c.older_than, "Not used for this long: 30d, 12h, 90m, 3600s")
      ->check(common::checked_by([](const std::string& t) { parse_duration(t); }));
  evict->add_option("--max-size", c.max_size, "Then keep at most this many bytes: 2G, 500M")
      ->check([](const std::string& t) {
        return store::parse_size(t) ? "" : "expected a size such as 2G, 500M, 64K or a number of bytes";
      });
  evict->callback([&c] {  // a usage error (exit 2), found while parsing
    if (c.older_than.empty() && c.max_size.empty())
      throw CLI::ValidationError("skb cache evict: expected --older-than DURATION and/or --max-size SIZE");
  });
  c.app->add_subcommand("verify", "Read every entry again; remove and name the damaged ones");
  CLI::App* config = c.app->add_subcommand("config", "Which stores apply here, and where each setting came from");
  config->add_flag("--json", c.json, "One JSON document (for CI)");
}

// What is wrong with the words before a command's own options, where CLI11 would say that "a
// subcommand is required": a command that is not there ("unknown command 'x'; ..."), an option
// not taken before a command ("unknown option '-x'; ..."), or no command at all. Else "".
std::string unknown_command(CLI::App& app, const std::string& program, int argc, char** argv) {
  CLI::App* at = &app;
  std::string path = program;
  for (int i = 1; i < argc && at->get_require_subcommand_min() > 0; ++i) {
    if (argv[i][0] == '-') {  // before a command: --help and --version only
      std::string name(argv[i], std::strcspn(argv[i], "="));
      if (at->get_option_no_throw(name)) return "";
      return fmt::format("unknown option '{}'; `{} --help` lists the options", name, path);
    }
    CLI::App* next = nullptr;
    for (CLI::App* s : at->get_subcommands([](CLI::App*) { return true; }))
      if (s->check_name(argv[i])) next = s;
    if (!next) return fmt::format("unknown command '{}'; `{} --help` lists the commands", argv[i], path);
    at = next;
    path += " " + at->get_name();
  }
  if (at->get_require_subcommand_min() == 0) return "";
  std::string names;
  for (CLI::App* s : at->get_subcommands([](CLI::App*) { return true; }))
    names += (names.empty() ? "" : ", ") + s->get_name();
  return fmt::format("expected a command ({}); `{} --help` says what each does", names, path);
}

int skb_main(int argc, char** argv, common::Diag& diag) {
  CLI::App app(
      "skb: what skb knows about kernels, the keys that sign them and the store that keeps them, for people and CI.");
  app.set_version_flag("--version", std::string("skb ") + common::kVersion);
  app.require_subcommand(1);
  app.footer("Run `skb <command> --help` (explain, key, verify, cache, bench, coverage) for a command's own help.");

  CLI::App* explain =
      app.add_subcommand("explain", "Say why two records, builds or store entries are not the same kernel");
  explain->footer(kExplainHelp);
  std::string a, b;
  bool json = false;
  explain->add_option("A", a, "A record (.json), a build folder or a store entry")->required();
  explain->add_option("B", b, "Another of the same kind (a build folder may meet a store entry)")->required();
  explain->add_flag("--json", json, "Print one JSON document instead of text (for CI)");

  KeyCommand key;
  add_key_command(app, key);
  VerifyCommand verify;
  add_verify_command(app, verify);
  CacheCommand cache;
  add_cache_command(app, cache);
  CoverageCommand coverage;
  add_coverage_command(app, coverage);
  BenchCommand bench;
  add_bench_command(app, bench);

  if (std::string unknown = unknown_command(app, diag.program(), argc, argv); !unknown.empty()) {
    diag.error(unknown);
    return kExitUsage;
  }
  if (std::optional<int> done = common::parse_command_line(app, argc, argv, diag)) return *done;
  if (key.app->parsed()) {
    key.action = key.app->get_subcommands().front()->get_name();
    return run_key_command(key);
  }
  if (verify.app->parsed()) return run_verify_command(verify);
  if (coverage.app->parsed()) return run_coverage_command(coverage);
  if (bench.app->parsed()) return run_bench_command(bench);
  if (cache.app->parsed()) {
    cache.action = cache.app->get_subcommands().front()->get_name();
    return run_cache_command(cache);
  }
  for (const auto& p : {a, b}) {
    std::error_code ec;
    if (!fs::exists(p, ec)) throw common::Error(fmt::format("{}: no such file or folder", p));
  }
  if (is_record_file(a) != is_record_file(b))
    throw common::Error(fmt::format("{} and {}: expected two records, or two of build folder and store entry", a, b));
  if (is_record_file(a)) {
    RecordExplanation e = explain_records(a, b);
    print(json ? record_json(e).dump(1) + "\n" : record_text(e));
    return e.same ? kExitSame : kExitDiffer;
  }
  BuildExplanation e = explain_builds(read_side(build_folder(a)), read_side(build_folder(b)));
  print(json ? build_json(e).dump(1) + "\n" : build_text(e));
  return e.kernels.empty() ? kExitSame : kExitDiffer;
}

}  // namespace skb::explain
