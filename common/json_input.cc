#include "common/json_input.h"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <unordered_set>
#include <vector>

#include "common/error.h"

namespace skb::common {

namespace {
const char* type_name(const Json& v) {
  switch (v.type()) {
    case Json::value_t::null:
      return "null";
    case Json::value_t::object:
      return "an object";
    case Json::value_t::array:
      return "an array";
    case Json::value_t::string:
      return "a string";
    case Json::value_t::boolean:
      return "a boolean";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
      return "an integer";
    case Json::value_t::number_float:
      return "a number";
    default:
      return "an unsupported value";
  }
}

struct TooDeep {};
struct DuplicateKey {
  std::string key;
};

// Builds the document with nlohmann's own DOM builder, refusing nesting deeper than max_depth
// and any key given twice in one object (readers disagree on which of the two values counts).
// A SAX handler rather than a parser callback: with a callback, nlohmann rescans the parent of
// every finished object, which is quadratic in the length of an array of objects.
class CheckedDomBuilder {
 public:
  using Dom = nlohmann::detail::json_sax_dom_parser<Json>;
  CheckedDomBuilder(Json& result, int max_depth) : dom_(result, true), max_depth_(max_depth) {}

  bool null() { return dom_.null(); }
  bool boolean(bool v) { return dom_.boolean(v); }
  bool number_integer(Json::number_integer_t v) { return dom_.number_integer(v); }
  bool number_unsigned(Json::number_unsigned_t v) { return dom_.number_unsigned(v); }
  bool number_float(Json::number_float_t v, const Json::string_t& s) { return dom_.number_float(v, s); }
  bool string(Json::string_t& v) { return dom_.string(v); }
  bool binary(Json::binary_t& v) { return dom_.binary(v); }
  bool start_object(std::size_t n) {
    enter();
    if (objects_ == levels_.size()) levels_.emplace_back();
    levels_[objects_].small.clear();
    levels_[objects_].large.clear();
    ++objects_;
    return dom_.start_object(n);
  }
  bool key(Json::string_t& k) {
    Keys& level = levels_[objects_ - 1];
    bool fresh;
    if (level.large.empty() && level.small.size() < 16) {
      fresh = std::find(level.small.begin(), level.small.end(), k) == level.small.end();
      level.small.push_back(k);
    } else {
      if (level.large.empty()) level.large.insert(level.small.begin(), level.small.end());
      fresh = level.large.insert(k).second;
    }
    if (!fresh) throw DuplicateKey{k};
    return dom_.key(k);
  }
  bool end_object() {
    --objects_;
    --depth_;
    return dom_.end_object();
  }
  bool start_array(std::size_t n) {
    enter();
    return dom_.start_array(n);
  }
  bool end_array() {
    --depth_;
    return dom_.end_array();
  }
  template <class Exception>  // the exact type, so that it is thrown unsliced
  bool parse_error(std::size_t pos, const std::string& token, const Exception& e) {
    return dom_.parse_error(pos, token, e);
  }

 private:
  struct Keys {
    std::vector<std::string> small;  // searched linearly while an object has few keys
    std::unordered_set<std::string> large;
  };
  void enter() {
    if (++depth_ > max_depth_) throw TooDeep{};
  }

  Dom dom_;
  int max_depth_;
  int depth_ = 0;
  std::size_t objects_ = 0;
  std::vector<Keys> levels_;  // one per open object, reused
};

}  // namespace

Json parse_json(std::string_view text, int max_depth) {
  if (text.empty()) throw FieldError("", "expected a JSON document, found an empty file");
  Json result;
  try {
    CheckedDomBuilder builder(result, max_depth);
    Json::sax_parse(text.begin(), text.end(), &builder);
  } catch (const TooDeep&) {
    throw FieldError("", fmt::format("expected JSON nested at most {} levels deep", max_depth));
  } catch (const DuplicateKey& d) {
    throw FieldError("", fmt::format("expected each key once per object, \"{}\" is given twice", d.key));
  } catch (const Json::parse_error& e) {
    throw FieldError("", fmt::format("expected valid JSON (syntax error at byte {})", e.byte));
  } catch (const Json::out_of_range&) {
    throw FieldError("", "expected numbers within the range of a double");
  } catch (const Json::exception& e) {
    throw FieldError("", fmt::format("expected valid JSON ({})", e.what()));
  }
  // nlohmann's parser takes a NUL byte for the end of its input: what came before parsed, and
  // the NUL and what follows it are trailing text.
  if (std::size_t nul = text.find('\0'); nul != std::string_view::npos)
    throw FieldError("", fmt::format("expected valid JSON (a NUL byte at byte {})", nul + 1));
  return result;
}

std::string pointer_token(std::string_view key) {
  std::string out;
  for (char c : key) {
    if (c == '~')
      out += "~0";
    else if (c == '/')
      out += "~1";
    else
      out += c;
  }
  return out;
}

void Field::fail(const std::string& expected) const {
  throw FieldError(pointer_, fmt::format("expected {}, found {}", expected, type_name(*value_)));
}

void Field::reject(const std::string& why) const { throw FieldError(pointer_, why); }

void Field::expect_object() const {
  if (!value_->is_object()) fail("an object");
}

bool Field::has(std::string_view key) const { return value_->is_object() && value_->find(key) != value_->end(); }

Field Field::at(std::string_view key) const {
  expect_object();
  auto it = value_->find(key);
  std::string ptr = pointer_ + "/" + pointer_token(key);
  if (it == value_->end()) throw FieldError(ptr, "expected this field, it is missing");
  return Field(*it, std::move(ptr));
}

std::size_t Field::array_size(std::size_t max_size) const {
  if (!value_->is_array()) fail("an array");
  if (value_->size() > max_size)
    throw FieldError(pointer_, fmt::format("expected at most {} elements, found {}", max_size, value_->size()));
  return value_->size();
}

Field Field::at(std::size_t index) const { return Field((*value_)[index], fmt::format("{}/{}", pointer_, index)); }

std::string Field::string(std::size_t max_length) const {
  if (!value_->is_string()) fail("a string");
  const auto& s = value_->get_ref<const std::string&>();
  if (s.size() > max_length)
    throw FieldError(pointer_, fmt::format("expected a string of at most {} bytes, found {}", max_length, s.size()));
  return s;
}

std::int64_t Field::integer(std::int64_t min, std::int64_t max) const {
  std::int64_t v = 0;
  if (value_->is_number_unsigned()) {
    auto u = value_->get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
      throw FieldError(pointer_, fmt::format("expected an integer in [{}, {}], found {}", min, max, u));
    v = static_cast<std::int64_t>(u);
  } else if (value_->is_number_integer()) {
    v = value_->get<std::int64_t>();
  } else {
    fail(fmt::format("an integer in [{}, {}]", min, max));
  }
  if (v < min || v > max)
    throw FieldError(pointer_, fmt::format("expected an integer in [{}, {}], found {}", min, max, v));
  return v;
}

double Field::number() const {
  if (!value_->is_number()) fail("a number");
  double d = value_->get<double>();
  if (!std::isfinite(d)) throw FieldError(pointer_, "expected a finite number");
  return d;
}

bool Field::boolean() const {
  if (!value_->is_boolean()) fail("true or false");
  return value_->get<bool>();
}

}  // namespace skb::common
