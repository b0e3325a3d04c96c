#include "explain/coverage_command.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

#include "common/error.h"
#include "common/fs.h"
#include "common/json_input.h"
#include "opmodel/discovery.h"
#include "opmodel/shape_rules.h"
#include "packager/format/manifest.h"
#include "runtime/answer.h"
#include "runtime/payoff.h"

namespace skb::explain {

const char* const kCoverageHelp = R"(
Before a deployment: which calls of a model will run a static kernel of this library, and why
the others will not. RECORDS are op-statistics folders as skb-generate -p reads them (a
framework's dump, or the folder a run recorded its misses into with SKB_RECORD_MISSES), or
record files. For each record without a static kernel: the installed static kernel of its op
nearest to it, the first field that differs, and whether a dynamic kernel serves it.

Exit status: 0; 3 when the share is below --min-coverage; 1 error; 2 bad command line.

Examples:
  skb coverage --install-path /opt/opp-root aclnn_static_shape_kernel_outputs
  skb coverage --install-path /opt/opp-root --min-coverage 95 misses/    (a deployment gate)
)";

namespace {

CoveredRecord cover_one(const runtime::Index& index, const std::string& file,
                        runtime::InstalledSignatures& signatures) {
  CoveredRecord c;
  c.file = file;
  opmodel::OpRecord record;
  try {
    record = opmodel::parse_op_record(common::parse_json(common::read_file(file, opmodel::kMaxRecordSize)));
    opmodel::check_shapes(record);
  } catch (const common::FieldError& e) {
    c.kind = CoveredRecord::Kind::kInvalid;
    c.why = "not a valid record: " + e.describe();
    return c;
  } catch (const common::Error& e) {  // too large, or unreadable: one file, never the whole report
    c.kind = CoveredRecord::Kind::kInvalid;
    std::string_view why = e.what();
    if (why.rfind(file + ": ", 0) == 0) why.remove_prefix(file.size() + 2);  // the line names the file
    c.why = fmt::format("not a valid record: {}", why);
    return c;
  }
  runtime::Answer a = runtime::answer(index, record, signatures);
  c.kind = a.kind == runtime::Answer::Kind::kStatic    ? CoveredRecord::Kind::kStatic
           : a.kind == runtime::Answer::Kind::kDynamic ? CoveredRecord::Kind::kDynamic
                                                       : CoveredRecord::Kind::kNone;
  c.why = std::move(a.why);
  return c;
}

}  // namespace

std::vector<CoveredRecord> cover(const runtime::Index& index, const std::vector<std::string>& files) {
  std::vector<CoveredRecord> out;
  out.reserve(files.size());
  runtime::InstalledSignatures signatures;  // each installed kernel's .info read once
  for (const std::string& f : files) out.push_back(cover_one(index, f, signatures));
  return out;
}

double coverage_percent(const std::vector<CoveredRecord>& covered) {
  std::size_t valid = 0, served = 0;
  for (const CoveredRecord& c : covered) {
    if (c.kind == CoveredRecord::Kind::kInvalid) continue;
    ++valid;
    if (c.kind == CoveredRecord::Kind::kStatic) ++served;
  }
  return valid == 0 ? 100.0 : 100.0 * static_cast<double>(served) / static_cast<double>(valid);
}

std::string coverage_text(const std::vector<CoveredRecord>& covered, const runtime::Index& index) {
  std::size_t n[4] = {0, 0, 0, 0};
  for (const CoveredRecord& c : covered) ++n[static_cast<int>(c.kind)];
  const std::size_t valid = n[0] + n[1] + n[2];
  std::string out = valid == 0
                        ? fmt::format("coverage: none of {} records is valid", n[3])
                        : fmt::format(
                              "coverage: {} of {} records ({:.1f}%) have a static kernel in SoC {}; {} a dynamic "
                              "kernel only, {} no kernel",
                              n[0], valid, coverage_percent(covered), index.soc, n[1], n[2]);
  if (n[3] && valid) out += fmt::format("; {} not valid records", n[3]);
  out += "\n";
  for (const CoveredRecord& c : covered)
    if (c.kind != CoveredRecord::Kind::kStatic) out += fmt::format("  {}: {}\n", c.file, c.why);
  return out;
}

int run_coverage_command(const CoverageCommand& c) {
  std::string path = c.install_path.empty() ? common::env_or_empty("SKB_INSTALL_PATH") : c.install_path;
  if (path.empty()) throw common::Error("no --install-path given and SKB_INSTALL_PATH is not set");
  const std::filesystem::path root = packager::library_root(path);
  runtime::Index index = runtime::with_payoff(runtime::read_index(root, c.soc), root);
  std::vector<std::filesystem::path> dirs;
  std::vector<std::string> files;
  for (const std::string& r : c.records) {
    std::error_code ec;
    if (std::filesystem::is_regular_file(r, ec))
      files.push_back(r);
    else
      dirs.emplace_back(r);
  }
  if (!dirs.empty())
    for (std::string& f : opmodel::discover(dirs).files) files.push_back(std::move(f));
  if (files.empty()) throw common::Error("no op records in the given folders: nothing to measure");
  std::vector<CoveredRecord> covered = cover(index, files);
  std::string text = coverage_text(covered, index);
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);  // before what goes to stderr
  if (std::all_of(covered.begin(), covered.end(),
                  [](const CoveredRecord& r) { return r.kind == CoveredRecord::Kind::kInvalid; }))
    throw common::Error(
        fmt::format("none of the {} records is valid (listed above): nothing to measure", files.size()));
  double percent = coverage_percent(covered);
  if (c.min_coverage >= 0 && percent < c.min_coverage) {
    std::fprintf(stderr, "skb coverage: %.1f%% of the records have a static kernel, below --min-coverage %g\n", percent,
                 c.min_coverage);
    return kExitBelowCoverage;
  }
  return 0;
}

}  // namespace skb::explain
