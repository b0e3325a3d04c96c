#include <gtest/gtest.h>

#include <regex>

#include "common/sha256.h"
#include "packager/stub.h"

namespace skb::packager {
namespace {

std::uint64_t value(const std::string& stub, const std::string& key) {
  std::smatch m;
  EXPECT_TRUE(std::regex_search(stub, m, std::regex("\n" + key + "=([0-9]+)\n"))) << key;
  return std::stoull(m[1]);
}

TEST(Stub, OffsetsPointRightAfterTheHeaderAndItsHash) {
  for (std::uint64_t installer : {1ull, 999ull, 6591432ull, 123456789012ull}) {
    StubInput in;
    in.package = "static_kernel_20260101000000";
    in.soc = "host";
    in.installer_size = installer;
    in.installer_sha256 = std::string(64, 'a');
    in.installer_unpacked_size = installer * 2 + 1;
    in.payload_size = 5;
    in.payload_sha256 = std::string(64, 'b');
    in.kernels = 3;
    std::string stub = make_stub(in);
    std::uint64_t header = value(stub, "skb_header_len");
    EXPECT_EQ(stub.size(), header + 65);
    EXPECT_EQ(value(stub, "skb_installer_offset"), stub.size());
    EXPECT_EQ(value(stub, "skb_payload_offset"), stub.size() + installer);
    EXPECT_EQ(value(stub, "skb_installer_unpacked_size"), installer * 2 + 1);
    EXPECT_EQ(stub.substr(header, 64), common::sha256_hex(stub.substr(0, header)));
    EXPECT_EQ(stub.substr(0, 10), "#!/bin/sh\n");
  }
}

TEST(Stub, NamesTheInstallerItRunsAndTheBase) {
  StubInput in;
  in.package = "static_kernel_20260101000000";
  in.soc = "host";
  in.installer_sha256 = common::sha256_hex("");
  in.installer_unpacked_size = 1234;
  in.installer_unpacked_sha256 = std::string(64, 'c');
  in.installer_unpacked_b2 = std::string(128, 'e');
  in.base = "static_kernel_20250101000000";
  in.payload_sha256 = std::string(64, 'b');
  std::string stub = make_stub(in);
  EXPECT_NE(stub.find("\nskb_installer_size=0\n"), std::string::npos);
  EXPECT_NE(stub.find("\nskb_installer_unpacked_sha256=" + std::string(64, 'c') + "\n"), std::string::npos);
  EXPECT_NE(stub.find("\nskb_installer_unpacked_b2=" + std::string(128, 'e') + "\n"), std::string::npos);
  EXPECT_NE(stub.find("\nskb_base=static_kernel_20250101000000\n"), std::string::npos);
  EXPECT_EQ(value(stub, "skb_installer_offset"), value(stub, "skb_payload_offset"));
}

}  // namespace
}  // namespace skb::packager
