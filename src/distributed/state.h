// The process-wide state behind the module-level functions: the default group, its store and
// the count of groups made (which names each new group's keys in the store).
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <string>

#include "ember/distributed/process_group.h"
#include "ember/distributed/store.h"

namespace ember {
namespace distributed {

struct State {
  std::mutex mutex;
  ProcessGroupPtr world;
  std::shared_ptr<Store> store;
  std::string backend;
  std::string gloo_hostname;
  std::chrono::milliseconds timeout = kDefaultPGTimeout;
  int groups_made = 0;

  State() = default;
  State& operator=(State&& other) {  // keeps this object's mutex
    world = std::move(other.world);
    store = std::move(other.store);
    backend = std::move(other.backend);
    gloo_hostname = std::move(other.gloo_hostname);
    timeout = other.timeout;
    groups_made = other.groups_made;
    return *this;
  }
};

State& state();
/// `group`, or the default group when null: DistError naming `op` before init_process_group.
ProcessGroupPtr resolve_group(const ProcessGroupPtr& group, const char* op);

}  // namespace distributed
}  // namespace ember
