#pragma once
#include "common/diag.h"

namespace skb::explain {

/// Exit statuses of `skb explain`: the same, an error, a bad command line, they differ.
inline constexpr int kExitSame = 0;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitDiffer = 3;

/// The `skb` program: its subcommands (explain) behind one command line.
int skb_main(int argc, char** argv, common::Diag& diag);

}  // namespace skb::explain
