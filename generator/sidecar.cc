#include "generator/sidecar.h"

#include "common/error.h"
#include "opmodel/op_record.h"

namespace skb::generator {
using common::Field;
using common::FieldError;

namespace {

constexpr std::int64_t kMaxBlockDim = std::int64_t{1} << 20;
constexpr std::int64_t kMaxWorkspace = std::int64_t{1} << 40;
constexpr std::int64_t kMaxUint32 = 0xffffffff;
constexpr std::size_t kMaxTilingData = 1 << 20;

std::vector<std::int64_t> workspace_sizes(const Field& f) {
  Field sizes = f.json().is_object() ? f.at("size") : f;
  std::vector<std::int64_t> out;
  for (std::size_t i = 0, n = sizes.array_size(64); i < n; ++i) out.push_back(sizes.at(i).integer(-1, kMaxWorkspace));
  return out;
}

struct NamedCoreType {
  const char* name;
  int index_value;
};
constexpr NamedCoreType kCoreTypes[] = {{"MIX", 0},        {"AiCore", 1},          {"VectorCore", 2},
                                        {"MIX_AICORE", 3}, {"MIX_VECTOR_CORE", 4}, {"MIX_AIC", 0}};

}  // namespace

std::optional<int> opbase_core_type(const std::string& name) {
  for (const auto& c : kCoreTypes)
    if (name == c.name) return c.index_value;
  return std::nullopt;
}

Sidecar parse_sidecar(const common::Json& doc) {
  Field root(doc, "");
  root.expect_object();
  Sidecar s;
  if (root.has("runInfo")) {
    // UpdateRunInfoForStaticJson reads every one of these; one missing or mistyped and it drops
    // the whole runInfo, block dim and tiling data with it.
    Field run = root.at("runInfo");
    run.expect_object();
    s.block_dim = static_cast<std::uint32_t>(run.at("block_dim").integer(0, kMaxBlockDim));
    for (const char* field : {"aicpu_block_dim", "local_memory_size", "schedule_mode", "tiling_cond", "clear_atomic"})
      run.at(field).integer(0, kMaxUint32);
    if (Field key = run.at("tiling_key"); !key.json().is_number_integer() || key.json().get<double>() < 0)
      key.fail("an unsigned 64-bit integer");
    const std::string tiling = run.at("tiling_data").string(kMaxTilingData);
    if (tiling.size() % 2 != 0 || tiling.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos)
      throw FieldError(run.at("tiling_data").pointer(), "expected hex digits, two per byte");
  } else {
    s.block_dim = static_cast<std::uint32_t>(root.at("blockDim").integer(0, kMaxBlockDim));
  }
  s.kernel_name = root.at("kernelName").string(256);
  if (!opmodel::is_identifier(s.kernel_name)) throw FieldError("/kernelName", "expected a C symbol name");
  if (root.has("workspace")) s.workspace = workspace_sizes(root.at("workspace"));
  if (root.has("coreType")) {
    s.core_type = opbase_core_type(root.at("coreType").string(32));
    if (!s.core_type)
      throw FieldError("/coreType",
                       "expected a kernel type opbase knows: MIX, AiCore, VectorCore, MIX_AICORE, "
                       "MIX_VECTOR_CORE or MIX_AIC");
  }
  return s;
}

}  // namespace skb::generator
