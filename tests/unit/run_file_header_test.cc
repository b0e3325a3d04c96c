// installer::RunFile: a .run's header values as skb verify and skb-package --base read them.
#include <gtest/gtest.h>

#include <string>

#include "common/sha256.h"
#include "explain/verify_command.h"
#include "packager/format/gzip_bytes.h"
#include "packager/install/run_file.h"
#include "packager/stub.h"
#include "test_util.h"
#include "trust/blake2b.h"

namespace skb::installer {
namespace {

std::filesystem::path write_run(const std::string& installer, const std::string& unpacked_sha256,
                                const std::string& base, const std::string& unpacked_b2 = "") {
  std::string payload(500, 'p');
  packager::StubInput in;
  in.package = "static_kernel_20260101000000";
  in.soc = "host";
  in.installer_size = installer.size();
  in.installer_sha256 = common::sha256_hex(installer);
  in.installer_unpacked_size = 4000;
  in.installer_unpacked_sha256 = unpacked_sha256;
  in.installer_unpacked_b2 = unpacked_b2;
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

// skb verify unpacks the installer and checks it against both hashes the header gives of it
// (those the stub checks the library's copy by): a header that names other bytes is refused.
TEST(RunFileHeader, TheUnpackedInstallerIsTheOneItsHashesName) {
  const std::string program = "the installer's bytes", gz = packager::gzip_bytes(program);
  const std::string sha = common::sha256_hex(program), b2 = trust::blake2b512_hex(program);
  EXPECT_EQ(b2.size(), 128u);
  EXPECT_NO_THROW(explain::check_unpacked_installer(RunFile(write_run(gz, sha, "", b2))));
  EXPECT_NO_THROW(explain::check_unpacked_installer(RunFile(write_run(gz, sha, ""))));  // made before b2
  EXPECT_NO_THROW(explain::check_unpacked_installer(
      RunFile(write_run("", std::string(64, 'c'), "static_kernel_20250101000000", b2))));
  auto refused = [](const std::filesystem::path& run, const std::string& why) {
    try {
      explain::check_unpacked_installer(RunFile(run));
      ADD_FAILURE() << "no error: " << why;
    } catch (const VerifyError& e) {
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
    }
  };
  refused(write_run(gz, std::string(64, 'd'), "", b2), "SHA-256");
  refused(write_run(gz, sha, "", std::string(128, 'e')), "BLAKE2b-512");
  refused(write_run(std::string(1000, 'i'), sha, "", b2), "gzip");
}

}  // namespace
}  // namespace skb::installer
