#pragma once
#include "common/diag.h"

namespace skb::packager {

/// Parses the command line of skb-package and runs it; returns the exit code (0 done,
/// 1 error, 2 bad command line). Errors that stop the run are thrown as common::Error.
int package_main(int argc, char** argv, common::Diag& diag);

/// The name this run answers to: "op_compiler" when the op_compiler entry ran it (with
/// --cann-output first), else "skb-package". Its help, version and every message say it.
const char* program_name(int argc, char** argv);

}  // namespace skb::packager
