// CUDA kernels of the fused optimizer updates (the `*_update` rows of op_table_optim.h): the
// functors of kernels/common/optim_functors.h (one header per family), one thread per element, the
// tensor list handed over in the kernel's parameters (multi-tensor: up to kMaxTensors tensors a
// launch, each cut into chunks of kChunk elements, one block per chunk). Numerically the op chain
// on CUDA: nvcc fuses a·b + c where the op chain's one-op kernels do (OptimMath::madd) and nowhere
// else (OptimMath::mul), and the square roots are IEEE (-prec-sqrt, nvcc's default).
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "kernels/common/optim_functors.h"
#include "kernels/common/optim_params.h"
#include "kernels/cuda/context.h"

namespace ember::kernels::cuda {
namespace {

constexpr int kThreads = 256;
constexpr int64_t kChunk = kThreads * 8;
// The launch parameters below stay under CUDA's 4 KiB kernel parameter limit.
constexpr int kMaxTensors = 24;

template <class Params>
struct OptimLaunch {
  Params params;
  OptimTensor tensors[kMaxTensors];
  int64_t first_block[kMaxTensors + 1];  // tensor k's chunks are blocks [first_block[k], [k+1])
  int count;
};
static_assert(sizeof(OptimLaunch<AdamUpdateParams>) <= 4096, "kernel parameters over 4 KiB");

// Element i through variant V (the first one when `variant` is V), else the next variant.
template <int V, class Step>
__device__ void optim_element(const Step& step, int variant, int64_t i) {
  if constexpr (V < Step::kVariants) {
    if (variant != V) {
      optim_element<V + 1>(step, variant, i);
      return;
    }
    OptimScratch<typename Step::M, 1> scratch;
    step.template first<V>(i, 0, scratch);
    if constexpr (Step::kSqrts > 0) {
      scratch.s[0][0] = std::sqrt(scratch.s[0][0]);
      if constexpr (Step::kSqrts > 1) scratch.s[1][0] = std::sqrt(scratch.s[1][0]);
      step.template second<V>(i, 0, scratch);
    }
  }
}

template <template <class> class Step, class T, class Params>
__global__ void __launch_bounds__(kThreads) optim_kernel(const OptimLaunch<Params> launch) {
  const int64_t block = blockIdx.x;
  int k = 0;
  while (k + 1 < launch.count && launch.first_block[k + 1] <= block) ++k;
  const OptimTensor& t = launch.tensors[k];
  const Step<T> step(launch.params, t);
  const int variant = step.variant();
  const int64_t begin = (block - launch.first_block[k]) * kChunk;
  const int64_t end = std::min(begin + kChunk, t.numel);
  for (int64_t i = begin + threadIdx.x; i < end; i += kThreads) optim_element<0>(step, variant, i);
}

template <template <class> class Step, class Params>
void cuda_optim_update(ScalarType dtype, const Params& params) {
  visit_optim_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    OptimLaunch<Params> launch;
    launch.params = params;
    launch.params.list = OptimTensorList{};  // host memory: the tensors travel in `launch`
    launch.count = 0;
    int64_t blocks = 0;
    auto flush = [&] {
      if (launch.count == 0) return;
      launch.first_block[launch.count] = blocks;
      optim_kernel<Step, T, Params>
          <<<static_cast<unsigned>(blocks), kThreads, 0, cuda_detail::current_stream()>>>(launch);
      EMBER_CUDA_CHECK(cudaGetLastError());
      launch.count = 0;
      blocks = 0;
    };
    for (int64_t k = 0; k < params.list.count; ++k) {
      const OptimTensor& t = params.list.tensors[k];
      if (t.numel == 0) continue;
      const int64_t chunks = (t.numel + kChunk - 1) / kChunk;
      if (launch.count == kMaxTensors || blocks + chunks > int64_t{0x7fffffff}) flush();
      launch.tensors[launch.count] = t;
      launch.first_block[launch.count] = blocks;
      blocks += chunks;
      ++launch.count;
    }
    flush();
  });
}

}  // namespace

void cuda_sgd_update(ScalarType dtype, const SgdUpdateParams& p) {
  cuda_optim_update<SgdStep>(dtype, p);
}
void cuda_adam_update(ScalarType dtype, const AdamUpdateParams& p) {
  cuda_optim_update<AdamStep>(dtype, p);
}
void cuda_adagrad_update(ScalarType dtype, const AdagradUpdateParams& p) {
  cuda_optim_update<AdagradStep>(dtype, p);
}
void cuda_rmsprop_update(ScalarType dtype, const RmspropUpdateParams& p) {
  cuda_optim_update<RmspropStep>(dtype, p);
}
void cuda_adamax_update(ScalarType dtype, const AdamaxUpdateParams& p) {
  cuda_optim_update<AdamaxStep>(dtype, p);
}
void cuda_adadelta_update(ScalarType dtype, const AdadeltaUpdateParams& p) {
  cuda_optim_update<AdadeltaStep>(dtype, p);
}
void cuda_nadam_update(ScalarType dtype, const NadamUpdateParams& p) {
  cuda_optim_update<NadamStep>(dtype, p);
}
void cuda_radam_update(ScalarType dtype, const RadamUpdateParams& p) {
  cuda_optim_update<RadamStep>(dtype, p);
}

}  // namespace ember::kernels::cuda
