#include "common/run_main.h"

#include <exception>
#include <string>

#include "common/error.h"

namespace skb::common {

int run_main(const char* program, int argc, char** argv, int (*body)(int, char**, Diag&)) {
  Diag diag(program);
  try {
    return body(argc, argv, diag);
  } catch (const Error& e) {
    diag.error(e.what());
  } catch (const std::exception& e) {
    diag.error(std::string("internal error: ") + e.what());
  }
  return 1;
}

}  // namespace skb::common
