#pragma once
#include <map>
#include <string>
#include <vector>

#include "common/json_input.h"

namespace skb::generator {

/// Everything of a toolchain that decides a kernel's bytes, as data: the compiler's identity,
/// the command and its flags with {compiler} and {template_dir} left as written (where skb is
/// installed must not name a kernel), and the content hash of every shared header and template.
/// A build folder keeps them in key.json, so that `skb explain` can say which one changed.
struct KeyFactors {
  std::string identify;                // the identify command's output (`c++ --version`)
  std::vector<std::string> flags;      // {soc} expanded, {template_dir} as written
  std::vector<std::string> command;    // with {flags} as one word
  std::vector<std::string> link;
  std::string suffix, entry, dynamic_entry, list_separator;
  std::map<std::string, std::string> headers;  // name as the profile gives it → sha256
  /// op type → template file (relative to template_dir) and its sha256; a template's hash is a
  /// factor of its own op's kernels only.
  std::map<std::string, std::pair<std::string, std::string>> templates;

  /// SHA-256 over every factor but the templates: what every kernel of the toolchain depends on.
  std::string identity() const;
  /// The hash of each factor every kernel depends on, by name ("compiler", "flags", "header
  /// skb_kernel.h", ...), for an explanation that names the one that changed.
  std::map<std::string, std::string> factor_hashes() const;
};

/// key.json's document: the factors, each with its hash, and the identity.
common::Json key_factors_json(const KeyFactors& f);

/// Reads a key.json document. Throws common::FieldError with the JSON pointer of a bad field.
KeyFactors parse_key_factors(const common::Json& doc);

}  // namespace skb::generator
