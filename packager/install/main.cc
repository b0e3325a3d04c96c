// skb-install: the statically linked installer that travels inside every .run.
#include <sys/prctl.h>

#include "common/run_main.h"
#include "packager/install/cli.h"

int main(int argc, char** argv) {
  // The name ps and top show: the stub starts it as a temporary file (skb_run.<pid>.<n>) or as
  // the operator library's copy through a descriptor (/dev/fd/3, which would show as "3").
  ::prctl(PR_SET_NAME, "skb-install");
  return skb::common::run_main("skb-install", argc, argv, &skb::installer::installer_main);
}
