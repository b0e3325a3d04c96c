#pragma once
#include <string>
#include <vector>

namespace CLI {
class App;
}  // namespace CLI

namespace skb::explain {

/// The text `skb bench --help` ends with.
extern const char* const kBenchHelp;

/// `skb bench --install-path DIR RECORDS...`: times every static kernel of an installed library
/// against the same call through the runtime's dynamic path, on this machine, and keeps the
/// verdicts in the library (<ai_core>/payoff/<machine class>.json) for the runtime to act on.
/// Its values are checked where the command line is parsed (add_bench_command).
struct BenchCommand {
  CLI::App* app = nullptr;
  std::string install_path, soc, output;
  std::vector<std::string> records;
  double budget_seconds = 30, min_sample_ms = 1, margin = 0.05, lock_timeout = 300;
  bool quiet = false;
};
void add_bench_command(CLI::App& skb, BenchCommand& b);
/// Exit status: 0 measured (whatever the verdicts), 1 error.
int run_bench_command(const BenchCommand& b);

}  // namespace skb::explain
