#pragma once
#include <string>
#include <vector>

namespace skb::common {

/// Result of a child process: exit code (128+signal when killed) and what it printed.
struct ProcessResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr together, only when captured
};

/// Where a child's output goes.
enum class Output { kInherit, kCapture, kToStderr };

/// Runs argv (argv[0] looked up on PATH) without a shell and waits for it. kCapture collects
/// stdout and stderr together; kToStderr sends stdout to our stderr (to keep our stdout for a
/// result). Throws Error when the program cannot be started, and Interrupted (interrupt.h) under
/// ForwardSignals once a signal came; under ForwardSignals the child also gets SIGTERM when this
/// process dies, even killed by SIGKILL.
ProcessResult run_process(const std::vector<std::string>& argv, Output output);
inline ProcessResult run_process(const std::vector<std::string>& argv, bool capture) {
  return run_process(argv, capture ? Output::kCapture : Output::kInherit);
}

/// argv[0] resolved against PATH to an absolute path, or empty when not found.
std::string find_program(const std::string& name);

}  // namespace skb::common
