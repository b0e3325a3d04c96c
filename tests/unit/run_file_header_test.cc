// installer::RunFile: a .run's header values as skb verify and skb-package --base read them.
#include <gtest/gtest.h>

#include <string>

#include "common/sha256.h"
#include "packager/install/run_file.h"
#include "packager/stub.h"
#include "test_util.h"

namespace skb::installer {
namespace {

std::filesystem::path write_run(const std::string& installer, const std::string& unpacked_sha256,
                                const std::string& base) {
  std::string payload(500, 'p');
  packager::StubInput in;
  in.package = "static_kernel_20260101000000";
  in.soc = "host";
  in.installer_size = installer.size();
  in.installer_sha256 = common::sha256_hex(installer);
  in.installer_unpacked_size = 4000;
  in.installer_unpacked_sha256 = unpacked_sha256;
  in.base = base;
  in.payload_size = payload.size();
  in.payload_sha256 = common::sha256_hex(payload);
  in.kernels = 2;
  auto path = test::scratch_dir() / "x.run";
  test::write_text(path, packager::make_stub(in) + installer + payload);
  return path;
}

TEST(RunFileHeader, ADeltaWithoutAnInstallerNamesTheOneItRuns) {
  std::string unpacked(64, 'c');
  RunFile run(write_run("", unpacked, "static_kernel_20250101000000"));
  EXPECT_EQ(run.installer.size, 0u);
  EXPECT_EQ(run.installer.offset, run.payload.offset);
  EXPECT_EQ(run.installer_unpacked_sha256, unpacked);
  EXPECT_NO_THROW(verify_payload_hash(run.installer));  // no bytes, the hash of no bytes
  EXPECT_NO_THROW(verify_payload_hash(run.payload));
}

TEST(RunFileHeader, APackageThatCarriesItsInstallerIsCheckedWhole) {
  RunFile run(write_run(std::string(1000, 'i'), std::string(64, 'd'), ""));
  EXPECT_EQ(run.installer.size, 1000u);
  EXPECT_EQ(run.installer_unpacked_sha256, std::string(64, 'd'));
  EXPECT_NO_THROW(verify_payload_hash(run.installer));
}

}  // namespace
}  // namespace skb::installer
