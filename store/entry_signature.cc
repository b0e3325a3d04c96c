#include "store/entry_signature.h"

#include <fmt/format.h>

#include "common/sha256.h"

namespace skb::store {

std::string entry_message(const std::string& kernel_name, const EntryFiles& f) {
  return fmt::format("skb-store-entry-v1\nname {}\nrecord {}\nbinary {} {:04o}\nsidecar {}\n", kernel_name,
                     common::sha256_hex(f.record), common::sha256_hex(f.binary), f.binary_mode,
                     f.sidecar ? common::sha256_hex(*f.sidecar) : "none");
}

}  // namespace skb::store
