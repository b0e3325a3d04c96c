#pragma once
#include <string>

namespace CLI {
class App;
}  // namespace CLI

namespace skb::installer {
class RunFile;
}  // namespace skb::installer

namespace skb::explain {

/// The text `skb verify --help` ends with.
extern const char* const kVerifyHelp;

/// `skb verify PACKAGE.run`: checks a package with this skb's own code, running none of the
/// package's: its header, signature (against a trust policy), installer and every payload file.
struct VerifyCommand {
  CLI::App* app = nullptr;
  std::string run_file, trusted_keys;
};
void add_verify_command(CLI::App& skb, VerifyCommand& v);
/// Exit status: 0 verified (and trusted, under a policy), 3 damaged, 4 refused by the policy.
int run_verify_command(const VerifyCommand& v);

/// The installer a package carries (its compressed bytes checked already), unpacked and checked
/// against the hashes its header gives of it: those that the stub checks the library's copy by
/// before running it in its place. Throws installer::VerifyError naming the hash that differs.
/// A package that carries no installer has nothing to unpack.
void check_unpacked_installer(const installer::RunFile& run);

}  // namespace skb::explain
