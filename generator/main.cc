// skb-generate: op-statistics dumps → an incremental Ninja graph of static-shape kernels.
#include <CLI/CLI.hpp>

#include "common/diag.h"
#include "common/error.h"
#include "common/version.h"
#include "generator/cli.h"

int main(int argc, char** argv) {
  skb::common::Diag diag("skb-generate");
  try {
    return skb::generator::generate_main(argc, argv, diag);
  } catch (const skb::common::Error& e) {
    diag.error(e.what());
    return 1;
  } catch (const std::exception& e) {
    diag.error(std::string("internal error: ") + e.what());
    return 1;
  }
}
