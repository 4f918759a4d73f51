// The NCCL backend's entry points in a build without NCCL (no CUDA toolkit, or one without
// nccl.h): the backend is reported unavailable, and asking for it is a clear error.
#include "ember/distributed/process_group.h"
#include "src/distributed/backends.h"

namespace ember {
namespace distributed {

ProcessGroupPtr make_nccl_process_group(std::shared_ptr<Store>, int, int, std::vector<int>,
                                        std::chrono::milliseconds) {
  throw NotImplementedError(
      "ProcessGroupNCCL: the NCCL backend is not available in this build of Ember (built without "
      "CUDA or NCCL); use the gloo backend");
}

bool nccl_compiled() { return false; }

}  // namespace distributed
}  // namespace ember
