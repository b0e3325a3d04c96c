#include "generator/sidecar.h"

#include "common/error.h"
#include "opmodel/op_record.h"

namespace skb::generator {
using common::Field;
using common::FieldError;

namespace {

constexpr std::int64_t kMaxBlockDim = std::int64_t{1} << 20;
constexpr std::int64_t kMaxWorkspace = std::int64_t{1} << 40;

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
  Field block_dim = root.has("runInfo") ? root.at("runInfo").at("block_dim") : root.at("blockDim");
  s.block_dim = static_cast<std::uint32_t>(block_dim.integer(0, kMaxBlockDim));
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
