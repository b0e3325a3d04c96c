#include "runtime/call_buffers.h"

#include <fmt/format.h>

#include <algorithm>

#include "runtime/kernel_module.h"
#include "skb/runtime.h"

namespace skb::runtime {
namespace {

using opmodel::Slot;

template <typename Out>
void describe(const std::vector<Slot>& slots, Out& out) {
  for (const Slot& s : slots) {
    out.push_back({s.kind == Slot::Kind::kList, {}});
    for (const opmodel::Tensor& t : s.tensors) out.back().needed.push_back(t.numel() != 0);
  }
}

}  // namespace

CallBuffers::CallBuffers(const opmodel::OpRecord& record) {
  describe(record.inputs, inputs_);
  describe(record.outputs, outputs_);
}

void CallBuffers::check(const void* const* inputs, const void* const* outputs, const char* fn) const {
  auto refuse = [fn](const std::string& what) {
    throw RuntimeError(SKB_ERR_INVALID, fmt::format("{}: {} is NULL, where the call has a tensor", fn, what));
  };
  auto check_side = [&](const std::vector<Slot>& slots, const void* const* given, const char* side) {
    for (std::size_t i = 0; i < slots.size(); ++i) {
      const std::vector<bool>& needed = slots[i].needed;
      if (std::find(needed.begin(), needed.end(), true) == needed.end()) continue;
      if (!given) refuse(fmt::format("the {}s array", side));
      if (!given[i]) refuse(fmt::format("{} {}", side, i));
      if (!slots[i].list) continue;
      const auto* items = static_cast<const void* const*>(given[i]);
      for (std::size_t j = 0; j < needed.size(); ++j)
        if (needed[j] && !items[j]) refuse(fmt::format("tensor {} of {} {}", j, side, i));
    }
  };
  check_side(inputs_, inputs, "input");
  check_side(outputs_, outputs, "output");
}

}  // namespace skb::runtime
