#include "explain/key_command.h"

#include <cstdio>

#include "common/error.h"
#include "trust/key.h"
#include "trust/user_keys.h"

namespace skb::explain {

const char* const kKeyHelp = R"(
What crosses machines is used only when a key the user trusts signed it: kernel store entries
(a build uses an entry only when a key of its trust file signed it) and .run packages (where a
trust policy applies, a package installs only when one of its keys signed it).

A key pair is a private key file (0600; its bytes are never printed, logged, or copied into a
build or a package) and a public key line, `<name>:<base64>`, to paste into trust files (one
key a line; '#' starts a comment). Trusting several keys at once is a rotation; removing a line
revokes a key.

How a team sets it up:
  CI:          skb key new ci-2026 /secure/ci-2026.key >> ci.pub     # once, the key kept secret
               SKB_SIGNING_KEY=/secure/ci-2026.key skb-package -p dump -o out --cache redis://store
  developers:  SKB_TRUSTED_KEYS=ci.pub skb-package -p dump -o out --cache redis://store?mode=ro
  fleets:      cp ci.pub $ASCEND_OPP_PATH/static_kernel/trusted-keys  # every install checks it

Without --trusted-keys or SKB_TRUSTED_KEYS, a build trusts its user's own key
(~/.config/skb/signing-key, made on first use; `skb key own` prints it) and the keys in
~/.config/skb/trusted-keys, and signs what it stores with that key.

Exit status: 0 done, 1 error (a file that exists, cannot be written or is not a key), 2 bad
command line.
)";

int run_key_command(const KeyCommand& k) {
  trust::PublicKey pub;
  if (k.action == "new") {
    if (k.file == "-")  // stdout, by custom: a private key is never printed
      throw common::Error("skb key new NAME -: a private key goes into a file, never to standard output");
    trust::SigningKey key = trust::generate_signing_key(k.name);
    trust::write_signing_key(k.file, key);
    pub = key.public_key();
  } else if (k.action == "public") {
    pub = trust::read_signing_key(k.file).public_key();
  } else {
    pub = trust::own_signing_key().public_key();
  }
  std::printf("%s\n", pub.line().c_str());
  return 0;
}

}  // namespace skb::explain
