// skb-install: the statically linked installer that travels inside every .run.
#include "common/diag.h"
#include "common/error.h"
#include "packager/install/cli.h"

int main(int argc, char** argv) {
  skb::common::Diag diag("skb-install");
  try {
    return skb::installer::installer_main(argc, argv, diag);
  } catch (const skb::common::Error& e) {
    diag.error(e.what());
    return skb::installer::kExitError;
  } catch (const std::exception& e) {
    diag.error(std::string("internal error: ") + e.what());
    return skb::installer::kExitError;
  }
}
