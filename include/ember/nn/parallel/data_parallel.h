// DataParallel: one process, several devices (Python's torch.nn.DataParallel; LibTorch's
// torch::nn::parallel::data_parallel). Each call splits the input along `dim` over the devices,
// runs one replica of the module per device on a thread of its own, and concatenates the
// outputs on the output device; backward sums the replicas' gradients into the module's own
// parameters.
//
//   nn::parallel::DataParallel dp(model, nn::parallel::DataParallelOptions()
//                                            .device_ids({ember::Device(ember::kCUDA, 0),
//                                                         ember::Device(ember::kCUDA, 1)}));
//   Tensor y = dp->forward(x);   // x [N, ...] -> N/2 rows on each GPU
//
// Unlike LibTorch's data_parallel, which deep-copies the module on every call (pytorch#40581),
// the module keeps its replicas: they are cloned once, and each call only gives them the
// module's current parameters. A replica on the module's own device reads the parameters in
// place (no copy); one on another device keeps a copy that is refreshed only when the
// parameter's version counter says it changed. The same mechanics run over a list of CPU
// devices (`{kCPU, kCPU}`: two replicas on two threads), which is how they are tested without
// GPUs. Arguments: tensors, also nested in vectors, tuples, pairs and maps, are split; anything
// else is given to every replica. Results: a tensor or such a container of tensors.
#pragma once

#include <algorithm>
#include <functional>
#include <memory>
#include <optional>
#include <tuple>
#include <vector>

#include "ember/core/arg.h"
#include "ember/core/device.h"
#include "ember/nn/module.h"
#include "ember/nn/modules/container/any.h"
#include "ember/nn/modules/container/sequential.h"
#include "ember/nn/parallel/scatter_gather.h"
#include "ember/nn/pimpl.h"

namespace ember {
namespace nn {
namespace parallel {

struct DataParallelOptions {
  /// The devices of the replicas, the first one the module's own (default: every CUDA device,
  /// or the CPU when there is none).
  EMBER_ARG(std::vector<Device>, device_ids);
  /// Where the outputs are concatenated (default: device_ids[0]).
  EMBER_ARG(std::optional<Device>, output_device) = std::nullopt;
  /// The dimension the input is split along and the outputs joined along.
  EMBER_ARG(int64_t, dim) = 0;
};

class EMBER_API DataParallelImpl : public Module {
 public:
  template <typename M>
  explicit DataParallelImpl(M module, DataParallelOptions options = {})
      : DataParallelImpl(AnyModule(std::move(module)), std::move(options), 0) {}
  DataParallelImpl(AnyModule module, DataParallelOptions options, int);
  ~DataParallelImpl() override;

  /// One tensor in, the replicas' outputs joined along dim.
  Tensor forward(const Tensor& input) { return forward<Tensor, Tensor>(input); }
  /// Several arguments, as Python's forward(*inputs): each tensor, also inside a std::vector,
  /// std::tuple, std::pair or string/integer-keyed std::map / std::unordered_map (nested), is
  /// split along dim; any other argument goes to every replica as it is. The result R (a
  /// Tensor or such a container of tensors) is joined the same way, element by element.
  template <typename R = Tensor, typename... Inputs>
  R forward(const Inputs&... inputs) {
    const detail::TensorRouting routing = tensor_routing();
    auto parts = std::make_tuple(detail::ScatterGather<Inputs>::scatter(inputs, routing)...);
    // No arguments: one replica runs (Python's forward() with nothing to scatter).
    const size_t used =
        sizeof...(Inputs) == 0
            ? 1
            : std::apply(
                  [&](const auto&... p) { return detail::fewest({p.size()...}, routing.replicas); },
                  parts);
    std::vector<R> outputs(used);
    run_replicas(used, [&](size_t i, SequentialImpl* replica) {
      std::apply(
          [&](const auto&... p) {
            outputs[i] = replica ? replica->forward<R>(p[i]...) : module_.forward<R>(p[i]...);
          },
          parts);
    });
    return detail::ScatterGather<R>::gather(outputs, routing);
  }

  const std::shared_ptr<Module>& module() const { return module_.ptr(); }
  const DataParallelOptions& options() const { return options_; }
  /// How many parameter copies the replicas on other devices have taken so far (tests).
  int64_t parameter_refreshes() const;
  /// How many times the module was cloned into replicas (once, at construction).
  int64_t clones() const { return clones_; }

  void pretty_print(std::ostream& stream) const override;

 private:
  struct Replica;

  // Runs body(i, replica) for i < used: i = 0 on this thread with the module itself (replica
  // null), the others on threads with their replica bound to the module's current parameters;
  // rethrows the first error.
  void run_replicas(size_t used, const std::function<void(size_t, SequentialImpl*)>& body);
  const Device& device(size_t i) const { return options_.device_ids()[i]; }

  // Tensors split over the devices (chunks along dim) and joined on the output device.
  detail::TensorRouting tensor_routing() const;

  AnyModule module_;
  DataParallelOptions options_;
  std::vector<std::unique_ptr<Replica>> replicas_;  // for device_ids[1..]
  int64_t clones_ = 0;
};

EMBER_MODULE(DataParallel);

/// LibTorch's data_parallel(module, input, devices, output_device, dim): a DataParallel for one
/// call (so, as LibTorch's, it replicates the module on that call).
template <typename M>
Tensor data_parallel(M module, const Tensor& input,
                     std::optional<std::vector<Device>> devices = std::nullopt,
                     std::optional<Device> output_device = std::nullopt, int64_t dim = 0) {
  DataParallelOptions options;
  if (devices) options.device_ids(*devices);
  options.output_device(output_device).dim(dim);
  DataParallelImpl dp(std::move(module), options);
  return dp.forward(input);
}

}  // namespace parallel
}  // namespace nn
}  // namespace ember
