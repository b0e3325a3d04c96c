#pragma once
#include <string>
#include <vector>

#include "opmodel/op_record.h"
#include "skb_kernel_abi.h"

namespace skb::runtime {

/// What a dynamic kernel is told about a call (skb_call), built from the call's record and
/// owning every array the skb_call points into.
class CallArgs {
 public:
  /// A tensor list gives one shape per tensor (skb_kernel_abi.h). Throws
  /// RuntimeError(SKB_ERR_INVALID) for what the C ABI cannot carry (a rank above SKB_MAX_RANK).
  explicit CallArgs(const opmodel::OpRecord& record);
  CallArgs(const CallArgs&) = delete;
  CallArgs& operator=(const CallArgs&) = delete;

  const skb_call* get() const { return &call_; }

 private:
  std::vector<skb_shape> inputs_, outputs_;
  std::vector<std::string> names_;
  std::vector<std::vector<double>> values_;
  std::vector<skb_attr> attrs_;
  skb_call call_{};
};

}  // namespace skb::runtime
