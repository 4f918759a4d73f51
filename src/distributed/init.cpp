// The default process group and the groups made from it: init_process_group's rendezvous
// (env:// and tcp://), new_group, destroy_process_group and the rank queries.
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <numeric>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ember/cuda/cuda.h"
#include "ember/distributed/distributed.h"
#include "src/distributed/backends.h"
#include "src/distributed/socket.h"
#include "src/distributed/state.h"

namespace ember {
namespace distributed {

namespace {

// A group this process is not in (Python's GroupMember.NON_GROUP_MEMBER): the module-level
// functions warn and return; its methods refuse.
class NonMemberGroup final : public ProcessGroup {
 public:
  NonMemberGroup(int size, std::vector<int> ranks, std::string backend)
      : ProcessGroup(-1, size, std::move(ranks)), backend_(std::move(backend)) {}
  std::string backend_name() const override { return backend_; }
  WorkPtr allreduce(const Tensor&, ReduceOp) override { return refuse("all_reduce"); }
  WorkPtr broadcast(const Tensor&, int) override { return refuse("broadcast"); }
  WorkPtr reduce(const Tensor&, int, ReduceOp) override { return refuse("reduce"); }
  WorkPtr allgather(const std::vector<Tensor>&, const Tensor&) override {
    return refuse("all_gather");
  }
  WorkPtr allgather_into_tensor(const Tensor&, const Tensor&) override {
    return refuse("all_gather_into_tensor");
  }
  WorkPtr gather(const std::vector<Tensor>&, const Tensor&, int) override {
    return refuse("gather");
  }
  WorkPtr scatter(const Tensor&, const std::vector<Tensor>&, int) override {
    return refuse("scatter");
  }
  WorkPtr reduce_scatter(const Tensor&, const std::vector<Tensor>&, ReduceOp) override {
    return refuse("reduce_scatter");
  }
  WorkPtr alltoall(const std::vector<Tensor>&, const std::vector<Tensor>&) override {
    return refuse("all_to_all");
  }
  WorkPtr barrier() override { return refuse("barrier"); }
  WorkPtr send(const Tensor&, int, int) override { return refuse("send"); }
  WorkPtr recv(const Tensor&, int, int) override { return refuse("recv"); }

 private:
  WorkPtr refuse(const char* op) const {
    throw DistError(fmt::format("{}: this process is not a member of the group (ranks [{}])", op,
                                fmt::join(global_ranks(), ", ")));
  }
  std::string backend_;
};

// The address Gloo listens on for peers (GLOO_SOCKET_IFNAME, read by the Gloo group, overrides
// it): loopback for a job on one machine, else this host's name when it resolves to an address
// this process can listen on, else loopback, as Python falls back to (a job across machines then
// needs GLOO_SOCKET_IFNAME or EMBER_GLOO_HOSTNAME).
std::string gloo_hostname(const std::string& master_host) {
  if (const char* h = std::getenv("EMBER_GLOO_HOSTNAME")) return h;
  if (net::is_loopback_host(master_host)) return "127.0.0.1";
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0) return "127.0.0.1";
  return net::can_listen_on(name) ? name : "127.0.0.1";
}

int env_int(const char* name, const char* what) {
  const char* v = std::getenv(name);
  if (!v || !*v)
    throw ValueError(fmt::format(
        "init_process_group: env:// needs the environment variable {} ({}) or the {} argument",
        name, what, what));
  char* end = nullptr;
  long x = std::strtol(v, &end, 10);
  if (*end != '\0' || x < 0 || x > (1 << 24))
    throw ValueError(fmt::format("init_process_group: {}='{}' is not a valid {}", name, v, what));
  return static_cast<int>(x);
}

void check_backend(const std::string& backend) {
  if (backend == "gloo") return;
  if (backend == "nccl") {
    if (!nccl_compiled())
      throw NotImplementedError(
          "init_process_group: the NCCL backend is not available in this build of Ember (built "
          "without CUDA or NCCL); use \"gloo\" (CPU tensors)");
    if (!cuda::is_available())
      throw DistBackendError(
          "init_process_group: the NCCL backend needs a CUDA device and none is visible; use "
          "\"gloo\" (CPU tensors)");
    return;
  }
  throw ValueError(fmt::format(
      "init_process_group: unknown backend '{}'; expected \"gloo\" or \"nccl\"", backend));
}

// Every rank checks that the others agree on the world size and that no rank joined twice.
void check_rendezvous(Store& store, int world_size, int rank, std::chrono::milliseconds timeout) {
  if (store.add(fmt::format("init/rank_{}", rank), 1) > 1)
    throw DistError(fmt::format(
        "init_process_group: rank {} joined twice; every process needs its own RANK", rank));
  if (rank == 0) store.set("init/world_size", std::to_string(world_size));
  store.wait({"init/world_size"}, timeout);
  auto v = store.get("init/world_size");
  int expected = std::stoi(std::string(v.begin(), v.end()));
  if (expected != world_size)
    throw DistError(
        fmt::format("init_process_group: rank {} was given world_size {} but rank 0 has {}", rank,
                    world_size, expected));
  int64_t joined = store.add("init/joined", 1);
  if (joined > world_size)
    throw DistError(fmt::format(
        "init_process_group: more than world_size = {} ranks joined the store", world_size));
}

ProcessGroupPtr make_group(const std::string& backend, std::shared_ptr<Store> store, int rank,
                           int size, std::vector<int> ranks, std::chrono::milliseconds timeout,
                           const std::string& hostname) {
  if (backend == "nccl")
    return make_nccl_process_group(std::move(store), rank, size, std::move(ranks), timeout);
  return make_gloo_process_group(std::move(store), rank, size, std::move(ranks), timeout, hostname);
}

}  // namespace

State& state() {
  static State s;
  return s;
}

bool is_available() { return true; }
bool is_gloo_available() { return true; }
bool is_nccl_available() { return nccl_compiled(); }

void init_process_group(const std::string& backend, const std::string& init_method, int world_size,
                        int rank, std::chrono::milliseconds timeout) {
  check_backend(backend);
  if (is_initialized())
    throw DistError("init_process_group: the default process group is already initialized");
  std::string host;
  int port = 0;
  if (init_method.rfind("env://", 0) == 0) {
    const char* addr = std::getenv("MASTER_ADDR");
    if (!addr || !*addr)
      throw ValueError(
          "init_process_group: env:// needs the environment variable MASTER_ADDR (rank 0's "
          "address)");
    host = addr;
    port = env_int("MASTER_PORT", "master port");
    if (world_size < 0) world_size = env_int("WORLD_SIZE", "world_size");
    if (rank < 0) rank = env_int("RANK", "rank");
  } else if (init_method.rfind("tcp://", 0) == 0) {
    std::string rest = init_method.substr(6);
    auto colon = rest.rfind(':');
    if (colon == std::string::npos || colon + 1 == rest.size())
      throw ValueError(fmt::format("init_process_group: '{}' has no port; expected tcp://HOST:PORT",
                                   init_method));
    host = rest.substr(0, colon);
    if (host.size() > 2 && host.front() == '[' && host.back() == ']')
      host = host.substr(1, host.size() - 2);
    char* end = nullptr;
    long p = std::strtol(rest.c_str() + colon + 1, &end, 10);
    if (*end != '\0' || p < 0 || p > 65535)
      throw ValueError(fmt::format("init_process_group: '{}' has an invalid port", init_method));
    port = static_cast<int>(p);
    if (world_size < 0 || rank < 0)
      throw ValueError(
          fmt::format("init_process_group: '{}' needs world_size and rank (got {} and {})",
                      init_method, world_size, rank));
  } else {
    throw ValueError(fmt::format(
        "init_process_group: unsupported init_method '{}'; expected env:// or tcp://HOST:PORT",
        init_method));
  }
  if (port > 65535)
    throw ValueError(fmt::format("init_process_group: port {} is out of range", port));
  if (world_size < 1 || rank >= world_size)
    throw ValueError(fmt::format(
        "init_process_group: rank {} is out of range for world_size {} (expected 0 <= rank < "
        "world_size)",
        rank, world_size));
  auto store = std::make_shared<TCPStore>(host, static_cast<uint16_t>(port), world_size, rank == 0,
                                          timeout, /*wait_for_workers=*/false);
  init_process_group(backend, std::move(store), world_size, rank, timeout);
}

void init_process_group(const std::string& backend, std::shared_ptr<Store> store, int world_size,
                        int rank, std::chrono::milliseconds timeout) {
  check_backend(backend);
  if (!store) throw ValueError("init_process_group: the store is null");
  if (world_size < 1 || rank < 0 || rank >= world_size)
    throw ValueError(fmt::format(
        "init_process_group: rank {} is out of range for world_size {} (expected 0 <= rank < "
        "world_size)",
        rank, world_size));
  auto& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (s.world)
    throw DistError("init_process_group: the default process group is already initialized");
  // Gloo's address from the master's (env:// and tcp:// make a TCPStore); another store kind
  // says nothing about the machines: loopback unless EMBER_GLOO_HOSTNAME says otherwise.
  auto* tcp = dynamic_cast<TCPStore*>(store.get());
  const std::string hostname = gloo_hostname(tcp ? tcp->host() : "127.0.0.1");
  check_rendezvous(*store, world_size, rank, timeout);
  std::vector<int> ranks(static_cast<size_t>(world_size));
  std::iota(ranks.begin(), ranks.end(), 0);
  s.world = make_group(backend, std::make_shared<PrefixStore>("default_pg", store), rank,
                       world_size, ranks, timeout, hostname);
  s.gloo_hostname = hostname;
  s.store = std::move(store);
  s.backend = backend;
  s.timeout = timeout;
  s.groups_made = 0;
}

bool is_initialized() {
  auto& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.world != nullptr;
}

void destroy_process_group(const ProcessGroupPtr& group) {
  auto& s = state();
  std::unique_lock<std::mutex> lock(s.mutex);
  if (!s.world) throw DistError("destroy_process_group: no process group is initialized");
  if (group && group != s.world) return;  // a sub-group ends when its last handle goes
  // Destroy outside the lock: the group's thread finishes its queued collectives first.
  ProcessGroupPtr world = std::move(s.world);
  std::shared_ptr<Store> store = std::move(s.store);
  s = State{};
  lock.unlock();
  world.reset();
  store.reset();
}

ProcessGroupPtr group_world() {
  auto& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.world;
}

ProcessGroupPtr resolve_group(const ProcessGroupPtr& group, const char* op) {
  if (group) return group;
  ProcessGroupPtr world = group_world();
  if (!world)
    throw DistError(
        fmt::format("{}: the default process group is not initialized. Hint: call "
                    "ember::distributed::init_process_group first",
                    op));
  return world;
}

bool is_member(const ProcessGroupPtr& group) {
  return resolve_group(group, "is_member")->rank() >= 0;
}

int get_rank(const ProcessGroupPtr& group) { return resolve_group(group, "get_rank")->rank(); }

int get_world_size(const ProcessGroupPtr& group) {
  auto g = resolve_group(group, "get_world_size");
  return g->rank() >= 0 ? g->size() : -1;
}

std::string get_backend(const ProcessGroupPtr& group) {
  return resolve_group(group, "get_backend")->backend_name();
}

int get_group_rank(const ProcessGroupPtr& group, int global_rank) {
  auto g = resolve_group(group, "get_group_rank");
  const auto& ranks = g->global_ranks();
  auto it = std::find(ranks.begin(), ranks.end(), global_rank);
  if (it == ranks.end())
    throw ValueError(fmt::format("get_group_rank: global rank {} is not in the group (ranks [{}])",
                                 global_rank, fmt::join(ranks, ", ")));
  return static_cast<int>(it - ranks.begin());
}

int get_global_rank(const ProcessGroupPtr& group, int group_rank) {
  auto g = resolve_group(group, "get_global_rank");
  const auto& ranks = g->global_ranks();
  if (group_rank < 0 || group_rank >= static_cast<int>(ranks.size()))
    throw ValueError(fmt::format("get_global_rank: group rank {} is out of range for a group of {}",
                                 group_rank, ranks.size()));
  return ranks[static_cast<size_t>(group_rank)];
}

ProcessGroupPtr new_group(const std::vector<int>& ranks_in, std::chrono::milliseconds timeout,
                          const std::string& backend) {
  auto world = resolve_group(nullptr, "new_group");
  auto& s = state();
  std::string be = backend.empty() ? s.backend : backend;
  check_backend(be);
  std::vector<int> ranks = ranks_in;
  if (ranks.empty()) {
    ranks.resize(static_cast<size_t>(world->size()));
    std::iota(ranks.begin(), ranks.end(), 0);
  }
  std::sort(ranks.begin(), ranks.end());
  if (std::adjacent_find(ranks.begin(), ranks.end()) != ranks.end())
    throw ValueError(fmt::format("new_group: ranks [{}] repeat a rank", fmt::join(ranks_in, ", ")));
  for (int r : ranks)
    if (r < 0 || r >= world->size())
      throw ValueError(
          fmt::format("new_group: rank {} is out of range for world_size {}", r, world->size()));
  std::shared_ptr<Store> store;
  std::string hostname;
  int index = 0;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    store = s.store;
    hostname = s.gloo_hostname;
    index = ++s.groups_made;  // the same on every rank: all call new_group in the same order
  }
  const int me = world->rank();
  auto it = std::find(ranks.begin(), ranks.end(), me);
  const int size = static_cast<int>(ranks.size());
  if (it == ranks.end()) return std::make_shared<NonMemberGroup>(size, ranks, be);
  return make_group(be, std::make_shared<PrefixStore>(fmt::format("group_{}", index), store),
                    static_cast<int>(it - ranks.begin()), size, ranks, timeout, hostname);
}

}  // namespace distributed
}  // namespace ember
