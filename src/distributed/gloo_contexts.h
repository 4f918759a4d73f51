// The Gloo backend's connections: one Gloo context per network interface, each connected to
// every peer (process_group_gloo.cpp runs the collectives on them).
#pragma once

#include <gloo/rendezvous/context.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "ember/distributed/store.h"

namespace ember {
namespace distributed {

using GlooContexts = std::vector<std::shared_ptr<gloo::rendezvous::Context>>;

/// Connects this rank to its peers through `store`: one context per interface of Python's
/// GLOO_SOCKET_IFNAME (a comma-separated list; each context meets its peers under a store prefix
/// of its own when there are several), or one context on `hostname`'s address without it.
/// DistBackendError naming a missing interface or what failed to connect; DistStoreError when
/// the other ranks did not join in time.
GlooContexts connect_gloo_contexts(const std::shared_ptr<Store>& store, int rank, int size,
                                   std::chrono::milliseconds timeout, const std::string& hostname);

}  // namespace distributed
}  // namespace ember
