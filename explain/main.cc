// skb: explains why two records, builds or store entries are not the same kernel.
#include "common/run_main.h"
#include "explain/cli.h"

int main(int argc, char** argv) { return skb::common::run_main("skb", argc, argv, &skb::explain::skb_main); }
