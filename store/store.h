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
};

/// Parses file:///path, redis://[user@]host[:port][/db] or http(s)://host[:port]/prefix,
/// each with optional ?mode=ro|rw and ?timeout=<seconds>. Throws common::Error naming what is
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
