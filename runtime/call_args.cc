#include "runtime/call_args.h"

#include <fmt/format.h>

#include "runtime/kernel_module.h"
#include "skb/runtime.h"

namespace skb::runtime {
namespace {

using opmodel::Slot;

std::vector<skb_shape> shapes(const std::vector<Slot>& slots, const char* what) {
  std::vector<skb_shape> out;
  for (std::size_t i = 0; i < slots.size(); ++i) {
    skb_shape s{-1, {}};
    if (slots[i].kind == Slot::Kind::kList)
      throw RuntimeError(SKB_ERR_INVALID, fmt::format("{} {}: a tensor list cannot be passed to a kernel", what, i));
    if (slots[i].kind == Slot::Kind::kTensor) {
      const auto& dims = slots[i].tensors[0].shape;
      if (dims.size() > SKB_MAX_RANK)
        throw RuntimeError(SKB_ERR_INVALID,
                           fmt::format("{} {}: rank {} is above {}", what, i, dims.size(), SKB_MAX_RANK));
      s.rank = static_cast<int32_t>(dims.size());
      for (std::size_t d = 0; d < dims.size(); ++d) s.dims[d] = dims[d];
    }
    out.push_back(s);
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
