#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

namespace skb::store {

/// A store that could not be reached or did not do what was asked (down, slow past its timeout,
/// full, refused). The build goes on without it: a warning and a local compile.
class StoreError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Where the shared kernel store is, and how it is used: the parsed --cache URL.
struct Location {
  std::string scheme;  // file, redis, http or https
  std::string host;
  int port = 0;
  std::string path;  // file: the folder; redis: "" or "/<db>"; http: the prefix
  std::string user;
  std::string password;        // never from the URL: SKB_REDIS_PASSWORD, read when a step connects
  std::string url;             // as given, for the build's configuration
  std::string display;         // as shown to people: without the password
  bool read_only = false;      // ?mode=ro
  unsigned timeout_ms = 5000;  // ?timeout=<seconds>: bound of one operation
  unsigned connect_timeout_ms = 2000;
  // Claims (builders that share the store compile each kernel once): a claim's lease, renewed
  // while its compile runs (?lease=<seconds>), and how long a builder waits for a kernel another
  // one claimed before it compiles the kernel itself (?wait=<seconds>).
  unsigned lease_ms = 60'000;
  unsigned wait_ms = 1'800'000;
  bool claims = true;  // ?claims=off: builders do not claim kernels (each compiles what it misses)
};

/// Parses file:///path, redis://[user@]host[:port][/db] or http(s)://host[:port]/prefix,
/// each with optional ?mode=ro|rw, ?timeout=<seconds>, ?lease=<seconds>, ?wait=<seconds> and
/// ?claims=on|off. Throws common::Error naming what is
/// wrong.
Location parse_location(const std::string& url);

/// One key-value store of entries. get and put throw StoreError when the store fails; a key
/// that is not there is nullopt, not an error. A put replaces the whole value at once: a reader
/// gets the old value or the new one, never a mix.
class Store {
 public:
  virtual ~Store() = default;
  virtual std::optional<std::string> get(const std::string& key) = 0;
  virtual void put(const std::string& key, const std::string& value) = 0;
  /// Entries this object removed to keep the store under its cap.
  virtual std::uint64_t evictions() const { return 0; }

  /// Claims: a builder claims a kernel's key before it compiles it, so that builders sharing the
  /// store compile it once. A claim is a lease: it lapses by itself `lease` after it was taken or
  /// last renewed, so a builder that dies never blocks the others for longer. kNone: this store
  /// has no atomic primitive for it (HTTP); then every builder compiles what it misses.
  enum class Claim { kOurs, kTheirs, kNone };
  virtual Claim claim(const std::string& key, const std::string& token, unsigned lease_ms) {
    (void)key, (void)token, (void)lease_ms;
    return Claim::kNone;
  }
  /// Extends our claim; false when it is not ours any more (it lapsed and another took it).
  virtual bool renew(const std::string& key, const std::string& token, unsigned lease_ms) {
    (void)key, (void)token, (void)lease_ms;
    return false;
  }
  /// Gives the claim of `token` up (only that one: a claim another builder took over stays).
  virtual void release(const std::string& key, const std::string& token) { (void)key, (void)token; }
  /// The token of the live claim on the key, if there is one.
  virtual std::optional<std::string> claimant(const std::string& key) {
    (void)key;
    return std::nullopt;
  }
};

/// The store of a location, through the module that has its client (module.h). max_size
/// (bytes, 0: none) bounds a file store, which evicts its least recently used entries; other
/// stores keep their own policy (redis maxmemory, the HTTP server's). Throws StoreError when the
/// store cannot be opened.
std::unique_ptr<Store> open_store(const Location& where, std::uint64_t max_size);

/// The three backends.
std::unique_ptr<Store> open_file_store(const Location& where, std::uint64_t max_size);
std::unique_ptr<Store> open_redis_store(const Location& where);
std::unique_ptr<Store> open_http_store(const Location& where);

}  // namespace skb::store
