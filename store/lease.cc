#include "store/lease.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

#include <fmt/format.h>
#include <chrono>
#include <random>

namespace skb::store {

Lease::Lease(std::unique_ptr<Store> store, std::string key, std::string token, unsigned lease_ms)
    : store_(std::move(store)), key_(std::move(key)), token_(std::move(token)), lease_ms_(lease_ms) {
  renewer_ = std::thread([this] { renew_until_stopped(); });
}

Lease::~Lease() {
  {
    std::lock_guard<std::mutex> lock(m_);
    stop_ = true;
  }
  cv_.notify_all();
  renewer_.join();
  try {
    store_->release(key_, token_);
  } catch (const std::exception&) {  // StoreError: the claim lapses by itself
  }
}

void Lease::renew_until_stopped() {
  std::unique_lock<std::mutex> lock(m_);
  const auto every = std::chrono::milliseconds(std::max(1u, lease_ms_ / 3));
  while (!cv_.wait_for(lock, every, [this] { return stop_; })) {
    try {
      if (!store_->renew(key_, token_, lease_ms_)) return;  // lapsed and taken over: nothing to keep
    } catch (const std::exception&) {  // StoreError: try again at the next turn, while the lease lasts
    }
  }
}

std::string host_name() {
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  return host;
}

bool claimant_is_dead(const std::string& token) {
  const std::string host = host_name();
  if (token.size() <= host.size() + 1 || token.compare(0, host.size(), host) != 0 || token[host.size()] != ':')
    return false;  // another host's: only its lease tells
  long pid = std::strtol(token.c_str() + host.size() + 1, nullptr, 10);
  return pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
}

std::string claim_token() {
  const std::string host = host_name();
  std::random_device rd;
  std::uint64_t r = (std::uint64_t{rd()} << 32) ^ rd();
  return fmt::format("{}:{}:{:016x}", host, ::getpid(), r);
}

}  // namespace skb::store
