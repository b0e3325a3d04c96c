#include "packager/format/launch.h"

#include <algorithm>

namespace skb::packager {

std::uint32_t launch_grid(std::int64_t work, std::uint32_t block, std::uint32_t max_grid) {
  if (work <= 0 || block == 0) return 1;
  std::int64_t blocks = (work + block - 1) / block;
  return static_cast<std::uint32_t>(std::clamp<std::int64_t>(blocks, 1, std::max<std::uint32_t>(max_grid, 1)));
}

common::Json launch_json(const Launch& l) {
  return {{"device", l.device}, {"grid", l.grid}, {"block", l.block}, {"max_grid", l.max_grid}};
}

Launch parse_launch(const common::Field& f) {
  f.expect_object();
  Launch l;
  l.device = f.at("device").string(16);
  if (l.device != "cuda") f.at("device").fail("\"cuda\" (host kernels have no launch)");
  l.block = static_cast<std::uint32_t>(f.at("block").integer(32, kMaxBlock));
  if (l.block % 32 != 0) f.at("block").fail("a multiple of 32 (whole warps: the kernels reduce within warps)");
  l.max_grid = static_cast<std::uint32_t>(f.at("max_grid").integer(1, kMaxGrid));
  l.grid = static_cast<std::uint32_t>(f.at("grid").integer(0, l.max_grid));
  return l;
}

}  // namespace skb::packager
