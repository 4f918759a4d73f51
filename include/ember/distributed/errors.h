// The errors of ember::distributed, named as Python's torch.distributed ones. All are
// ember::Error, so a program that catches ember::Error catches these too.
#pragma once

#include "ember/core/error.h"

namespace ember {
namespace distributed {

/// Any failure of a process group, a store or a collective (torch.distributed.DistError).
class EMBER_API DistError : public Error {
 public:
  using Error::Error;
};
/// A collective failed in the backend: a peer closed its connection, or it timed out
/// (torch.distributed.DistBackendError).
class EMBER_API DistBackendError : public DistError {
 public:
  using DistError::DistError;
};
/// A store request failed or timed out (torch.distributed.DistStoreError).
class EMBER_API DistStoreError : public DistError {
 public:
  using DistError::DistError;
};
/// A socket could not be opened, bound or connected (torch.distributed.DistNetworkError).
class EMBER_API DistNetworkError : public DistError {
 public:
  using DistError::DistError;
};

}  // namespace distributed
}  // namespace ember
