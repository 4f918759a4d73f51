// The fused update path the optimizers share (src/optim/update_common.h): which parameters a
// fused kernel may update, and the test switch.
#include <atomic>

#include "src/ops/op_common.h"
#include "src/optim/update_common.h"

namespace ember::optim::detail {

namespace {
std::atomic<bool> g_fused_updates_enabled{true};
std::atomic<int64_t> g_fused_update_count{0};

// A tensor the kernel may read or write as `numel` dense elements next to the parameter's.
bool fused_update_dense_like(const Tensor& t, const Tensor& p) {
  return t.defined() && t.dtype() == p.dtype() && t.device() == p.device() &&
         t.sizes() == p.sizes() && t.is_contiguous();
}
}  // namespace

void set_fused_updates_enabled(bool enabled) { g_fused_updates_enabled.store(enabled); }
bool fused_updates_enabled() { return g_fused_updates_enabled.load(std::memory_order_relaxed); }
int64_t fused_update_count() { return g_fused_update_count.load(std::memory_order_relaxed); }

OptimTensor* FusedBatch::try_add(const Tensor& p, const Tensor& grad,
                                 std::initializer_list<const Tensor*> state) {
  if (!fused_updates_enabled() || !p.defined() || !is_floating_point(p.dtype()) ||
      !p.is_contiguous() || !fused_update_dense_like(grad, p))
    return nullptr;
  // An inference tensor refuses writes: the op chain raises the error that says so.
  if (p.unsafeGetTensorImpl()->storage()->is_inference()) return nullptr;
  if (entries_.empty()) {
    if (!supports(op_, p.device().type(), p.dtype())) return nullptr;
    device_ = p.device();
    dtype_ = p.dtype();
  } else if (p.device() != device_ || p.dtype() != dtype_) {
    return nullptr;
  }
  OptimTensor e;
  e.param = p.data_ptr();
  e.grad = grad.data_ptr();
  e.numel = p.numel();
  int k = 0;
  for (const Tensor* s : state) {
    if (s) {
      if (!fused_update_dense_like(*s, p) || s->unsafeGetTensorImpl()->storage()->is_inference())
        return nullptr;
      e.state[k] = s->data_ptr();
    }
    ++k;
  }
  // The kernel reads the gradient while it writes the parameter and the state element by
  // element: a gradient sharing their memory is left to the op chain.
  const auto* grad_storage = grad.unsafeGetTensorImpl()->storage().get();
  if (grad_storage == p.unsafeGetTensorImpl()->storage().get()) return nullptr;
  for (const Tensor* s : state)
    if (s && s->unsafeGetTensorImpl()->storage().get() == grad_storage) return nullptr;
  const void* p_storage = p.unsafeGetTensorImpl()->storage().get();
  auto overlaps = [&](const void* st) {
    return written_storages_.count(st) != 0 || read_storages_.count(st) != 0;
  };
  if (overlaps(p_storage) || written_storages_.count(grad_storage) != 0) return nullptr;
  for (const Tensor* s : state)
    if (s && overlaps(s->unsafeGetTensorImpl()->storage().get())) return nullptr;
  written_storages_.insert(p_storage);
  read_storages_.insert(grad_storage);
  written_.push_back(p);
  for (const Tensor* s : state)
    if (s) {
      written_.push_back(*s);
      written_storages_.insert(s->unsafeGetTensorImpl()->storage().get());
    }
  entries_.push_back(e);
  return &entries_.back();
}

void FusedBatch::bump_written() {
  g_fused_update_count.fetch_add(static_cast<int64_t>(entries_.size()), std::memory_order_relaxed);
  for (const Tensor& t : written_) bump_version(t);
}

}  // namespace ember::optim::detail
