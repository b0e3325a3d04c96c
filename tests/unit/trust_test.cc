#include <gtest/gtest.h>

#include <sys/stat.h>

#include "common/error.h"
#include "common/fs.h"
#include "test_util.h"
#include "trust/key.h"
#include "trust/signature.h"
#include "trust/trusted_keys.h"

namespace skb::trust {
namespace {
namespace fs = std::filesystem;

TrustedKeys trusting(std::initializer_list<const SigningKey*> keys) {
  TrustedKeys t;
  t.source = "test";
  for (const SigningKey* k : keys) t.add(k->public_key());
  return t;
}

TEST(Trust, ASignatureVerifiesOnlyItsMessageUnderATrustedKey) {
  SigningKey ci = generate_signing_key("ci-1"), other = generate_signing_key("dev");
  std::string line = signature_line(ci, "skb-test\nmessage");
  EXPECT_EQ(line.size(), signature_line_size("ci-1"));
  EXPECT_EQ(check_signature(trusting({&ci}), "skb-test\nmessage", line).verdict, Verdict::kTrusted);
  EXPECT_EQ(check_signature(trusting({&ci}), "skb-test\nmessagE", line).verdict, Verdict::kBadSignature);
  EXPECT_EQ(check_signature(trusting({&other}), "skb-test\nmessage", line).verdict, Verdict::kUnknownKey);
  EXPECT_EQ(check_signature(trusting({&ci}), "skb-test\nmessage", std::nullopt).verdict, Verdict::kUnsigned);
  // Rotation: both keys trusted, each signature verifies.
  EXPECT_TRUE(check_signature(trusting({&other, &ci}), "skb-test\nmessage", line).trusted());
}

TEST(Trust, AKeyOfTheSameNameButOtherBytesIsNotTrusted) {
  SigningKey ci = generate_signing_key("ci-1"), impostor = generate_signing_key("ci-1");
  std::string line = signature_line(impostor, "m");
  EXPECT_EQ(check_signature(trusting({&ci}), "m", line).verdict, Verdict::kBadSignature);
  TrustedKeys t = trusting({&ci});
  EXPECT_THROW(t.add(impostor.public_key()), common::Error);
}

TEST(Trust, EveryDamagedSignatureLineIsRefused) {
  SigningKey ci = generate_signing_key("ci-1");
  TrustedKeys t = trusting({&ci});
  std::string line = signature_line(ci, "m");
  for (std::size_t n = 0; n < line.size(); ++n)  // every truncation
    EXPECT_FALSE(check_signature(t, "m", line.substr(0, n)).trusted()) << n;
  for (std::size_t i = 0; i < line.size(); ++i) {  // every byte changed
    std::string bad = line;
    bad[i] = static_cast<char>(bad[i] ^ 0x01);
    EXPECT_FALSE(check_signature(t, "m", bad).trusted()) << i;
  }
  EXPECT_EQ(check_signature(t, "m", "").verdict, Verdict::kMalformed);
  EXPECT_EQ(check_signature(t, "m", "ci-1:AAAA\n").verdict, Verdict::kMalformed);
}

TEST(Trust, PrivateKeyFileIsOwnerOnlyAndRoundTrips) {
  fs::path dir = test::scratch_dir();
  SigningKey key = generate_signing_key("ci-1");
  write_signing_key(dir / "k", key);
  struct stat st {};
  ASSERT_EQ(::stat((dir / "k").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(read_signing_key(dir / "k").public_key(), key.public_key());
  EXPECT_THROW(write_signing_key(dir / "k", key), common::Error);  // never over a file
  ::chmod((dir / "k").c_str(), 0640);
  try {
    read_signing_key(dir / "k");
    ADD_FAILURE() << "a key readable by its group was used";
  } catch (const common::Error& e) {
    EXPECT_NE(std::string(e.what()).find("too open"), std::string::npos) << e.what();
  }
}

TEST(Trust, ErrorsNeverQuoteAPrivateKey) {
  SigningKey key = generate_signing_key("ci-1");
  fs::path dir = test::scratch_dir();
  write_signing_key(dir / "k", key);
  std::string text = common::read_file(dir / "k");
  std::string secret = text.substr(text.rfind(':') + 1, 20);
  for (const std::string& bad : {text.substr(0, text.size() - 3) + "\n", text.substr(text.rfind(':') + 1),
                                 "bad name:" + text.substr(text.rfind(':') + 1)}) {
    try {
      parse_signing_key(bad);
      ADD_FAILURE() << "taken";
    } catch (const common::Error& e) {
      EXPECT_EQ(std::string(e.what()).find(secret), std::string::npos) << e.what();
    }
  }
}

TEST(Trust, APrivateKeyIsMarkedAndNeverTakenForAPublicLine) {
  SigningKey key = generate_signing_key("ci-1");
  fs::path dir = test::scratch_dir();
  write_signing_key(dir / "k", key);
  std::string text = common::read_file(dir / "k");
  EXPECT_EQ(text.rfind("skb-private-key:ci-1:", 0), 0u) << "the file begins with its mark";
  try {
    parse_trusted_keys("keys", "# pasted by mistake\n" + text);
    ADD_FAILURE() << "a private key taken as a trusted key";
  } catch (const common::Error& e) {
    EXPECT_NE(std::string(e.what()).find("keys:2: a private key, not a public line"), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find(text.substr(text.rfind(':') + 1, 20)), std::string::npos) << e.what();
  }
  // A key file without the mark, as skb 0.1 wrote them, is still the same key.
  EXPECT_EQ(parse_signing_key(text.substr(std::string("skb-private-key:").size())).public_key(), key.public_key());
}

TEST(Trust, TrustFileNamesTheLineOfABadKey) {
  SigningKey a = generate_signing_key("ci-1"), b = generate_signing_key("ci-2");
  TrustedKeys t =
      parse_trusted_keys("keys", "# CI\n\n  " + a.public_key().line() + "  # the release CI\n" + b.public_key().line());
  ASSERT_EQ(t.keys.size(), 2u);
  EXPECT_NE(t.find("ci-2"), nullptr);
  EXPECT_EQ(t.find("ci-3"), nullptr);
  for (const auto& [text, expected] : std::vector<std::pair<std::string, std::string>>{
           {"# ok\nci-1\n", "keys:2: public key: expected <name>:<base64>"},
           {"ci-1:AAAA\n", "keys:1: public key 'ci-1': expected 32 bytes in base64"},
           {":" + a.public_key().line().substr(5), "keys:1: public key: the name before ':'"},
           {a.public_key().line() + "\n" + "ci-1:" + b.public_key().line().substr(5), "keys:2: two different keys"}}) {
    try {
      parse_trusted_keys("keys", text);
      ADD_FAILURE() << text;
    } catch (const common::Error& e) {
      EXPECT_EQ(std::string(e.what()).rfind(expected, 0), 0u) << e.what();
    }
  }
}

TEST(Trust, Base64IsCanonical) {
  std::string out;
  EXPECT_TRUE(base64_decode("AAEC", out));
  EXPECT_EQ(out, std::string("\0\1\2", 3));
  EXPECT_TRUE(base64_decode("AA==", out));
  EXPECT_EQ(out.size(), 1u);
  EXPECT_FALSE(base64_decode("AB==", out));  // non-zero padding bits: another text of the same bytes
  EXPECT_FALSE(base64_decode("AA=", out));
  EXPECT_FALSE(base64_decode("A A=", out));
  EXPECT_FALSE(base64_decode("", out));
  EXPECT_EQ(base64_encode(std::string("\xff\xfe", 2)), "//4=");
}

}  // namespace
}  // namespace skb::trust
