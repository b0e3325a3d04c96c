#pragma once
#include "common/diag.h"

namespace skb::common {

/// The body of every skb main: runs `body`, and prints what it throws, in the one format users
/// see (`<program>: error: <what>`), returning 1. Returns body's exit code otherwise.
int run_main(const char* program, int argc, char** argv, int (*body)(int, char**, Diag&));

}  // namespace skb::common
