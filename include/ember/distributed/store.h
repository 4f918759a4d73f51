// Key-value stores for rendezvous, as torch.distributed's: every rank of a job reaches the same
// store, publishes its address under a key and waits for the others' keys. TCPStore serves the
// keys from the master rank's process over TCP; PrefixStore gives one process group its own key
// space in a shared store.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ember/core/macros.h"
#include "ember/distributed/errors.h"

namespace ember {
namespace distributed {

/// The store timeout when none is given (Python's default_pg_timeout for a TCPStore: 300 s).
constexpr std::chrono::milliseconds kDefaultStoreTimeout = std::chrono::seconds(300);

class EMBER_API Store {
 public:
  explicit Store(std::chrono::milliseconds timeout = kDefaultStoreTimeout) : timeout_(timeout) {}
  virtual ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  virtual void set(const std::string& key, const std::vector<uint8_t>& value) = 0;
  void set(const std::string& key, const std::string& value);
  /// The value of `key`, waiting for it up to timeout(): DistStoreError when it does not appear.
  virtual std::vector<uint8_t> get(const std::string& key) = 0;
  /// Adds `amount` to the integer under `key` (0 when absent) and returns the new value.
  virtual int64_t add(const std::string& key, int64_t amount) = 0;
  /// Whether every key exists now (no waiting).
  virtual bool check(const std::vector<std::string>& keys) = 0;
  /// Removes `key`; false when it was not there.
  virtual bool delete_key(const std::string& key) = 0;
  virtual int64_t num_keys() = 0;
  /// Waits until every key exists: DistStoreError naming the missing keys after `timeout`.
  virtual void wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout);
  void wait(const std::vector<std::string>& keys) { wait(keys, timeout_); }

  std::chrono::milliseconds timeout() const { return timeout_; }
  void set_timeout(std::chrono::milliseconds timeout) { timeout_ = timeout; }

 private:
  std::chrono::milliseconds timeout_;
};

/// A store served over TCP by the master (is_master) to every rank, Python's
/// TCPStore(host_name, port, world_size, is_master, timeout, wait_for_workers). Port 0 on the
/// master takes a free port; port() says which. With wait_for_workers and a world_size, the
/// master's constructor returns once world_size clients (itself included) have connected.
class EMBER_API TCPStore : public Store {
 public:
  TCPStore(std::string host_name, uint16_t port, std::optional<int> world_size = std::nullopt,
           bool is_master = false, std::chrono::milliseconds timeout = kDefaultStoreTimeout,
           bool wait_for_workers = true);
  ~TCPStore() override;

  void set(const std::string& key, const std::vector<uint8_t>& value) override;
  using Store::set;
  std::vector<uint8_t> get(const std::string& key) override;
  int64_t add(const std::string& key, int64_t amount) override;
  bool check(const std::vector<std::string>& keys) override;
  bool delete_key(const std::string& key) override;
  int64_t num_keys() override;

  const std::string& host() const { return host_; }
  uint16_t port() const { return port_; }

 private:
  struct Server;
  struct Client;
  std::string host_;
  uint16_t port_;
  std::unique_ptr<Server> server_;  // on the master only
  std::unique_ptr<Client> client_;
};

/// Prepends "<prefix>/" to every key of another store (Python's PrefixStore).
class EMBER_API PrefixStore : public Store {
 public:
  PrefixStore(std::string prefix, std::shared_ptr<Store> store);

  void set(const std::string& key, const std::vector<uint8_t>& value) override;
  using Store::set;
  std::vector<uint8_t> get(const std::string& key) override;
  int64_t add(const std::string& key, int64_t amount) override;
  bool check(const std::vector<std::string>& keys) override;
  bool delete_key(const std::string& key) override;
  int64_t num_keys() override;
  void wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) override;
  using Store::wait;

  const std::shared_ptr<Store>& underlying_store() const { return store_; }

 private:
  std::string prefixed(const std::string& key) const { return prefix_ + "/" + key; }
  std::string prefix_;
  std::shared_ptr<Store> store_;
};

}  // namespace distributed
}  // namespace ember
