// skb-replay: runs every op call of an op-statistics dump through skb_runtime, against an
// installed operator library, and checks every output against the reference implementation.
// The example of the runtime's C API: open, find, run, and which kernel ran.
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <cstdlib>
#include <random>

#include "common/cli_parse.h"
#include "common/error.h"
#include "common/fs.h"
#include "common/run_main.h"
#include "common/version.h"
#include "opmodel/discovery.h"
#include "runtime/reference/tensors.h"
#include "skb/runtime.h"

namespace {

using skb::common::Error;

struct Counts {
  std::size_t calls = 0, static_kernels = 0, dynamic_kernels = 0, no_kernel = 0, unsupported = 0, invalid = 0,
              match = 0, differ = 0, too_large = 0;
};

// The elements of a call's tensors, inputs and outputs: checking it holds each in its dtype, and
// the reference's values besides.
double call_elements(const skb::opmodel::OpRecord& r) {
  double n = 0;
  for (const auto* slots : {&r.inputs, &r.outputs})
    for (const auto& slot : *slots)
      for (const auto& t : slot.tensors) {
        double e = 1;
        for (std::int64_t d : t.shape) e *= static_cast<double>(std::max<std::int64_t>(d, 0));
        n += e;
      }
  return n;
}

// One call: find its kernel, run it on random inputs, compare with the reference.
// Why a call found no static kernel: the nearest installed one and the first field that differs.
void explain(skb_runtime* rt, const std::filesystem::path& file, const std::string& text) {
  std::size_t needed = 0;
  char line[512];
  if (skb_runtime_explain(rt, text.c_str(), line, sizeof line, &needed) != SKB_OK) return;
  std::string why(line);
  if (needed >= sizeof line) {  // the C API's contract: ask again with room for the whole line
    std::string whole(needed + 1, '\0');
    skb_runtime_explain(rt, text.c_str(), whole.data(), whole.size(), nullptr);
    why = whole.c_str();
  }
  fmt::print("  {}: {}\n", file.filename().string(), why);
}

void replay(skb_runtime* rt, const std::filesystem::path& file, bool verbose, bool why, double max_elements,
            std::mt19937& rng, Counts& n) {
  ++n.calls;
  std::string text;
  try {
    text = skb::common::read_file(file, skb::opmodel::kMaxRecordSize);
  } catch (const Error& e) {  // too large, or unreadable: a record that is not valid, as skb coverage counts it
    ++n.invalid;
    fmt::print(stderr, "skb-replay: warning: {}\n", e.what());
    return;
  }
  skb_op* op = nullptr;
  int rc = skb_runtime_find(rt, text.c_str(), &op);
  if (why && (rc == SKB_ERR_NOT_FOUND || (rc == SKB_OK && skb_op_kind(op) == SKB_KERNEL_DYNAMIC)))
    explain(rt, file, text);
  if (rc == SKB_ERR_NOT_FOUND || rc == SKB_ERR_INVALID || rc == SKB_ERR_UNSUPPORTED) {
    ++(rc == SKB_ERR_NOT_FOUND ? n.no_kernel : rc == SKB_ERR_INVALID ? n.invalid : n.unsupported);
    if (verbose) fmt::print("  {}: {}\n", file.filename().string(), skb_last_error());
    return;
  }
  if (rc != SKB_OK) throw Error(fmt::format("{}: {}", file.string(), skb_last_error()));
  std::unique_ptr<skb_op, void (*)(skb_op*)> owned(op, skb_op_free);
  auto record = skb::opmodel::parse_op_record(skb::common::parse_json(text));
  if (double elements = call_elements(record); elements > max_elements) {
    ++n.too_large;
    fmt::print(stderr,
               "skb-replay: {}: not checked: its tensors hold {:.0f} elements, more than --max-elements {:.0f}\n",
               file.string(), elements, max_elements);
    return;
  }
  auto in = skb::reference::make_inputs(record, rng);
  auto out = skb::reference::make_outputs(record);
  auto in_ptr = skb::reference::input_pointers(in);
  auto out_ptr = skb::reference::output_pointers(out);
  if (skb_op_run_host(op, in_ptr.data(), out_ptr.data()) != SKB_OK)
    throw Error(fmt::format("{}: {}", file.string(), skb_last_error()));
  bool is_static = skb_op_kind(op) == SKB_KERNEL_STATIC;
  ++(is_static ? n.static_kernels : n.dynamic_kernels);
  std::string diff = skb::reference::compare_outputs(record, out, skb::reference::expected_outputs(record, in));
  ++(diff.empty() ? n.match : n.differ);
  if (!diff.empty())
    fmt::print(stderr, "skb-replay: {}: {} ({}): {}\n", file.string(), skb_op_kernel_name(op),
               is_static ? "static" : "dynamic", diff);
  else if (verbose)
    fmt::print("  {}: {} kernel {}: outputs match\n", file.filename().string(), is_static ? "static" : "dynamic",
               skb_op_kernel_name(op));
}

// What the runtime counted (skb_runtime_counts): per op and kernel when asked, and the misses it
// recorded when SKB_RECORD_MISSES is set.
void print_counts(bool per_kernel) {
  skb_call_counts c{};
  if (skb_runtime_counts(&c) != SKB_OK) return;
  if (per_kernel) {
    std::size_t needed = 0;
    skb_runtime_counts_text(nullptr, 0, &needed);
    std::string text(needed + 1, '\0');
    skb_runtime_counts_text(text.data(), text.size(), nullptr);
    fmt::print("{}", text.c_str());
  }
  fmt::print("runtime counts: {} static, {} dynamic, {} no kernel", c.static_hits, c.dynamic_fallbacks, c.no_kernel);
  if (!skb::common::env_or_empty("SKB_RECORD_MISSES").empty()) {
    skb_runtime_record_flush();
    skb_runtime_counts(&c);
    fmt::print("; {} missed calls recorded{}", c.recorded,
               c.past_cap ? fmt::format(", {} more past the cap", c.past_cap) : "");
  }
  fmt::print("\n");
}

int replay_main(int argc, char** argv, skb::common::Diag& diag) {
  CLI::App app{
      "Runs every op call recorded in op-statistics dumps through the skb runtime, against an installed "
      "operator library, and checks each output against a reference implementation.\n\n"
      "  skb-replay --install-path DIR DUMP...\n"
      "  skb-replay --install-path DIR --explain DUMP...   (also: why a call found no static kernel)\n"
      "  SKB_RECORD_MISSES=MISSES skb-replay --install-path DIR DUMP...\n"
      "      (the calls with no static kernel written into MISSES as op records: skb-package -p MISSES\n"
      "      --base OLD.run builds exactly their kernels)\n\n"
      "The reference is written apart from the templates: plain loops in double precision over the whole\n"
      "index space.\n\n"
      "Exit status: 0 when every call that found a kernel matched its reference; 1 when one differed, or\n"
      "the dumps hold no valid op record, or the library cannot be opened; 2 a bad command line.",
      "skb-replay"};
  std::string install_path, soc;
  std::vector<std::filesystem::path> dirs;
  bool verbose = false, why = false, per_kernel = false;
  unsigned seed = 1;
  std::uint64_t max_elements = std::uint64_t{1} << 27;
  app.add_option("dumps", dirs, "Op-statistics folders, as for skb-generate -p")->required();
  app.add_option("--install-path", install_path, "Operator library (default: $SKB_INSTALL_PATH)")
      ->check(skb::common::not_empty());
  app.add_option("-v,--soc", soc, "SoC whose kernels to use (default: the only one installed)")
      ->check(skb::common::not_empty());
  app.add_option("--seed", seed, "Seed of the random inputs")->capture_default_str()->check(skb::common::not_empty());
  app.add_option("--max-elements", max_elements,
                 "A call whose tensors hold more elements is not checked: it is named and counted as too large")
      ->capture_default_str()
      ->check(skb::common::number_in(1, 1e15));
  app.add_flag("--verbose", verbose, "One line per call");
  app.add_flag("--counts", per_kernel,
               "The runtime's counts per op and kernel: static hits, dynamic fallbacks, no kernel");
  app.add_flag("--explain", why,
               "For each call with no static kernel: the installed kernel of its op nearest to it and the first "
               "field that differs (which shapes the dump never saw)");
  app.set_version_flag("--version", fmt::format("skb-replay {}", skb::common::kVersion));
  if (std::optional<int> done = skb::common::parse_command_line(app, argc, argv, diag)) return *done;

  if (const char* env = std::getenv("SKB_INSTALL_PATH"); install_path.empty() && (!env || !*env))
    throw Error("which operator library? give --install-path DIR or set SKB_INSTALL_PATH");
  skb_runtime* rt = nullptr;
  if (skb_runtime_open(install_path.empty() ? nullptr : install_path.c_str(), soc.empty() ? nullptr : soc.c_str(),
                       &rt) != SKB_OK)
    throw Error(skb_last_error());
  std::unique_ptr<skb_runtime, void (*)(skb_runtime*)> owned(rt, skb_runtime_close);
  std::mt19937 rng(seed);
  Counts n;
  auto files = skb::opmodel::discover(dirs).files;
  if (files.empty()) {
    std::string where;
    for (const auto& d : dirs) where += (where.empty() ? "" : ", ") + d.string();
    throw Error(fmt::format("no op records in {}: nothing was checked", where));
  }
  for (const auto& file : files) {
    try {
      replay(rt, file, verbose, why, static_cast<double>(max_elements), rng, n);
    } catch (const std::bad_alloc&) {
      throw Error(fmt::format("{}: out of memory for its tensors (lower --max-elements)", file));
    }
  }
  print_counts(per_kernel);
  fmt::print(
      "{} calls: {} ran a static kernel, {} a dynamic kernel, {} found no kernel, {}{}{} were not valid records; "
      "{} matched the reference, {} differed\n",
      n.calls, n.static_kernels, n.dynamic_kernels, n.no_kernel,
      n.unsupported ? fmt::format("{} were refused as unsupported, ", n.unsupported) : "",
      n.too_large ? fmt::format("{} were too large to check, ", n.too_large) : "", n.invalid, n.match, n.differ);
  if (n.invalid == n.calls) throw Error(fmt::format("none of the {} records is valid: nothing was checked", n.calls));
  return n.differ == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) { return skb::common::run_main("skb-replay", argc, argv, &replay_main); }
