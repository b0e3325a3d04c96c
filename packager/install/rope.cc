#include "packager/install/rope.h"

#include <cstring>
#include <functional>

namespace skb::installer {

Rope::Rope(std::string base) { base_ = keep(std::move(base)); }

std::string_view Rope::keep(std::string s) { return kept_.emplace_back(std::move(s)); }

bool Rope::in_base(std::string_view s) const {
  // Compared as addresses, with std::less: pointers into different objects have no order of their own.
  std::less<const char*> before;
  return !before(s.data(), base_.data()) && !before(base_.data() + base_.size(), s.data() + s.size());
}

void Rope::add(std::string_view s) {
  if (s.empty()) return;
  size_ += s.size();
  if (!parts_.empty() && in_base(s)) {
    std::string_view last = parts_.back();
    if (in_base(last) && last.data() + last.size() == s.data()) {
      parts_.back() = {last.data(), last.size() + s.size()};
      return;
    }
    // A literal before s that base has just before s too: base's bytes, joined to the part before.
    std::size_t at = static_cast<std::size_t>(s.data() - base_.data());
    if (!in_base(last) && last.size() <= at &&
        std::memcmp(base_.data() + at - last.size(), last.data(), last.size()) == 0) {
      parts_.pop_back();
      size_ -= last.size() + s.size();
      add({s.data() - last.size(), last.size() + s.size()});
      return;
    }
  }
  parts_.push_back(s);
}

std::string Rope::str() const {
  std::string out;
  out.reserve(size_);
  for (std::string_view p : parts_) out += p;
  return out;
}

bool Rope::equals(std::string_view other) const {
  if (other.size() != size_) return false;
  for (std::string_view p : parts_) {
    if (other.substr(0, p.size()) != p) return false;
    other.remove_prefix(p.size());
  }
  return true;
}

}  // namespace skb::installer
