// Blocking TCP sockets for the store: listen, connect with retries, and whole-message reads and
// writes that give up at a deadline instead of hanging on a dead peer.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace ember {
namespace distributed {
namespace net {

using Clock = std::chrono::steady_clock;

/// An owned file descriptor, closed on destruction.
class Socket {
 public:
  Socket() = default;
  explicit Socket(int fd) : fd_(fd) {}
  ~Socket() { reset(); }
  Socket(Socket&& other) noexcept : fd_(other.release()) {}
  Socket& operator=(Socket&& other) noexcept;
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;

  int fd() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  int release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }
  void reset();

 private:
  int fd_ = -1;
};

/// Whether `host` names this machine's loopback (localhost, 127.x.y.z, or a name whose every
/// address is a loopback one).
bool is_loopback_host(const std::string& host);
/// Whether `host` resolves to an address this process can bind (Python's check of a hostname
/// for Gloo).
bool can_listen_on(const std::string& host);
/// Listens on host:port (port 0 takes a free one), on the loopback for a loopback host and on
/// every interface otherwise: DistNetworkError naming the address and the system's reason (e.g.
/// the port is in use).
Socket listen_on(const std::string& host, uint16_t port, uint16_t* bound_port);
/// Connects to host:port, retrying while the server is not up yet, until `timeout`.
Socket connect_to(const std::string& host, uint16_t port, std::chrono::milliseconds timeout);

/// Writes all `n` bytes (DistNetworkError when the peer is gone).
void send_all(int fd, const void* data, size_t n, const char* what);
/// Reads exactly `n` bytes before `deadline`: false when the peer closed the connection before
/// the first byte (a clean end), DistNetworkError on a timeout or a connection cut mid-message.
bool recv_all(int fd, void* data, size_t n, Clock::time_point deadline, const char* what);

}  // namespace net
}  // namespace distributed
}  // namespace ember
