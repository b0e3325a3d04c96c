#pragma once
#include <string>
#include <vector>

#include "runtime/index_reader.h"

namespace CLI {
class App;
}  // namespace CLI

namespace skb::explain {

/// The text `skb coverage --help` ends with.
extern const char* const kCoverageHelp;

/// `skb coverage --install-path DIR RECORDS...`: which share of a set of op records (a
/// framework's dump, or the misses a run recorded) an installed library serves with a static
/// kernel, and for each record it does not, the nearest installed kernel and the first field
/// that differs.
struct CoverageCommand {
  CLI::App* app = nullptr;
  std::string install_path, soc;
  std::vector<std::string> records;
  double min_coverage = -1;  // percent; below it the exit status is kExitBelowCoverage
};
void add_coverage_command(CLI::App& skb, CoverageCommand& c);
/// Exit status: 0, or kExitBelowCoverage under --min-coverage.
int run_coverage_command(const CoverageCommand& c);
inline constexpr int kExitBelowCoverage = 3;

/// One record's answer.
struct CoveredRecord {
  std::string file;
  enum class Kind { kStatic, kDynamic, kNone, kInvalid } kind = Kind::kNone;
  std::string why;  // for all but kStatic: the nearest kernel and the first field, or the bad field
};

/// The answers for record files against one SoC's index (nothing here runs or loads a kernel).
std::vector<CoveredRecord> cover(const runtime::Index& index, const std::vector<std::string>& files);

/// The report: the share line, then one line per record without a static kernel.
std::string coverage_text(const std::vector<CoveredRecord>& covered, const runtime::Index& index);

/// The share of valid records served by a static kernel, in percent (100 for none).
double coverage_percent(const std::vector<CoveredRecord>& covered);

}  // namespace skb::explain
