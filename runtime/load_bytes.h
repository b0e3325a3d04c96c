#pragma once
#include <string>
#include <string_view>

namespace skb::runtime {

/// dlopen of exactly these bytes, which the caller has checked: they are copied into a sealed
/// memfd and loaded from there, never from the file they were read from (which could be replaced
/// between the check and the load; and a library once loaded under a path is what dlopen hands
/// back for that path, whatever the file holds now). `name` names the memfd, as /proc/PID/maps
/// shows it. Returns the handle, or nullptr with the reason in `error`.
void* dlopen_bytes(std::string_view bytes, const std::string& name, std::string& error);

}  // namespace skb::runtime
