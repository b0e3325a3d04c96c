#pragma once
#include <cstddef>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

namespace skb::installer {

/// A text kept as the parts it is made of, most of them runs of one other text's bytes (the
/// lines of an index that an install keeps), so that it is written out and checked without being
/// copied into one string: a part that continues the one before in that text joins it, and so
/// does a short literal between them that the text has there too (a list's ",\n  ").
class Rope {
 public:
  /// base: the text whose runs the parts are (kept by the rope).
  explicit Rope(std::string base = {});
  Rope(Rope&&) = default;
  Rope& operator=(Rope&&) = default;
  Rope(const Rope&) = delete;
  Rope& operator=(const Rope&) = delete;

  /// The text the parts come from.
  std::string_view base() const { return base_; }
  /// Appends s, which must live as long as the rope: bytes of base(), of a string keep() gave,
  /// or of anything else that outlives it.
  void add(std::string_view s);
  /// Keeps s for the rope's life and returns its bytes (to add, now or later).
  std::string_view keep(std::string s);

  const std::vector<std::string_view>& parts() const { return parts_; }
  std::size_t size() const { return size_; }
  std::string str() const;
  /// Whether the text is `other`, byte for byte.
  bool equals(std::string_view other) const;

 private:
  bool in_base(std::string_view s) const;

  std::deque<std::string> kept_;  // a deque: its strings stay where they are as it grows
  std::string_view base_;
  std::vector<std::string_view> parts_;
  std::size_t size_ = 0;
};

}  // namespace skb::installer
