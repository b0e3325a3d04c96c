#include "common/run_main.h"

#include <csignal>
#include <exception>
#include <string>

#include "common/error.h"
#include "common/interrupt.h"

namespace skb::common {

int run_main(const char* program, int argc, char** argv, int (*body)(int, char**, Diag&)) {
  Diag diag(program);
  try {
    return body(argc, argv, diag);
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
