#pragma once
#include <vector>

#include "opmodel/op_record.h"

namespace skb::runtime {

/// Which buffers a call must be given, from its record: one per input and output slot that holds
/// a tensor (for a tensor list, one per tensor of the array its slot points to), but an empty
/// tensor's, which may be NULL. An absent optional input's slot may be NULL.
class CallBuffers {
 public:
  explicit CallBuffers(const opmodel::OpRecord& record);
  /// Throws RuntimeError SKB_ERR_INVALID naming the first buffer that is NULL where the record
  /// has a tensor (`fn`: the C function called), before a kernel reads address 0.
  void check(const void* const* inputs, const void* const* outputs, const char* fn) const;

 private:
  struct Slot {
    bool list = false;
    std::vector<bool> needed;  // per tensor: it has elements
  };
  std::vector<Slot> inputs_, outputs_;
};

}  // namespace skb::runtime
