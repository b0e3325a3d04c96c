#pragma once
#include "common/diag.h"

namespace skb::generator {

/// Exit codes of skb-generate.
enum Exit : int { kExitOk = 0, kExitError = 1, kExitUsage = 2, kExitNoKernels = 3 };

/// Parses the command line of skb-generate and runs it; returns the exit code. Errors that
/// stop the run are thrown as common::Error.
int generate_main(int argc, char** argv, common::Diag& diag);

}  // namespace skb::generator
