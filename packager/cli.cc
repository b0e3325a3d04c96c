#include "packager/cli.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <regex>
#include <thread>

#include "common/cli_parse.h"
#include "common/error.h"
#include "common/file_lock.h"
#include "common/fs.h"
#include "common/interrupt.h"
#include "common/process.h"
#include "common/version.h"
#include "opmodel/discovery.h"
#include "packager/format/manifest.h"
#include "packager/install/payload_reader.h"
#include "packager/install/run_file.h"
#include "packager/ninja_program.h"
#include "packager/package.h"

namespace skb::packager {
namespace fs = std::filesystem;
using common::Error;

namespace {

// -p names folders that hold no op records: nothing to build, and nothing is written.
constexpr int kExitNoRecords = 3;
class NoRecords : public Error {
 public:
  using Error::Error;
};

constexpr const char* kFooter = R"(
Two ways to run it:
  skb-package OUT                  package the kernels that `ninja -C OUT` built
  skb-package -p DIR -o DEST [-v SOC] [-j N] [--dynamic]
                                   the whole job, as CANN's op_compiler does: skb-generate and
                                   ninja (compiles, then this packaging step) in DEST/.skb/, the
                                   package in DEST (or DEST itself when it ends in .run); as
                                   op_compiler, in a private work folder (see below)

op_compiler's options are all taken, long and short: --op_params_dir/-p, --soc_version/-v,
--job/-j, --output/-o, --log/-l debug|info|warning|error|null (debug also shows every compile
command; warning, error and null print warnings and errors only), --count (print how many record files -p
finds, and stop), and what torchair adds: -f true|false (accepted; nothing in skb depends on
it), --enable_super_kernel and --super_kernel_options k=v:... (accepted; skb builds no super
kernels: each kernel is compiled and packed on its own, and one warning says so).

The package is static_kernel_<YYYYMMDDHHMMSS>_<digest>.run (UTC time, and 8 hex digits of a
digest of what it holds: packages with other contents never share a name). SOURCE_DATE_EPOCH,
when set, gives the time, and then two packagings of the same kernels are byte-identical. A rerun
of the whole job with nothing new compiles nothing and makes no new package; one with new kernels
makes a package that replaces the one before it in DEST, so DEST holds one .run. An existing file
of the package's name is never replaced by different contents unless --force. Every kernel is
checked against the sha256 of its build record before it is packed.

Install it by running it: `./static_kernel_<...>.run` (see its --help for where it installs).

Signing: --sign-key FILE (or SKB_SIGNING_KEY; `skb key new` makes one) signs the package over its
header, which pins the SHA-256 of its installer and payload, whose manifest pins every file's.
Where a trust policy applies, the package installs only when one of its keys signed it (see the
package's --help). The key file is read, never copied into the build, a log or the package.

Environment: SKB_TOOLCHAIN, the toolchain when no --toolchain is given (a profile name or path;
default host, which op_compiler -v of another SoC refuses); SKB_SIGNING_KEY, SKB_TRUSTED_KEYS, SKB_CACHE; SOURCE_DATE_EPOCH.

Kernel stores: every build looks its kernels up in the user's private local store first
(~/.cache/skb; see `skb cache --help`), then in a shared one (--cache URL or SKB_CACHE), so a
restart or a rerun into a fresh folder compiles only what is new.

As op_compiler, DEST gets what CANN's op_compiler leaves and nothing else: the .run, and one
log per kernel compiled in <pid>_compile_log/ (static_kernel_<Op>_<hash>_<pid>_d<device>_
compile_succ.log, or ..._compile_error.log with the compiler's message; device:
$ASCEND_DEVICE_ID, else 0). It builds in a private work folder under TMPDIR, removed at the end.

Exit status: 0 done, 1 error (nothing is left half-written), 2 bad command line, 3 -p holds no
op records ("no op records in DIR"; nothing is written).
)";

// What the whole job (-p) is asked for.
struct WholeJob {
  std::vector<std::string> dirs, launcher;
  std::string soc, toolchain = "host", compression = "gzip", log, fast, super_kernel_options, cache, cache_max_size,
                   sign_key, trusted_keys, base, payoff;
  unsigned jobs = 0;
  bool dynamic = false, quiet = false, count = false, super_kernel = false, cann_output = false,
       cache_read_only = false, self_contained = false;
};

// -o DEST: a folder for the package, or the package's own path when it ends in .run.
struct Destination {
  fs::path dir;      // where the .run goes
  std::string name;  // the package's name, when DEST names it
};

Destination destination(const std::string& output) {
  if (output.empty()) throw Error("expected a folder, or a package's path ending in .run");
  fs::path out = fs::absolute(output).lexically_normal();
  if (out.extension() != ".run") return {out, ""};
  std::string name = out.stem().string();
  if (!is_package_name(name))
    throw Error(fmt::format("{}: expected a package name static_kernel_[A-Za-z0-9_]+.run", output));
  return {out.parent_path(), name};
}

// The work folders of op_compiler jobs that ended without removing them (killed by SIGKILL),
// this user's: removed by the next job. A build folder each, kernels and all. A job holds its
// folder's lock for as long as it lives (wherever it runs: a pid says nothing across
// containers or machines that share TMPDIR), so a folder whose lock is free is no live job's.
void remove_dead_work_folders(const fs::path& tmp) {
  static const std::regex name(R"(skb-job\.\d+\.[A-Za-z0-9]{6})");
  std::error_code ec;
  for (const auto& d : fs::directory_iterator(tmp, ec)) {
    struct stat st {};
    if (!std::regex_match(d.path().filename().string(), name) || ::lstat(d.path().c_str(), &st) != 0 ||
        !S_ISDIR(st.st_mode) || st.st_uid != ::getuid() || common::FileLock::folder_held(d.path()))
      continue;
    fs::remove_all(d.path(), ec);
  }
}

// The op_compiler entry's private work folder: made 0700 under TMPDIR, removed when the job
// ends, whatever the end (its kernels are kept by the local kernel store). Made under a name the
// sweep above passes over, locked, then named skb-job.<pid>.XXXXXX: never seen unlocked.
struct WorkFolder {
  fs::path path;
  std::optional<common::FileLock> alive;
  WorkFolder() {
    const char* env = std::getenv("TMPDIR");
    const fs::path tmp = env && *env ? env : "/tmp";
    remove_dead_work_folders(tmp);
    const std::string prefix = fmt::format(".skb-job-new.{}.", ::getpid());
    std::string made = (tmp / (prefix + "XXXXXX")).string();
    if (!::mkdtemp(made.data())) throw Error(fmt::format("{}: cannot create: {}", made, std::strerror(errno)));
    alive.emplace(common::FileLock::folder(made));
    path = tmp / fmt::format("skb-job.{}.{}", ::getpid(), made.substr(made.size() - 6));
    if (::rename(made.c_str(), path.c_str()) != 0) {
      int e = errno;
      ::rmdir(made.c_str());
      throw Error(fmt::format("{}: cannot create: {}", path.string(), std::strerror(e)));
    }
  }
  ~WorkFolder() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  WorkFolder(const WorkFolder&) = delete;
  WorkFolder& operator=(const WorkFolder&) = delete;
};

// The digest part of a package name static_kernel_<time>_<digest>, "" when it has none.
std::string digest_of(const std::string& package) {
  static const std::regex name(R"(static_kernel_\d{14}_([0-9a-f]{8}))");
  std::smatch m;
  return std::regex_match(package, m, name) ? m[1].str() : "";
}

// The packages an earlier job left in dir (static_kernel_<time>_<digest>.run).
std::vector<fs::path> earlier_packages(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (const auto& d : fs::directory_iterator(dir, ec))
    if (d.path().extension() == ".run" && !digest_of(d.path().stem().string()).empty()) out.push_back(d.path());
  return out;
}

// The whole packages an earlier job left in dir; a damaged one (its length or hashes not what
// its header says) is removed, said on stderr: kept, it would stand for the package a rerun makes
// of the same contents, or take its name.
std::vector<fs::path> whole_earlier_packages(const fs::path& dir, const common::Diag& diag) {
  std::vector<fs::path> whole;
  for (const fs::path& p : earlier_packages(dir)) {
    try {
      installer::RunFile f(p);
      installer::verify_payload_hash(f.installer);
      installer::verify_payload_hash(f.payload);
      whole.push_back(p);
    } catch (const installer::VerifyError& e) {
      diag.warning(fmt::format("{}: removed, a damaged package: {}", p.string(), e.what()));
      ::unlink(p.c_str());
    }
  }
  return whole;
}

// The op_compiler entry's folder keeps what CANN's op_compiler leaves: the package, and one log
// per kernel compiled in <pid>_compile_log/ (static_kernel_<name>_<pid>_d<device>_compile_succ.log,
// or ..._compile_error.log with the compiler's message).
void copy_compile_logs(const fs::path& build, const fs::path& dest, const common::Diag& diag) {
  std::error_code ec;
  std::vector<fs::path> logs;
  for (const auto& d : fs::directory_iterator(build / "logs", ec))
    if (d.path().extension() == ".log") logs.push_back(d.path());
  if (logs.empty()) return;
  std::string device = common::env_or_empty("ASCEND_DEVICE_ID");
  if (device.empty()) device = "0";
  if (!std::all_of(device.begin(), device.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
    diag.warning(fmt::format("ASCEND_DEVICE_ID={}: expected a device number; the logs are named d0", device));
    device = "0";
  }
  int pid = ::getpid();
  fs::path dir = dest / fmt::format("{}_compile_log", pid);
  if (fs::create_directories(dir, ec); ec) {
    diag.warning(fmt::format("{}: cannot create, so the compile logs are not kept: {}", dir.string(), ec.message()));
    return;
  }
  for (const fs::path& log : logs) {
    std::string file = log.filename().string();
    bool failed = file.size() > 10 && file.compare(file.size() - 10, 10, ".error.log") == 0;
    std::string kernel = file.substr(0, file.size() - (failed ? 10 : 4));
    fs::path to =
        dir / fmt::format("static_kernel_{}_{}_d{}_compile_{}.log", kernel, pid, device, failed ? "error" : "succ");
    if (!fs::copy_file(log, to, fs::copy_options::overwrite_existing, ec) && ec)
      diag.warning(fmt::format("{}: cannot write the compile log: {}", to.string(), ec.message()));
  }
}

// DEST, made when missing: a file there (or a folder that cannot be made) is said before any
// compile, not after the build.
void make_destination(const fs::path& dir) {
  std::error_code made, is;
  fs::create_directories(dir, made);
  if (fs::is_directory(dir, is)) return;
  if (common::path_exists(dir))
    throw Error(
        fmt::format("{}: not a folder; -o names the folder the package goes into, or the package's own "
                    "path ending in .run",
                    dir.string()));
  throw Error(fmt::format("{}: cannot create: {}", dir.string(), made.message()));
}

// Runs the whole job: generate, build (which packages), report. The op_compiler entry builds in
// a private work folder; skb-package -p keeps its build in DEST/.skb/.
int whole_job(const WholeJob& job, const Destination& dest, const common::Diag& diag) {
  if (job.super_kernel || !job.super_kernel_options.empty())
    diag.warning("super kernels are not built: each kernel is compiled and packed on its own");
  std::vector<fs::path> dirs(job.dirs.begin(), job.dirs.end());
  if (opmodel::discover(dirs).files.empty())
    throw NoRecords(fmt::format("no op records in {}", fmt::join(job.dirs, ", ")));
  make_destination(dest.dir);
  const bool in_work_folder = job.cann_output;
  fs::path build = dest.dir / ".skb";
  // One whole job at a time in DEST/.skb: another one's generation would change the graph this
  // one builds. DEST itself is locked (a lock file in .skb would go with a build folder removed);
  // taken before signals are forwarded, so that a job waiting here stops at once.
  std::optional<common::FileLock> turn;
  if (!in_work_folder)
    turn.emplace(common::FileLock::folder(
        dest.dir, [&] { diag.note(fmt::format("waiting for another skb-package building in {}", build.string())); }));
  const bool fresh_build = !in_work_folder && !fs::exists(build);
  common::ForwardSignals forward;  // a kill stops skb-generate or ninja too, and the work folder goes
  std::optional<WorkFolder> work;
  if (in_work_folder) work.emplace();
  if (work) build = work->path / "build";
  std::vector<fs::path> before = work ? whole_earlier_packages(dest.dir, diag) : std::vector<fs::path>{};
  fs::path generate = common::self_exe().parent_path() / "skb-generate";
  std::vector<std::string> gen = {generate.string()};
  for (const auto& d : job.dirs) gen.insert(gen.end(), {"-p", d});
  gen.insert(gen.end(), {"-o", build.string(), "--toolchain", job.toolchain, "--compression", job.compression,
                         "--package-dir", dest.dir.string()});
  if (!dest.name.empty()) gen.insert(gen.end(), {"--package-name", dest.name});
  if (!job.soc.empty()) gen.insert(gen.end(), {"--soc", job.soc});
  for (const auto& l : job.launcher) gen.insert(gen.end(), {"--launcher", l});
  if (job.dynamic) gen.push_back("--dynamic");
  if (job.quiet) gen.insert(gen.end(), {"--quiet", "--report-quiet"});
  if (!job.cache.empty()) gen.insert(gen.end(), {"--cache", job.cache});
  if (job.cache_read_only) gen.push_back("--cache-read-only");
  if (!job.cache_max_size.empty()) gen.insert(gen.end(), {"--cache-max-size", job.cache_max_size});
  if (!job.sign_key.empty()) gen.insert(gen.end(), {"--sign-key", job.sign_key});
  if (!job.base.empty()) gen.insert(gen.end(), {"--package-base", job.base});
  if (!job.payoff.empty()) gen.insert(gen.end(), {"--package-payoff", job.payoff});
  if (job.self_contained) gen.push_back("--package-self-contained");
  if (!job.trusted_keys.empty()) gen.insert(gen.end(), {"--trusted-keys", job.trusted_keys});
  if (work) gen.push_back("--lookup-now");  // a one-shot build: only what the stores lack gets a compile step
  if (int rc = common::run_process(gen, common::Output::kToStderr).exit_code; rc != 0)
    throw Error(fmt::format("skb-generate failed (exit {})", rc));
  // Files, but no record a kernel can be built for (each one rejected or unsupported, as said
  // above): the same as no records, and a build folder made for them goes.
  if (common::parse_json(common::read_file(build / "plan.json", std::size_t(1) << 30)).at("kernels").empty()) {
    if (fresh_build) common::remove_tree(build);
    throw NoRecords(fmt::format("no op records in {} that a kernel can be built for", fmt::join(job.dirs, ", ")));
  }
  NinjaProgram ninja = find_ninja();
  std::vector<std::string> build_cmd = {ninja.path, "-C", build.string()};
  if (job.jobs) build_cmd.insert(build_cmd.end(), {"-j", std::to_string(job.jobs)});
  if (job.quiet && ninja.takes_quiet) build_cmd.push_back("--quiet");  // an older one shows its progress
  if (job.log == "debug") build_cmd.push_back("-v");
  int built = common::run_process(build_cmd, common::Output::kToStderr).exit_code;
  if (work) copy_compile_logs(build, dest.dir, diag);
  if (built != 0) throw Error(fmt::format("the build failed (ninja exit {}); see above", built));
  common::Json stamp = common::parse_json(common::read_file(build / "package.json"));
  fs::path run = stamp.at("run").get<std::string>();
  try {  // a signal since the build ended: the job stops all the same, with no new package
    common::throw_if_interrupted();
  } catch (const common::Interrupted&) {
    if (std::find(before.begin(), before.end(), run) == before.end()) ::unlink(run.c_str());
    throw;
  }
  if (work && dest.name.empty()) {
    // One .run in DEST, as a build folder's would keep it: the same contents as one there
    // already is that one; new contents replace it.
    std::string digest = digest_of(run.stem().string());
    auto same = std::find_if(before.begin(), before.end(),
                             [&](const fs::path& p) { return p != run && digest_of(p.stem().string()) == digest; });
    if (same != before.end()) {
      ::unlink(run.c_str());
      run = *same;
    } else {
      for (const fs::path& p : before)  // but the base of a delta, which the delta needs
        if (p != run && !(!job.base.empty() && common::same_file(p, job.base))) ::unlink(p.c_str());
    }
  }
  if (job.cann_output)
    std::printf("generate run package %s success\n", run.filename().c_str());
  else
    std::printf("%s\n", run.c_str());
  diag.note(fmt::format("{} kernels in {}", stamp.at("kernels").get<std::size_t>(), run.string()));
  return 0;
}

// --count: how many record files -p finds, as op_compiler prints it.
int count_records(const std::vector<std::string>& dirs) {
  std::vector<fs::path> paths(dirs.begin(), dirs.end());
  std::printf("%zu\n", opmodel::discover(paths).files.size());
  return 0;
}

}  // namespace

const char* program_name(int argc, char** argv) {
  return argc > 1 && std::string_view(argv[1]) == "--cann-output" ? "op_compiler" : "skb-package";
}

int package_main(int argc, char** argv, common::Diag& diag) {
  CLI::App app(
      "skb-package: bundles the kernels built by skb-generate and ninja into\n"
      "static_kernel_<YYYYMMDDHHMMSS>_<digest>.run, a self-extracting, self-verifying installer.\n"
      "With -p it does the whole job, and takes CANN's op_compiler command line.");
  // op_compiler runs this program with --cann-output first: its help and version say which it is.
  const bool as_op_compiler = std::string_view(program_name(argc, argv)) == "op_compiler";
  app.name(program_name(argc, argv));
  app.set_version_flag("--version", as_op_compiler ? fmt::format("op_compiler (skb-package {})", common::kVersion)
                                                   : std::string("skb-package ") + common::kVersion);
  app.footer(kFooter);
  std::string build_dir, output, records_from, stamp, name;
  WholeJob job;
  bool force = false;
  app.add_option("build_dir", build_dir, "Output folder of skb-generate whose kernels are built");
  app.add_option("-o,--output", output,
                 "Where the .run goes (default: the build folder): a folder, or the package's path ending in .run")
      ->check(common::checked_by([](const std::string& v) { destination(v); }));
  app.add_option("--compression", job.compression, "Payload compression: gzip, zstd or xz")
      ->capture_default_str()
      ->check(CLI::IsMember({"gzip", "zstd", "xz"}));
  app.add_option("--payoff", job.payoff,
                 "Leave out the static kernels that skb bench's evidence FILE (of the target's machine class) "
                 "found slower than their dynamic twins; the manifest says which and why");
  app.add_flag("--force", force, "Replace an existing package of the same name and other contents");
  app.add_flag("-q,--quiet", job.quiet, "Print warnings and errors only");
  app.add_option("-p,--op-params-dir,--op_params_dir", job.dirs,
                 "Whole job: op-statistics folder (repeatable), as for skb-generate");
  app.add_option("-v,--soc,--soc_version", job.soc, "Whole job: SoC version (Ascend910B3, ...) or architecture")
      ->check(common::checked_by(check_soc_version));
  app.add_option("-j,--jobs,--job", job.jobs, "Whole job: parallel compiles (default: ninja's)")
      ->check(common::not_empty());
  app.add_option("-l,--log", job.log, "Whole job: log level")
      ->check(CLI::IsMember({"debug", "info", "warning", "error", "null"}));
  app.add_flag("--count", job.count, "Whole job: print the number of record files -p finds, and stop");
  app.add_option("-f", job.fast, "Accepted as op_compiler takes it (true or false); no effect")
      ->check(CLI::IsMember({"true", "false"}));
  app.add_flag("--enable_super_kernel", job.super_kernel, "Accepted; skb builds no super kernels");
  app.add_option("--super_kernel_options", job.super_kernel_options, "Accepted (k=v:...); ignored");
  CLI::Option* toolchain = app.add_option("--toolchain", job.toolchain, "Whole job: toolchain profile name or path")
                               ->envname("SKB_TOOLCHAIN")
                               ->capture_default_str();
  app.add_option("--launcher", job.launcher, "Whole job: compile launcher word (repeatable), e.g. ccache")
      ->envname("SKB_LAUNCHER");
  app.add_option("--cache", job.cache, "Whole job: kernel store URL, as for skb-generate (default: $SKB_CACHE)");
  app.add_flag("--cache-read-only", job.cache_read_only, "Whole job: take kernels from the store, never write");
  app.add_option("--cache-max-size", job.cache_max_size, "Whole job: cap of a file:// store, e.g. 20G")
      ->transform(CLI::AsSizeValue(false));  // the same check and help as skb-generate's
  app.add_option("--sign-key", job.sign_key,
                 "Private key that signs the package (and, in the whole job, what the build stores)")
      ->envname("SKB_SIGNING_KEY");
  app.add_option("--trusted-keys", job.trusted_keys,
                 "Whole job: trust file whose keys a kernel store entry must be signed by")
      ->envname("SKB_TRUSTED_KEYS");
  app.add_flag("--dynamic", job.dynamic, "Whole job: also package the dynamic-shape twin of each (op, dtypes)");
  CLI::Option* base =
      app.add_option("--base", job.base,
                     "A .run this package is a delta on: it carries only the kernels that one lacks, and installs "
                     "where that one's kernels are")
          ->check(common::checked_by([](const std::string& run) {  // a base that cannot serve: said before any compile
            refuse_moving_base(run);
            try {
              installer::RunFile checked(run);
              installer::read_checked_manifest(checked.payload);  // its payload whole, as the delta reads it
            } catch (const installer::VerifyError& e) {
              throw Error(fmt::format("{}: {}", run, e.what()));
            }
          }));
  app.add_flag("--self-contained", job.self_contained,
               "With --base: carry the installer even when the base's is the same one (a delta leaves it out, "
               "and runs the copy its base left in the library)")
      ->needs(base);
  app.add_flag("--cann-output", job.cann_output, "Internal (op_compiler): print CANN's success line")->group("");
  app.add_option("--name", name, "Internal (build.ninja): the package's fixed name")->group("");
  app.add_option("--records-from", records_from, "Internal (build.ninja): file listing the kernel records")->group("");
  app.add_option("--stamp", stamp, "Internal (build.ninja): write the result as JSON here")->group("");
  if (std::optional<int> done = common::parse_command_line(app, argc, argv, diag)) return *done;
  if (job.log == "warning" || job.log == "error" || job.log == "null") job.quiet = true;
  // op_compiler for an NPU with the default toolchain: host kernels, which an NPU's operator
  // library would list as its own and its device cannot run. Said, never installed by default.
  if (job.cann_output && !job.count && toolchain->count() == 0 && !job.soc.empty() && job.soc != "host") {
    diag.error(
        fmt::format("-v {}: no toolchain for it: SKB_TOOLCHAIN is not set, and the default (host) builds "
                    "kernels for this machine's CPU, which a {} cannot run; set SKB_TOOLCHAIN to the "
                    "profile of its compiler (or to host, to build CPU kernels on purpose)",
                    job.soc, job.soc));
    return 2;
  }
  common::Diag out_diag(diag.program(), job.quiet);
  if (!job.dirs.empty()) {
    if (job.count) return count_records(job.dirs);
    if (output.empty() || !build_dir.empty()) {
      diag.error("with -p, give the destination as -o DEST and no positional folder (see --help)");
      return 2;
    }
    parse_compression(job.compression);
    try {
      return whole_job(job, destination(output), out_diag);
    } catch (const NoRecords& e) {
      diag.error(e.what());
      return kExitNoRecords;
    }
  }
  if (job.count) {
    diag.error("--count counts the record files of -p DIR (see --help)");
    return 2;
  }
  if (build_dir.empty()) {
    diag.error("expected the output folder of skb-generate, or -p DIR -o DEST (see --help)");
    return 2;
  }
  PackageOptions o;
  o.build_dir = build_dir;
  o.output_dir = output;
  o.name = name;
  if (fs::path(output).extension() == ".run") {  // the package's own path, as with -p
    Destination d = destination(output);
    o.output_dir = d.dir;
    if (o.name.empty()) o.name = d.name;
  }
  o.compression = parse_compression(job.compression);
  o.force = force;
  o.records_from = records_from;
  o.stamp = stamp;
  o.sign_key = job.sign_key;
  o.base = job.base;
  o.self_contained = job.self_contained;
  o.payoff = job.payoff;
  PackageResult r = make_package(o);
  out_diag.note(fmt::format("{} {} ({} kernels, {} bytes, sha256 {}, {})", r.unchanged ? "unchanged" : "wrote",
                            r.run.string(), r.kernels, r.size, r.sha256,
                            r.signer.empty() ? "unsigned" : "signed by " + r.signer));
  if (stamp.empty()) std::printf("%s\n", r.run.c_str());
  return 0;
}

}  // namespace skb::packager
