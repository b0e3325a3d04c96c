#pragma once
#include <string>

#include "store/entry.h"

namespace skb::store {

/// What a builder signs of an entry: the kernel's name and everything a hit uses (its build
/// record, its binary and its mode, its sidecar), each by SHA-256, after a label of its own. A
/// signature moved onto another entry, or the same entry under another name, does not verify.
/// key.json (explanations only, never used to build) is not covered.
std::string entry_message(const std::string& kernel_name, const EntryFiles& files);

}  // namespace skb::store
