// TCPStore: the master runs a small key-value server on a thread of its own; every rank, the
// master included, talks to it through one client connection.
//
// Wire format (both directions little-endian, as every x86-64 and arm64 host): a request is one
// command byte and its arguments, strings and values as u32 length + bytes; the server answers
// each request before reading the next. Waiting for keys is the client's: it polls `check` with
// a growing pause (1 to 20 ms), which keeps the server free of parked requests; rendezvous is
// the only waiter and happens once per group.
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <climits>
#include <cstring>
#include <mutex>
#include <thread>
#include <unordered_map>

#include <fmt/format.h>

#include "ember/distributed/store.h"
#include "src/distributed/socket.h"

namespace ember {
namespace distributed {

namespace {

enum class Command : uint8_t { Set = 1, Get = 2, Add = 3, Check = 4, Delete = 5, NumKeys = 6 };

// Bounds on what a request may ask the server to allocate: a hostile or corrupt client cannot
// make it reserve gigabytes.
constexpr uint32_t kMaxKeyBytes = 64 * 1024;
constexpr uint32_t kMaxValueBytes = 256u * 1024 * 1024;
constexpr uint32_t kMaxKeysPerCheck = 1 << 16;
// How long a request may take to arrive in full once its first byte has: a client that stalls
// mid-request is dropped instead of blocking the others.
constexpr auto kRequestTimeout = std::chrono::seconds(10);

const char* const kWorkersKey = "__ember_tcpstore/workers";
// add()'s answer when the key holds no integer (or the sum overflows).
constexpr int64_t kAddError = INT64_MIN;

void put_u32(std::string& out, uint32_t v) { out.append(reinterpret_cast<const char*>(&v), 4); }
void put_i64(std::string& out, int64_t v) { out.append(reinterpret_cast<const char*>(&v), 8); }
void put_bytes(std::string& out, const void* p, size_t n) {
  put_u32(out, static_cast<uint32_t>(n));
  out.append(static_cast<const char*>(p), n);
}
void put_str(std::string& out, const std::string& s) { put_bytes(out, s.data(), s.size()); }

void check_key(const std::string& key) {
  if (key.size() > kMaxKeyBytes)
    throw DistStoreError(fmt::format("TCPStore: key of {} bytes is longer than the limit ({})",
                                     key.size(), kMaxKeyBytes));
}

}  // namespace

// ---- The server (master only) ----

struct TCPStore::Server {
  net::Socket listener;
  int wake_pipe[2] = {-1, -1};
  std::thread acceptor;
  // One thread per client: a client that stalls mid-request, or stops reading its answer,
  // holds up only its own thread.
  std::mutex clients_mutex;
  std::vector<std::thread> client_threads;
  std::mutex data_mutex;
  std::unordered_map<std::string, std::vector<uint8_t>> data;

  explicit Server(net::Socket l) : listener(std::move(l)) {
    if (::pipe2(wake_pipe, O_CLOEXEC) != 0)
      throw DistNetworkError(fmt::format("TCPStore: pipe failed: {}", std::strerror(errno)));
    acceptor = std::thread([this] { accept_loop(); });
  }
  ~Server() {
    // The byte stays in the pipe, so every thread polling its read end wakes and ends.
    char c = 0;
    if (::write(wake_pipe[1], &c, 1) < 0) {
      // Nothing else can stop the threads; the write to a fresh pipe does not fail.
    }
    if (acceptor.joinable()) acceptor.join();
    for (auto& t : client_threads)
      if (t.joinable()) t.join();
    ::close(wake_pipe[0]);
    ::close(wake_pipe[1]);
  }

  // Waits until `fd` has something to read (or is closed): false when the server is stopping.
  bool readable_or_stopping(int fd) const {
    for (;;) {
      pollfd fds[2] = {{wake_pipe[0], POLLIN, 0}, {fd, POLLIN, 0}};
      if (::poll(fds, 2, -1) < 0) {
        if (errno == EINTR) continue;
        return false;
      }
      if (fds[0].revents) return false;
      if (fds[1].revents & (POLLIN | POLLHUP | POLLERR)) return true;
    }
  }

  void accept_loop() {
    while (readable_or_stopping(listener.fd())) {
      int fd = ::accept4(listener.fd(), nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) continue;
      std::lock_guard<std::mutex> lock(clients_mutex);
      client_threads.emplace_back([this, fd] { client_loop(net::Socket(fd)); });
    }
  }

  void client_loop(net::Socket client) {
    while (readable_or_stopping(client.fd())) {
      try {
        if (!serve_one(client.fd())) return;  // closed, or not a client of ours
      } catch (const std::exception&) {
        return;  // malformed or stalled: drop this client only
      }
    }
  }

  // Reads one request and answers it; false when the client is gone.
  bool serve_one(int fd) {
    const auto deadline = net::Clock::now() + kRequestTimeout;
    const char* what = "TCPStore server";
    uint8_t cmd = 0;
    if (!net::recv_all(fd, &cmd, 1, deadline, what)) return false;
    auto read_u32 = [&] {
      uint32_t v = 0;
      if (!net::recv_all(fd, &v, 4, deadline, what)) throw DistStoreError("truncated request");
      return v;
    };
    auto read_bytes = [&](uint32_t limit) {
      uint32_t n = read_u32();
      if (n > limit) throw DistStoreError("oversized request");
      std::vector<uint8_t> v(n);
      if (n && !net::recv_all(fd, v.data(), n, deadline, what))
        throw DistStoreError("truncated request");
      return v;
    };
    auto read_key = [&] {
      auto b = read_bytes(kMaxKeyBytes);
      return std::string(b.begin(), b.end());
    };
    std::string reply;
    // Each request's arguments are read in full before the map (shared by the client threads)
    // is locked, so a client that stalls mid-request never holds the lock.
    switch (static_cast<Command>(cmd)) {
      case Command::Set: {
        std::string key = read_key();
        std::vector<uint8_t> value = read_bytes(kMaxValueBytes);
        std::lock_guard<std::mutex> lock(data_mutex);
        data[key] = std::move(value);
        reply.push_back(1);
        break;
      }
      case Command::Get: {
        std::string key = read_key();
        std::lock_guard<std::mutex> lock(data_mutex);
        auto it = data.find(key);
        reply.push_back(it != data.end() ? 1 : 0);
        if (it != data.end()) put_bytes(reply, it->second.data(), it->second.size());
        break;
      }
      case Command::Add: {
        std::string key = read_key();
        int64_t amount = 0;
        if (!net::recv_all(fd, &amount, 8, deadline, what)) return false;
        std::lock_guard<std::mutex> lock(data_mutex);
        auto& v = data[key];
        // Stored as decimal text, as Python's store does, so get() of a counter reads "3". A
        // value that is not a number (or would overflow) answers the sentinel the client turns
        // into an error, and keeps the connection.
        int64_t now = 0;
        bool ok = true;
        try {
          now = v.empty() ? 0 : std::stoll(std::string(v.begin(), v.end()));
        } catch (const std::exception&) {
          ok = false;
        }
        if (!ok || __builtin_add_overflow(now, amount, &now)) {
          put_i64(reply, kAddError);
          break;
        }
        std::string text = std::to_string(now);
        v.assign(text.begin(), text.end());
        put_i64(reply, now);
        break;
      }
      case Command::Check: {
        uint32_t n = read_u32();
        if (n > kMaxKeysPerCheck) return false;
        std::vector<std::string> keys;
        for (uint32_t i = 0; i < n; ++i) keys.push_back(read_key());
        std::lock_guard<std::mutex> lock(data_mutex);
        bool all = true;
        for (const auto& k : keys) all = all && data.count(k) != 0;
        reply.push_back(all ? 1 : 0);
        break;
      }
      case Command::Delete: {
        std::string key = read_key();
        std::lock_guard<std::mutex> lock(data_mutex);
        reply.push_back(data.erase(key) ? 1 : 0);
        break;
      }
      case Command::NumKeys: {
        std::lock_guard<std::mutex> lock(data_mutex);
        put_i64(reply, static_cast<int64_t>(data.size()));
        break;
      }
      default:
        return false;  // not a client of ours
    }
    // An answer the client stops reading fails after this long instead of blocking forever;
    // a large one read slowly but steadily goes through.
    net::send_all_unless_stalled(fd, reply.data(), reply.size(), kRequestTimeout, what);
    return true;
  }
};

// ---- The client (every rank) ----

struct TCPStore::Client {
  net::Socket socket;
  std::mutex mutex;  // one request at a time on the connection
  std::chrono::milliseconds timeout;

  // Sends a request and reads `n` reply bytes into `out`. After any failure the connection
  // is closed for good: a reply cut short would otherwise be read as the next request's.
  void round_trip(const std::string& request, void* out, size_t n) {
    if (!socket.valid())
      throw DistStoreError(
          "TCPStore: the connection to the master was lost after an earlier error");
    try {
      const auto deadline = net::Clock::now() + timeout;
      net::send_all(socket.fd(), request.data(), request.size(), deadline, "TCPStore");
      if (!net::recv_all(socket.fd(), out, n, deadline, "TCPStore"))
        throw DistStoreError(
            "TCPStore: the master closed the connection (has rank 0 exited or failed?)");
    } catch (...) {
      socket.reset();
      throw;
    }
  }
};

TCPStore::TCPStore(std::string host_name, uint16_t port, std::optional<int> world_size,
                   bool is_master, std::chrono::milliseconds timeout, bool wait_for_workers)
    : Store(timeout), host_(std::move(host_name)), port_(port) {
  if (world_size && *world_size < 1)
    throw ValueError(fmt::format("TCPStore: world_size must be at least 1, got {}", *world_size));
  if (is_master) server_ = std::make_unique<Server>(net::listen_on(host_, port, &port_));
  client_ = std::make_unique<Client>();
  client_->timeout = timeout;
  client_->socket = net::connect_to(host_, port_, timeout);
  if (world_size && wait_for_workers) {
    add(kWorkersKey, 1);
    if (is_master) {
      const auto deadline = net::Clock::now() + timeout;
      auto pause = std::chrono::milliseconds(1);
      int64_t joined = 0;
      while ((joined = add(kWorkersKey, 0)) < *world_size) {
        if (net::Clock::now() > deadline)
          throw DistStoreError(
              fmt::format("TCPStore: only {} of {} workers connected to {}:{} within {} ms", joined,
                          *world_size, host_, port_, timeout.count()));
        std::this_thread::sleep_for(pause);
        pause = std::min(pause * 2, std::chrono::milliseconds(20));
      }
    }
  }
}

TCPStore::~TCPStore() {
  client_.reset();
  server_.reset();
}

void TCPStore::set(const std::string& key, const std::vector<uint8_t>& value) {
  check_key(key);
  if (value.size() > kMaxValueBytes)
    throw DistStoreError(fmt::format("TCPStore: value of {} bytes for '{}' is over the limit ({})",
                                     value.size(), key, kMaxValueBytes));
  std::string req(1, static_cast<char>(Command::Set));
  put_str(req, key);
  put_bytes(req, value.data(), value.size());
  std::lock_guard<std::mutex> lock(client_->mutex);
  uint8_t ok = 0;
  client_->round_trip(req, &ok, 1);
}

std::vector<uint8_t> TCPStore::get(const std::string& key) {
  check_key(key);
  wait({key});
  std::string req(1, static_cast<char>(Command::Get));
  put_str(req, key);
  std::lock_guard<std::mutex> lock(client_->mutex);
  uint8_t found = 0;
  client_->round_trip(req, &found, 1);
  if (!found) throw DistStoreError(fmt::format("TCPStore: key '{}' was deleted while read", key));
  uint32_t n = 0;
  client_->round_trip("", &n, 4);
  if (n > kMaxValueBytes) throw DistStoreError("TCPStore: the master sent an oversized value");
  std::vector<uint8_t> value(n);
  if (n) client_->round_trip("", value.data(), n);
  return value;
}

int64_t TCPStore::add(const std::string& key, int64_t amount) {
  check_key(key);
  std::string req(1, static_cast<char>(Command::Add));
  put_str(req, key);
  put_i64(req, amount);
  std::lock_guard<std::mutex> lock(client_->mutex);
  int64_t now = 0;
  client_->round_trip(req, &now, 8);
  if (now == kAddError)
    throw DistStoreError(fmt::format(
        "TCPStore: add('{}', {}): the key holds a value that is not an integer, or the sum "
        "overflows",
        key, amount));
  return now;
}

bool TCPStore::check(const std::vector<std::string>& keys) {
  std::string req(1, static_cast<char>(Command::Check));
  put_u32(req, static_cast<uint32_t>(keys.size()));
  for (const auto& k : keys) {
    check_key(k);
    put_str(req, k);
  }
  std::lock_guard<std::mutex> lock(client_->mutex);
  uint8_t all = 0;
  client_->round_trip(req, &all, 1);
  return all != 0;
}

bool TCPStore::delete_key(const std::string& key) {
  check_key(key);
  std::string req(1, static_cast<char>(Command::Delete));
  put_str(req, key);
  std::lock_guard<std::mutex> lock(client_->mutex);
  uint8_t deleted = 0;
  client_->round_trip(req, &deleted, 1);
  return deleted != 0;
}

int64_t TCPStore::num_keys() {
  std::string req(1, static_cast<char>(Command::NumKeys));
  std::lock_guard<std::mutex> lock(client_->mutex);
  int64_t n = 0;
  client_->round_trip(req, &n, 8);
  return n;
}

}  // namespace distributed
}  // namespace ember
