#pragma once
#include "common/diag.h"

namespace skb::packager {

/// Parses the command line of skb-package and runs it; returns the exit code (0 done,
/// 1 error, 2 bad command line). Errors that stop the run are thrown as common::Error.
int package_main(int argc, char** argv, common::Diag& diag);

}  // namespace skb::packager
