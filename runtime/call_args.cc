#include "runtime/call_args.h"

#include <fmt/format.h>

#include "runtime/kernel_module.h"
#include "skb/runtime.h"

namespace skb::runtime {
namespace {

using opmodel::Slot;

// One shape per slot, rank -1 for an absent one, and one per tensor of a list in its slot's place.
std::vector<skb_shape> shapes(const std::vector<Slot>& slots, const char* what) {
  std::vector<skb_shape> out;
  for (std::size_t i = 0; i < slots.size(); ++i) {
    if (slots[i].kind == Slot::Kind::kAbsent) out.push_back({-1, {}});
    for (const auto& t : slots[i].tensors) {
      if (t.shape.size() > SKB_MAX_RANK)
        throw RuntimeError(SKB_ERR_INVALID,
                           fmt::format("{} {}: rank {} is above {}", what, i, t.shape.size(), SKB_MAX_RANK));
      skb_shape s{static_cast<int32_t>(t.shape.size()), {}};
      for (std::size_t d = 0; d < t.shape.size(); ++d) s.dims[d] = t.shape[d];
      out.push_back(s);
    }
  }
  return out;
}

double as_double(const common::Json& v) {
  if (v.is_boolean()) return v.get<bool>() ? 1.0 : 0.0;
  return v.is_number() ? v.get<double>() : 0.0;
}

}  // namespace

CallArgs::CallArgs(const opmodel::OpRecord& record)
    : inputs_(shapes(record.inputs, "input")), outputs_(shapes(record.outputs, "output")) {
  for (const auto& a : record.attrs) {
    names_.push_back(a.name);
    std::vector<double> v;
    if (a.value.is_array())
      for (const auto& e : a.value) v.push_back(as_double(e));
    else if (!a.value.is_string())
      v.push_back(as_double(a.value));
    values_.push_back(std::move(v));
  }
  for (std::size_t i = 0; i < names_.size(); ++i)
    attrs_.push_back({names_[i].c_str(), static_cast<int32_t>(values_[i].size()), values_[i].data()});
  call_ = {static_cast<int32_t>(inputs_.size()),
           static_cast<int32_t>(outputs_.size()),
           inputs_.data(),
           outputs_.data(),
           static_cast<int32_t>(attrs_.size()),
           attrs_.data()};
}

}  // namespace skb::runtime
