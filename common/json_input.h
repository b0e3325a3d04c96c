#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace skb::common {

using Json = nlohmann::json;

/// Parses untrusted JSON text. Syntax errors and nesting deeper than max_depth throw
/// FieldError at the document root, saying what was expected.
Json parse_json(std::string_view text, int max_depth = 32);

/// A read-only view of one value of an untrusted document and its JSON pointer. Every typed
/// getter throws FieldError naming the pointer and the expected type or range.
class Field {
 public:
  Field(const Json& value, std::string pointer) : value_(&value), pointer_(std::move(pointer)) {}

  const Json& json() const { return *value_; }
  const std::string& pointer() const { return pointer_; }
  bool is_null() const { return value_->is_null(); }

  /// Member of an object (throws when this is not an object or the member is missing).
  Field at(std::string_view key) const;
  /// Member when present, else nullptr-like null field.
  bool has(std::string_view key) const;
  /// Element of an array.
  Field at(std::size_t index) const;
  /// Size of an array of at most max_size elements.
  std::size_t array_size(std::size_t max_size) const;
  void expect_object() const;

  std::string string(std::size_t max_length = 256) const;
  std::int64_t integer(std::int64_t min, std::int64_t max) const;
  double number() const;  // any finite JSON number
  bool boolean() const;

  /// A value of the wrong type: "<pointer>: expected <expected>, found <its type>".
  [[noreturn]] void fail(const std::string& expected) const;
  /// A value of the right type that is not one expected: "<pointer>: <why>" (why says what was
  /// expected, "expected ...").
  [[noreturn]] void reject(const std::string& why) const;

 private:
  const Json* value_;
  std::string pointer_;
};

/// Escapes one reference token of a JSON pointer (RFC 6901: ~ → ~0, / → ~1).
std::string pointer_token(std::string_view key);

}  // namespace skb::common
