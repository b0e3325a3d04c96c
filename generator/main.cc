// skb-generate: op-statistics dumps → an incremental Ninja graph of static-shape kernels.
#include "common/run_main.h"
#include "generator/cli.h"

int main(int argc, char** argv) {
  return skb::common::run_main("skb-generate", argc, argv, &skb::generator::generate_main);
}
