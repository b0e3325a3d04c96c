#include "packager/cli.h"

#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <thread>

#include "common/error.h"
#include "common/fs.h"
#include "common/process.h"
#include "common/version.h"
#include "packager/package.h"

namespace skb::packager {
namespace fs = std::filesystem;

namespace {

constexpr const char* kFooter = R"(
Two ways to run it:
  skb-package OUT                  package the kernels that `ninja -C OUT` built
  skb-package -p DIR -o OUT [-v SOC] [-j N] [--dynamic]
                                   the whole job, as op_compiler does: skb-generate, ninja
                                   (compiles, then this packaging step), print the .run's path

The package is OUT/static_kernel_<YYYYMMDDHHMMSS>.run (UTC; SOURCE_DATE_EPOCH, when set, gives
the time, and then two packagings of the same kernels are byte-identical). An existing file of
that name is never replaced by different contents unless --force. Every kernel is checked
against the sha256 of its build record before it is packed.

Install it with `sh static_kernel_<...>.run --install-path=DIR`; see its --help.

Exit status: 0 done, 1 error (nothing is left half-written), 2 bad command line.
)";

// What the whole job (-p) is asked for.
struct WholeJob {
  std::vector<std::string> dirs, launcher;
  std::string soc, toolchain = "host", compression = "gzip";
  unsigned jobs = 0;
  bool dynamic = false, quiet = false;
};

// Runs the whole job: generate, build (which packages), report.
int whole_job(const WholeJob& job, const fs::path& out, const common::Diag& diag) {
  fs::path generate = common::self_exe().parent_path() / "skb-generate";
  std::vector<std::string> gen = {generate.string()};
  for (const auto& d : job.dirs) gen.insert(gen.end(), {"-p", d});
  gen.insert(gen.end(), {"-o", out.string(), "--toolchain", job.toolchain, "--compression", job.compression});
  if (!job.soc.empty()) gen.insert(gen.end(), {"--soc", job.soc});
  for (const auto& l : job.launcher) gen.insert(gen.end(), {"--launcher", l});
  if (job.dynamic) gen.push_back("--dynamic");
  if (job.quiet) gen.push_back("--quiet");
  if (int rc = common::run_process(gen, common::Output::kToStderr).exit_code; rc != 0)
    throw common::Error(fmt::format("skb-generate failed (exit {})", rc));
  std::string ninja = common::find_program("ninja");
  if (ninja.empty()) throw common::Error("ninja is not on PATH (Debian: apt-get install ninja-build)");
  std::vector<std::string> build = {ninja, "-C", out.string()};
  if (job.jobs) build.insert(build.end(), {"-j", std::to_string(job.jobs)});
  if (job.quiet) build.push_back("--quiet");
  if (int rc = common::run_process(build, common::Output::kToStderr).exit_code; rc != 0)
    throw common::Error(fmt::format("the build failed (ninja exit {}); see above", rc));
  common::Json stamp = common::parse_json(common::read_file(out / "package.json"));
  std::printf("%s\n", stamp.at("run").get<std::string>().c_str());
  diag.note(
      fmt::format("{} kernels in {}", stamp.at("kernels").get<std::size_t>(), stamp.at("run").get<std::string>()));
  return 0;
}

}  // namespace

int package_main(int argc, char** argv, common::Diag& diag) {
  CLI::App app(
      "skb-package: bundles the kernels built by skb-generate and ninja into\n"
      "static_kernel_<YYYYMMDDHHMMSS>.run, a self-extracting, self-verifying installer.");
  app.set_version_flag("--version", std::string("skb-package ") + common::kVersion);
  app.footer(kFooter);
  std::string build_dir, output, records_from, stamp;
  WholeJob job;
  bool force = false;
  app.add_option("build_dir", build_dir, "Output folder of skb-generate whose kernels are built");
  app.add_option("-o,--output", output, "Where the .run goes (default: the build folder); with -p, the build folder");
  app.add_option("--compression", job.compression, "Payload compression: gzip, zstd or xz")->capture_default_str();
  app.add_flag("--force", force, "Replace an existing package of the same name and other contents");
  app.add_flag("-q,--quiet", job.quiet, "Print errors only");
  app.add_option("-p,--op-params-dir", job.dirs, "Whole job: op-statistics folder (repeatable), as for skb-generate");
  app.add_option("-v,--soc", job.soc, "Whole job: target SoC / architecture");
  app.add_option("-j,--jobs", job.jobs, "Whole job: parallel compiles (default: ninja's)");
  app.add_option("--toolchain", job.toolchain, "Whole job: toolchain profile name or path")->capture_default_str();
  app.add_option("--launcher", job.launcher, "Whole job: compile launcher word (repeatable), e.g. ccache");
  app.add_flag("--dynamic", job.dynamic, "Whole job: also package the dynamic-shape twin of each (op, dtypes)");
  app.add_option("--records-from", records_from, "Internal (build.ninja): file listing the kernel records")->group("");
  app.add_option("--stamp", stamp, "Internal (build.ninja): write the result as JSON here")->group("");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  common::Diag out_diag(diag.program(), job.quiet);
  if (!job.dirs.empty()) {
    if (output.empty() || !build_dir.empty()) {
      diag.error("with -p, give the build folder as -o OUT and no positional folder (see --help)");
      return 2;
    }
    parse_compression(job.compression);
    return whole_job(job, output, out_diag);
  }
  if (build_dir.empty()) {
    diag.error("expected the output folder of skb-generate, or -p DIR -o OUT (see --help)");
    return 2;
  }
  PackageOptions o;
  o.build_dir = build_dir;
  o.output_dir = output;
  o.compression = parse_compression(job.compression);
  o.force = force;
  o.records_from = records_from;
  o.stamp = stamp;
  PackageResult r = make_package(o);
  out_diag.note(fmt::format("{} {} ({} kernels, {} bytes, sha256 {})", r.unchanged ? "unchanged" : "wrote",
                            r.run.string(), r.kernels, r.size, r.sha256));
  if (stamp.empty()) std::printf("%s\n", r.run.c_str());
  return 0;
}

}  // namespace skb::packager
