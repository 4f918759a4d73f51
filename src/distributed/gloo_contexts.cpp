#include "src/distributed/gloo_contexts.h"

#include <net/if.h>

#include <algorithm>
#include <cstdlib>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gloo/transport/tcp/device.h>

#include "ember/distributed/errors.h"
#include "src/distributed/gloo_store.h"

namespace ember {
namespace distributed {
namespace {

// Python's GLOO_SOCKET_IFNAME: a comma-separated list of interface names (empty ones skipped).
std::vector<std::string> socket_interfaces() {
  std::vector<std::string> names;
  const char* value = std::getenv("GLOO_SOCKET_IFNAME");
  if (!value) return names;
  const std::string list(value);
  size_t start = 0;
  while (start <= list.size()) {
    const size_t end = std::min(list.find(',', start), list.size());
    if (end > start) names.push_back(list.substr(start, end - start));
    start = end + 1;
  }
  return names;
}

}  // namespace

GlooContexts connect_gloo_contexts(const std::shared_ptr<Store>& store, int rank, int size,
                                   std::chrono::milliseconds timeout, const std::string& hostname) {
  const std::vector<std::string> interfaces = socket_interfaces();
  GlooContexts contexts;
  try {
    // Checked here: Gloo's own lookup of a missing interface throws past its getifaddrs()
    // list (a leak), with a message that does not name the variable.
    for (const std::string& name : interfaces)
      if (if_nametoindex(name.c_str()) == 0)
        throw DistBackendError(fmt::format(
            "ProcessGroupGloo: rank {} of {}: the GLOO_SOCKET_IFNAME interface '{}' does not "
            "exist on this machine",
            rank, size, name));
    // One context per interface (the peers connect to its address), as Python's group has one
    // device each; without the variable, one context on `hostname`'s address.
    const size_t count = std::max<size_t>(1, interfaces.size());
    for (size_t i = 0; i < count; ++i) {
      gloo::transport::tcp::attr attr;
      attr.hostname = hostname;
      if (!interfaces.empty()) {
        attr.iface = interfaces[i];
        attr.hostname.clear();
      }
      auto device = gloo::transport::tcp::CreateDevice(attr);
      auto context = std::make_shared<gloo::rendezvous::Context>(rank, size);
      context->setTimeout(timeout);
      GlooStore gloo_store(
          count == 1 ? store
                     : std::make_shared<PrefixStore>("interface" + std::to_string(i), store));
      context->connectFullMesh(gloo_store, device);
      contexts.push_back(std::move(context));
    }
  } catch (const DistStoreError& e) {
    throw DistStoreError(fmt::format(
        "ProcessGroupGloo: rank {} of {} gave up waiting for the other ranks to join: {}", rank,
        size, e.what()));
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    throw DistBackendError(fmt::format(
        "ProcessGroupGloo: rank {} of {} could not connect to its peers ({}): {}", rank, size,
        interfaces.empty()
            ? "address " + hostname
            : fmt::format("GLOO_SOCKET_IFNAME interface(s) '{}'", fmt::join(interfaces, ",")),
        e.what()));
  }
  return contexts;
}

}  // namespace distributed
}  // namespace ember
