#include "common/run_main.h"

#include <fmt/format.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>

#include "common/error.h"
#include "common/interrupt.h"

namespace skb::common {

int run_main(const char* program, int argc, char** argv, int (*body)(int, char**, Diag&)) {
  Diag diag(program);
  try {
    int rc = body(argc, argv, diag);
    // What a caller reads from stdout (a package's path, a key's public line) lost on a full
    // disk is a failure, said here: stdio itself says nothing.
    const int err = std::fflush(stdout) != 0 ? errno : 0;
    if (err != 0 || std::ferror(stdout)) {
      diag.error(err != 0 ? fmt::format("standard output: cannot write: {}", std::strerror(err))
                          : std::string("standard output: a write failed"));
      return rc == 0 ? 1 : rc;
    }
    return rc;
  } catch (const Interrupted& e) {
    // What the job had begun is cleaned up (its destructors ran); the process ends as the signal
    // would have ended it, so that a shell or a parent sees it was stopped.
    diag.error(e.what());
    std::signal(e.signal(), SIG_DFL);
    std::raise(e.signal());
    return 128 + e.signal();
  } catch (const Error& e) {
    diag.error(e.what());
  } catch (const std::exception& e) {
    diag.error(std::string("internal error: ") + e.what());
  }
  return 1;
}

}  // namespace skb::common
