#pragma once
#include "common/error.h"

namespace skb::packager {

/// A package that fails verification: damaged, or built to attack the installer. Thrown by the
/// format's readers (run_header.h) and by the installer's (installer::VerifyError names it).
class VerifyError : public common::Error {
 public:
  using common::Error::Error;
};

}  // namespace skb::packager
