#include "runtime/answer.h"

#include <fmt/format.h>

#include "common/sha256.h"
#include "opmodel/defines.h"
#include "opmodel/support.h"

namespace skb::runtime {

Answer answer(const Index& index, const opmodel::OpRecord& call, InstalledSignatures& signatures) {
  Answer a;
  if (std::string why = opmodel::unsupported_attrs(call); !why.empty()) {
    a.why = fmt::format("{}: refused as unsupported: {}", call.op_type, why);
    return a;
  }
  auto hit = index.by_key.find(common::sha256_hex(opmodel::canonical_signature(call)));
  const std::string* withheld = hit == index.by_key.end() ? nullptr : index.withheld_reason(hit->first);
  if (hit != index.by_key.end() && hit->second.variant != "dynamic" && !withheld) {
    a.kind = Answer::Kind::kStatic;
    a.why =
        fmt::format("{}: static kernel {} (package {})", call.op_type, hit->second.kernel_name, hit->second.package);
    return a;
  }
  // A static kernel the payoff evidence withholds serves no call.
  a.why = withheld ? fmt::format("{}: {}", call.op_type, *withheld) : explain_miss(index, call, signatures);
  if (index.by_key.count(common::sha256_hex(opmodel::dynamic_signature(call)))) {
    std::string why = opmodel::unsupported_by_dynamic(call);
    if (why.empty()) a.kind = Answer::Kind::kDynamic;
    a.why += why.empty() ? "; the dynamic kernel of its op and dtypes serves it"
                         : "; the dynamic kernel of its op and dtypes cannot serve it: " + why;
  }
  return a;
}

}  // namespace skb::runtime
