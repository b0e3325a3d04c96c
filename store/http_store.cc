// The HTTP store: GET and PUT of <prefix>/<key>, as bazel-remote, nginx's WebDAV module and
// object stores' HTTP faces serve them, with libcurl. 404 is a miss; any other failure is a
// StoreError. The server replaces a PUT's object at once (nginx writes a temp file and
// renames it), so readers never see a mix of two writers' entries.
#include <curl/curl.h>

#include <fmt/format.h>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>

#include "store/store.h"

namespace skb::store {

namespace {

struct EasyDeleter {
  void operator()(CURL* c) const { curl_easy_cleanup(c); }
};

constexpr std::size_t kMaxEntry = std::size_t(1) << 30;

std::size_t on_body(char* data, std::size_t size, std::size_t n, void* user) {
  auto* body = static_cast<std::string*>(user);
  if (body->size() + size * n > kMaxEntry) return 0;  // aborts the transfer
  body->append(data, size * n);
  return size * n;
}

struct Upload {
  const std::string* data;
  std::size_t at = 0;
};

std::size_t on_upload(char* buffer, std::size_t size, std::size_t n, void* user) {
  auto* up = static_cast<Upload*>(user);
  std::size_t len = std::min(size * n, up->data->size() - up->at);
  std::memcpy(buffer, up->data->data() + up->at, len);
  up->at += len;
  return len;
}

class HttpStore : public Store {
 public:
  explicit HttpStore(const Location& where) : where_(where) {
    static std::once_flag once;
    std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
    base_ = fmt::format("{}://{}{}{}", where.scheme, where.host, where.port ? fmt::format(":{}", where.port) : "",
                        where.path == "/" ? "" : where.path);
    easy_.reset(curl_easy_init());
    if (!easy_) throw StoreError("cannot start libcurl");
  }

  std::optional<std::string> get(const std::string& key) override {
    std::string body;
    setup(key);
    curl_easy_setopt(easy_.get(), CURLOPT_HTTPGET, 1L);
    curl_easy_setopt(easy_.get(), CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(easy_.get(), CURLOPT_WRITEDATA, &body);
    long status = perform("GET", key);
    if (status == 404) return std::nullopt;
    if (status != 200) throw StoreError(fmt::format("GET {}/{}: HTTP {}", where_.display, key, status));
    return body;
  }

  void put(const std::string& key, const std::string& value) override {
    std::string ignored;
    Upload up{&value};
    setup(key);
    curl_easy_setopt(easy_.get(), CURLOPT_UPLOAD, 1L);
    curl_easy_setopt(easy_.get(), CURLOPT_READFUNCTION, on_upload);
    curl_easy_setopt(easy_.get(), CURLOPT_READDATA, &up);
    curl_easy_setopt(easy_.get(), CURLOPT_INFILESIZE_LARGE, static_cast<curl_off_t>(value.size()));
    curl_easy_setopt(easy_.get(), CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(easy_.get(), CURLOPT_WRITEDATA, &ignored);
    long status = perform("PUT", key);
    if (status < 200 || status > 299) throw StoreError(fmt::format("PUT {}/{}: HTTP {}", where_.display, key, status));
  }

 private:
  void setup(const std::string& key) {
    CURL* c = easy_.get();
    curl_easy_reset(c);
    std::string url = base_ + "/" + key;
    curl_easy_setopt(c, CURLOPT_URL, url.c_str());
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(where_.connect_timeout_ms));
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, static_cast<long>(where_.timeout_ms));
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, error_);
    // Credentials come from a netrc file (SKB_NETRC, else ~/.netrc), never from the URL, which
    // the build records.
    curl_easy_setopt(c, CURLOPT_NETRC, static_cast<long>(CURL_NETRC_OPTIONAL));
    if (const char* netrc = std::getenv("SKB_NETRC"); netrc && *netrc) curl_easy_setopt(c, CURLOPT_NETRC_FILE, netrc);
    if (!where_.user.empty()) curl_easy_setopt(c, CURLOPT_USERNAME, where_.user.c_str());
    error_[0] = '\0';
  }

  long perform(const char* method, const std::string& key) {
    CURLcode rc = curl_easy_perform(easy_.get());
    if (rc != CURLE_OK)
      throw StoreError(
          fmt::format("{} {}/{}: {}", method, where_.display, key, error_[0] ? error_ : curl_easy_strerror(rc)));
    long status = 0;
    curl_easy_getinfo(easy_.get(), CURLINFO_RESPONSE_CODE, &status);
    return status;
  }

  Location where_;
  std::string base_;
  std::unique_ptr<CURL, EasyDeleter> easy_;
  char error_[CURL_ERROR_SIZE] = {};
};

}  // namespace

std::unique_ptr<Store> open_http_store(const Location& where) { return std::make_unique<HttpStore>(where); }

}  // namespace skb::store
