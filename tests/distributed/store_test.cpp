// TCPStore and PrefixStore in one process: the master and its clients on threads.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <thread>

#include "ember/distributed/store.h"
#include "src/distributed/socket.h"
#include "tests/distributed/harness.h"
#include "tests/support/expect_error.h"

namespace dist_store_test {

using namespace ember::distributed;
using namespace std::chrono_literals;

std::string text(const std::vector<uint8_t>& v) { return std::string(v.begin(), v.end()); }

TEST(TCPStore, SetGetAddCheckDelete) {
  TCPStore master("127.0.0.1", 0, 2, /*is_master=*/true, 10s, /*wait_for_workers=*/false);
  ASSERT_NE(master.port(), 0);
  TCPStore client("127.0.0.1", master.port(), 2, false, 10s, false);
  master.set("a", std::string("hello"));
  EXPECT_EQ(text(client.get("a")), "hello");
  client.set("b", std::vector<uint8_t>{});  // an empty value is a value
  EXPECT_TRUE(master.check({"a", "b"}));
  EXPECT_FALSE(master.check({"a", "c"}));
  EXPECT_EQ(client.add("n", 2), 2);
  EXPECT_EQ(master.add("n", 5), 7);
  EXPECT_EQ(master.add("n", -1), 6);
  EXPECT_EQ(text(client.get("n")), "6");  // counters read as decimal text, as Python's
  EXPECT_TRUE(client.delete_key("a"));
  EXPECT_FALSE(client.delete_key("a"));
  EXPECT_FALSE(master.check({"a"}));
  EXPECT_EQ(master.num_keys(), 2);  // b and n
}

TEST(TCPStore, GetWaitsForAKeySetLater) {
  TCPStore master("127.0.0.1", 0, std::nullopt, true, 10s);
  TCPStore client("127.0.0.1", master.port(), std::nullopt, false, 10s);
  std::thread setter([&] {
    std::this_thread::sleep_for(50ms);
    master.set("late", std::string("x"));
  });
  EXPECT_EQ(text(client.get("late")), "x");
  setter.join();
}

TEST(TCPStore, WaitTimesOutNamingTheMissingKeys) {
  TCPStore master("127.0.0.1", 0, std::nullopt, true, 10s);
  master.set("here", std::string("1"));
  const auto start = std::chrono::steady_clock::now();
  ember_test::expect_error<DistStoreError>(
      [&] {
        master.wait({"here", "missing"}, 200ms);
      },
      {"timed out after 200 ms", "'missing'"});
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
  master.set_timeout(100ms);
  ember_test::expect_error<DistStoreError>([&] { master.get("never"); }, {"'never'"});
}

TEST(TCPStore, MasterWaitsForWorkersAndTimesOut) {
  ember_test::expect_error<DistStoreError>(
      [] { TCPStore master("127.0.0.1", 0, 3, true, 300ms, /*wait_for_workers=*/true); },
      {"only 1 of 3 workers connected"});
}

TEST(TCPStore, PortInUseIsAClearError) {
  TCPStore first("127.0.0.1", 0, std::nullopt, true, 10s);
  ember_test::expect_error<DistNetworkError>(
      [&] { TCPStore second("127.0.0.1", first.port(), std::nullopt, true, 1s); },
      {"cannot listen on 127.0.0.1:" + std::to_string(first.port()), "in use"});
}

TEST(TCPStore, ClientWithoutMasterFailsAtTheTimeout) {
  const int port = dist_test::free_port();
  const auto start = std::chrono::steady_clock::now();
  ember_test::expect_error<DistNetworkError>(
      [&] { TCPStore c("127.0.0.1", static_cast<uint16_t>(port), std::nullopt, false, 300ms); },
      {"could not connect to the master at 127.0.0.1:" + std::to_string(port), "within 300 ms"});
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
}

net::Address loopback_address(int port) {
  net::Address a;
  auto* in = reinterpret_cast<sockaddr_in*>(&a.storage);
  in->sin_family = AF_INET;
  in->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  in->sin_port = htons(static_cast<uint16_t>(port));
  a.length = sizeof(sockaddr_in);
  return a;
}

// A loopback listener whose accept queue is full, so that the kernel drops further SYNs: an
// address that drops the handshake. `dropping` says whether this kernel does drop them (it may
// complete a connect into a full queue instead).
struct BlackHole {
  BlackHole() {
    listener = dist_test::listen_loopback(0, &port);
    if (listener < 0) return;
    address = loopback_address(port);
    for (int i = 0; i < 5; ++i) {
      const int f = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
      if (f < 0) return;
      fillers.push_back(f);
      ::connect(f, reinterpret_cast<const sockaddr*>(&address.storage), address.length);
    }
    pollfd probe{fillers.back(), POLLOUT, 0};  // the last one, past the queue: left hanging?
    dropping = ::poll(&probe, 1, 300) == 0;
  }
  ~BlackHole() {
    for (int f : fillers) ::close(f);
    if (listener >= 0) ::close(listener);
  }
  int listener = -1, port = 0;
  net::Address address;
  std::vector<int> fillers;
  bool dropping = false;
};

// A listener that never accepts, its accept queue full: the kernel drops further SYNs, so a
// blocking connect() would wait for the SYN retries (seconds to minutes), not the timeout.
TEST(TCPStore, ConnectingToAPeerThatDropsTheHandshakeEndsAtTheTimeout) {
  BlackHole black;
  ASSERT_GE(black.listener, 0);
  const auto start = std::chrono::steady_clock::now();
  try {
    // Whatever the kernel does with this connect (the handshake dropped, or completed into
    // the queue with the first request never answered), the client gives up at its timeout.
    TCPStore c("127.0.0.1", static_cast<uint16_t>(black.port), std::nullopt, false, 400ms);
    c.get("k");
    ADD_FAILURE() << "expected the client to give up";
  } catch (const DistError&) {
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, 3s);
}

// A host's first address drops the handshake, the second answers: the connect reaches the second
// soon after the first's head start, not at the timeout.
TEST(TCPStore, AnAddressThatDropsTheHandshakeDoesNotHoldUpTheNext) {
  BlackHole black;
  if (!black.dropping) GTEST_SKIP() << "this kernel completed a connect into a full accept queue";
  int good_port = 0;
  const int good = dist_test::listen_loopback(4, &good_port);
  ASSERT_GE(good, 0);
  std::string error;
  const auto start = std::chrono::steady_clock::now();
  net::Socket s = net::connect_first({black.address, loopback_address(good_port)},
                                     std::chrono::steady_clock::now() + 20s, &error);
  const auto took = std::chrono::steady_clock::now() - start;
  sockaddr_in peer{};
  socklen_t len = sizeof(peer);
  const bool connected =
      s.valid() && ::getpeername(s.fd(), reinterpret_cast<sockaddr*>(&peer), &len) == 0;
  ::close(good);
  ASSERT_TRUE(connected) << error;
  EXPECT_LT(took, 3s);
  EXPECT_EQ(ntohs(peer.sin_port), good_port);
}

// The same, with the second address's server starting only after the connect began (a worker
// up before rank 0): the refused address is tried again while the first still hangs.
TEST(TCPStore, ARefusedAddressIsTriedAgainBesideOneThatHangs) {
  BlackHole black;
  if (!black.dropping) GTEST_SKIP() << "this kernel completed a connect into a full accept queue";
  const int late_port = dist_test::free_port();
  int late = -1;
  std::thread server([&] {
    std::this_thread::sleep_for(600ms);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(static_cast<uint16_t>(late_port));
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd >= 0 && ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 &&
        ::listen(fd, 4) == 0)
      late = fd;
    else if (fd >= 0)
      ::close(fd);
  });
  std::string error;
  const auto start = std::chrono::steady_clock::now();
  net::Socket s = net::connect_first({black.address, loopback_address(late_port)},
                                     std::chrono::steady_clock::now() + 20s, &error);
  const auto took = std::chrono::steady_clock::now() - start;
  server.join();
  if (late >= 0) ::close(late);
  ASSERT_GE(late, 0) << "could not listen on the reserved port " << late_port;
  ASSERT_TRUE(s.valid()) << error;
  EXPECT_LT(took, 4s);
}

// A peer that takes the connection but never reads: once the socket buffers are full a
// blocking send() would wait forever; the client gives up at its timeout.
TEST(TCPStore, SendingToAPeerThatNeverReadsEndsAtTheTimeout) {
  // A listener that never accepts (connects complete into its queue, unread), with a small
  // receive buffer that the queued connection inherits, so that however large this host lets
  // socket buffers grow, the value below cannot fit in them.
  const int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(listener, 0);
  const int small = 4096;
  ::setsockopt(listener, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  ASSERT_EQ(::listen(listener, 4), 0);
  ASSERT_EQ(::getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  const int port = ntohs(addr.sin_port);
  TCPStore c("127.0.0.1", static_cast<uint16_t>(port), std::nullopt, false, 400ms);
  const std::vector<uint8_t> big(64u << 20, 7);  // far more than the socket buffers hold
  const auto start = std::chrono::steady_clock::now();
  ember_test::expect_error<DistNetworkError>([&] { c.set("k", big); },
                                             {"TCPStore: timed out sending", "not reading"});
  EXPECT_LT(std::chrono::steady_clock::now() - start, 3s);
  ::close(listener);
}

// A master named by one of this host's non-loopback addresses listens on every interface (as
// Python's): a worker that knows the host by another address, here the loopback, reaches it.
TEST(TCPStore, AMasterNamedByANetworkAddressListensOnEveryInterface) {
  std::string address;
  ifaddrs* list = nullptr;
  ASSERT_EQ(::getifaddrs(&list), 0);
  for (ifaddrs* a = list; a && address.empty(); a = a->ifa_next) {
    if (!a->ifa_addr || a->ifa_addr->sa_family != AF_INET || (a->ifa_flags & IFF_LOOPBACK) ||
        !(a->ifa_flags & IFF_UP) || !(a->ifa_flags & IFF_RUNNING))
      continue;
    char text_addr[INET_ADDRSTRLEN] = {};
    ::inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(a->ifa_addr)->sin_addr, text_addr,
                sizeof(text_addr));
    address = text_addr;
  }
  ::freeifaddrs(list);
  if (address.empty()) GTEST_SKIP() << "this machine has no non-loopback IPv4 address";
  TCPStore master(address, 0, std::nullopt, true, 10s);
  TCPStore via_loopback("127.0.0.1", master.port(), std::nullopt, false, 2s);
  via_loopback.set("k", std::string("v"));
  EXPECT_EQ(text(master.get("k")), "v");
}

TEST(TCPStore, ClientSeesTheMasterGo) {
  auto master = std::make_unique<TCPStore>("127.0.0.1", 0, std::nullopt, true, 10s);
  TCPStore client("127.0.0.1", master->port(), std::nullopt, false, 2s);
  client.set("k", std::string("v"));
  master.reset();
  ember_test::expect_error<ember::distributed::DistError>([&] { client.add("k2", 1); },
                                                          {"TCPStore"});
}

TEST(TCPStore, AddOnANonIntegerIsAnErrorAndTheConnectionLives) {
  TCPStore master("127.0.0.1", 0, std::nullopt, true, 10s);
  master.set("word", std::string("hello"));
  ember_test::expect_error<DistStoreError>([&] { master.add("word", 1); },
                                           {"add('word', 1)", "not an integer"});
  master.set("big", std::to_string(INT64_MAX));
  ember_test::expect_error<DistStoreError>([&] { master.add("big", 1); }, {"overflows"});
  EXPECT_EQ(master.add("n", 2), 2);  // the same connection still answers
}

TEST(TCPStore, AStalledClientHoldsUpNoOther) {
  TCPStore master("127.0.0.1", 0, std::nullopt, true, 10s);
  // A raw connection that sends the first byte of a request and then nothing.
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(master.port());
  ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  const char set_command = 1;
  ASSERT_EQ(::send(fd, &set_command, 1, 0), 1);
  std::this_thread::sleep_for(20ms);
  TCPStore client("127.0.0.1", master.port(), std::nullopt, false, 10s);
  const auto start = std::chrono::steady_clock::now();
  client.set("k", std::string("v"));
  EXPECT_EQ(text(master.get("k")), "v");
  EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);
  ::close(fd);
}

TEST(TCPStore, RefusesOversizedKeys) {
  TCPStore master("127.0.0.1", 0, std::nullopt, true, 10s);
  ember_test::expect_error<DistStoreError>(
      [&] { master.set(std::string(70000, 'k'), std::string("v")); }, {"longer than the limit"});
}

TEST(PrefixStore, KeysLiveUnderThePrefix) {
  auto master = std::make_shared<TCPStore>("127.0.0.1", 0, std::nullopt, true, 10s);
  PrefixStore a("groupA", master);
  PrefixStore b("groupB", master);
  a.set("k", std::string("1"));
  b.set("k", std::string("2"));
  EXPECT_EQ(text(a.get("k")), "1");
  EXPECT_EQ(text(b.get("k")), "2");
  EXPECT_EQ(text(master->get("groupA/k")), "1");
  EXPECT_EQ(a.add("c", 3), 3);
  EXPECT_TRUE(b.check({"k"}));
  EXPECT_FALSE(b.check({"c"}));
  ember_test::expect_error<ember::ValueError>([] { PrefixStore p("x", nullptr); }, {"null"});
}

}  // namespace dist_store_test
