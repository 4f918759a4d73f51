// The store Gloo's rendezvous uses, on top of ours.
#pragma once

#include <gloo/rendezvous/store.h>

#include <memory>
#include <string>
#include <vector>

#include "ember/distributed/store.h"

namespace ember {
namespace distributed {

// Gloo's rendezvous reads and writes our store.
class GlooStore final : public gloo::rendezvous::Store {
 public:
  explicit GlooStore(std::shared_ptr<distributed::Store> store) : store_(std::move(store)) {}
  void set(const std::string& key, const std::vector<char>& data) override {
    store_->set(key, std::vector<uint8_t>(data.begin(), data.end()));
  }
  std::vector<char> get(const std::string& key) override {
    auto v = store_->get(key);
    return std::vector<char>(v.begin(), v.end());
  }
  void wait(const std::vector<std::string>& keys) override { store_->wait(keys); }
  void wait(const std::vector<std::string>& keys, const std::chrono::milliseconds& t) override {
    store_->wait(keys, t);
  }

 private:
  std::shared_ptr<distributed::Store> store_;
};

}  // namespace distributed
}  // namespace ember
