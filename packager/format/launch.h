#pragma once
#include <cstdint>
#include <string>

#include "common/json_input.h"

namespace skb::packager {

/// How the runtime launches a kernel that runs on a device (the cuda toolchain's cubins): a 1-D
/// grid of `block` threads per block, a multiple of 32 (whole warps). A static kernel's grid is fixed when it is
/// planned; a dynamic kernel's (grid 0) is computed for each call from its shapes by launch_grid. Host kernels have
/// none (device "host").
struct Launch {
  std::string device = "host";  // host | cuda
  std::uint32_t grid = 0;       // 0: from the call (dynamic kernels)
  std::uint32_t block = 0;
  std::uint32_t max_grid = 0;

  bool on_device() const { return device != "host"; }
};

inline constexpr std::uint32_t kMaxBlock = 1024;
inline constexpr std::uint32_t kMaxGrid = 0x7fffffff;

/// Blocks for `work` elements (the first output's): one thread each, at most max_grid blocks
/// (the kernels loop grid-stride), at least one.
std::uint32_t launch_grid(std::int64_t work, std::uint32_t block, std::uint32_t max_grid);

/// The manifest's and the index's form: {"device","grid","block","max_grid"}.
common::Json launch_json(const Launch& l);

/// Throws common::FieldError with the pointer of a bad field.
Launch parse_launch(const common::Field& f);

}  // namespace skb::packager
