#pragma once
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "store/store.h"

namespace skb::store {

/// A claim this builder holds on a kernel while it compiles it: renewed every third of its lease
/// on a connection of its own (the compile may take minutes; the builder's other store calls go
/// on meanwhile), and released when the object goes, whether the compile ended well or badly.
/// When the builder dies, nothing renews it and it lapses by itself.
class Lease {
 public:
  Lease(std::unique_ptr<Store> store, std::string key, std::string token, unsigned lease_ms);
  ~Lease();
  Lease(const Lease&) = delete;
  Lease& operator=(const Lease&) = delete;

 private:
  void renew_until_stopped();

  std::unique_ptr<Store> store_;
  std::string key_, token_;
  unsigned lease_ms_;
  std::mutex m_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread renewer_;
};

/// This machine's host name: what claim tokens and builder names begin with.
std::string host_name();

/// A token no other claim has: host, process and 64 random bits.
std::string claim_token();

/// True when a claim's token names a process of this host that no longer runs.
bool claimant_is_dead(const std::string& token);

}  // namespace skb::store
