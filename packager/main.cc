// skb-package: kernels built by skb-generate and ninja → static_kernel_<datetime>.run.
#include "common/diag.h"
#include "common/error.h"
#include "packager/cli.h"

int main(int argc, char** argv) {
  skb::common::Diag diag("skb-package");
  try {
    return skb::packager::package_main(argc, argv, diag);
  } catch (const skb::common::Error& e) {
    diag.error(e.what());
    return 1;
  } catch (const std::exception& e) {
    diag.error(std::string("internal error: ") + e.what());
    return 1;
  }
}
