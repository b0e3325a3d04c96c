// skb-install: the statically linked installer that travels inside every .run.
#include "common/run_main.h"
#include "packager/install/cli.h"

int main(int argc, char** argv) {
  return skb::common::run_main("skb-install", argc, argv, &skb::installer::installer_main);
}
