#pragma once
#include <string>

#include "opmodel/op_record.h"
#include "runtime/index_reader.h"

namespace skb::runtime {

/// For a call with no static kernel: the installed static kernel of its op nearest to it (the
/// fewest fields of the canonical signature that differ, read from each kernel's .info: other
/// fields than shapes first, then shapes of another rank, then dims) and the
/// first field that differs, e.g. "/inputs/0/shape/1: installed 2048, called 2047". Reads the
/// library only here, so a call that finds its kernel pays nothing for it.
std::string explain_miss(const Index& index, const opmodel::OpRecord& call);

}  // namespace skb::runtime
