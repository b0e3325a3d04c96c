#include "tests/support/cuda_library.h"

#include <fmt/format.h>

#include "common/fs.h"
#include "common/sha256.h"
#include "opmodel/op_record.h"
#include "tests/support/records.h"

namespace skb::test {
namespace fs = std::filesystem;

std::string relu_record() { return record("Relu", {tensor("float16", {2, 3})}, {tensor("float16", {2, 3})}).dump(); }

fs::path cuda_library(const fs::path& scratch, const std::string& name, const std::string& launch,
                      const std::string& cubin) {
  fs::path root = scratch / name;
  fs::remove_all(root);
  fs::path lib = root / "opp" / "static_kernel" / "ai_core";  // as the installer lays it out
  fs::create_directories(lib / "static_kernel_1" / "sm_90" / "Relu");
  common::write_atomic(lib / "static_kernel_1/sm_90/Relu/Relu_1.cubin", cubin);
  const std::string key =
      common::sha256_hex(opmodel::canonical_signature(opmodel::parse_op_record(common::parse_json(relu_record()))));
  std::string entry = fmt::format(
      R"({{"binPath": "static_kernel_1/sm_90/Relu/Relu_1.cubin", "binDesc": {{"kernelName": "skb_kernel"}},
          "skbKey": "{}", "kernelName": "Relu_1", "package": "static_kernel_1", "sha256": "{}",
          "variant": "static"{}}})",
      key, common::sha256_hex(cubin), launch.empty() ? "" : ", \"launch\": " + launch);
  fs::create_directories(lib / "config" / "sm_90");
  common::write_atomic(lib / "config/sm_90/binary_info_config.json",
                       fmt::format(R"({{"Relu": {{"staticList": [{}]}}}})", entry));
  return root;
}

}  // namespace skb::test
