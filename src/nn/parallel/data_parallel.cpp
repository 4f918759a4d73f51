// DataParallelImpl: replicas cloned once, given the module's current parameters on each call
// (in place on the module's device, a version-checked copy elsewhere), run on threads; the
// input is split and the outputs joined by differentiable ops, so backward sums the replicas'
// gradients into the module's parameters.
#include "ember/nn/parallel/data_parallel.h"

#include <exception>
#include <ostream>
#include <thread>

#include <fmt/format.h>

#include "ember/autograd/function.h"
#include "ember/autograd/grad_mode.h"
#include "ember/cuda/cuda.h"
#include "ember/nn/modules/container/sequential.h"
#include "ember/nn/utils/stateless.h"
#include "ember/ops/shape.h"

namespace ember {
namespace nn {
namespace parallel {

namespace {

// The module's parameter as a replica on another device sees it: forward hands out the cached
// copy (refreshed by the caller when the parameter's version moved), backward sends the
// gradient back to the parameter's device.
struct BroadcastFromCache : autograd::Function<BroadcastFromCache> {
  static Tensor forward(autograd::AutogradContext* ctx, Tensor param, Tensor cached) {
    ctx->saved_data["device"] = param.device().str();
    return cached.view_as(cached);
  }
  static autograd::variable_list backward(autograd::AutogradContext* ctx,
                                          autograd::variable_list grads) {
    return {grads[0].to(Device(ctx->saved_data["device"].toStringRef())), Tensor()};
  }
};

std::vector<Device> default_devices() {
  std::vector<Device> devices;
  const int64_t n = cuda::is_available() ? cuda::device_count() : 0;
  for (int64_t i = 0; i < n; ++i) devices.emplace_back(kCUDA, static_cast<int8_t>(i));
  if (devices.empty()) devices.emplace_back(kCPU);
  return devices;
}

}  // namespace

namespace detail {
void TensorRouting::throw_mismatch(const std::string& what) {
  throw ValueError(fmt::format(
      "DataParallel: the replicas returned {}; a module must return results of the same shape "
      "of containers on every replica",
      what));
}
}  // namespace detail

struct DataParallelImpl::Replica {
  Device device = kCPU;
  std::shared_ptr<SequentialImpl> module;  // a clone of the wrapper below, on `device`
  struct Cached {
    Tensor copy;
    uint32_t version = 0;
    bool valid = false;
  };
  std::vector<Cached> params;
  int64_t refreshes = 0;
};

DataParallelImpl::DataParallelImpl(AnyModule module, DataParallelOptions options, int)
    : Module("DataParallel"), module_(std::move(module)), options_(std::move(options)) {
  if (module_.is_empty()) throw ValueError("DataParallel: the module is empty");
  if (options_.device_ids().empty()) options_.device_ids(default_devices());
  if (!options_.output_device()) options_.output_device(options_.device_ids()[0]);
  register_module("module", module_.ptr());
  // A one-entry Sequential around the module: cloning it clones the module and keeps a boxed
  // forward for the clone (the module's type is not known here).
  const size_t n = options_.device_ids().size();
  if (n > 1) {
    Sequential wrapper;
    wrapper->push_back(module_);
    for (size_t i = 1; i < n; ++i) {
      auto r = std::make_unique<Replica>();
      r->device = options_.device_ids()[i];
      r->module = std::dynamic_pointer_cast<SequentialImpl>(wrapper->clone(r->device));
      r->params.resize(module_.ptr()->parameters().size());
      replicas_.push_back(std::move(r));
      ++clones_;
    }
  }
}

DataParallelImpl::~DataParallelImpl() = default;

int64_t DataParallelImpl::parameter_refreshes() const {
  int64_t n = 0;
  for (const auto& r : replicas_) n += r->refreshes;
  return n;
}

detail::TensorRouting DataParallelImpl::tensor_routing() const {
  detail::TensorRouting r;
  r.replicas = options_.device_ids().size();
  r.split = [this](const Tensor& t) {
    // One device: the whole tensor, moved (a 0-dimensional one too, as Python's single-device
    // call, which does not split).
    if (options_.device_ids().size() == 1) return std::vector<Tensor>{t.to(device(0))};
    if (t.dim() == 0)
      throw ValueError(
          "DataParallel: a 0-dimensional input tensor cannot be split over the devices");
    std::vector<Tensor> chunks =
        t.chunk(static_cast<int64_t>(options_.device_ids().size()), options_.dim());
    for (size_t i = 0; i < chunks.size(); ++i) chunks[i] = chunks[i].to(device(i));
    return chunks;
  };
  r.join = [this](const std::vector<Tensor>& parts) {
    const Device& out = *options_.output_device();
    size_t undefined = 0;
    for (const Tensor& p : parts) undefined += p.defined() ? 0 : 1;
    if (undefined == parts.size()) return Tensor();  // as Python's gather of None
    if (undefined > 0)
      detail::TensorRouting::throw_mismatch("an undefined tensor where others returned one");
    if (parts.size() == 1) return parts[0].to(out);
    std::vector<Tensor> on_output;
    for (const Tensor& p : parts) on_output.push_back(p.to(out));
    return cat(on_output, options_.dim());
  };
  return r;
}

void DataParallelImpl::run_replicas(size_t used,
                                    const std::function<void(size_t, SequentialImpl*)>& body) {
  // What each replica gets, prepared on this thread (it touches the module's tensors' autograd
  // state, which the replica threads must not do at the same time).
  const auto named_params = module_.ptr()->named_parameters();
  const auto named_buffers = module_.ptr()->named_buffers();
  std::vector<std::vector<std::pair<std::string, Tensor>>> bindings(used);
  for (size_t i = 1; i < used; ++i) {
    Replica& r = *replicas_[i - 1];
    size_t k = 0;
    for (const auto& item : named_params) {
      const Tensor& p = item.value();
      Tensor bound;
      if (p.device() == r.device) {
        bound = p.view_as(p);  // the same memory; backward flows straight into p
      } else {
        auto& c = r.params[k];
        if (!c.valid || c.version != p._version()) {
          NoGradGuard no_grad;
          c.copy = p.detach().to(r.device);
          c.version = p._version();
          c.valid = true;
          ++r.refreshes;
        }
        bound = p.requires_grad() ? BroadcastFromCache::apply(p, c.copy) : c.copy;
      }
      bindings[i].emplace_back("0." + item.key(), bound);
      ++k;
    }
    // Buffers as Python's replicas get them: a copy, so a replica's in-place updates (running
    // statistics) stay its own and only the module's own call updates the module.
    for (const auto& item : named_buffers) {
      NoGradGuard no_grad;
      bindings[i].emplace_back("0." + item.key(), item.value().to(r.device, /*non_blocking=*/false,
                                                                  /*copy=*/true));
    }
  }

  std::vector<std::exception_ptr> errors(used);
  const bool grad_enabled = GradMode::is_enabled();
  std::vector<std::thread> threads;
  try {
    for (size_t i = 1; i < used; ++i) {
      threads.emplace_back([&, i] {
        try {
          AutoGradMode mode(grad_enabled);
          Replica& r = *replicas_[i - 1];
          utils::detail::ReparametrizeGuard guard(*r.module, utils::NamedTensors(bindings[i]),
                                                  utils::FunctionalCallOptions());
          body(i, r.module.get());
        } catch (...) {
          errors[i] = std::current_exception();
        }
      });
    }
    body(0, nullptr);
  } catch (...) {
    errors[0] = std::current_exception();
  }
  for (auto& t : threads) t.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

void DataParallelImpl::pretty_print(std::ostream& stream) const { stream << "DataParallel"; }

}  // namespace parallel
}  // namespace nn
}  // namespace ember
