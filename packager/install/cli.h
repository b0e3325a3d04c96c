#pragma once
#include "common/diag.h"

namespace skb::installer {

/// Exit codes of a .run and of skb-install.
enum Exit : int {
  kExitOk = 0,
  kExitError = 1,
  kExitUsage = 2,
  kExitCorrupt = 3,
  kExitUntrusted = 4,
  kExitBaseMissing = 5  // a delta package whose base's files the library does not hold: nothing written
};

/// Parses the options of a .run (passed on by its stub) and runs them; returns the exit code.
int installer_main(int argc, char** argv, common::Diag& diag);

}  // namespace skb::installer
