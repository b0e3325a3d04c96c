// What recording misses costs a call that finds its static kernel: ns per call (skb_runtime_find,
// skb_op_run, skb_op_free) of the smallest installed static kernel of a dump, with the runtime
// recording its misses and without, in alternating rounds (the least of each). Prints figures, asserts nothing.
//
//   skb_record_bench INSTALL_PATH DUMP MISSES_DIR [CALLS]
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <random>
#include <vector>

#include "common/fs.h"
#include "common/json_input.h"
#include "opmodel/discovery.h"
#include "opmodel/op_record.h"
#include "runtime/reference/tensors.h"
#include "skb/runtime.h"

namespace {

// Rounds of each, alternating: off, on, off, on...
constexpr int kRounds = 9;

struct Call {
  std::string file, text;
  skb::opmodel::OpRecord record;
  std::int64_t elements = 0;
};

double ns_per_call(skb_runtime* rt, const Call& call, int calls) {
  std::mt19937 rng(1);
  auto in = skb::reference::make_inputs(call.record, rng);
  auto out = skb::reference::make_outputs(call.record);
  auto ip = skb::reference::input_pointers(in);
  auto op_out = skb::reference::output_pointers(out);
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < calls; ++i) {
    skb_op* op = nullptr;
    if (skb_runtime_find(rt, call.text.c_str(), &op) != SKB_OK || skb_op_run(op, ip.data(), op_out.data()) != SKB_OK)
      throw std::runtime_error(skb_last_error());
    skb_op_free(op);
  }
  std::chrono::duration<double, std::nano> spent = std::chrono::steady_clock::now() - start;
  return spent.count() / calls;
}

// The least of the rounds: what a call costs with the least of the machine's other work in it.
double least(const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); }

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    fmt::print(stderr, "usage: skb_record_bench INSTALL_PATH DUMP MISSES_DIR [CALLS]\n");
    return 2;
  }
  const int calls = argc > 4 ? std::atoi(argv[4]) : 20000;
  try {
    skb_runtime* rt = nullptr;
    if (skb_runtime_open(argv[1], nullptr, &rt) != SKB_OK) throw std::runtime_error(skb_last_error());
    std::optional<Call> smallest;
    for (const std::string& file : skb::opmodel::discover({argv[2]}).files) {
      Call c{file, skb::common::read_file(file, 64 << 20), {}, 0};
      skb_op* op = nullptr;
      if (skb_runtime_find(rt, c.text.c_str(), &op) != SKB_OK) continue;
      bool is_static = skb_op_kind(op) == SKB_KERNEL_STATIC && skb_op_device(op) == SKB_DEVICE_HOST;
      skb_op_free(op);
      if (!is_static) continue;
      c.record = skb::opmodel::parse_op_record(skb::common::parse_json(c.text));
      for (const auto& slot : c.record.inputs)
        for (const auto& t : slot.tensors) c.elements += t.numel();
      if (!smallest || c.elements < smallest->elements) smallest = std::move(c);
    }
    if (!smallest) throw std::runtime_error("no call of the dump has a static host kernel in this library");
    ns_per_call(rt, *smallest, calls / 10 + 1);  // warm: loaded, hashed once
    std::vector<double> off, on;
    for (int round = 0; round < kRounds; ++round) {
      skb_runtime_record_stop();
      off.push_back(ns_per_call(rt, *smallest, calls));
      skb_runtime_record_start(argv[3]);
      on.push_back(ns_per_call(rt, *smallest, calls));
    }
    skb_runtime_record_stop();
    fmt::print(
        "smallest static kernel of the dump: {} ({} input elements); {} calls a round, the least of {} rounds each:\n"
        "  recording misses off: {:.0f} ns/call\n  recording misses on:  {:.0f} ns/call ({:+.1f}%)\n",
        skb::common::parse_json(smallest->text).at("op_type").get<std::string>(), smallest->elements, calls, kRounds,
        least(off), least(on), 100.0 * (least(on) - least(off)) / least(off));
    skb_runtime_close(rt);
  } catch (const std::exception& e) {
    fmt::print(stderr, "skb_record_bench: error: {}\n", e.what());
    return 1;
  }
  return 0;
}
