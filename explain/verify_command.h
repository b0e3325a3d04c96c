#pragma once
#include <string>

namespace CLI {
class App;
}  // namespace CLI

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

}  // namespace skb::explain
