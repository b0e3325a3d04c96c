// The redis store: one string value per entry (GET, SET), with hiredis. SET replaces the value
// at once, so readers never see a mix of two writers' entries.
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

  Location where_;
  std::unique_ptr<redisContext, ContextDeleter> c_;
};

}  // namespace

std::unique_ptr<Store> open_redis_store(const Location& where) { return std::make_unique<RedisStore>(where); }

}  // namespace skb::store
