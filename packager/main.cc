// skb-package: kernels built by skb-generate and ninja → static_kernel_<datetime>.run.
#include "common/run_main.h"
#include "packager/cli.h"

int main(int argc, char** argv) {
  return skb::common::run_main(skb::packager::program_name(argc, argv), argc, argv, &skb::packager::package_main);
}
