#include <curl/curl.h>

#include <fmt/format.h>
#include <charconv>
#include <memory>
#include <string_view>

#include "common/error.h"
#include "store/store.h"

namespace skb::store {
using common::Error;

namespace {

constexpr const char* kExpected =
    "expected file:///folder, redis://host[:port][/db] or http(s)://host[:port]/prefix, "
    "with optional ?mode=ro, ?timeout=<seconds>, ?lease=<seconds>, ?wait=<seconds> and ?claims=off";

struct UrlDeleter {
  void operator()(CURLU* u) const { curl_url_cleanup(u); }
};

// A part of the URL, "" when it has none.
std::string part(CURLU* u, CURLUPart which, unsigned flags = 0) {
  char* value = nullptr;
  if (curl_url_get(u, which, &value, flags) != CURLUE_OK || !value) return "";
  std::string s(value);
  curl_free(value);
  return s;
}

// The URL as an error may show it: the password of its user part (user:password@) and its query
// left out, whether or not the URL parses, so that no error ever prints a secret given in either.
std::string shown(std::string_view url) {
  std::string_view rest = url;
  std::string out;
  if (std::size_t scheme = rest.find("://"); scheme != std::string_view::npos) {
    out = rest.substr(0, scheme + 3);
    rest.remove_prefix(scheme + 3);
    std::string_view authority = rest.substr(0, rest.find_first_of("/?#"));
    if (std::size_t at = authority.rfind('@'); at != std::string_view::npos) {
      std::string_view user = authority.substr(0, at);
      out += user.substr(0, user.find(':'));
      if (user.find(':') != std::string_view::npos) out += ":***";
      out += '@';
      rest.remove_prefix(at + 1);
    }
  }
  out += rest.substr(0, rest.find_first_of("?#"));
  return out;
}

unsigned parse_seconds(const std::string& url, const char* key, const std::string& text, double max) {
  double seconds = 0;
  try {
    std::size_t used = 0;
    seconds = std::stod(text, &used);
    if (used != text.size()) seconds = -1;
  } catch (const std::exception&) {
    seconds = -1;
  }
  if (!(seconds > 0 && seconds <= max))
    throw Error(fmt::format("--cache {}: {}={}: expected seconds in (0, {}]", url, key, text, max));
  return static_cast<unsigned>(seconds * 1000);
}

// ?mode=ro|rw&timeout=S&lease=S&wait=S&claims=on|off; removes them from the URL. Nothing else may
// be in the query: the URL is written into the build's files, so a token given there would be too
// (credentials go in the environment or a netrc file), and a key misspelt is a setting lost.
void take_query(CURLU* u, Location& l) {
  std::string query = part(u, CURLUPART_QUERY);
  for (std::size_t at = 0; at <= query.size() && !query.empty();) {
    std::size_t end = query.find('&', at);
    if (end == std::string::npos) end = query.size();
    std::string item = query.substr(at, end - at);
    at = end + 1;
    std::size_t eq = item.find('=');
    std::string key = item.substr(0, eq), value = eq == std::string::npos ? "" : item.substr(eq + 1);
    if (key == "mode") {
      if (value != "ro" && value != "rw")
        throw Error(fmt::format("--cache {}: mode={}: expected ro or rw", l.url, value));
      l.read_only = value == "ro";
    } else if (key == "timeout") {
      l.timeout_ms = parse_seconds(l.url, "timeout", value, 3600);
      l.connect_timeout_ms = std::min(l.connect_timeout_ms, l.timeout_ms);
    } else if (key == "lease") {
      l.lease_ms = parse_seconds(l.url, "lease", value, 3600);
    } else if (key == "wait") {
      l.wait_ms = parse_seconds(l.url, "wait", value, 86400);
    } else if (key == "claims") {
      if (value != "on" && value != "off")
        throw Error(fmt::format("--cache {}: claims={}: expected on or off", l.url, value));
      l.claims = value == "on";
    } else if (!item.empty()) {
      throw Error(
          fmt::format("--cache {}: ?{}=...: expected mode, timeout, lease, wait or claims (a store's "
                      "credentials go in SKB_REDIS_PASSWORD or a netrc file, never in its URL)",
                      l.url, key));
    }
  }
  curl_url_set(u, CURLUPART_QUERY, nullptr, 0);
}

}  // namespace

Location parse_location(const std::string& url) {
  Location l;
  l.url = shown(url);  // for errors until the URL is known to hold no secret; then as given
  std::unique_ptr<CURLU, UrlDeleter> u(curl_url());
  if (!u) throw Error("out of memory");
  if (curl_url_set(u.get(), CURLUPART_URL, url.c_str(), CURLU_NON_SUPPORT_SCHEME) != CURLUE_OK)
    throw Error(fmt::format("--cache {}: {}", l.url, kExpected));
  if (!part(u.get(), CURLUPART_PASSWORD).empty())
    throw Error(fmt::format(
        "--cache {}: a password in the URL would be written into the build's files; give it in the environment "
        "(redis: SKB_REDIS_PASSWORD) or a netrc file (http: ~/.netrc or SKB_NETRC), and the URL without it",
        l.url));
  l.scheme = part(u.get(), CURLUPART_SCHEME);
  take_query(u.get(), l);
  l.host = part(u.get(), CURLUPART_HOST);
  l.path = part(u.get(), CURLUPART_PATH, CURLU_URLDECODE);
  l.user = part(u.get(), CURLUPART_USER, CURLU_URLDECODE);
  std::string port = part(u.get(), CURLUPART_PORT);
  if (!port.empty()) std::from_chars(port.data(), port.data() + port.size(), l.port);
  if (l.scheme == "file") {
    if (!l.host.empty() && l.host != "localhost")
      throw Error(fmt::format("--cache {}: a file store is a local (or mounted) folder: file:///path", l.url));
    if (l.path.empty() || l.path == "/") throw Error(fmt::format("--cache {}: {}", l.url, kExpected));
  } else if (l.scheme == "redis") {
    if (l.port == 0) l.port = 6379;
    std::string db = l.path.size() > 1 ? l.path.substr(1) : "";
    int n = 0;
    auto [end, ec] = std::from_chars(db.data(), db.data() + db.size(), n);
    if (!db.empty() && (ec != std::errc() || end != db.data() + db.size() || n < 0))
      throw Error(fmt::format("--cache {}: /{}: expected a database number", l.url, db));
  } else if (l.scheme == "http" || l.scheme == "https") {
    while (l.path.size() > 1 && l.path.back() == '/') l.path.pop_back();
  } else {
    throw Error(fmt::format("--cache {}: {}", l.url, kExpected));
  }
  l.url = url;
  l.display = part(u.get(), CURLUPART_URL);
  if (l.scheme == "file") l.display = "file://" + l.path;
  return l;
}

}  // namespace skb::store
