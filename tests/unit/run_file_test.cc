#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "common/sha256.h"
#include "packager/install/payload_reader.h"
#include "packager/stub.h"
#include "test_util.h"

namespace skb::installer {
namespace {

// A .run as skb-package lays it out: stub, its hash line, installer bytes, payload bytes.
struct RunFile {
  std::string bytes;
  std::uint64_t header_len = 0;
};

RunFile make_run() {
  std::string installer(1000, 'i'), payload(500, 'p');
  packager::StubInput in;
  in.package = "static_kernel_20260101000000";
  in.soc = "host";
  in.installer_size = installer.size();
  in.installer_sha256 = common::sha256_hex(installer);
  in.payload_size = payload.size();
  in.payload_sha256 = common::sha256_hex(payload);
  in.kernels = 2;
  std::string stub = packager::make_stub(in);
  return {stub + installer + payload, stub.size() - 65};
}

// Writes bytes to a scratch file and runs verify_run_file on it.
void verify(const std::string& bytes, std::uint64_t header_len, std::uint64_t total) {
  auto path = test::scratch_dir() / "x.run";
  test::write_text(path, bytes);
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  verify_run_file(fd, header_len, total);
}

TEST(RunFile, AnIntactRunPasses) {
  RunFile r = make_run();
  EXPECT_NO_THROW(verify(r.bytes, r.header_len, r.bytes.size()));
}

TEST(RunFile, AFlipInTheHeaderOrItsHashLineIsRefused) {
  RunFile r = make_run();
  for (std::uint64_t pos : {std::uint64_t{0}, std::uint64_t{5}, std::uint64_t{200}, r.header_len - 1, r.header_len,
                            r.header_len + 63, r.header_len + 64}) {
    std::string flipped = r.bytes;
    flipped[pos] ^= 0x20;
    EXPECT_THROW(verify(flipped, r.header_len, r.bytes.size()), VerifyError) << "flip at " << pos;
  }
}

TEST(RunFile, AnotherLengthIsRefusedAndNamed) {
  RunFile r = make_run();
  try {
    verify(r.bytes + "x", r.header_len, r.bytes.size());
    FAIL() << "an extended file passed";
  } catch (const VerifyError& e) {
    EXPECT_NE(std::string(e.what()).find("truncated or damaged"), std::string::npos) << e.what();
  }
  EXPECT_THROW(verify(r.bytes.substr(0, r.bytes.size() - 1), r.header_len, r.bytes.size()), VerifyError);
}

TEST(RunFile, AWrongHeaderLengthIsRefused) {
  RunFile r = make_run();
  for (std::uint64_t len :
       {std::uint64_t{0}, r.header_len - 1, r.header_len + 1, std::uint64_t{r.bytes.size()}, std::uint64_t{1} << 40})
    EXPECT_THROW(verify(r.bytes, len, r.bytes.size()), VerifyError) << "header length " << len;
}

}  // namespace
}  // namespace skb::installer
