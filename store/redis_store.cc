// The redis store: one string value per entry (GET, SET), with hiredis. SET replaces the value
// at once, so readers never see a mix of two writers' entries. A claim is a key of its own,
// <key>.claim, set with SET NX PX (it lapses by itself), renewed and released by scripts that
// act only when it still holds the claimant's token.
#include <hiredis/hiredis.h>

#include <fmt/format.h>
#include <cstdlib>
#include <memory>

#include "store/store.h"

namespace skb::store {

namespace {

struct ContextDeleter {
  void operator()(redisContext* c) const { redisFree(c); }
};
struct ReplyDeleter {
  void operator()(redisReply* r) const { freeReplyObject(r); }
};
using Reply = std::unique_ptr<redisReply, ReplyDeleter>;

timeval to_timeval(unsigned ms) { return {static_cast<time_t>(ms / 1000), static_cast<suseconds_t>(ms % 1000 * 1000)}; }

class RedisStore : public Store {
 public:
  explicit RedisStore(const Location& where) : where_(where) {}

  std::optional<std::string> get(const std::string& key) override {
    Reply r = command("GET", [&](redisContext* c) { return redisCommand(c, "GET %b", key.data(), key.size()); });
    if (r->type == REDIS_REPLY_NIL) return std::nullopt;
    if (r->type != REDIS_REPLY_STRING) throw StoreError("GET " + key + ": not a string value");
    return std::string(r->str, r->len);
  }

  void put(const std::string& key, const std::string& value) override {
    command("SET", [&](redisContext* c) {
      return redisCommand(c, "SET %b %b", key.data(), key.size(), value.data(), value.size());
    });
  }

  Claim claim(const std::string& key, const std::string& token, unsigned lease_ms) override {
    std::string k = key + kClaimSuffix, ms = std::to_string(lease_ms);
    Reply r = command("SET NX", [&](redisContext* c) {
      return redisCommand(c, "SET %b %b NX PX %b", k.data(), k.size(), token.data(), token.size(), ms.data(),
                          ms.size());
    });
    return r->type == REDIS_REPLY_NIL ? Claim::kTheirs : Claim::kOurs;
  }

  bool renew(const std::string& key, const std::string& token, unsigned lease_ms) override {
    return if_ours(key, token, "redis.call('PEXPIRE', KEYS[1], ARGV[2])", std::to_string(lease_ms));
  }

  void release(const std::string& key, const std::string& token) override {
    if_ours(key, token, "redis.call('DEL', KEYS[1])", "0");
  }

  std::optional<std::string> claimant(const std::string& key) override {
    std::string k = key + kClaimSuffix;
    Reply r = command("GET", [&](redisContext* c) { return redisCommand(c, "GET %b", k.data(), k.size()); });
    if (r->type != REDIS_REPLY_STRING) return std::nullopt;
    return std::string(r->str, r->len);
  }

 private:
  // Runs one command on the connection (made at the first one); a reply that is an error
  // (OOM when the server is full, NOAUTH, ...) is a StoreError.
  template <typename Call>
  Reply command(const char* what, Call call) {
    connect();
    Reply r(static_cast<redisReply*>(call(c_.get())));
    if (!r) {
      std::string why = c_->errstr;
      c_.reset();
      throw StoreError(fmt::format("{}: {}", what, why.empty() ? "no reply" : why));
    }
    if (r->type == REDIS_REPLY_ERROR) throw StoreError(fmt::format("{}: {}", what, std::string(r->str, r->len)));
    return r;
  }

  void connect() {
    if (c_) return;
    timeval connect_timeout = to_timeval(where_.connect_timeout_ms);
    std::unique_ptr<redisContext, ContextDeleter> c(
        redisConnectWithTimeout(where_.host.c_str(), where_.port, connect_timeout));
    if (!c) throw StoreError("cannot allocate a redis context");
    if (c->err) throw StoreError(fmt::format("cannot connect to {}:{}: {}", where_.host, where_.port, c->errstr));
    if (redisSetTimeout(c.get(), to_timeval(where_.timeout_ms)) != REDIS_OK)
      throw StoreError(fmt::format("cannot set a timeout: {}", c->errstr));
    c_ = std::move(c);
    // The password is never in the URL (which the build records): the environment gives it.
    if (const char* p = std::getenv("SKB_REDIS_PASSWORD"); p && *p) where_.password = p;
    if (!where_.password.empty()) {
      if (where_.user.empty()) {
        command("AUTH", [&](redisContext* ctx) {
          return redisCommand(ctx, "AUTH %b", where_.password.data(), where_.password.size());
        });
      } else {
        command("AUTH", [&](redisContext* ctx) {
          return redisCommand(ctx, "AUTH %b %b", where_.user.data(), where_.user.size(), where_.password.data(),
                              where_.password.size());
        });
      }
    }
    if (where_.path.size() > 1) {
      std::string db = where_.path.substr(1);
      command("SELECT", [&](redisContext* ctx) { return redisCommand(ctx, "SELECT %b", db.data(), db.size()); });
    }
  }

  // Runs `action` on the claim key when it holds token, in one script (atomic on the server).
  bool if_ours(const std::string& key, const std::string& token, const std::string& action, const std::string& arg) {
    std::string script = "if redis.call('GET', KEYS[1]) == ARGV[1] then " + action + " return 1 end return 0";
    std::string k = key + kClaimSuffix;
    Reply r = command("EVAL", [&](redisContext* c) {
      return redisCommand(c, "EVAL %b 1 %b %b %b", script.data(), script.size(), k.data(), k.size(), token.data(),
                          token.size(), arg.data(), arg.size());
    });
    return r->type == REDIS_REPLY_INTEGER && r->integer == 1;
  }

  static constexpr const char* kClaimSuffix = ".claim";
  Location where_;
  std::unique_ptr<redisContext, ContextDeleter> c_;
};

}  // namespace

std::unique_ptr<Store> open_redis_store(const Location& where) { return std::make_unique<RedisStore>(where); }

}  // namespace skb::store
