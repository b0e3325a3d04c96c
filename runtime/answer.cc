#include "runtime/answer.h"

#include <fmt/format.h>

#include "common/sha256.h"
#include "opmodel/defines.h"
#include "opmodel/support.h"
#include "runtime/call_args.h"
#include "runtime/cuda_launch.h"
#include "runtime/kernel_module.h"

namespace skb::runtime {
namespace {

// What skb_runtime_find refuses once it has picked `entry` for the call: what the kernel's
// launch ABI cannot carry (a cuda kernel's tensors, dtypes and attributes; a host dynamic
// kernel's ranks), as find words it; empty when it can.
std::string cannot_carry(const IndexEntry& entry, const opmodel::OpRecord& call) {
  const bool dynamic = entry.variant == "dynamic";
  try {
    if (entry.launch.on_device())
      CudaLaunch(call, entry.launch, dynamic);
    else if (dynamic)
      CallArgs{call};
    return {};
  } catch (const RuntimeError& e) {
    std::string why = e.what(), own = call.op_type + ": ";
    return why.rfind(own, 0) == 0 ? why.substr(own.size()) : why;  // the answer names the op once
  }
}

}  // namespace

Answer answer(const Index& index, const opmodel::OpRecord& call, InstalledSignatures& signatures) {
  Answer a;
  if (std::string why = opmodel::unsupported_attrs(call); !why.empty()) {
    a.why = fmt::format("{}: refused as unsupported: {}", call.op_type, why);
    return a;
  }
  auto hit = index.by_key.find(common::sha256_hex(opmodel::canonical_signature(call)));
  const std::string* withheld = hit == index.by_key.end() ? nullptr : index.withheld_reason(hit->first);
  if (hit != index.by_key.end() && hit->second.variant != "dynamic" && !withheld) {
    a.why =
        fmt::format("{}: static kernel {} (package {})", call.op_type, hit->second.kernel_name, hit->second.package);
    if (std::string why = cannot_carry(hit->second, call); !why.empty())
      a.why += ", which cannot run it: " + why;
    else
      a.kind = Answer::Kind::kStatic;
    return a;
  }
  // A static kernel the payoff evidence withholds serves no call.
  a.why = withheld ? fmt::format("{}: {}", call.op_type, *withheld) : explain_miss(index, call, signatures);
  if (auto dyn = index.by_key.find(common::sha256_hex(opmodel::dynamic_signature(call))); dyn != index.by_key.end()) {
    std::string why = opmodel::unsupported_by_dynamic(call);
    if (why.empty()) why = cannot_carry(dyn->second, call);
    if (why.empty()) a.kind = Answer::Kind::kDynamic;
    a.why += why.empty() ? "; the dynamic kernel of its op and dtypes serves it"
                         : "; the dynamic kernel of its op and dtypes cannot serve it: " + why;
  }
  return a;
}

}  // namespace skb::runtime
