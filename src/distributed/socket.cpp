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

// connect() bounded by the deadline: a blocking connect to an address that drops packets (a
// firewalled or mistyped host) waits for the kernel's SYN retries, minutes, whatever the
// store's timeout says. Returns 0 or the errno of the failure.
int connect_before(int fd, const sockaddr* addr, socklen_t len, Clock::time_point deadline) {
  const int flags = fcntl(fd, F_GETFL, 0);
  if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0) return errno;
  int rc = ::connect(fd, addr, len);
  int error = rc == 0 ? 0 : errno;
  while (error == EINPROGRESS || error == EINTR) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return ETIMEDOUT;
    pollfd pfd{fd, POLLOUT, 0};
    rc = ::poll(&pfd, 1, static_cast<int>(std::min<int64_t>(left.count(), 1 << 30)));
    if (rc < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (rc == 0) continue;  // the deadline check above ends the wait
    socklen_t error_len = sizeof(error);
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &error_len) != 0) return errno;
  }
  if (error == 0 && fcntl(fd, F_SETFL, flags) < 0) return errno;  // blocking again
  return error;
}

}  // namespace

namespace {

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

Socket connect_to(const std::string& host, uint16_t port, std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  std::string last_error;
  auto backoff = std::chrono::milliseconds(5);
  for (;;) {
    AddrInfo ai;
    resolve(host, port, ai, "TCPStore");
    for (addrinfo* a = ai.list; a; a = a->ai_next) {
      Socket s(::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol));
      if (!s.valid()) {
        last_error = std::strerror(errno);
        continue;
      }
      const int error = connect_before(s.fd(), a->ai_addr, a->ai_addrlen, deadline);
      if (error == 0) {
        set_no_delay(s.fd());
        return s;
      }
      last_error = std::strerror(error);
    }
    if (Clock::now() + backoff > deadline) break;
    std::this_thread::sleep_for(backoff);
    backoff = std::min(backoff * 2, std::chrono::milliseconds(100));
  }
  throw DistNetworkError(fmt::format(
      "TCPStore: could not connect to the master at {}:{} within {} ms (last error: {}). Hint: "
      "is rank 0 running, with the same MASTER_ADDR and MASTER_PORT?",
      host, port, timeout.count(), last_error));
}

void send_all(int fd, const void* data, size_t n, const char* what) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    ssize_t k = ::send(fd, p, n, MSG_NOSIGNAL);
    if (k < 0) {
      if (errno == EINTR) continue;
      throw DistNetworkError(fmt::format("{}: send failed: {}", what, std::strerror(errno)));
    }
    p += k;
    n -= static_cast<size_t>(k);
  }
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
