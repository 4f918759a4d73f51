// Which backends this build of ember_distributed has.
#pragma once

namespace ember {
namespace distributed {

/// True where process_group_nccl.cpp was built (the CUDA toolkit had NCCL).
bool nccl_compiled();

}  // namespace distributed
}  // namespace ember
