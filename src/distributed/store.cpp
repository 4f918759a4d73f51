// Store's shared behaviour (waiting by polling check) and PrefixStore.
#include <thread>

#include <fmt/format.h>

#include "ember/distributed/store.h"

namespace ember {
namespace distributed {

Store::~Store() = default;

void Store::set(const std::string& key, const std::string& value) {
  set(key, std::vector<uint8_t>(value.begin(), value.end()));
}

void Store::wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  auto pause = std::chrono::milliseconds(1);
  while (!check(keys)) {
    if (std::chrono::steady_clock::now() >= deadline) {
      std::string missing;
      for (const auto& k : keys) {
        if (check({k})) continue;
        missing += (missing.empty() ? "'" : ", '") + k + "'";
      }
      throw DistStoreError(fmt::format(
          "Store: timed out after {} ms waiting for the key(s) {}. Hint: a rank that should set "
          "them may have failed or not started",
          timeout.count(), missing));
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(20));
  }
}

PrefixStore::PrefixStore(std::string prefix, std::shared_ptr<Store> store)
    : Store(store ? store->timeout() : kDefaultStoreTimeout),
      prefix_(std::move(prefix)),
      store_(std::move(store)) {
  if (!store_) throw ValueError("PrefixStore: the underlying store is null");
}

void PrefixStore::set(const std::string& key, const std::vector<uint8_t>& value) {
  store_->set(prefixed(key), value);
}
std::vector<uint8_t> PrefixStore::get(const std::string& key) {
  store_->wait({prefixed(key)}, timeout());
  return store_->get(prefixed(key));
}
int64_t PrefixStore::add(const std::string& key, int64_t amount) {
  return store_->add(prefixed(key), amount);
}
bool PrefixStore::check(const std::vector<std::string>& keys) {
  std::vector<std::string> p;
  p.reserve(keys.size());
  for (const auto& k : keys) p.push_back(prefixed(k));
  return store_->check(p);
}
bool PrefixStore::delete_key(const std::string& key) { return store_->delete_key(prefixed(key)); }
int64_t PrefixStore::num_keys() { return store_->num_keys(); }
void PrefixStore::wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) {
  std::vector<std::string> p;
  p.reserve(keys.size());
  for (const auto& k : keys) p.push_back(prefixed(k));
  store_->wait(p, timeout);
}

}  // namespace distributed
}  // namespace ember
