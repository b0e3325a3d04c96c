#pragma once
#include <stdexcept>
#include <string>

namespace skb::common {

/// The one error type that reaches a user: caught at the top of each program and printed as
/// `<program>: error: <what>`.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A file or folder that may exist could not be read, listed, changed or removed (an I/O error,
/// a permission): never taken for "missing" or "empty". Whoever catches Error to treat damaged
/// bytes as absent lets this one through.
class IoError : public Error {
 public:
  using Error::Error;
};

/// A JSON document that does not have the expected shape: where (a JSON pointer) and what was
/// expected there. The file name is added by whoever knows it.
class FieldError : public std::runtime_error {
 public:
  FieldError(std::string pointer, const std::string& expected)
      : std::runtime_error(expected), pointer_(std::move(pointer)) {}
  const std::string& pointer() const { return pointer_; }
  /// "<pointer>: <expected>", the form every input error is shown in.
  std::string describe() const { return (pointer_.empty() ? std::string("/") : pointer_) + ": " + what(); }

 private:
  std::string pointer_;
};

}  // namespace skb::common
