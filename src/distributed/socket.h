// Blocking TCP sockets for the store: listen, connect with retries, and whole-message reads and
// writes that give up at a deadline instead of hanging on a dead peer.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include <sys/socket.h>

#include "ember/core/macros.h"

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
  EMBER_API void reset();  // exported, as connect_first, for tests/distributed/store_test.cpp

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
/// One resolved address of a host.
struct Address {
  sockaddr_storage storage{};
  socklen_t length = 0;
};
/// How long each address has to answer alone before the next one is tried beside it.
inline constexpr std::chrono::milliseconds kAddressHeadStart{250};
/// Connects to whichever of `addresses` answers first before `deadline`, RFC 8305's staggered
/// attempts: they start in order, each beside the ones before once those have had
/// kAddressHeadStart (at once when they failed), and an address that refused (its server not up
/// yet) gets another turn after a backoff (5 ms, doubling to 100 ms). An address that drops the
/// handshake (a stale DNS entry, a firewalled interface) then neither takes the whole timeout
/// nor hides a later one that answers. An invalid Socket, with the last failure in *error, when
/// none answered by the deadline.
EMBER_API Socket connect_first(const std::vector<Address>& addresses, Clock::time_point deadline,
                               std::string* error);
/// Connects to host:port (connect_first over its addresses) within `timeout`.
Socket connect_to(const std::string& host, uint16_t port, std::chrono::milliseconds timeout);

/// Writes all `n` bytes before `deadline` (DistNetworkError when the peer is gone, or has not
/// read enough of them by then).
void send_all(int fd, const void* data, size_t n, Clock::time_point deadline, const char* what);
/// Writes all `n` bytes, however long that takes while they keep moving: DistNetworkError when
/// none has moved for `stall_limit` (a peer that stopped reading), or the peer is gone.
void send_all_unless_stalled(int fd, const void* data, size_t n,
                             std::chrono::milliseconds stall_limit, const char* what);
/// Reads exactly `n` bytes before `deadline`: false when the peer closed the connection before
/// the first byte (a clean end), DistNetworkError on a timeout or a connection cut mid-message.
bool recv_all(int fd, void* data, size_t n, Clock::time_point deadline, const char* what);

}  // namespace net
}  // namespace distributed
}  // namespace ember
