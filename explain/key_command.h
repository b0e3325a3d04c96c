#pragma once
#include <string>

namespace CLI {
class App;
}  // namespace CLI

namespace skb::explain {

/// The text `skb key --help` ends with.
extern const char* const kKeyHelp;

/// `skb key`: makes and shows the Ed25519 keys that sign kernel store entries and packages.
/// add_key_command declares it on the skb command line; run_key_command runs it once parsed.
struct KeyCommand {
  CLI::App* app = nullptr;
  std::string action;  // the subcommand given: new, public or own
  std::string name, file;
};
void add_key_command(CLI::App& skb, KeyCommand& k);
int run_key_command(const KeyCommand& k);

}  // namespace skb::explain
