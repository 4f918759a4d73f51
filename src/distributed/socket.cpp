#include "src/distributed/socket.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <deque>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "ember/distributed/errors.h"

namespace ember {
namespace distributed {
namespace net {

Socket& Socket::operator=(Socket&& other) noexcept {
  if (this != &other) {
    reset();
    fd_ = other.release();
  }
  return *this;
}

void Socket::reset() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

namespace {

struct AddrInfo {
  addrinfo* list = nullptr;
  ~AddrInfo() {
    if (list) freeaddrinfo(list);
  }
};

void resolve(const std::string& host, uint16_t port, AddrInfo& out, const char* what) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  const std::string service = std::to_string(port);
  int rc = getaddrinfo(host.c_str(), service.c_str(), &hints, &out.list);
  if (rc != 0)
    throw DistNetworkError(
        fmt::format("{}: cannot resolve host '{}': {}", what, host, gai_strerror(rc)));
}

void set_no_delay(int fd) {
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

uint16_t local_port(int fd) {
  sockaddr_storage addr{};
  socklen_t len = sizeof(addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  if (addr.ss_family == AF_INET6) return ntohs(reinterpret_cast<sockaddr_in6*>(&addr)->sin6_port);
  return ntohs(reinterpret_cast<sockaddr_in*>(&addr)->sin_port);
}

bool is_loopback_address(const sockaddr* a) {
  if (a->sa_family == AF_INET)
    return (ntohl(reinterpret_cast<const sockaddr_in*>(a)->sin_addr.s_addr) >> 24) == 127;
  if (a->sa_family != AF_INET6) return false;
  const in6_addr& v6 = reinterpret_cast<const sockaddr_in6*>(a)->sin6_addr;
  if (IN6_IS_ADDR_LOOPBACK(&v6)) return true;
  return IN6_IS_ADDR_V4MAPPED(&v6) && v6.s6_addr[12] == 127;
}

// getaddrinfo without a port; false when the name does not resolve.
bool resolve_any(const std::string& host, AddrInfo& out) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  std::string bare = host;
  if (bare.size() > 2 && bare.front() == '[' && bare.back() == ']')
    bare = bare.substr(1, bare.size() - 2);
  return getaddrinfo(bare.c_str(), nullptr, &hints, &out.list) == 0;
}

}  // namespace

bool is_loopback_host(const std::string& host) {
  if (host == "localhost" || host.rfind("127.", 0) == 0) return true;
  // Any other spelling ([::1], ip6-localhost, localhost.localdomain, ::ffff:127.0.0.1): by what
  // it resolves to, every address a loopback one.
  AddrInfo ai;
  if (!resolve_any(host, ai) || !ai.list) return false;
  for (addrinfo* a = ai.list; a; a = a->ai_next)
    if (!is_loopback_address(a->ai_addr)) return false;
  return true;
}

bool can_listen_on(const std::string& host) {
  AddrInfo ai;
  if (!resolve_any(host, ai)) return false;
  for (addrinfo* a = ai.list; a; a = a->ai_next) {
    Socket s(::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol));
    if (s.valid() && ::bind(s.fd(), a->ai_addr, a->ai_addrlen) == 0) return true;
  }
  return false;
}

Socket listen_on(const std::string& host, uint16_t port, uint16_t* bound_port) {
  // A master named by a loopback address serves this machine only; any other name is
  // listened for on every interface, as Python's TCPStore does, so the workers reach it under
  // whichever address they know the host by (Debian maps the host's own name to 127.0.1.1).
  AddrInfo ai;
  if (is_loopback_host(host)) {
    resolve(host, port, ai, "TCPStore");
  } else {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE;
    const std::string service = std::to_string(port);
    int rc = getaddrinfo(nullptr, service.c_str(), &hints, &ai.list);
    if (rc != 0)
      throw DistNetworkError(
          fmt::format("TCPStore: no wildcard address to listen on: {}", gai_strerror(rc)));
  }
  // IPv6 first, accepting IPv4 too (dual stack); IPv4 alone where IPv6 is off.
  std::vector<addrinfo*> candidates;
  for (addrinfo* a = ai.list; a; a = a->ai_next)
    if (a->ai_family == AF_INET6) candidates.push_back(a);
  for (addrinfo* a = ai.list; a; a = a->ai_next)
    if (a->ai_family != AF_INET6) candidates.push_back(a);
  std::string last_error = "no address";
  for (addrinfo* a : candidates) {
    Socket s(::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol));
    if (!s.valid()) {
      last_error = std::strerror(errno);
      continue;
    }
    // A restarted master may reuse a port whose old connections linger in TIME_WAIT; a port
    // that another process listens on still fails below.
    int one = 1, zero = 0;
    setsockopt(s.fd(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (a->ai_family == AF_INET6)
      setsockopt(s.fd(), IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
    if (::bind(s.fd(), a->ai_addr, a->ai_addrlen) != 0 || ::listen(s.fd(), 128) != 0) {
      last_error = std::strerror(errno);
      continue;
    }
    *bound_port = local_port(s.fd());
    return s;
  }
  throw DistNetworkError(fmt::format(
      "TCPStore: the master cannot listen on {}:{}: {}. Hint: another process may hold the "
      "port; choose a free MASTER_PORT (or port 0 for any free one)",
      host, port, last_error));
}

Socket connect_first(const std::vector<Address>& addresses, Clock::time_point deadline,
                     std::string* error) {
  struct Attempt {
    Socket socket;
    int flags = 0;  // the file status flags before O_NONBLOCK, restored on success
    size_t address = 0;
  };
  struct Turn {
    size_t address;
    Clock::time_point not_before;
  };
  // The addresses waiting for a (new) attempt, in order: all of them at first, then each one
  // whose attempt failed (refused: the server is not up yet), again after a backoff.
  std::deque<Turn> turns;
  for (size_t i = 0; i < addresses.size(); ++i) turns.push_back({i, Clock::time_point::min()});
  std::vector<Attempt> pending;
  auto next_start = Clock::time_point::min();  // when the next turn may start beside pending ones
  auto backoff = std::chrono::milliseconds(5);
  error->clear();  // set by each failure; empty until one
  // A failed attempt hands its turn to the next address at once, and its address gets another
  // turn after the backoff.
  auto failed = [&](size_t address, int code) {
    *error = std::strerror(code);
    next_start = Clock::now();
    turns.push_back({address, Clock::now() + backoff});
    backoff = std::min(backoff * 2, std::chrono::milliseconds(100));
  };
  for (;;) {
    const auto now = Clock::now();
    if (now < deadline && !turns.empty() && now >= turns.front().not_before &&
        (pending.empty() || now >= next_start)) {
      const size_t index = turns.front().address;
      turns.pop_front();
      const Address& a = addresses[index];
      next_start = now + kAddressHeadStart;
      Attempt attempt{Socket(::socket(a.storage.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0)), 0,
                      index};
      const int fd = attempt.socket.fd();
      attempt.flags = fd < 0 ? -1 : fcntl(fd, F_GETFL, 0);
      if (attempt.flags < 0 || fcntl(fd, F_SETFL, attempt.flags | O_NONBLOCK) < 0) {
        *error = std::strerror(errno);  // no socket of this family here: not retried
        next_start = Clock::now();
        continue;
      }
      if (::connect(fd, reinterpret_cast<const sockaddr*>(&a.storage), a.length) == 0) {
        if (fcntl(fd, F_SETFL, attempt.flags) == 0) return std::move(attempt.socket);
        failed(index, errno);
      } else if (errno == EINPROGRESS || errno == EINTR) {
        pending.push_back(std::move(attempt));
      } else {
        failed(index, errno);
      }
      continue;
    }
    if (pending.empty() && turns.empty()) {  // nothing left to try
      if (error->empty()) *error = "no address";
      return Socket();
    }
    // Wait for an attempt to finish, or the next turn, or the deadline; an attempt that has
    // connected by the deadline still counts (the poll comes before the deadline check).
    auto until = deadline;
    if (!turns.empty())
      until =
          std::min(until, std::max(turns.front().not_before, pending.empty() ? now : next_start));
    const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(until - now);
    std::vector<pollfd> fds;
    for (const Attempt& attempt : pending) fds.push_back({attempt.socket.fd(), POLLOUT, 0});
    const int timeout_ms =
        now >= deadline ? 0 : static_cast<int>(std::clamp<int64_t>(wait.count() + 1, 1, 1 << 30));
    if (fds.empty()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(timeout_ms));
    } else if (::poll(fds.data(), fds.size(), timeout_ms) < 0 && errno != EINTR) {
      *error = std::strerror(errno);
      return Socket();
    }
    for (size_t i = fds.size(); i-- > 0;) {
      if (!fds[i].revents) continue;
      int so_error = 0;
      socklen_t len = sizeof(so_error);
      if (getsockopt(fds[i].fd, SOL_SOCKET, SO_ERROR, &so_error, &len) != 0) so_error = errno;
      if (so_error == 0 && fcntl(fds[i].fd, F_SETFL, pending[i].flags) == 0)  // blocking again
        return std::move(pending[i].socket);
      if (so_error == 0) so_error = errno;
      const size_t address = pending[i].address;
      pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(i));
      failed(address, so_error);
    }
    if (Clock::now() >= deadline) {
      // Still waiting on an attempt: it timed out; else the last failure says why.
      if (!pending.empty() || error->empty()) *error = std::strerror(ETIMEDOUT);
      return Socket();
    }
  }
}

Socket connect_to(const std::string& host, uint16_t port, std::chrono::milliseconds timeout) {
  AddrInfo ai;
  resolve(host, port, ai, "TCPStore");
  std::vector<Address> addresses;
  for (addrinfo* a = ai.list; a; a = a->ai_next) {
    Address address;
    if (a->ai_addrlen > sizeof(address.storage)) continue;
    std::memcpy(&address.storage, a->ai_addr, a->ai_addrlen);
    address.length = a->ai_addrlen;
    addresses.push_back(address);
  }
  std::string last_error;
  Socket s = connect_first(addresses, Clock::now() + timeout, &last_error);
  if (!s.valid())
    throw DistNetworkError(fmt::format(
        "TCPStore: could not connect to the master at {}:{} within {} ms (last error: {}). "
        "Hint: is rank 0 running, with the same MASTER_ADDR and MASTER_PORT?",
        host, port, timeout.count(), last_error));
  set_no_delay(s.fd());
  return s;
}

namespace {

// Writes all n bytes, giving up at `deadline`; with a stall limit, each byte that moves pushes
// the deadline to now + that limit.
void send_until(int fd, const void* data, size_t n, Clock::time_point deadline,
                std::chrono::milliseconds stall_limit, const char* what) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    // Never blocking in send(): a peer that stops reading (stalled, or stopped in a debugger)
    // fills the socket buffers, and a blocking send would then wait for it forever.
    ssize_t k = ::send(fd, p, n, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (k >= 0) {
      p += k;
      n -= static_cast<size_t>(k);
      if (k > 0 && stall_limit.count() > 0) deadline = Clock::now() + stall_limit;
      continue;
    }
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK)
      throw DistNetworkError(fmt::format("{}: send failed: {}", what, std::strerror(errno)));
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0)
      throw DistNetworkError(
          fmt::format("{}: timed out sending ({} bytes left): the peer is not reading", what, n));
    pollfd pfd{fd, POLLOUT, 0};
    int rc = ::poll(&pfd, 1, static_cast<int>(std::min<int64_t>(left.count(), 1 << 30)));
    if (rc < 0 && errno != EINTR)
      throw DistNetworkError(fmt::format("{}: poll failed: {}", what, std::strerror(errno)));
  }
}

}  // namespace

void send_all(int fd, const void* data, size_t n, Clock::time_point deadline, const char* what) {
  send_until(fd, data, n, deadline, std::chrono::milliseconds(0), what);
}

void send_all_unless_stalled(int fd, const void* data, size_t n,
                             std::chrono::milliseconds stall_limit, const char* what) {
  send_until(fd, data, n, Clock::now() + stall_limit, stall_limit, what);
}

bool recv_all(int fd, void* data, size_t n, Clock::time_point deadline, const char* what) {
  char* p = static_cast<char*>(data);
  size_t got = 0;
  while (got < n) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0)
      throw DistNetworkError(fmt::format("{}: timed out waiting for a reply", what));
    pollfd pfd{fd, POLLIN, 0};
    int rc = ::poll(&pfd, 1, static_cast<int>(std::min<int64_t>(left.count(), 1 << 30)));
    if (rc < 0 && errno == EINTR) continue;
    if (rc < 0)
      throw DistNetworkError(fmt::format("{}: poll failed: {}", what, std::strerror(errno)));
    if (rc == 0) continue;  // the deadline check above ends the loop
    ssize_t k = ::recv(fd, p + got, n - got, 0);
    if (k < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      throw DistNetworkError(fmt::format("{}: receive failed: {}", what, std::strerror(errno)));
    }
    if (k == 0) {
      if (got == 0) return false;
      throw DistNetworkError(fmt::format("{}: the peer closed the connection mid-message", what));
    }
    got += static_cast<size_t>(k);
  }
  return true;
}

}  // namespace net
}  // namespace distributed
}  // namespace ember
